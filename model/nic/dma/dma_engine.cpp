#include "nic/dma/dma_engine.hpp"

#include <algorithm>
#include <utility>

#include "common/time_units.hpp"

namespace rnicsim {

DmaPort::DmaPort(DmaEngine& engine, std::string requester, std::uint32_t capacity, bool adapter)
    : engine_(engine), requester_(std::move(requester)), adapter_(adapter) {
  add_slots(capacity);
}

void DmaPort::add_slots(std::uint32_t count) {
  const auto first = static_cast<std::uint32_t>(slots_.size());
  slots_.resize(slots_.size() + count);
  // Lowest slot first out: a fixed order keeps runs deterministic.
  for (std::uint32_t i = count; i > 0; --i) free_slots_.push_back(first + i - 1);
}

void DmaPort::request(const DmaRequest& request) {
  if (!can_request()) {
    if (!adapter_) {
      SC_REPORT_ERROR(requester_.c_str(), "DMA request beyond the requester's limit in flight");
      return;
    }
    add_slots(capacity());
  }
  if (request.segment_count > kMaxDmaSegments ||
      (request.buffer == nullptr && request.length() > 0)) {
    SC_REPORT_ERROR(requester_.c_str(), "DMA request with too many segments or no buffer");
    return;
  }
  const std::uint32_t index = free_slots_.back();
  free_slots_.pop_back();
  Slot& slot = slots_[index];
  slot = Slot{};
  slot.request = request;
  slot.length = request.length();
  unbooked_.push_back(index);
  ++engine_.unbooked_requests_;
  // Immediate: the engine books after the processes running now have made
  // their requests, in this delta cycle rather than the next.
  engine_.wake_.notify();
}

DmaCompletion DmaPort::pop_completion() {
  if (completions_.empty()) {
    SC_REPORT_ERROR(requester_.c_str(), "no DMA completion to pop");
    return DmaCompletion{};
  }
  const DmaCompletion completion = completions_.front();
  completions_.pop_front();
  space_event_.notify(sc_core::SC_ZERO_TIME);
  return completion;
}

DmaEngine::DmaEngine(const sc_core::sc_module_name& name, const DmaEngineConfig& config)
    : sc_core::sc_module(name),
      nic2dma("nic2dma"),
      dma2split("dma2split"),
      config_(config),
      tags_(config.read_tags),
      earliest_(config.read_tags) {
  ready_tags_.reserve(config.read_tags);
  sending_tags_.reserve(config.read_tags);
  for (std::uint32_t i = 0; i < config.read_tags; ++i) ready_tags_.push_back(i);
  nic2dma.register_b_transport(this, &DmaEngine::b_transport);
  SC_METHOD(schedule);
  sensitive << wake_;
  dont_initialize();
}

DmaPort& DmaEngine::attach(const std::string& requester, std::uint32_t max_in_flight) {
  if (elaborated_ || max_in_flight == 0) {
    SC_REPORT_ERROR(name(), ("requester " + requester +
                             " must attach during elaboration, with room for a request")
                                .c_str());
  }
  ports_.push_back(std::unique_ptr<DmaPort>(new DmaPort(*this, requester, max_in_flight, false)));
  return *ports_.back();
}

void DmaEngine::end_of_elaboration() {
  elaborated_ = true;
  for (unsigned i = 0; i < nic2dma.size(); ++i) {
    ports_.push_back(std::unique_ptr<DmaPort>(
        new DmaPort(*this, std::string(name()) + ".nic2dma[" + std::to_string(i) + "]", 1, true)));
    adapter_ports_.push_back(ports_.back().get());
  }
}

std::uint32_t DmaEngine::free_tags() const {
  const sc_core::sc_time now = sim_now();
  return static_cast<std::uint32_t>(std::count_if(tags_.begin(), tags_.end(), [&](const Tag& t) {
    return t.free_at <= now && t.sent_by <= now;
  }));
}

DmaPort::Slot* DmaEngine::head(DmaPort& port, DmaOp op, const sc_core::sc_time& now) {
  while (!port.unbooked_.empty()) {
    const std::uint32_t index = port.unbooked_.front();
    DmaPort::Slot& slot = port.slots_[index];
    if (slot.booked < slot.length) return slot.request.op == op ? &slot : nullptr;
    port.unbooked_.pop_front();  // an empty request: nothing to book
    --unbooked_requests_;
    if (slot.windows == 0) complete(port, index, now);
  }
  return nullptr;
}

void DmaEngine::collect_ports(DmaOp op, const sc_core::sc_time& now) {
  active_.clear();
  if (unbooked_requests_ == 0) return;  // the common case once a window is booked
  std::size_t p = first_turn_;
  for (std::size_t i = 0; i < ports_.size(); ++i, p = p + 1 == ports_.size() ? 0 : p + 1) {
    DmaPort& port = *ports_[p];
    if (port.unbooked_.empty()) continue;  // most ports, most of the time: no call
    if (head(port, op, now) != nullptr) active_.push_back(&port);
  }
}

DmaEngine::Window& DmaEngine::open_window(DmaPort& port, DmaPort::Slot& slot) {
  if (free_windows_.empty()) {
    windows_.push_back(std::make_unique<Window>());
    free_windows_.push_back(windows_.back().get());
  }
  Window& window = *free_windows_.back();
  free_windows_.pop_back();
  const DmaRequest& request = slot.request;
  window.kind =
      request.op == DmaOp::kRead ? pcie::TlpKind::kMemoryRead : pcie::TlpKind::kMemoryWrite;
  window.listener = this;
  window.port = &port;
  window.slot = static_cast<std::uint32_t>(&slot - port.slots_.data());
  window.run_count = 0;
  window.pad_bits = request.pad_bits;  // the splitter drops it if it cuts the window short
  std::uint8_t* data = request.buffer + slot.booked;
  std::uint32_t offset = slot.segment_offset;
  for (std::uint32_t s = slot.next_segment; s < request.segment_count; ++s, offset = 0) {
    const DmaSegment& segment = request.segments[s];
    if (segment.length == offset) continue;
    window.runs[window.run_count++] =
        pcie::DataRun{segment.address + offset, segment.length - offset, data};
    data += segment.length - offset;
  }
  return window;
}

BookedTlps DmaEngine::book_window(Window& window, std::uint32_t max_tlps,
                                  const sc_core::sc_time* earliest) {
  DmaPort& port = *window.port;
  DmaPort::Slot& slot = port.slots_[window.slot];
  const DmaRequest& request = slot.request;
  const BookedTlps booked = dma2split->split(window, max_tlps, earliest);

  // Move the request's cursor past what the splitter took.
  std::uint64_t left = window.bytes();
  slot.booked += left;
  while (left > 0) {
    const DmaSegment& segment = request.segments[slot.next_segment];
    const std::uint64_t take = std::min<std::uint64_t>(left, segment.length - slot.segment_offset);
    slot.segment_offset += static_cast<std::uint32_t>(take);
    left -= take;
    if (slot.segment_offset == segment.length) {
      ++slot.next_segment;
      slot.segment_offset = 0;
    }
  }
  ++slot.windows;
  if (slot.booked == slot.length) {
    port.unbooked_.pop_front();
    --unbooked_requests_;
  }
  ++stats_.windows;
  stats_.tlps += booked.count;
  return booked;
}

bool DmaEngine::collect_ready_tags(const sc_core::sc_time& now) {
  // The tags whose read has left are the first of the sending ones. A tag's
  // new read frees after the reads of the tags still waiting, about always,
  // so its insertion from the back is one comparison.
  std::size_t left = 0;
  for (; left < sending_tags_.size() && tags_[sending_tags_[left]].sent_by <= now; ++left) {
    const std::uint32_t tag = sending_tags_[left];
    std::size_t at = ready_tags_.size();
    ready_tags_.push_back(tag);
    for (; at > 0 && frees_sooner(tag, ready_tags_[at - 1]); --at) {
      ready_tags_[at] = ready_tags_[at - 1];
    }
    ready_tags_[at] = tag;
  }
  sending_tags_.erase(sending_tags_.begin(),
                      sending_tags_.begin() + static_cast<std::ptrdiff_t>(left));
  return !ready_tags_.empty();
}

void DmaEngine::release_ready_tags(std::size_t used) {
  // Reads leave about in the order they were booked: insertion from the back.
  for (std::size_t i = 0; i < used; ++i) {
    const std::uint32_t tag = ready_tags_[i];
    std::size_t at = sending_tags_.size();
    sending_tags_.push_back(tag);
    for (; at > 0 && tags_[tag].sent_by < tags_[sending_tags_[at - 1]].sent_by; --at) {
      sending_tags_[at] = sending_tags_[at - 1];
    }
    sending_tags_[at] = tag;
  }
  ready_tags_.erase(ready_tags_.begin(), ready_tags_.begin() + static_cast<std::ptrdiff_t>(used));
}

std::size_t DmaEngine::add_next_tags(const Window& window, std::size_t ready) {
  if (config_.read_window_tlps == 0) return 0;
  const std::uint32_t left = dma2split->count_tlps(window);
  if (left <= ready || left > config_.read_window_tlps || left - ready > sending_tags_.size()) {
    return 0;
  }
  // Sending tags are ordered by when their reads leave: the order the next
  // look would find them ready in. (It gives ready tags soonest free first;
  // reads come back in the order they left as a rule, not always.)
  const auto lacking = static_cast<std::ptrdiff_t>(left - ready);
  ready_tags_.insert(ready_tags_.end(), sending_tags_.begin(), sending_tags_.begin() + lacking);
  sending_tags_.erase(sending_tags_.begin(), sending_tags_.begin() + lacking);
  return left - ready;
}

bool DmaEngine::book_reads(const sc_core::sc_time& now) {
  collect_ports(DmaOp::kRead, now);
  if (active_.empty()) return false;
  if (!collect_ready_tags(now)) return false;
  std::size_t next = 0;
  bool booked_any = false;
  for (; next < ready_tags_.size(); collect_ports(DmaOp::kRead, now)) {
    if (active_.empty()) break;
    const std::size_t share = (ready_tags_.size() - next + active_.size() - 1) / active_.size();
    for (DmaPort* port : active_) {
      std::size_t quota = std::min(share, ready_tags_.size() - next);
      while (quota > 0) {
        DmaPort::Slot* slot = head(*port, DmaOp::kRead, now);
        if (slot == nullptr) break;
        Window& window = open_window(*port, *slot);
        // The port taking the last of the ready tags may finish a small
        // request on the tags ready next: no other port's share of this look
        // is taken, and at the next look at most read_window_tlps of its MRds
        // are ahead of the others'.
        std::size_t added = 0;
        if (next + quota == ready_tags_.size()) added = add_next_tags(window, quota);
        quota += added;
        for (std::size_t k = 0; k < quota; ++k) {
          earliest_[k] = std::max(now, tags_[ready_tags_[next + k]].free_at);
        }
        const BookedTlps booked =
            book_window(window, static_cast<std::uint32_t>(quota), earliest_.data());
        if (added > 0 && booked.count != quota) {
          // A tag added but not used would stay ready before its read left.
          SC_REPORT_ERROR(name(), "the splitter cut a read other than count_tlps() said");
        }
        for (std::uint32_t k = 0; k < booked.count; ++k) {
          tags_[ready_tags_[next + k]] = Tag{booked.tlps[k].done, booked.tlps[k].sent};
          reads_sent_by_ = std::max(reads_sent_by_, booked.tlps[k].sent);
        }
        next += booked.count;
        quota -= booked.count;
        booked_any = true;
      }
    }
  }
  release_ready_tags(next);
  return booked_any;
}

bool DmaEngine::book_writes(const sc_core::sc_time& now) {
  if (writes_sent_by_ > now) return false;
  std::size_t budget = config_.write_window_tlps;
  sc_core::sc_time sent_by = writes_sent_by_;
  bool booked_any = false;
  while (budget > 0) {
    collect_ports(DmaOp::kWrite, now);
    if (active_.empty()) break;
    const std::size_t share = (budget + active_.size() - 1) / active_.size();
    for (DmaPort* port : active_) {
      std::size_t quota = std::min(share, budget);
      while (quota > 0) {
        DmaPort::Slot* slot = head(*port, DmaOp::kWrite, now);
        if (slot == nullptr) break;
        const BookedTlps booked =
            book_window(open_window(*port, *slot), static_cast<std::uint32_t>(quota), nullptr);
        for (std::uint32_t k = 0; k < booked.count; ++k) {
          sent_by = std::max(sent_by, booked.tlps[k].sent);
        }
        quota -= booked.count;
        budget -= booked.count;
        booked_any = true;
      }
    }
  }
  writes_sent_by_ = sent_by;
  return booked_any;
}

void DmaEngine::schedule() {
  ++stats_.activations;
  const sc_core::sc_time now = sim_now();
  // Reads first: a request whose reads are all booked may be followed by a
  // write of the same requester, and the reverse.
  for (bool booked = true; booked;) {
    booked = book_reads(now);
    booked = book_writes(now) || booked;
  }
  if (!ports_.empty()) first_turn_ = (first_turn_ + 1) % ports_.size();

  // Look again once every tag's read has left (reads waiting) or the write
  // window has (writes waiting). One pass over the ports tells both: a port
  // whose head is no read but which has a request to cut has a write.
  bool reads_wait = false;
  bool writes_wait = false;
  std::size_t p = first_turn_;
  for (std::size_t i = 0; unbooked_requests_ > 0 && i < ports_.size();
       ++i, p = p + 1 == ports_.size() ? 0 : p + 1) {
    DmaPort& port = *ports_[p];
    if (port.unbooked_.empty()) continue;
    if (head(port, DmaOp::kRead, now) != nullptr) {
      reads_wait = true;
    } else if (!port.unbooked_.empty()) {
      writes_wait = true;
    }
  }
  sc_core::sc_time wake = sc_core::sc_max_time();
  if (reads_wait) wake = std::max(now, reads_sent_by_);
  if (writes_wait) wake = std::min(wake, writes_sent_by_);
  if (wake != sc_core::sc_max_time()) wake_.notify(wake - now);
}

void DmaEngine::window_done(pcie::TlpWindow& done) {
  Window& window = static_cast<Window&>(done);
  DmaPort& port = *window.port;
  DmaPort::Slot& slot = port.slots_[window.slot];
  slot.failed = slot.failed || window.failed;
  --slot.windows;
  free_windows_.push_back(&window);
  if (slot.windows == 0 && slot.booked == slot.length) {
    complete(port, window.slot, sim_now());
  }
}

void DmaEngine::complete(DmaPort& port, std::uint32_t index, const sc_core::sc_time& now) {
  const DmaPort::Slot& slot = port.slots_[index];
  const bool read = slot.request.op == DmaOp::kRead;
  ++(read ? stats_.read_requests : stats_.write_requests);
  (read ? stats_.bytes_read : stats_.bytes_written) += slot.length;
  if (slot.failed) ++stats_.failed_requests;
  const DmaCompletion completion{
      slot.request.tag, slot.failed ? DmaStatus::kUnsupportedRequest : DmaStatus::kOk, now};
  port.free_slots_.push_back(index);
  if (port.adapter_) {
    AdapterCall& call = *calls_[completion.tag];
    call.failed = call.failed || !completion.ok();
    if (--call.outstanding == 0) call.done.notify(sc_core::SC_ZERO_TIME);
    return;
  }
  port.completions_.push_back(completion);
  // Immediate: the requester takes it in this evaluation phase, not a delta
  // cycle later (a process pumps before it waits, so none misses it).
  port.completion_event_.notify();
  if (port.listener_ != nullptr) port.listener_->completion_arrived();
}

void DmaEngine::b_transport(int initiator, tlm::tlm_generic_payload& request,
                            sc_core::sc_time& delay) {
  if (delay != sc_core::SC_ZERO_TIME) sc_core::wait(delay);  // TLPs go out at the current time
  delay = sc_core::SC_ZERO_TIME;
  const DmaScatterGather* sg = request.get_extension<DmaScatterGather>();
  const DmaSegment whole{request.get_address(), request.get_data_length()};
  const DmaSegment* segments = sg ? sg->segments.data() : &whole;
  const std::size_t count = sg ? sg->segments.size() : 1;
  std::uint64_t total = 0;
  for (std::size_t i = 0; i < count; ++i) total += segments[i].length;
  if (!(request.is_read() || request.is_write()) || total != request.get_data_length() ||
      request.get_byte_enable_ptr() != nullptr) {
    // The caller's buffer must hold exactly the segments' bytes.
    request.set_response_status(tlm::TLM_GENERIC_ERROR_RESPONSE);
    return;
  }

  if (free_calls_.empty()) {
    calls_.push_back(std::make_unique<AdapterCall>());
    free_calls_.push_back(static_cast<std::uint32_t>(calls_.size() - 1));
  }
  const std::uint32_t index = free_calls_.back();
  free_calls_.pop_back();
  AdapterCall& call = *calls_[index];
  call.outstanding = 0;
  call.failed = false;

  // A list longer than a request holds goes as several requests.
  DmaPort& port = *adapter_ports_.at(static_cast<std::size_t>(initiator));
  DmaRequest part;
  part.tag = index;
  part.op = request.is_read() ? DmaOp::kRead : DmaOp::kWrite;
  part.buffer = request.get_data_ptr();
  for (std::size_t i = 0; i < count; ++i) {
    if (!part.add_segment(segments[i].address, segments[i].length)) {
      port.request(part);
      ++call.outstanding;
      part.buffer += part.length();
      part.segment_count = 0;
      part.add_segment(segments[i].address, segments[i].length);
    }
  }
  port.request(part);
  ++call.outstanding;
  sc_core::wait(call.done);

  request.set_response_status(call.failed ? tlm::TLM_ADDRESS_ERROR_RESPONSE
                                          : tlm::TLM_OK_RESPONSE);
  free_calls_.push_back(index);
}

const StatisticsTable<DmaEngineStats>& dma_engine_statistics() {
  static const StatisticsTable<DmaEngineStats> table(
      "dma_engine",
      {
       {"read_requests", "requests", &DmaEngineStats::read_requests,
        "DMA read requests from the NIC's clients"},
       {"write_requests", "requests", &DmaEngineStats::write_requests,
        "DMA write requests from the NIC's clients"},
       {"bytes_read", "bytes", &DmaEngineStats::bytes_read,
        "bytes read from host memory"},
       {"bytes_written", "bytes", &DmaEngineStats::bytes_written,
        "bytes written to host memory"},
       {"tlps", "TLPs", &DmaEngineStats::tlps,
        "MRd and MWr TLPs sent"},
       {"failed_requests", "requests", &DmaEngineStats::failed_requests,
        "requests completed with an error status"},
       {"windows", "windows", &DmaEngineStats::windows,
        "windows of TLPs booked"},
      });
  return table;
}

}  // namespace rnicsim
