#include "pcie/pcie_link.hpp"

#include <algorithm>
#include <string>

#include "pcie/tlp.hpp"

namespace rnicsim::pcie {

PcieLink::PcieLink(const sc_core::sc_module_name& name, const PcieConfig& config)
    : sc_core::sc_module(name),
      nic2pcie("nic2pcie"),
      pcie2mem("pcie2mem"),
      host2pcie("host2pcie"),
      pcie2nic("pcie2nic"),
      config_(config),
      upstream_(config.link_gbps(), config.link_latency),
      downstream_(config.link_gbps(), config.link_latency),
      iotlb_(config.iotlb_entries, config.iommu_page_bytes),
      root_complex_("root_complex") {
  nic2pcie.register_nb_transport_fw(this, &PcieLink::nb_transport_fw);
  host2pcie.register_b_transport(this, &PcieLink::host_b_transport);
  SC_METHOD(run_root_complex);
  sensitive << root_complex_.get_event();
  dont_initialize();
}

sc_core::sc_time PcieLink::translated_at(std::uint64_t address, const sc_core::sc_time& arrival) {
  if (!config_.iommu) return arrival;
  return iotlb_.translate(address, arrival, config_.iotlb_miss);
}

void PcieLink::acknowledge(LinkDirection& reverse, std::uint64_t& ack_bytes,
                           std::uint64_t& fc_bytes, std::uint32_t bytes) {
  // Charged when the TLP is sent rather than when it lands, a flight time
  // (plus any queueing on its own direction) later: reservations must be
  // made in time order. Only the DLLPs' share of the wire matters here.
  const sc_core::sc_time now = sc_core::sc_time_stamp();
  ack_bytes += bytes;
  fc_bytes += bytes;
  for (; ack_bytes >= config_.ack_every_bytes; ack_bytes -= config_.ack_every_bytes) {
    reverse.send_dllp(kDllpBytes, now);
  }
  for (; fc_bytes >= config_.fc_update_every_bytes; fc_bytes -= config_.fc_update_every_bytes) {
    reverse.send_dllp(kDllpBytes, now);
  }
}

void PcieLink::schedule(std::unique_ptr<RootComplexEvent> event, const sc_core::sc_time& at) {
  RootComplexEvent& ref = *event;
  scheduled_.emplace(&ref, std::move(event));
  root_complex_.notify(ref, at - sc_core::sc_time_stamp());
}

tlm::tlm_sync_enum PcieLink::nb_transport_fw(tlm::tlm_generic_payload& payload,
                                             tlm::tlm_phase& phase, sc_core::sc_time& delay) {
  if (phase != tlm::BEGIN_REQ || delay != sc_core::SC_ZERO_TIME) {
    SC_REPORT_ERROR(name(), "TLPs must be sent with BEGIN_REQ at the current time");
  }
  const sc_core::sc_time now = sc_core::sc_time_stamp();
  const std::uint64_t address = payload.get_address();
  const std::uint32_t length = payload.get_data_length();
  // A requester that breaks these rules is a model bug, not a link fault.
  const std::uint32_t max_bytes = payload.is_read() ? config_.mrrs_bytes : config_.mps_bytes;
  if (length == 0 || length > max_bytes ||
      address / kAddressBoundaryBytes != (address + length - 1) / kAddressBoundaryBytes ||
      payload.get_byte_enable_ptr() != nullptr || payload.get_streaming_width() < length ||
      !(payload.is_read() || payload.is_write())) {
    SC_REPORT_ERROR(name(), ("malformed TLP at address " + std::to_string(address) +
                             ", length " + std::to_string(length) +
                             ": over MRRS/MPS, across 4 KiB, or with byte enables")
                                .c_str());
  }

  if (payload.is_read()) {
    const std::uint32_t bytes = read_request_wire_bytes(address);
    const LinkDirection::Slot slot = upstream_.send_tlp(bytes, now);
    acknowledge(downstream_, upstream_ack_bytes_, upstream_fc_bytes_, bytes);
    ++stats_.read_requests;
    sc_core::sc_time ready = translated_at(address, slot.arrival) +
                             config_.root_complex_latency +
                             (config_.memory_remote ? config_.remote_socket_extra
                                                    : sc_core::SC_ZERO_TIME);
    ready = std::max(ready, last_posted_write_);
    auto event = std::make_unique<RootComplexEvent>();
    event->kind = RootComplexEvent::Kind::kReadMemory;
    event->read = &payload;
    schedule(std::move(event), ready);
    phase = tlm::END_REQ;
    delay = slot.end - now;
    return tlm::TLM_UPDATED;
  }

  const std::uint32_t bytes = write_request_wire_bytes(address, length);
  const LinkDirection::Slot slot = upstream_.send_tlp(bytes, now);
  acknowledge(downstream_, upstream_ack_bytes_, upstream_fc_bytes_, bytes);
  ++stats_.write_requests;
  last_posted_write_ = std::max(translated_at(address, slot.arrival), last_posted_write_);
  auto event = std::make_unique<RootComplexEvent>();
  event->kind = RootComplexEvent::Kind::kWriteMemory;
  event->address = address;
  event->data.assign(payload.get_data_ptr(), payload.get_data_ptr() + length);
  schedule(std::move(event), last_posted_write_);
  payload.set_response_status(tlm::TLM_OK_RESPONSE);
  phase = tlm::END_RESP;
  delay = slot.end - now;
  return tlm::TLM_COMPLETED;
}

void PcieLink::host_b_transport(int /*initiator*/, tlm::tlm_generic_payload& payload,
                                sc_core::sc_time& delay) {
  if (!payload.is_write()) {
    payload.set_response_status(tlm::TLM_COMMAND_ERROR_RESPONSE);
    return;
  }
  sc_core::wait(delay);  // reservations are made at the current time
  delay = sc_core::SC_ZERO_TIME;
  const std::uint32_t length = payload.get_data_length();
  const std::uint32_t bytes = write_request_wire_bytes(payload.get_address(), length);
  const LinkDirection::Slot slot = downstream_.send_tlp(bytes, sc_core::sc_time_stamp());
  acknowledge(upstream_, downstream_ack_bytes_, downstream_fc_bytes_, bytes);
  ++stats_.mmio_writes;
  auto event = std::make_unique<RootComplexEvent>();
  event->kind = RootComplexEvent::Kind::kDeliverMmio;
  event->address = payload.get_address();
  event->data.assign(payload.get_data_ptr(), payload.get_data_ptr() + length);
  schedule(std::move(event), slot.arrival);
  payload.set_response_status(tlm::TLM_OK_RESPONSE);  // posted: the CPU goes on at once
}

void PcieLink::run_root_complex() {
  while (RootComplexEvent* event = root_complex_.get_next_transaction()) {
    handle(*event);
  }
}

void PcieLink::set_posted_write(RootComplexEvent& event, tlm::tlm_generic_payload& write) {
  write.set_command(tlm::TLM_WRITE_COMMAND);
  write.set_address(event.address);
  write.set_data_ptr(event.data.data());
  write.set_data_length(static_cast<unsigned>(event.data.size()));
  write.set_streaming_width(static_cast<unsigned>(event.data.size()));
}

void PcieLink::handle(RootComplexEvent& event) {
  const sc_core::sc_time now = sc_core::sc_time_stamp();
  using Kind = RootComplexEvent::Kind;
  switch (event.kind) {
    case Kind::kReadMemory: {
      sc_core::sc_time memory_delay;
      pcie2mem->b_transport(*event.read, memory_delay);
      event.kind = Kind::kReturnCompletions;
      root_complex_.notify(event, memory_delay);
      return;
    }
    case Kind::kReturnCompletions: {
      tlm::tlm_generic_payload& read = *event.read;
      LinkDirection::Slot last{now, now};
      if (read.is_response_error()) {
        // Unsupported Request: one completion without data.
        ++stats_.unsupported_requests;
        last = downstream_.send_tlp(completion_wire_bytes(0), now);
        acknowledge(upstream_, downstream_ack_bytes_, downstream_fc_bytes_,
                    completion_wire_bytes(0));
        ++stats_.completions;
      } else {
        for (const TlpSpan& span : split_completions(read.get_address(), read.get_data_length(),
                                                     config_.completion_bytes)) {
          const std::uint32_t bytes = completion_wire_bytes(span.length);
          last = downstream_.send_tlp(bytes, now);
          acknowledge(upstream_, downstream_ack_bytes_, downstream_fc_bytes_, bytes);
          ++stats_.completions;
        }
      }
      event.kind = Kind::kDeliverCompletions;
      root_complex_.notify(event, last.arrival - now);
      return;
    }
    case Kind::kDeliverCompletions: {
      tlm::tlm_phase phase = tlm::BEGIN_RESP;
      sc_core::sc_time delay;
      nic2pcie->nb_transport_bw(*event.read, phase, delay);
      break;
    }
    case Kind::kWriteMemory: {
      tlm::tlm_generic_payload write;
      set_posted_write(event, write);
      sc_core::sc_time ignored;
      pcie2mem->b_transport(write, ignored);
      // A posted write has no completion: an address the host cannot take is
      // dropped by the root complex, as hardware does, and counted.
      if (write.is_response_error()) ++stats_.unsupported_requests;
      break;
    }
    case Kind::kDeliverMmio: {
      if (pcie2nic.size() == 0) {
        SC_REPORT_ERROR(name(), "an MMIO write arrived but no NIC register target is bound");
        break;
      }
      tlm::tlm_generic_payload write;
      set_posted_write(event, write);
      sc_core::sc_time ignored;
      pcie2nic[0]->b_transport(write, ignored);
      break;
    }
  }
  scheduled_.erase(&event);
}

}  // namespace rnicsim::pcie
