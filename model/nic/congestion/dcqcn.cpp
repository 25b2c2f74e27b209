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

ReactionPoint::ReactionPoint(const DcqcnParameters& parameters)
    : p_(parameters),
      rate_(parameters.line_rate_bps),
      target_(parameters.line_rate_bps),
      alpha_(parameters.initial_alpha) {}

void ReactionPoint::advance_alpha(std::uint64_t now_ps) {
  // One period at a time: the same steps in the same order however the time
  // is split between calls, so looking at the state never changes it.
  while (alpha_running_ && time_reached(next_alpha_ps_, now_ps)) {
    next_alpha_ps_ += p_.alpha_period_ps;
    // Firmware: the period that ended moves alpha up if a CNP came in it.
    const bool up = p_.preset == DcqcnPreset::kFirmware && cnp_this_period_;
    cnp_this_period_ = false;
    alpha_ = next_alpha(alpha_, p_.g, up);
    if (alpha_ == 0) alpha_running_ = false;  // nothing left to decay
  }
}

void ReactionPoint::advance(std::uint64_t now_ps) {
  advance_alpha(now_ps);
  while (active_ && time_reached(next_timer_ps_, now_ps)) {
    next_timer_ps_ += p_.timer_ps;
    increase(/*from_timer=*/true);
  }
}

std::uint64_t ReactionPoint::cut(std::uint64_t rate) const {
  const Wide decrease = (Wide{rate} * alpha_) >> p_.cut_shift;
  std::uint64_t cut_to = decrease >= rate ? 0 : rate - static_cast<std::uint64_t>(decrease);
  cut_to = std::max(cut_to, static_cast<std::uint64_t>(Wide{rate} * p_.min_decrease_percent / 100));
  cut_to = std::max(cut_to, p_.min_rate_bps);
  return std::min(cut_to, rate);
}

bool ReactionPoint::cnp(std::uint64_t now_ps) {
  advance(now_ps);
  if (p_.preset == DcqcnPreset::kFirmware) {
    cnp_this_period_ = true;
    if (!alpha_running_) {
      alpha_running_ = true;
      next_alpha_ps_ = now_ps + p_.alpha_period_ps;
    }
    if (cut_before_ && now_ps - last_cut_ps_ < p_.reduce_monitor_ps) return false;
    if (!active_ && p_.first_cnp_rate_bps > 0) {
      // NVIDIA: rate_to_set_on_first_cnp sets both the current and the target
      // rate, at a QP's first CNP or its first since the limiter let go.
      // No lower than the minimum rate, then no higher than line rate (the
      // keys allow a minimum above line rate, where std::clamp is undefined).
      rate_ = target_ =
          std::min(std::max(p_.first_cnp_rate_bps, p_.min_rate_bps), p_.line_rate_bps);
    } else {
      // Without clamp_tgt_rate the target follows only the first cut after
      // an increase event (NVIDIA's description; QCN's rule).
      if (p_.clamp_target || !cut_before_ || increased_since_cut_) target_ = rate_;
      rate_ = cut(rate_);
    }
  } else {
    target_ = rate_;
    rate_ = cut(rate_);
    alpha_ = next_alpha(alpha_, p_.g, /*up=*/true);
    alpha_running_ = true;  // the alpha timer restarts
    next_alpha_ps_ = now_ps + p_.alpha_period_ps;
  }
  active_ = true;
  cut_before_ = true;
  increased_since_cut_ = false;
  last_cut_ps_ = now_ps;
  timer_events_ = 0;
  byte_events_ = 0;
  bytes_ = 0;
  next_timer_ps_ = now_ps + p_.timer_ps;
  return true;
}

void ReactionPoint::sent(std::uint64_t bytes, std::uint64_t now_ps) {
  advance(now_ps);
  if (!active_) return;
  bytes_ += bytes;
  while (active_ && bytes_ >= p_.byte_counter_bytes) {
    bytes_ -= p_.byte_counter_bytes;
    increase(/*from_timer=*/false);
  }
}

void ReactionPoint::increase(bool from_timer) {
  ++(from_timer ? timer_events_ : byte_events_);
  increased_since_cut_ = true;
  const std::uint32_t most = std::max(timer_events_, byte_events_);
  const std::uint32_t least = std::min(timer_events_, byte_events_);
  Wide step = 0;
  if (least >= p_.threshold) {
    step = Wide{least - p_.threshold + 1} * p_.hyper_increase_bps;
  } else if (most >= p_.threshold) {
    step = p_.additive_increase_bps;
  }
  target_ = static_cast<std::uint64_t>(std::min<Wide>(Wide{target_} + step, p_.line_rate_bps));
  rate_ = (target_ + rate_) / 2;
  // Halving the gap to RT reaches line rate only in the limit: within a bit
  // per second of it the QP is back at line rate and the limiter lets go.
  if (rate_ + 1 >= p_.line_rate_bps) {
    rate_ = target_ = p_.line_rate_bps;
    active_ = false;
    bytes_ = 0;
  }
}

}  // namespace rnicsim
