#pragma once
// AckTimer: the requester's transport timers (IBTA 9.7.6.1.3), one per QP,
// kept as a deadline in each QpContext and served by one event for the NIC.
//
// A QP's timer runs while a packet it sent waits for its acknowledgement or
// response: the requester starts it when it sends and it is stopped, each
// response that makes progress restarts it, and it stops when nothing sent
// is left unanswered. The event is scheduled at the earliest deadline it has
// been told of; a deadline that moves later (progress) costs nothing until
// the event fires, when the completer's timer method looks at every QP and
// schedules the event again at the earliest deadline still running. So a
// timer costs one comparison per packet and an event per timeout period.
#include <cstdint>
#include <systemc>

#include "common/time_units.hpp"
#include "nic/transport/rc_contexts.hpp"
#include "nic/transport/transport_config.hpp"

namespace rnicsim {

class AckTimer {
 public:
  explicit AckTimer(AckTimeoutBackoff backoff) : backoff_(backoff) {}

  // The QP's timeout period now: 4.096 us x 2^timeout, doubled per timeout in
  // a row under exponential backoff; zero for timeout 0 (never expires).
  sc_core::sc_time period(const QpContext& qp) const {
    if (qp.timeout == 0) return sc_core::SC_ZERO_TIME;
    std::uint32_t exponent = qp.timeout;
    if (backoff_ == AckTimeoutBackoff::kExponential) exponent += qp.timeouts_in_row;
    exponent = std::min<std::uint32_t>(exponent, 40);  // 52 days: far past any run
    return sc_core::sc_time(4.096 * static_cast<double>(std::uint64_t{1} << exponent),
                            sc_core::SC_US);
  }

  // A packet was sent: starts the QP's timer unless it runs.
  void start(QpContext& qp) {
    if (qp.ack_deadline != sc_core::SC_ZERO_TIME || qp.timeout == 0) return;
    set(qp, sim_now() + period(qp));
  }

  // A response made progress: the timer starts over while something sent is
  // still unanswered, else it stops.
  void restart(QpContext& qp) {
    if (qp.timeout == 0 || !qp.awaiting_response()) {
      stop(qp);
      return;
    }
    set(qp, sim_now() + period(qp));
  }

  static void stop(QpContext& qp) { qp.ack_deadline = sc_core::SC_ZERO_TIME; }

  // Notified at (or before) the earliest running deadline.
  const sc_core::sc_event& event() const { return event_; }

  // Called by the timer method when the event fires, before it looks at the
  // QPs and schedules the next expiry with schedule().
  void fired() { scheduled_ = false; }
  void schedule(const sc_core::sc_time& at) {
    if (scheduled_ && scheduled_at_ <= at) return;
    scheduled_ = true;
    scheduled_at_ = at;
    event_.notify(at > sim_now() ? at - sim_now() : sc_core::SC_ZERO_TIME);
  }

 private:
  void set(QpContext& qp, const sc_core::sc_time& deadline) {
    qp.ack_deadline = deadline;
    schedule(deadline);
  }

  AckTimeoutBackoff backoff_;
  sc_core::sc_event event_;
  bool scheduled_ = false;
  sc_core::sc_time scheduled_at_;
};

}  // namespace rnicsim
