#include "dma/dma_engine.hpp"

#include "pcie/tlp.hpp"

namespace rnicsim {

DmaEngine::DmaEngine(const sc_core::sc_module_name& name, const DmaEngineConfig& config)
    : sc_core::sc_module(name),
      nic2dma("nic2dma"),
      dma2pcie("dma2pcie"),
      config_(config),
      free_tags_(config.read_tags) {
  nic2dma.register_b_transport(this, &DmaEngine::b_transport);
  dma2pcie.register_nb_transport_bw(this, &DmaEngine::nb_transport_bw);
}

tlm::tlm_generic_payload* DmaEngine::acquire_tlp() {
  if (free_tlps_.empty()) {
    tlp_pool_.push_back(std::make_unique<tlm::tlm_generic_payload>());
    return tlp_pool_.back().get();
  }
  tlm::tlm_generic_payload* tlp = free_tlps_.back();
  free_tlps_.pop_back();
  return tlp;
}

void DmaEngine::send(tlm::tlm_generic_payload& tlp) {
  // TLM-2.0 base protocol: the next BEGIN_REQ waits for the previous END_REQ,
  // whichever caller sent it; that is also the NIC's one request port, which
  // callers get in the order they asked for it.
  if (request_port_busy_) {
    sc_core::sc_event granted;
    port_waiters_.push_back(&granted);
    sc_core::wait(granted);
  }
  request_port_busy_ = true;
  tlm::tlm_phase phase = tlm::BEGIN_REQ;
  sc_core::sc_time delay = sc_core::SC_ZERO_TIME;
  dma2pcie->nb_transport_fw(tlp, phase, delay);
  sc_core::wait(delay);
  if (port_waiters_.empty()) {
    request_port_busy_ = false;
  } else {
    port_waiters_.front()->notify();  // the port passes straight to the next sender
    port_waiters_.pop_front();
  }
}

void DmaEngine::acquire_tag() {
  if (free_tags_ > 0 && tag_waiters_.empty()) {
    --free_tags_;
    return;
  }
  sc_core::sc_event granted;
  tag_waiters_.push_back(&granted);
  sc_core::wait(granted);  // release_tag() handed this caller its tag
}

void DmaEngine::release_tag() {
  if (tag_waiters_.empty()) {
    ++free_tags_;
    return;
  }
  tag_waiters_.front()->notify(sc_core::SC_ZERO_TIME);
  tag_waiters_.pop_front();
}

void DmaEngine::b_transport(int /*initiator*/, tlm::tlm_generic_payload& request,
                            sc_core::sc_time& delay) {
  sc_core::wait(delay);  // TLPs go out at the current time
  delay = sc_core::SC_ZERO_TIME;
  const bool write = request.is_write();

  std::vector<DmaScatterGather::Segment> segments;
  if (const auto* sg = request.get_extension<DmaScatterGather>()) {
    segments = sg->segments;
  } else {
    segments.push_back({request.get_address(), request.get_data_length()});
  }
  std::uint64_t total = 0;
  for (const DmaScatterGather::Segment& s : segments) total += s.length;
  if (!(request.is_read() || request.is_write()) || total != request.get_data_length() ||
      request.get_byte_enable_ptr() != nullptr) {
    // The caller's buffer must hold exactly the segments' bytes.
    request.set_response_status(tlm::TLM_GENERIC_ERROR_RESPONSE);
    return;
  }

  Request state;
  std::uint8_t* data = request.get_data_ptr();
  for (const DmaScatterGather::Segment& segment : segments) {
    const std::uint32_t max_bytes = write ? config_.mps_bytes : config_.mrrs_bytes;
    for (const pcie::TlpSpan& span : pcie::split_requests(segment.address, segment.length, max_bytes)) {
      if (!write) acquire_tag();
      tlm::tlm_generic_payload* tlp = acquire_tlp();
      tlp->set_command(write ? tlm::TLM_WRITE_COMMAND : tlm::TLM_READ_COMMAND);
      tlp->set_address(span.address);
      tlp->set_data_ptr(data);
      tlp->set_data_length(span.length);
      tlp->set_streaming_width(span.length);
      tlp->set_byte_enable_ptr(nullptr);
      tlp->set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
      data += span.length;
      ++stats_.tlps;
      if (write) {
        send(*tlp);  // posted: the link has copied the data
        free_tlps_.push_back(tlp);
      } else {
        read_owner_[tlp] = &state;
        ++state.outstanding_reads;
        send(*tlp);
      }
    }
  }
  while (state.outstanding_reads > 0) sc_core::wait(state.reads_done);

  request.set_response_status(state.failed ? tlm::TLM_ADDRESS_ERROR_RESPONSE
                                           : tlm::TLM_OK_RESPONSE);
  ++(write ? stats_.write_requests : stats_.read_requests);
  (write ? stats_.bytes_written : stats_.bytes_read) += total;
  if (state.failed) ++stats_.failed_requests;
}

tlm::tlm_sync_enum DmaEngine::nb_transport_bw(tlm::tlm_generic_payload& tlp,
                                              tlm::tlm_phase& phase, sc_core::sc_time& /*delay*/) {
  const auto owner = read_owner_.find(&tlp);
  if (phase != tlm::BEGIN_RESP || owner == read_owner_.end()) {
    SC_REPORT_ERROR(name(), "unexpected completion");
    return tlm::TLM_COMPLETED;
  }
  Request& state = *owner->second;
  read_owner_.erase(owner);
  if (tlp.is_response_error()) state.failed = true;
  free_tlps_.push_back(&tlp);
  release_tag();
  if (--state.outstanding_reads == 0) state.reads_done.notify(sc_core::SC_ZERO_TIME);
  phase = tlm::END_RESP;
  return tlm::TLM_COMPLETED;
}

}  // namespace rnicsim
