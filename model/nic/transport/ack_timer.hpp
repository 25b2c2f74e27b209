#pragma once
// AckTimer: the requester's transport timers (IBTA 9.7.6.1.3), one per QP,
// kept as a deadline in each QpContext and served by one event for the NIC.
//
// A QP's timer runs while a packet it sent waits for its acknowledgement or
// response: the requester starts it when it sends and it is stopped, each
// response that makes progress restarts it, and it stops when nothing sent
// is left unanswered. Running timers wait in a queue ordered by deadline,
// one entry per QP; a deadline that moves later (progress) costs nothing
// until its entry comes due, when the completer's timer method finds it
// still running and queues it again at its deadline now. The event is
// scheduled at the earliest entry. So a timer costs one comparison per
// packet and a queue operation per timeout period, whatever the number of
// QPs (100,000 QPs scanned per expiry made the timer the simulator's cost).
#include <cstdint>
#include <functional>
#include <queue>
#include <systemc>
#include <vector>

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

  // Called by the timer method when the event fires, before it takes the
  // QPs due with next_due().
  void fired() { scheduled_ = false; }

  // The next QP whose queue entry is due at `now` (its timer may since have
  // moved later or stopped: the caller looks), or null when none is.
  QpContext* next_due(const sc_core::sc_time& now, RcContexts& contexts) {
    while (!queue_.empty() && queue_.top().deadline <= now) {
      const Entry entry = queue_.top();
      queue_.pop();
      QpContext* qp = contexts.qp(entry.qpn);
      // A later entry of a destroyed QP, or one an earlier deadline replaced.
      if (qp == nullptr || qp->ack_queued_at != entry.deadline) continue;
      qp->ack_queued_at = sc_core::SC_ZERO_TIME;
      return qp;
    }
    return nullptr;
  }
  // A due QP whose timer still runs, its deadline later: queued again.
  void requeue(QpContext& qp) { queue(qp, qp.ack_deadline); }
  // After the due QPs are served: the event at the earliest entry left.
  void schedule_next() {
    if (!queue_.empty()) schedule(queue_.top().deadline);
  }
  void schedule(const sc_core::sc_time& at) {
    if (scheduled_ && scheduled_at_ <= at) return;
    scheduled_ = true;
    scheduled_at_ = at;
    event_.notify(at > sim_now() ? at - sim_now() : sc_core::SC_ZERO_TIME);
  }

 private:
  void set(QpContext& qp, const sc_core::sc_time& deadline) {
    qp.ack_deadline = deadline;
    // An entry already queued at or before the deadline serves it; an
    // earlier deadline (a shorter period after backoff ends) gets its own.
    if (qp.ack_queued_at == sc_core::SC_ZERO_TIME || deadline < qp.ack_queued_at) {
      queue(qp, deadline);
    }
  }
  void queue(QpContext& qp, const sc_core::sc_time& deadline) {
    qp.ack_queued_at = deadline;
    queue_.push({deadline, qp.qpn});
    schedule(deadline);
  }

  struct Entry {
    sc_core::sc_time deadline;
    std::uint32_t qpn;
    bool operator>(const Entry& other) const {
      return deadline != other.deadline ? deadline > other.deadline : qpn > other.qpn;
    }
  };
  std::priority_queue<Entry, std::vector<Entry>, std::greater<Entry>> queue_;

  AckTimeoutBackoff backoff_;
  sc_core::sc_event event_;
  bool scheduled_ = false;
  sc_core::sc_time scheduled_at_;
};

}  // namespace rnicsim
