#pragma once
// InterruptModeration: when the port raises its interrupt (kernel-free).
//
// The driver arms the interrupt; the port counts events (frames received or
// sent) and fires once per arming: at once when `events_to_fire` have
// accumulated, else `delay` after the first event (ethtool's rx-frames and
// rx-usecs). Firing disarms it: NAPI then polls with the interrupt off and
// re-arms when it runs out of work. Events the driver has not consumed when
// it re-arms count as pending, so a frame that arrived while it was
// finishing its poll still raises an interrupt.
#include <cstdint>
#include <optional>
#include <systemc>

namespace rnicsim::ethernet {

class InterruptModeration {
 public:
  InterruptModeration(const sc_core::sc_time& delay, std::uint32_t events_to_fire)
      : delay_(delay), events_to_fire_(events_to_fire) {}

  // An event at `now`; true when the interrupt fires now.
  bool on_event(const sc_core::sc_time& now) {
    ++pending_;
    return armed_ && decide(now);
  }
  // The driver re-arms with `pending` events it has not consumed; true when
  // the interrupt fires now.
  bool arm(std::uint64_t pending, const sc_core::sc_time& now) {
    armed_ = true;
    pending_ = pending;
    deadline_.reset();
    return pending_ > 0 && decide(now);
  }
  // The timer's check at `now`; true when the interrupt fires now.
  bool on_timer(const sc_core::sc_time& now) {
    if (!armed_ || !deadline_ || *deadline_ > now) return false;
    fire();
    return true;
  }
  // When the timer must look again; nullopt when no interrupt is waiting.
  const std::optional<sc_core::sc_time>& deadline() const { return deadline_; }

 private:
  bool decide(const sc_core::sc_time& now) {
    if (pending_ >= events_to_fire_ || delay_ == sc_core::SC_ZERO_TIME) {
      fire();
      return true;
    }
    if (!deadline_) deadline_ = now + delay_;
    return false;
  }
  void fire() {
    armed_ = false;
    pending_ = 0;
    deadline_.reset();
  }

  sc_core::sc_time delay_;
  std::uint32_t events_to_fire_;
  bool armed_ = false;
  std::uint64_t pending_ = 0;
  std::optional<sc_core::sc_time> deadline_;
};

}  // namespace rnicsim::ethernet
