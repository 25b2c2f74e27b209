#pragma once
// DCQCN's reaction point: the arithmetic of one QP's rate limiter, without
// the simulation kernel (times are picoseconds given by the caller), so that
// unit tests can pin it down by hand-worked sequences.
//
// Fixed point, as a NIC's rate limiter computes it (and rtl/rate_limiter,
// its twin, exactly): rates are whole bit/s, alpha is in 2^-20ths, every
// division rounds down except the pacing time's, which rounds up.
//
// Two presets with their own semantics (nic/congestion/README.md):
//  - kPaper (Zhu et al., SIGCOMM 2015): every CNP cuts, RT = RC,
//    RC = RC x (1 - alpha/2), then alpha = (1 - g) alpha + g; alpha decays,
//    alpha = (1 - g) alpha, each alpha period without a CNP (its timer
//    restarts at a CNP).
//  - kFirmware (ConnectX's firmware as NVIDIA documents it): a CNP cuts at
//    most once per rate_reduce_monitor_period (the others are ignored),
//    RC = RC x (1 - alpha / 2^rpg_gd) (alpha in 1/1024ths), no lower than rpg_min_dec_fac of the
//    old rate or rpg_min_rate; the first CNP may set rate_to_set_on_first_cnp
//    instead; alpha moves once per dce_tcp_rtt period, up by g when a CNP came
//    in that period and down otherwise.
// Under both, alpha at 0 stops its timer; the next CNP starts it again, a
// period from then.
// Both raise the rate on increase events, from a timer (T) restarted at each
// cut and a byte counter (B bytes sent since the cut): while both event
// counts are below F, fast recovery RC = (RT + RC) / 2; once one reaches F,
// additive increase RT += R_AI first; once both do, hyper increase
// RT += i x R_HAI (i = min(counts) - F + 1) first. RT is capped at line rate.
// Once RC is back at line rate the limiter is idle: no pacing, no timers.
//
// Times are compared modulo 2^64 (a timer is due once the time has reached
// it, within 2^63 ps), so that they may wrap as a hardware counter does.
#include <cstdint>

namespace rnicsim {

enum class DcqcnPreset : std::uint8_t { kOff, kPaper, kFirmware };

// alpha = 1 in alpha's fixed point (2^-20ths).
inline constexpr std::uint32_t kAlphaOne = std::uint32_t{1} << 20;

struct DcqcnParameters {
  DcqcnPreset preset = DcqcnPreset::kOff;
  std::uint64_t line_rate_bps = 100'000'000'000;
  // Decrease. alpha and g in 2^-20ths, at most kAlphaOne.
  std::uint32_t g = kAlphaOne / 256;        // alpha's gain
  std::uint32_t initial_alpha = kAlphaOne;  // alpha before the first CNP
  // A cut takes (RC x alpha) >> cut_shift off RC: the paper's alpha / 2 is
  // 21; the firmware's alpha / 2^rpg_gd, alpha in 1/1024ths, is 10 + rpg_gd.
  std::uint32_t cut_shift = 21;
  std::uint32_t min_decrease_percent = 0;  // a cut leaves at least this share of RC (firmware)
  std::uint64_t min_rate_bps = 0;          // a cut never goes below this
  std::uint64_t first_cnp_rate_bps = 0;  // firmware: the rate the first CNP sets (0: cut as usual)
  // Firmware: every cut sets RT = RC (clamp_tgt_rate); without it only the
  // first cut after an increase event does. The paper's always does.
  bool clamp_target = true;
  std::uint64_t alpha_period_ps = 55'000'000;  // paper: alpha timer; firmware: dce_tcp_rtt
  std::uint64_t reduce_monitor_ps = 0;         // firmware: at most one cut per this period
  // Increase.
  std::uint64_t timer_ps = 55'000'000;            // T
  std::uint64_t byte_counter_bytes = 10'000'000;  // B
  std::uint32_t threshold = 5;                    // F
  std::uint64_t additive_increase_bps = 40'000'000;  // R_AI
  std::uint64_t hyper_increase_bps = 200'000'000;    // R_HAI
};

// Whether time `at` has come by `now`, modulo 2^64.
inline bool time_reached(std::uint64_t at, std::uint64_t now) {
  return static_cast<std::int64_t>(now - at) >= 0;
}

// The time `wire_bytes` take at `rate_bps`, in picoseconds, rounded up.
std::uint64_t pacing_ps(std::uint64_t wire_bytes, std::uint64_t rate_bps);

// Everything one QP's rate limiter holds.
struct ReactionPointState {
  bool active = false;             // held below line rate
  std::uint64_t rate_bps = 0;      // RC
  std::uint64_t target_bps = 0;    // RT
  std::uint32_t alpha = 0;         // 2^-20ths
  std::uint32_t timer_events = 0;  // since the last cut
  std::uint32_t byte_events = 0;
  std::uint64_t bytes = 0;          // toward the next byte-counter event
  std::uint64_t next_timer_ps = 0;  // the next rate-increase timer event
  std::uint64_t next_alpha_ps = 0;  // the next alpha update
  bool cut_before = false;
  bool increased_since_cut = false;  // an increase event since the last cut
  std::uint64_t last_cut_ps = 0;
  bool cnp_this_period = false;  // firmware: a CNP came in the current alpha period
  bool alpha_running = false;    // alpha's timer runs (from a CNP until alpha is 0)
};

// One QP's rate limiter. Timers are applied lazily: advance(now) runs every
// timer event due by `now` in order, so the state at a time does not depend
// on how often it is looked at. Every call takes a time no earlier than the
// last one's.
class ReactionPoint {
 public:
  explicit ReactionPoint(const DcqcnParameters& parameters);

  // Runs the timer events (rate increase, alpha update) due by `now_ps`.
  void advance(std::uint64_t now_ps);
  // A CNP for this QP at `now_ps`: true if it cut the rate, false if the
  // preset ignored it (firmware: a cut within rate_reduce_monitor_period).
  bool cnp(std::uint64_t now_ps);
  // `bytes` sent at `now_ps`: the byte counter's increase events.
  void sent(std::uint64_t bytes, std::uint64_t now_ps);

  // Whether the limiter holds the QP below line rate.
  bool active() const { return s_.active; }
  std::uint64_t rate_bps() const { return s_.rate_bps; }
  std::uint64_t target_bps() const { return s_.target_bps; }
  std::uint32_t alpha() const { return s_.alpha; }  // 2^-20ths
  std::uint32_t timer_events() const { return s_.timer_events; }
  std::uint32_t byte_events() const { return s_.byte_events; }

  const ReactionPointState& state() const { return s_; }
  // Test only: a backdoor, as a verification environment has one, that puts
  // the limiter in a state its operations could reach only after very many
  // of them (event counts near 2^32, a byte count near 2^40).
  void load(const ReactionPointState& state) { s_ = state; }

 private:
  void increase(bool from_timer);
  void advance_alpha(std::uint64_t now_ps);
  std::uint64_t cut(std::uint64_t rate) const;

  const DcqcnParameters& p_;
  ReactionPointState s_;
};

}  // namespace rnicsim
