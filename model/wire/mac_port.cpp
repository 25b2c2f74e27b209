#include "wire/mac_port.hpp"

#include <memory>
#include <utility>

#include "common/activity.hpp"
#include "common/module_macros.hpp"
#include "common/time_units.hpp"

namespace rnicsim {

RNICSIM_PROCESS_MODULE(MacPort);

namespace {

std::unique_ptr<PfcUnit> make_pfc_unit(const MacPortConfig& config) {
  return config.pfc.impl == BlockImpl::kRtl
             ? make_rtl_pfc_unit(config.pfc, config.gbps, config.address)
             : make_model_pfc_unit(config.pfc, config.gbps, config.address);
}

}  // namespace

MacPort::MacPort(const sc_core::sc_module_name& name, const MacPortConfig& config,
                 TransmitQueues& queues, Deliver deliver)
    : sc_core::sc_module(name),
      config_(config),
      queues_(queues),
      deliver_(std::move(deliver)),
      framing_(WireFraming::Kind::kFrame, roce_v2_write_only_ipv4()),
      pfc_(make_pfc_unit(config)) {
  SC_METHOD(transmit);
  sensitive << transmit_event_;
  dont_initialize();
  SC_METHOD(receive);
  sensitive << receive_event_;
  dont_initialize();
  SC_METHOD(refresh);
  sensitive << refresh_event_;
  dont_initialize();
  SC_METHOD(report_pauses);
  sensitive << expiry_event_;
  dont_initialize();
}

void MacPort::wake_transmit() {
  const sc_core::sc_time now = sim_now();
  if (now < busy_until_) {
    // An earlier look, if one is due, stays.
    transmit_event_.notify(busy_until_ - now);
  } else if (choosing_) {
    // Asked from inside start_next (a frame released elsewhere, say): look
    // again once it is done.
    transmit_event_.notify(sc_core::SC_ZERO_TIME);
  } else {
    start_next(now);
  }
}

std::uint8_t MacPort::paused_now() {
  recheck_before_refresh();
  pfc_->advance(to_ps(sim_now()));
  take_pfc_frames();
  return pfc_->paused();
}

void MacPort::transmit() {
  ++activity().method_activations;
  const sc_core::sc_time now = sim_now();
  if (now < busy_until_) {
    transmit_event_.notify(busy_until_ - now);
    return;
  }
  start_next(now);
}

void MacPort::start_next(const sc_core::sc_time& now) {
  choosing_ = true;
  if (!control_.empty()) {
    Transfer pause = std::move(control_.front());
    control_.pop_front();
    send(std::move(pause), now);
  } else {
    const std::uint8_t paused = paused_now();
    Transfer frame;
    if (queues_.next_frame(paused, frame)) {
      ++stats_.frames_sent;
      stats_.bytes_sent += frame.size_bytes();
      send(std::move(frame), now);
    } else if (paused != 0) {
      // Frames may wait behind a pause: look again when the first one runs out.
      transmit_event_.notify(picoseconds(pfc_->resume_in_ps()));
    }
  }
  choosing_ = false;
}

void MacPort::send(Transfer&& frame, const sc_core::sc_time& now) {
  const sc_core::sc_time serialization =
      serialization_time(framing_.wire_bits(frame.size_bits()), config_.gbps);
  for (const Tap& tap : taps_) tap(frame, now);
  busy_until_ = now + serialization;
  if (peer_ != nullptr) peer_->arrive(std::move(frame), busy_until_ + config_.propagation);
  // The next frame starts as this one ends, if one waits; else the MAC
  // idles until woken (wake_transmit), with no activation at the end.
  if (!control_.empty() || queues_.waiting()) transmit_event_.notify(serialization);
}

void MacPort::arrive(Transfer&& frame, const sc_core::sc_time& arrives_at) {
  if (arrivals_.empty()) receive_event_.notify(arrives_at - sim_now());
  arrivals_.push_back(Arrival{arrives_at, std::move(frame)});
}

void MacPort::receive() {
  ++activity().method_activations;
  const sc_core::sc_time now = sim_now();
  while (!arrivals_.empty() && arrivals_.front().at <= now) {
    Transfer frame = std::move(arrivals_.front().frame);
    arrivals_.pop_front();
    const Bytes& bytes = *frame.bytes();
    recheck_before_refresh();
    const PfcReceived received = pfc_->receive(bytes.data(), bytes.size(), to_ps(now));
    take_pfc_frames();
    if (!received.control) {
      ++stats_.frames_received;
      stats_.bytes_received += frame.size_bytes();
      deliver_(std::move(frame));
      continue;
    }
    // A MAC consumes its control frames; one with PFC off, another opcode
    // or no lossless priority named changes nothing.
    ++stats_.pause_frames_received;
    if ((received.pauses | received.resumes) == 0) continue;
    for (unsigned p = 0; p < packet::kPfcPriorities; ++p) {
      if ((received.pauses >> p) & 1u) ++priority_stats_[p].pauses_received;
      if ((received.resumes >> p) & 1u) ++priority_stats_[p].resumes_received;
    }
    wake_transmit();
    if (pause_handler_) report_pauses();
  }
  if (!arrivals_.empty()) receive_event_.notify(arrivals_.front().at - now);
}

void MacPort::report_pauses() {
  const std::uint8_t paused = paused_now();
  if (paused != reported_paused_) {
    reported_paused_ = paused;
    pause_handler_(paused);
  }
  // Report again when the first pause runs out.
  if (paused != 0) expiry_event_.notify(picoseconds(pfc_->resume_in_ps()));
}

void MacPort::buffer_level(std::uint8_t priorities, std::uint64_t bytes) {
  recheck_before_refresh();
  pfc_->buffer_level(priorities, bytes, to_ps(sim_now()));
  take_pfc_frames();
}

void MacPort::refresh() {
  ++activity().method_activations;
  if (recheck_) recheck_();
  pfc_->advance(to_ps(sim_now()));
  take_pfc_frames();
}

void MacPort::recheck_before_refresh() {
  // Whichever call reaches a due refresh first, the owner looks at its
  // buffer before the refresh goes out, as refresh() does.
  if (!recheck_ || rechecking_ || refresh_at_ps_ == 0 || refresh_at_ps_ > to_ps(sim_now())) return;
  rechecking_ = true;
  recheck_();
  rechecking_ = false;
}

void MacPort::take_pfc_frames() {
  if (pfc_->has_frames()) {
    for (std::vector<std::uint8_t>& bytes : pfc_->take_frames()) {
      const std::optional<packet::PfcPause> pause = packet::decode_pfc(bytes.data(), bytes.size());
      for (unsigned p = 0; p < packet::kPfcPriorities; ++p) {
        if (!pause || !((pause->enabled >> p) & 1u)) continue;
        ++(pause->quanta[p] != 0 ? priority_stats_[p].pauses_sent
                                 : priority_stats_[p].resumes_sent);
      }
      ++stats_.pause_frames_sent;
      const std::uint64_t bits = 8ULL * bytes.size();
      control_.push_back(
          Transfer(frames_built_++, bits, sim_now(), std::make_shared<Bytes>(std::move(bytes))));
    }
    wake_transmit();
  }
  // An earlier refresh, if one is pending, stays; a refresh that finds
  // nothing due changes nothing.
  const std::uint64_t refresh = pfc_->refresh_in_ps();
  refresh_at_ps_ = refresh == 0 ? 0 : to_ps(sim_now()) + refresh;
  if (refresh != 0) refresh_event_.notify(picoseconds(refresh));
}

MacPriorityStats MacPort::priority_stats(unsigned priority) const {
  MacPriorityStats s = priority_stats_[priority];
  s.paused = picoseconds(pfc_->paused_ps(priority, to_ps(sim_now())));
  return s;
}

const StatisticsTable<MacPortStats>& mac_port_statistics() {
  static const StatisticsTable<MacPortStats> table(
      "mac", {
                 {"frames_sent", "frames", &MacPortStats::frames_sent,
                  "data frames sent (pauses not counted)"},
                 {"bytes_sent", "bytes", &MacPortStats::bytes_sent,
                  "their bytes, without FCS, preamble and gap"},
                 {"frames_received", "frames", &MacPortStats::frames_received,
                  "data frames received and passed on"},
                 {"bytes_received", "bytes", &MacPortStats::bytes_received, "their bytes"},
                 {"pause_frames_sent", "frames", &MacPortStats::pause_frames_sent,
                  "PFC frames sent, pauses and resumes"},
                 {"pause_frames_received", "frames", &MacPortStats::pause_frames_received,
                  "MAC Control frames received (consumed by the MAC)"},
             });
  return table;
}

const StatisticsTable<MacPriorityStats>& mac_priority_statistics() {
  static const StatisticsTable<MacPriorityStats> table(
      "priority_<p>",
      {
          {"pauses_sent", "frames", &MacPriorityStats::pauses_sent,
           "PFC frames that asked the peer to pause this priority"},
          {"resumes_sent", "frames", &MacPriorityStats::resumes_sent,
           "PFC frames that resumed it (time 0)"},
          {"pauses_received", "frames", &MacPriorityStats::pauses_received,
           "pauses of this priority honoured"},
          {"resumes_received", "frames", &MacPriorityStats::resumes_received,
           "resumes of this priority honoured"},
          {"paused_ns", &MacPriorityStats::paused, "time this port could not send the priority"},
      });
  return table;
}

}  // namespace rnicsim
