#pragma once
// The rate limiter as the verilated rtl/rate_limiter (nic/congestion/
// rate_limiter.hpp has the contract), clocked call by call: each call is one
// operation, offered until the block takes it, then clocked until its result
// comes (a cycle per timer or byte-counter event due, and the pacing
// division's). Its cycles are not charged: the NIC's timing stays the model's.
//
// RtlRateLimiter<Top> serves any verilated parameter set of the block (the
// co-simulation tests use 16 slots and the test-only fault);
// make_rtl_rate_limiter gives the 1024-slot one the NIC swaps in.
#include <verilated.h>

#include <cstdint>
#include <functional>
#include <stdexcept>
#include <string>
#include <utility>

#include "nic/congestion/rate_limiter.hpp"
#include "nic/rtl_bridge/clocking.hpp"

namespace rnicsim {

template <typename Top, unsigned kSlotBits>
class RtlRateLimiter final : public RateLimiter {
 public:
  // `source_idle`, if given, is asked before each operation is offered and
  // while it says so the operation is held back a cycle (the tests' stalls).
  explicit RtlRateLimiter(const DcqcnParameters& p, std::function<bool()> source_idle = {})
      : source_idle_(std::move(source_idle)) {
    top_.cfg_preset_i = static_cast<std::uint8_t>(p.preset);
    top_.cfg_line_rate_bps_i = p.line_rate_bps;
    top_.cfg_g_i = fit(p.g, kAlphaOne, "g");
    top_.cfg_initial_alpha_i = fit(p.initial_alpha, kAlphaOne, "initial alpha");
    top_.cfg_cut_shift_i = fit(p.cut_shift, 31, "cut shift");
    top_.cfg_min_decrease_percent_i = fit(p.min_decrease_percent, 100, "minimum decrease");
    top_.cfg_min_rate_bps_i = p.min_rate_bps;
    top_.cfg_first_cnp_rate_bps_i = p.first_cnp_rate_bps;
    top_.cfg_clamp_target_i = p.clamp_target;
    top_.cfg_alpha_period_ps_i = p.alpha_period_ps;
    top_.cfg_reduce_monitor_ps_i = p.reduce_monitor_ps;
    top_.cfg_timer_ps_i = p.timer_ps;
    top_.cfg_byte_counter_bytes_i = p.byte_counter_bytes;
    top_.cfg_threshold_i = p.threshold;
    top_.cfg_additive_increase_bps_i = p.additive_increase_bps;
    top_.cfg_hyper_increase_bps_i = p.hyper_increase_bps;
    top_.op_valid_i = 0;
    top_.op_kind_i = 0;
    top_.op_slot_i = 0;
    top_.op_now_ps_i = 0;
    top_.op_bytes_i = 0;
    rtl_bridge::reset(top_, 1);
  }
  ~RtlRateLimiter() override { top_.final(); }
  const char* name() const override { return "rtl"; }
  std::size_t slots() const override { return std::size_t{1} << kSlotBits; }

  RateLimiterState open(std::uint32_t slot, std::uint64_t now_ps) override {
    return operate(kOpen, slot, now_ps, 0);
  }
  RateLimiterState cnp(std::uint32_t slot, std::uint64_t now_ps) override {
    return operate(kCnp, slot, now_ps, 0);
  }
  RateLimiterState sent(std::uint32_t slot, std::uint64_t wire_bytes,
                        std::uint64_t now_ps) override {
    if (wire_bytes > kMaxPacedBytes) {
      throw std::invalid_argument("rtl/rate_limiter: a packet of " + std::to_string(wire_bytes) +
                                  " wire bytes does not fit its 16-bit port");
    }
    return operate(kSent, slot, now_ps, wire_bytes);
  }
  RateLimiterState look(std::uint32_t slot, std::uint64_t now_ps) override {
    return operate(kLook, slot, now_ps, 0);
  }

 private:
  enum Kind : std::uint8_t { kLook = 0, kOpen = 1, kCnp = 2, kSent = 3 };
  // A stuck RTL fails rather than hangs: far more than the events a QP idle
  // for seconds has due at the presets' parameters (alpha reaches 0 within
  // some thousands of periods, the rate line rate within some dozens of
  // events). A g near 2^-20, or increase steps of 0, could need more.
  static constexpr std::uint64_t kMaxCycles = std::uint64_t{1} << 24;

  static std::uint32_t fit(std::uint32_t value, std::uint32_t most, const char* what) {
    if (value > most) {
      throw std::invalid_argument(std::string("rtl/rate_limiter: ") + what + " " +
                                  std::to_string(value) + " is more than its port holds");
    }
    return value;
  }

  RateLimiterState operate(Kind kind, std::uint32_t slot, std::uint64_t now_ps,
                           std::uint64_t bytes) {
    if (slot >= slots())
      throw std::out_of_range("rtl/rate_limiter: no slot " + std::to_string(slot));
    while (source_idle_ && source_idle_()) rtl_bridge::clock_cycle(top_);
    top_.op_kind_i = kind;
    top_.op_slot_i = slot;
    top_.op_now_ps_i = now_ps;
    top_.op_bytes_i = static_cast<std::uint16_t>(bytes);
    top_.op_valid_i = 1;
    for (std::uint64_t waited = 0;; ++waited) {
      if (waited > kMaxCycles) throw stuck("never took an operation");
      top_.clk_i = 0;
      top_.eval();
      const bool taken = top_.op_ready_o != 0;
      rtl_bridge::rise(top_);
      if (taken) break;
    }
    top_.op_valid_i = 0;
    for (std::uint64_t waited = 0; !top_.res_valid_o; ++waited) {
      if (waited > kMaxCycles) throw stuck("never answered");
      rtl_bridge::clock_cycle(top_);
    }
    RateLimiterState s;
    s.cut = top_.res_cut_o != 0;
    s.active = top_.res_active_o != 0;
    s.rate_bps = top_.res_rate_bps_o;
    s.target_bps = top_.res_target_bps_o;
    s.alpha = top_.res_alpha_o;
    s.timer_events = top_.res_timer_events_o;
    s.byte_events = top_.res_byte_events_o;
    s.next_send_ps = top_.res_next_send_ps_o;
    return s;
  }
  std::logic_error stuck(const std::string& what) const {
    return std::logic_error("rtl/rate_limiter " + what);
  }

  Top top_;
  std::function<bool()> source_idle_;
};

}  // namespace rnicsim
