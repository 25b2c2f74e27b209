#pragma once
// The rate limiter as the verilated rtl/rate_limiter (nic/congestion/
// rate_limiter.hpp has the contract), clocked call by call: each call is one
// operation, offered until the block takes it, then clocked until its result
// comes (a cycle per timer or byte-counter event due, and the pacing
// division's). Its cycles are not charged: the NIC's timing stays the model's.
//
// RtlRateLimiter<Top> serves any verilated parameter set of the block (the
// co-simulation tests use 16 slots and the test-only fault);
// make_rtl_rate_limiter gives the 1024-slot one the NIC swaps in. A file that
// instantiates it includes Top's root header (<Top>___024root.h) as well: the
// backdoor (load) writes the block's slot array there.
#include <verilated.h>

#include <cstdint>
#include <functional>
#include <stdexcept>
#include <string>
#include <utility>

#include "nic/congestion/rate_limiter.hpp"
#include "nic/rtl_bridge/clocking.hpp"
#include "nic/rtl_bridge/verilated_ports.hpp"

namespace rnicsim {

template <typename Top, unsigned kSlotBits>
class RtlRateLimiter final : public RateLimiter {
 public:
  // `source_idle`, if given, is asked before each operation is offered and
  // while it says so the operation is held back a cycle (the tests' stalls).
  explicit RtlRateLimiter(const DcqcnParameters& p, std::function<bool()> source_idle = {})
      : source_idle_(std::move(source_idle)) {
    // The ports are as wide as the dcqcn.* keys' ranges need (the block's
    // README); a value beyond one is refused, never cut short.
    top_.cfg_preset_i = static_cast<std::uint8_t>(p.preset);
    top_.cfg_line_rate_bps_i = fit(p.line_rate_bps, kRateBits, "line rate");
    if (p.g == 0) throw std::invalid_argument("rtl/rate_limiter: g 0 (it must be at least 1)");
    top_.cfg_g_i = static_cast<std::uint32_t>(fit_at_most(p.g, kAlphaOne, "g"));
    top_.cfg_initial_alpha_i =
        static_cast<std::uint32_t>(fit_at_most(p.initial_alpha, kAlphaOne, "initial alpha"));
    top_.cfg_cut_shift_i = static_cast<std::uint8_t>(fit_at_most(p.cut_shift, 31, "cut shift"));
    top_.cfg_min_decrease_percent_i =
        static_cast<std::uint8_t>(fit_at_most(p.min_decrease_percent, 100, "minimum decrease"));
    top_.cfg_min_rate_bps_i = fit(p.min_rate_bps, kStepBits, "minimum rate");
    top_.cfg_first_cnp_rate_bps_i = fit(p.first_cnp_rate_bps, kStepBits, "first CNP's rate");
    top_.cfg_clamp_target_i = p.clamp_target;
    top_.cfg_alpha_period_ps_i = fit(p.alpha_period_ps, kPeriodBits, "alpha period");
    top_.cfg_reduce_monitor_ps_i = fit(p.reduce_monitor_ps, kPeriodBits, "reduce-monitor period");
    top_.cfg_timer_ps_i = fit(p.timer_ps, kPeriodBits, "rate-increase timer");
    // B at most 2^40 (the key's most), so that the count toward it, below B +
    // 2^16, fits its 41 bits.
    top_.cfg_byte_counter_bytes_i =
        fit_at_most(p.byte_counter_bytes, kMostByteCounterBytes, "byte counter");
    top_.cfg_threshold_i = static_cast<std::uint32_t>(fit(p.threshold, kThresholdBits, "F"));
    top_.cfg_additive_increase_bps_i = fit(p.additive_increase_bps, kStepBits, "additive step");
    top_.cfg_hyper_increase_bps_i = fit(p.hyper_increase_bps, kStepBits, "hyper step");
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
  // The last operation's latency: taken in cycle 0, answered in this cycle
  // (rtl/rate_limiter/README.md, "Operation latency").
  std::uint64_t last_operation_cycles() const { return last_operation_cycles_; }

  // Writes slots_q[slot] as rate_limiter.sv's slot_t packs it: its first
  // member in the highest bits, so the last one goes in first.
  void load(std::uint32_t slot, const RateLimiterSlot& state) override {
    if (slot >= slots())
      throw std::out_of_range("rtl/rate_limiter: no slot " + std::to_string(slot));
    const ReactionPointState& r = state.reaction_point;
    // States no operation leaves, where the block and the model part: a
    // pacing division by a rate of 0, a byte count that runs past its 41
    // bits or catches up for longer than kMaxCycles.
    if (r.active && (r.rate_bps == 0 || r.bytes >= top_.cfg_byte_counter_bytes_i)) {
      throw std::invalid_argument(
          "rtl/rate_limiter: an active slot needs a rate of at least 1 and a byte count below B");
    }
    rtl_bridge::PackedBits<kSlotWords> bits;
    bits.put(state.next_send_ps, 64);
    bits.put(r.alpha_running, 1);
    bits.put(r.cnp_this_period, 1);
    bits.put(r.last_cut_ps, 64);
    bits.put(r.increased_since_cut, 1);
    bits.put(r.cut_before, 1);
    bits.put(r.next_alpha_ps, 64);
    bits.put(r.next_timer_ps, 64);
    bits.put(fit(r.bytes, kByteCounterBits, "byte count"), kByteCounterBits);
    bits.put(r.byte_events, 32);
    bits.put(r.timer_events, 32);
    bits.put(fit_at_most(r.alpha, kAlphaOne, "alpha"), 21);
    bits.put(fit(r.target_bps, kRateBits, "target rate"), kRateBits);
    bits.put(fit(r.rate_bps, kRateBits, "rate"), kRateBits);
    bits.put(r.active, 1);
    if (bits.size() != kSlotWidth) throw std::logic_error("rtl/rate_limiter: slot_t's width");
    bits.write_to(top_.rootp->rate_limiter__DOT__slots_q[slot]);
  }

 private:
  enum Kind : std::uint8_t { kLook = 0, kOpen = 1, kCnp = 2, kSent = 3 };
  // A stuck RTL fails rather than hangs: far more than the events a QP idle
  // for seconds has due at the presets' parameters (alpha reaches 0 within
  // some thousands of periods, the rate line rate within some dozens of
  // events). A g near 2^-20, or increase steps of 0, could need more.
  static constexpr std::uint64_t kMaxCycles = std::uint64_t{1} << 24;

  // The ports' widths (rtl/rate_limiter/rate_limiter.sv).
  static constexpr unsigned kRateBits = 50;         // line rate, RC, RT
  static constexpr unsigned kStepBits = 40;         // R_AI, R_HAI, minimum and first-CNP rates
  static constexpr unsigned kPeriodBits = 40;       // ps
  static constexpr unsigned kByteCounterBits = 41;  // B and the count toward it
  static constexpr std::uint64_t kMostByteCounterBytes = std::uint64_t{1} << 40;
  static constexpr unsigned kThresholdBits = 21;  // F
  static constexpr std::size_t kSlotWidth = 487;  // SlotW
  static constexpr std::size_t kSlotWords = (kSlotWidth + 31) / 32;

  static std::uint64_t fit_at_most(std::uint64_t value, std::uint64_t most, const char* what) {
    if (value > most) {
      throw std::invalid_argument(std::string("rtl/rate_limiter: ") + what + " " +
                                  std::to_string(value) + " is more than its port holds (" +
                                  std::to_string(most) + ")");
    }
    return value;
  }
  static std::uint64_t fit(std::uint64_t value, unsigned bits, const char* what) {
    return fit_at_most(value, (std::uint64_t{1} << bits) - 1, what);
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
    last_operation_cycles_ = 1;  // the cycle after the one that took it
    for (; !top_.res_valid_o; ++last_operation_cycles_) {
      if (last_operation_cycles_ > kMaxCycles) throw stuck("never answered");
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
  std::uint64_t last_operation_cycles_ = 0;
};

}  // namespace rnicsim
