#pragma once
// RateLimiter: the NIC's DCQCN rate-limiter block, the reaction point's state
// for a number of QPs (one slot each) and the operations on one slot:
// open (a new QP), cnp, sent (the byte counter and the next-send time),
// look (the timers due). The arithmetic is ReactionPoint's (dcqcn.hpp); the
// next packet of a limited QP waits its wire bytes at the current rate, from
// when the last left or could have left, whichever is later (no credit for
// idle time beyond one packet).
//
// Two implementations, chosen by `dcqcn.impl`: the model's
// (make_model_rate_limiter) and the verilated rtl/rate_limiter
// (nic/congestion/rate_limiter_rtl.hpp). They must agree value for value
// (testbench/cosim/rate_limiter_cosim_test.cpp).
//
// Free of SystemC (the RTL bridge includes Verilator's headers, which must
// not see SystemC's): times are picoseconds the caller gives, each no earlier
// than the last for the same slot.
#include <cstddef>
#include <cstdint>
#include <memory>

#include "nic/congestion/dcqcn.hpp"

namespace rnicsim {

// A slot after an operation.
struct RateLimiterState {
  bool cut = false;  // the operation was a CNP that cut the rate
  bool active = false;
  std::uint64_t rate_bps = 0;    // RC
  std::uint64_t target_bps = 0;  // RT
  std::uint32_t alpha = 0;       // 2^-20ths
  std::uint32_t timer_events = 0;
  std::uint32_t byte_events = 0;
  std::uint64_t next_send_ps = 0;  // the QP may send its next packet from then

  bool operator==(const RateLimiterState& other) const {
    return cut == other.cut && active == other.active && rate_bps == other.rate_bps &&
           target_bps == other.target_bps && alpha == other.alpha &&
           timer_events == other.timer_events && byte_events == other.byte_events &&
           next_send_ps == other.next_send_ps;
  }
  bool operator!=(const RateLimiterState& other) const { return !(*this == other); }
};

// Everything a slot holds.
struct RateLimiterSlot {
  ReactionPointState reaction_point;
  std::uint64_t next_send_ps = 0;
};

// What an operation answers of a slot in state `r`, may send from
// `next_send_ps`; `cut` is a CNP's answer.
inline RateLimiterState slot_answer(const ReactionPointState& r, std::uint64_t next_send_ps,
                                    bool cut) {
  RateLimiterState s;
  s.cut = cut;
  s.active = r.active;
  s.rate_bps = r.rate_bps;
  s.target_bps = r.target_bps;
  s.alpha = r.alpha;
  s.timer_events = r.timer_events;
  s.byte_events = r.byte_events;
  s.next_send_ps = next_send_ps;
  return s;
}

class RateLimiter {
 public:
  virtual ~RateLimiter() = default;
  virtual const char* name() const = 0;
  // The QPs it holds at once: slots 0 to slots() - 1.
  virtual std::size_t slots() const = 0;

  // Slot `slot` starts limiting a new QP at `now_ps`: line rate, initial
  // alpha, not active, may send from `now_ps`.
  virtual RateLimiterState open(std::uint32_t slot, std::uint64_t now_ps) = 0;
  // A CNP for the slot's QP.
  virtual RateLimiterState cnp(std::uint32_t slot, std::uint64_t now_ps) = 0;
  // The slot's QP sent a packet of `wire_bytes` (preamble and gap included,
  // below 2^16).
  virtual RateLimiterState sent(std::uint32_t slot, std::uint64_t wire_bytes,
                                std::uint64_t now_ps) = 0;
  // The slot as of `now_ps`: its due timer events run (which changes nothing
  // any later answer gives).
  virtual RateLimiterState look(std::uint32_t slot, std::uint64_t now_ps) = 0;

  // Test only: a backdoor write of a whole slot, as a verification
  // environment has one, for states the operations reach only after billions
  // of them (event counts near 2^32 with increase steps of 0, a byte count
  // near 2^40). The slot then holds an open QP in that state, which must be
  // one the block can hold: if active, a rate of at least 1 and a byte count
  // below B (the RTL's refuses others).
  virtual void load(std::uint32_t slot, const RateLimiterSlot& state) = 0;
};

// Wire bytes a packet may have: the RTL's port is 16 bits wide.
inline constexpr std::uint64_t kMaxPacedBytes = 0xFFFF;

// `slots` QPs at most.
std::unique_ptr<RateLimiter> make_model_rate_limiter(const DcqcnParameters& parameters,
                                                     std::size_t slots);
// The verilated rtl/rate_limiter with 1024 slots (nic/congestion/rate_limiter_rtl.cpp).
std::unique_ptr<RateLimiter> make_rtl_rate_limiter(const DcqcnParameters& parameters);

}  // namespace rnicsim
