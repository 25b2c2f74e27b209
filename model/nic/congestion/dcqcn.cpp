#include "nic/congestion/dcqcn.hpp"

#include <algorithm>

namespace rnicsim {
namespace {

__extension__ typedef unsigned __int128 Wide;  // products of a rate and a fraction

constexpr std::uint64_t kPsBitsPerByte = 8'000'000'000'000;  // 8 bits x 10^12 ps/s

// alpha after one period: (1 - g) alpha, plus g if it moves up.
std::uint32_t next_alpha(std::uint32_t alpha, std::uint32_t g, bool up) {
  const std::uint64_t kept = (std::uint64_t{kAlphaOne - g} * alpha) >> 20;
  return static_cast<std::uint32_t>(kept) + (up ? g : 0);
}

}  // namespace

std::uint64_t pacing_ps(std::uint64_t wire_bytes, std::uint64_t rate_bps) {
  const Wide bits_ps = Wide{wire_bytes} * kPsBitsPerByte;
  return static_cast<std::uint64_t>((bits_ps + rate_bps - 1) / rate_bps);
}

ReactionPoint::ReactionPoint(const DcqcnParameters& parameters) : p_(parameters) {
  s_.rate_bps = parameters.line_rate_bps;
  s_.target_bps = parameters.line_rate_bps;
  s_.alpha = parameters.initial_alpha;
}

void ReactionPoint::advance_alpha(std::uint64_t now_ps) {
  // One period at a time: the same steps in the same order however the time
  // is split between calls, so looking at the state never changes it.
  while (s_.alpha_running && time_reached(s_.next_alpha_ps, now_ps)) {
    s_.next_alpha_ps += p_.alpha_period_ps;
    // Firmware: the period that ended moves alpha up if a CNP came in it.
    const bool up = p_.preset == DcqcnPreset::kFirmware && s_.cnp_this_period;
    s_.cnp_this_period = false;
    s_.alpha = next_alpha(s_.alpha, p_.g, up);
    if (s_.alpha == 0) s_.alpha_running = false;  // nothing left to decay
  }
}

void ReactionPoint::advance(std::uint64_t now_ps) {
  advance_alpha(now_ps);
  while (s_.active && time_reached(s_.next_timer_ps, now_ps)) {
    s_.next_timer_ps += p_.timer_ps;
    increase(/*from_timer=*/true);
  }
}

std::uint64_t ReactionPoint::cut(std::uint64_t rate) const {
  const Wide decrease = (Wide{rate} * s_.alpha) >> p_.cut_shift;
  std::uint64_t cut_to = decrease >= rate ? 0 : rate - static_cast<std::uint64_t>(decrease);
  cut_to = std::max(cut_to, static_cast<std::uint64_t>(Wide{rate} * p_.min_decrease_percent / 100));
  cut_to = std::max(cut_to, p_.min_rate_bps);
  return std::min(cut_to, rate);
}

bool ReactionPoint::cnp(std::uint64_t now_ps) {
  advance(now_ps);
  if (p_.preset == DcqcnPreset::kFirmware) {
    s_.cnp_this_period = true;
    if (!s_.alpha_running) {
      s_.alpha_running = true;
      s_.next_alpha_ps = now_ps + p_.alpha_period_ps;
    }
    if (s_.cut_before && now_ps - s_.last_cut_ps < p_.reduce_monitor_ps) return false;
    if (!s_.active && p_.first_cnp_rate_bps > 0) {
      // NVIDIA: rate_to_set_on_first_cnp sets both the current and the target
      // rate, at a QP's first CNP or its first since the limiter let go.
      // No lower than the minimum rate, then no higher than line rate (the
      // keys allow a minimum above line rate, where std::clamp is undefined).
      s_.rate_bps = s_.target_bps =
          std::min(std::max(p_.first_cnp_rate_bps, p_.min_rate_bps), p_.line_rate_bps);
    } else {
      // Without clamp_tgt_rate the target follows only the first cut after
      // an increase event (NVIDIA's description; QCN's rule).
      if (p_.clamp_target || !s_.cut_before || s_.increased_since_cut) s_.target_bps = s_.rate_bps;
      s_.rate_bps = cut(s_.rate_bps);
    }
  } else {
    s_.target_bps = s_.rate_bps;
    s_.rate_bps = cut(s_.rate_bps);
    s_.alpha = next_alpha(s_.alpha, p_.g, /*up=*/true);
    s_.alpha_running = true;  // the alpha timer restarts
    s_.next_alpha_ps = now_ps + p_.alpha_period_ps;
  }
  s_.active = true;
  s_.cut_before = true;
  s_.increased_since_cut = false;
  s_.last_cut_ps = now_ps;
  s_.timer_events = 0;
  s_.byte_events = 0;
  s_.bytes = 0;
  s_.next_timer_ps = now_ps + p_.timer_ps;
  return true;
}

void ReactionPoint::sent(std::uint64_t bytes, std::uint64_t now_ps) {
  advance(now_ps);
  if (!s_.active) return;
  s_.bytes += bytes;
  while (s_.active && s_.bytes >= p_.byte_counter_bytes) {
    s_.bytes -= p_.byte_counter_bytes;
    increase(/*from_timer=*/false);
  }
}

void ReactionPoint::increase(bool from_timer) {
  ++(from_timer ? s_.timer_events : s_.byte_events);
  s_.increased_since_cut = true;
  const std::uint32_t most = std::max(s_.timer_events, s_.byte_events);
  const std::uint32_t least = std::min(s_.timer_events, s_.byte_events);
  Wide step = 0;
  if (least >= p_.threshold) {
    step = Wide{least - p_.threshold + 1} * p_.hyper_increase_bps;
  } else if (most >= p_.threshold) {
    step = p_.additive_increase_bps;
  }
  s_.target_bps =
      static_cast<std::uint64_t>(std::min<Wide>(Wide{s_.target_bps} + step, p_.line_rate_bps));
  s_.rate_bps = (s_.target_bps + s_.rate_bps) / 2;
  // Halving the gap to RT reaches line rate only in the limit: within a bit
  // per second of it the QP is back at line rate and the limiter lets go.
  if (s_.rate_bps + 1 >= p_.line_rate_bps) {
    s_.rate_bps = s_.target_bps = p_.line_rate_bps;
    s_.active = false;
    s_.bytes = 0;
  }
}

}  // namespace rnicsim
