#include "pcie/pcie_link.hpp"

#include <algorithm>
#include <string>

#include "common/time_units.hpp"
#include "pcie/tlp.hpp"

namespace rnicsim::pcie {
namespace {

constexpr std::uint64_t kCacheLineBytes = 64;  // the root complex reads memory in cache lines

}  // namespace

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
      full_completion_time_(downstream_.wire_time(completion_wire_bytes(config.completion_bytes))) {
  nic2pcie.bind(*this);
  host2pcie.register_b_transport(this, &PcieLink::host_b_transport);
  SC_METHOD(run_root_complex);
  sensitive << action_due_;
  dont_initialize();
}

std::uint32_t PcieLink::read_request_bytes(std::uint64_t address) const {
  return config_.ideal ? 0 : read_request_wire_bytes(address);
}

std::uint32_t PcieLink::write_request_bytes(std::uint64_t address, std::uint32_t payload) const {
  return config_.ideal ? payload : write_request_wire_bytes(address, payload);
}

sc_core::sc_time PcieLink::translated_at(std::uint64_t address, const sc_core::sc_time& arrival) {
  if (!config_.iommu) return arrival;
  return iotlb_.translate(address, arrival, config_.iotlb_miss);
}

void PcieLink::acknowledge(LinkDirection& reverse, std::uint64_t& ack_bytes,
                           std::uint64_t& fc_bytes, std::uint64_t bytes,
                           const sc_core::sc_time& now) {
  if (config_.ideal) return;  // the ideal link has no DLLPs
  // The remainders carry from one call to the next, so acknowledging a
  // window's bytes at once makes exactly as many DLLPs as TLP by TLP would.
  ack_bytes += bytes;
  fc_bytes += bytes;
  const std::uint64_t acks = ack_bytes / config_.ack_every_bytes;
  const std::uint64_t updates = fc_bytes / config_.fc_update_every_bytes;
  ack_bytes %= config_.ack_every_bytes;
  fc_bytes %= config_.fc_update_every_bytes;
  reverse.send_dllps(static_cast<std::uint32_t>(acks + updates), kDllpBytes, now, now);
}

void PcieLink::schedule(Action::Kind kind, void* item, const sc_core::sc_time& at) {
  // Drop the done prefix once it is half the vector: amortized constant, and
  // the capacity is reused.
  if (next_action_ > 0 && 2 * next_action_ >= actions_.size()) {
    actions_.erase(actions_.begin(), actions_.begin() + static_cast<std::ptrdiff_t>(next_action_));
    next_action_ = 0;
  }
  auto place = actions_.end();
  const auto first = actions_.begin() + static_cast<std::ptrdiff_t>(next_action_);
  while (place != first && (place - 1)->at > at) --place;
  actions_.insert(place, Action{at, kind, item});
  action_due_.notify(at - sim_now());  // an earlier pending notification stays
}

bool PcieLink::probe_memory(std::uint64_t address, std::uint64_t length, sc_core::sc_time& delay) {
  // TLM-2.0's ignore command: the target checks the access and charges its
  // delay without moving data, which happens when the window is done.
  set_access(memory_access_, tlm::TLM_IGNORE_COMMAND, address, nullptr,
             static_cast<std::uint32_t>(length));
  delay = sc_core::SC_ZERO_TIME;
  pcie2mem->b_transport(memory_access_, delay);
  return !memory_access_.is_response_error();
}

void PcieLink::book(TlpWindow& window, Tlp* tlps, std::uint32_t count) {
  const sc_core::sc_time now = sim_now();
  const bool read = window.kind == TlpKind::kMemoryRead;
  const std::uint32_t max_bytes = read ? config_.mrrs_bytes : config_.mps_bytes;
  std::uint64_t total = 0;
  for (std::uint32_t i = 0; i < count; ++i) {
    const std::uint64_t address = tlps[i].address;
    const std::uint32_t length = tlps[i].length;
    // A requester that breaks these rules is a model bug, not a link fault.
    if (length == 0 || length > max_bytes ||
        address / kAddressBoundaryBytes != (address + length - 1) / kAddressBoundaryBytes) {
      SC_REPORT_ERROR(name(), ("malformed TLP at address " + std::to_string(address) +
                               ", length " + std::to_string(length) +
                               ": empty, over MRRS/MPS, or across 4 KiB")
                                  .c_str());
    }
    total += length;
  }
  if (count == 0 || total != window.bytes()) {
    SC_REPORT_ERROR(name(), "a window's TLPs must cover its runs");
  }
  ++stats_.windows;
  window.done = now;
  window.failed = false;
  if (read) {
    book_reads(window, tlps, count, now);
  } else {
    book_writes(window, tlps, count, now);
  }
  if (tlp_observer_) {
    for (std::uint32_t i = 0; i < count; ++i) tlp_observer_(window.kind, tlps[i]);
  }
  schedule(Action::Kind::kWindowDone, &window, window.done);
}

PcieLink::CompletionTrain PcieLink::completion_train(std::uint64_t address,
                                                     std::uint32_t length) const {
  const CompletionSizes sizes = completion_sizes(address, length, config_.completion_bytes);
  CompletionTrain train;
  train.count = sizes.count();
  if (config_.ideal) {  // payload alone; book_reads times it from the window's bits
    train.wire_bytes = length;
    return train;
  }
  train.wire_bytes = std::uint64_t{train.count} * completion_wire_bytes(0) + length;
  // Each completion rounds to a picosecond on its own, as it would alone.
  const sc_core::sc_time first = downstream_.wire_time(completion_wire_bytes(sizes.first));
  train.duration = first + full_completion_time_ * static_cast<double>(sizes.full);
  train.last = sizes.full > 0 ? full_completion_time_ : first;
  if (sizes.tail > 0) {
    train.last = downstream_.wire_time(completion_wire_bytes(sizes.tail));
    train.duration += train.last;
  }
  return train;
}

void PcieLink::book_reads(TlpWindow& window, Tlp* tlps, std::uint32_t count,
                          const sc_core::sc_time& now) {
  std::uint32_t group_end = 0;
  bool group_ok = true;
  sc_core::sc_time memory_delay;
  const sc_core::sc_time answer_latency =
      config_.root_complex_latency +
      (config_.memory_remote ? config_.remote_socket_extra : sc_core::SC_ZERO_TIME);
  std::uint64_t request_bytes_sent = 0;
  std::uint64_t completion_bytes_sent = 0;
  // Unsupported Request: one completion without data.
  const std::uint32_t unsupported_bytes = config_.ideal ? 0 : completion_wire_bytes(0);
  const sc_core::sc_time unsupported_time = downstream_.wire_time(unsupported_bytes);
  const CompletionTrain unsupported{1, unsupported_bytes, unsupported_time, unsupported_time};
  CompletionTrain train;
  std::uint64_t window_bits = 0;  // the ideal link's: completed so far in this window
  bool have_train = false;
  std::uint32_t train_offset = 0;
  std::uint32_t train_length = 0;
  // The root complex serves the window's cache lines in order, one per
  // read_line_interval (pcie.read_line_ns): `line_served` is when the last
  // line of the TLPs before was. A train is booked whole, so one whose lines
  // come slower than the link sends them starts late enough to end when its
  // last line and last completion could: its end, what a read waits for, is
  // exact; its completions are bunched at the end rather than spread.
  const bool pace_lines = !config_.ideal && config_.read_line_interval > sc_core::SC_ZERO_TIME;
  sc_core::sc_time line_served;
  for (std::uint32_t i = 0; i < count; ++i) {
    Tlp& tlp = tlps[i];
    if (i == group_end) {
      // One probe for each run of contiguous TLPs; one per TLP only where it fails.
      std::uint64_t end = tlp.address + tlp.length;
      for (group_end = i + 1; group_end < count && tlps[group_end].address == end; ++group_end) {
        end += tlps[group_end].length;
      }
      group_ok = probe_memory(tlp.address, end - tlp.address, memory_delay);
    }
    sc_core::sc_time delay = memory_delay;
    const bool failed = !group_ok && !probe_memory(tlp.address, tlp.length, delay);

    const std::uint32_t request_bytes = read_request_bytes(tlp.address);
    // Reads do not pass earlier posted writes.
    const LinkDirection::Slot up =
        upstream_.send_tlps(1, request_bytes, upstream_.wire_time(request_bytes),
                            std::max(tlp.earliest, last_write_sent_), now);
    request_bytes_sent += request_bytes;
    sc_core::sc_time ready = translated_at(tlp.address, up.arrival) + answer_latency;
    ready = std::max(ready, last_posted_write_);

    if (failed) {
      ++stats_.unsupported_requests;
    } else {
      ready += delay;
      // A run of equal reads (a large request's) has equal trains: worked out once.
      const auto offset = static_cast<std::uint32_t>(tlp.address % config_.completion_bytes);
      if (!have_train || offset != train_offset || tlp.length != train_length) {
        train = completion_train(tlp.address, tlp.length);
        have_train = true;
        train_offset = offset;
        train_length = tlp.length;
      }
      if (pace_lines) {
        const std::uint64_t lines =
            (tlp.address % kCacheLineBytes + tlp.length + kCacheLineBytes - 1) / kCacheLineBytes;
        const sc_core::sc_time first_line =
            i == 0 ? ready : std::max(ready, line_served + config_.read_line_interval);
        line_served = first_line + config_.read_line_interval * static_cast<double>(lines - 1);
        if (line_served + train.last > ready + train.duration)
          ready = line_served + train.last - train.duration;
      }
    }
    CompletionTrain ideal;
    if (!failed && config_.ideal) {
      const std::uint64_t bits = ideal_bits(window, tlp, i + 1 == count);
      ideal = train;
      ideal.duration = ideal_time(downstream_, window_bits, bits);
      window_bits += bits;
    }
    const CompletionTrain& completions = failed ? unsupported : config_.ideal ? ideal : train;
    const LinkDirection::Slot down = downstream_.send_tlps(
        completions.count, completions.wire_bytes, completions.duration, ready, now);
    completion_bytes_sent += completions.wire_bytes;
    stats_.completions += completions.count;

    tlp.start = up.start;
    tlp.sent = up.end;
    tlp.done = down.arrival;
    tlp.failed = failed;
    window.done = std::max(window.done, down.arrival);
    window.failed = window.failed || failed;
  }
  stats_.read_requests += count;
  acknowledge(downstream_, upstream_ack_bytes_, upstream_fc_bytes_, request_bytes_sent, now);
  acknowledge(upstream_, downstream_ack_bytes_, downstream_fc_bytes_, completion_bytes_sent, now);
}

void PcieLink::book_writes(TlpWindow& window, Tlp* tlps, std::uint32_t count,
                           const sc_core::sc_time& now) {
  sc_core::sc_time in_memory = last_posted_write_;
  std::uint64_t bytes_sent = 0;
  std::uint64_t window_bits = 0;  // the ideal link's: sent so far in this window
  for (std::uint32_t i = 0; i < count;) {
    const std::uint32_t bytes = write_request_bytes(tlps[i].address, tlps[i].length);
    sc_core::sc_time duration;
    if (config_.ideal) {
      const std::uint64_t bits = ideal_bits(window, tlps[i], i + 1 == count);
      duration = ideal_time(upstream_, window_bits, bits);
      window_bits += bits;
    } else {
      duration = upstream_.wire_time(bytes);
    }
    // Posted writes stay in order: each leaves after the one before. The
    // writes of a size after this one that are ready already (a large
    // request's, at MPS) go right after it, so they may go as one train.
    std::uint32_t run = 1;
    // (The ideal link's TLPs differ by their rounding: one at a time.)
    while (!config_.ideal && i + run < count && tlps[i + run].earliest <= now &&
           write_request_bytes(tlps[i + run].address, tlps[i + run].length) == bytes) {
      ++run;
    }
    const sc_core::sc_time earliest = std::max(tlps[i].earliest, last_write_sent_);
    LinkDirection::Slot up;
    if (!upstream_.send_train(run, bytes, duration, earliest, now, up)) {
      run = 1;  // among stretches booked: one at a time
      up = upstream_.send_tlps(1, bytes, duration, earliest, now);
    }
    for (const std::uint32_t end = i + run; i < end; ++i) {
      Tlp& tlp = tlps[i];
      tlp.start = up.start;
      tlp.sent = up.end;
      tlp.done = translated_at(tlp.address, up.arrival);
      tlp.failed = false;
      in_memory = std::max(in_memory, tlp.done);
      last_write_sent_ = up.end;
      up.start = up.end;  // the next of the train
      up.end += duration;
      up.arrival += duration;
    }
    bytes_sent += std::uint64_t{bytes} * run;
  }
  stats_.write_requests += count;
  acknowledge(downstream_, upstream_ack_bytes_, upstream_fc_bytes_, bytes_sent, now);
  // The window's bytes reach memory together, after every earlier posted write.
  last_posted_write_ = in_memory;
  window.done = in_memory;
}

void PcieLink::host_b_transport(int /*initiator*/, tlm::tlm_generic_payload& payload,
                                sc_core::sc_time& delay) {
  if (!payload.is_write()) {
    payload.set_response_status(tlm::TLM_COMMAND_ERROR_RESPONSE);
    return;
  }
  sc_core::wait(delay);  // reservations are made at the current time
  delay = sc_core::SC_ZERO_TIME;
  const sc_core::sc_time now = sim_now();
  const std::uint32_t length = payload.get_data_length();
  const std::uint32_t bytes = write_request_bytes(payload.get_address(), length);
  const LinkDirection::Slot down =
      downstream_.send_tlps(1, bytes, downstream_.wire_time(bytes), now, now);
  acknowledge(upstream_, downstream_ack_bytes_, downstream_fc_bytes_, bytes, now);
  ++stats_.mmio_writes;
  if (free_mmio_.empty()) {
    mmio_pool_.push_back(std::make_unique<Mmio>());
    free_mmio_.push_back(mmio_pool_.back().get());
  }
  Mmio* mmio = free_mmio_.back();
  free_mmio_.pop_back();
  mmio->address = payload.get_address();
  mmio->data.assign(payload.get_data_ptr(), payload.get_data_ptr() + length);
  schedule(Action::Kind::kDeliverMmio, mmio, down.arrival);
  payload.set_response_status(tlm::TLM_OK_RESPONSE);  // posted: the CPU goes on at once
}

void PcieLink::run_root_complex() {
  ++stats_.activations;
  const sc_core::sc_time now = sim_now();
  while (next_action_ < actions_.size() && actions_[next_action_].at <= now) {
    const Action action = actions_[next_action_++];
    if (action.kind == Action::Kind::kWindowDone) {
      finish_window(*static_cast<TlpWindow*>(action.item));
    } else {
      deliver_mmio(*static_cast<Mmio*>(action.item));
    }
  }
  if (next_action_ < actions_.size()) action_due_.notify(actions_[next_action_].at - now);
}

void PcieLink::set_access(tlm::tlm_generic_payload& access, tlm::tlm_command command,
                          std::uint64_t address, std::uint8_t* data, std::uint32_t length) {
  access.set_command(command);
  access.set_address(address);
  access.set_data_ptr(data);
  access.set_data_length(length);
  access.set_streaming_width(length);
  access.set_byte_enable_ptr(nullptr);
  access.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
}

void PcieLink::finish_window(TlpWindow& window) {
  sc_core::sc_time ignored;
  if (window.kind == TlpKind::kMemoryRead) {
    // A failed read's bytes are unspecified: the requester gets an error.
    if (!window.failed) {
      for (std::uint32_t r = 0; r < window.run_count; ++r) {
        const DataRun& run = window.runs[r];
        set_access(memory_access_, tlm::TLM_READ_COMMAND, run.address, run.data, run.length);
        pcie2mem->b_transport(memory_access_, ignored);
      }
    }
  } else {
    for (std::uint32_t r = 0; r < window.run_count; ++r) {
      const DataRun& run = window.runs[r];
      set_access(memory_access_, tlm::TLM_WRITE_COMMAND, run.address, run.data, run.length);
      pcie2mem->b_transport(memory_access_, ignored);
      if (!memory_access_.is_response_error()) continue;
      // Part of the run is no memory: the root complex drops those TLPs, as
      // hardware does (a posted write has no completion), and writes the rest.
      for (const TlpSpan& tlp : split_requests(run.address, run.length, config_.mps_bytes)) {
        set_access(memory_access_, tlm::TLM_WRITE_COMMAND, tlp.address,
                   run.data + (tlp.address - run.address), tlp.length);
        pcie2mem->b_transport(memory_access_, ignored);
        if (memory_access_.is_response_error()) ++stats_.unsupported_requests;
      }
    }
  }
  window.listener->window_done(window);
}

void PcieLink::deliver_mmio(Mmio& mmio) {
  if (pcie2nic.size() == 0) {
    SC_REPORT_ERROR(name(), "an MMIO write arrived but no NIC register target is bound");
  } else {
    set_access(mmio_access_, tlm::TLM_WRITE_COMMAND, mmio.address, mmio.data.data(),
               static_cast<std::uint32_t>(mmio.data.size()));
    sc_core::sc_time ignored;
    pcie2nic[0]->b_transport(mmio_access_, ignored);
  }
  free_mmio_.push_back(&mmio);
}

const StatisticsTable<PcieLinkStats>& pcie_link_statistics() {
  static const StatisticsTable<PcieLinkStats> table(
      "pcie",
      {
       {"read_requests", "TLPs", &PcieLinkStats::read_requests,
        "memory read requests from the NIC"},
       {"completions", "TLPs", &PcieLinkStats::completions,
        "completions sent to the NIC"},
       {"write_requests", "TLPs", &PcieLinkStats::write_requests,
        "memory write requests from the NIC"},
       {"mmio_writes", "TLPs", &PcieLinkStats::mmio_writes,
        "the CPU's MMIO writes to the NIC"},
       {"unsupported_requests", "TLPs", &PcieLinkStats::unsupported_requests,
        "reads completed with an error, writes dropped"},
       {"windows", "windows", &PcieLinkStats::windows,
        "windows of TLPs booked"},
      });
  return table;
}

}  // namespace rnicsim::pcie
