#include "nic/congestion/dcqcn.hpp"

#include <algorithm>
#include <cmath>

namespace rnicsim {

ReactionPoint::ReactionPoint(const DcqcnParameters& parameters)
    : p_(parameters),
      rate_(parameters.line_rate_bps),
      target_(parameters.line_rate_bps),
      alpha_(parameters.initial_alpha) {}

void ReactionPoint::advance_alpha(std::uint64_t now_ps) {
  const bool running = p_.preset == DcqcnPreset::kFirmware ? alpha_running_ : cut_before_;
  if (!running) return;
  // One period at a time (not a power of 1 - g): the same products in the
  // same order however the time is split between calls, so looking at the
  // state never changes it.
  while (next_alpha_ps_ <= now_ps) {
    next_alpha_ps_ += p_.alpha_period_ps;
    // Firmware: the period that ended moves alpha up if a CNP came in it.
    const bool up = p_.preset == DcqcnPreset::kFirmware && cnp_this_period_;
    cnp_this_period_ = false;
    alpha_ = (1 - p_.g) * alpha_ + (up ? p_.g : 0.0);
    if (alpha_ == 0) {  // nothing left to decay: skip the rest at once
      if (next_alpha_ps_ <= now_ps) {
        next_alpha_ps_ += (now_ps - next_alpha_ps_) / p_.alpha_period_ps * p_.alpha_period_ps +
                          p_.alpha_period_ps;
      }
    }
  }
}

void ReactionPoint::advance(std::uint64_t now_ps) {
  advance_alpha(now_ps);
  while (active_ && next_timer_ps_ <= now_ps) {
    next_timer_ps_ += p_.timer_ps;
    increase(/*from_timer=*/true);
  }
}

double ReactionPoint::cut(double rate) const {
  const double divisor = std::ldexp(1.0, static_cast<int>(p_.decrease_log2));
  double cut_to = rate * (1 - alpha_ * p_.alpha_units / divisor);
  cut_to = std::max(cut_to, rate * p_.min_decrease_factor);
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
      rate_ = target_ = std::clamp(p_.first_cnp_rate_bps, p_.min_rate_bps, p_.line_rate_bps);
    } else {
      // Without clamp_tgt_rate the target follows only the first cut after
      // an increase event (NVIDIA's description; QCN's rule).
      if (p_.clamp_target || !cut_before_ || increased_since_cut_) target_ = rate_;
      rate_ = cut(rate_);
    }
  } else {
    target_ = rate_;
    rate_ = cut(rate_);
    alpha_ = (1 - p_.g) * alpha_ + p_.g;
    next_alpha_ps_ = now_ps + p_.alpha_period_ps;  // the alpha timer restarts
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
  if (least >= p_.threshold) {
    target_ += (least - p_.threshold + 1) * p_.hyper_increase_bps;
  } else if (most >= p_.threshold) {
    target_ += p_.additive_increase_bps;
  }
  target_ = std::min(target_, p_.line_rate_bps);
  rate_ = (target_ + rate_) / 2;
  // Halving the gap to RT reaches line rate only in the limit: within a bit
  // per second of it the QP is back at line rate and the limiter lets go.
  if (rate_ >= p_.line_rate_bps - 1) {
    rate_ = target_ = p_.line_rate_bps;
    active_ = false;
    bytes_ = 0;
  }
}

}  // namespace rnicsim
