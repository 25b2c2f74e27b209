#pragma once
// CpuCore: one host CPU core's time, as the kernel path and the verbs driver
// spend it. Work is done one piece at a time in the order it is asked for: a
// piece asked for while the core is busy starts when the core is free. Each
// piece is charged to a kind of work; time spent spinning (busy polling an
// empty ring or CQ, or a buffer the NIC writes) is kept apart, as it is not
// work a faster stack would save.
#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <systemc>

#include "common/time_units.hpp"

namespace rnicsim {

enum class CpuWork : std::uint8_t {
  kSyscall,    // send()/recv() entry and exit
  kCopy,       // user <-> kernel copies
  kTcpTx,      // TCP/IP output and the driver's transmit
  kTcpRx,      // the driver's receive, IP and TCP input
  kAck,        // pure ACKs
  kInterrupt,  // hard interrupt, softirq entry
  kWakeup,     // waking and switching to a blocked thread
  kVerbs,      // RDMA: posting work, ringing doorbells, handling completions
  kReduce,     // a collective's reductions and local copies
  kLibrary,    // a communication library's own work per message (its progress engine)
};
inline constexpr std::size_t kCpuWorkKinds = 10;
inline const char* cpu_work_name(CpuWork work) {
  static const char* const names[kCpuWorkKinds] = {"syscall", "copy",      "tcp_tx", "tcp_rx",
                                                   "ack",     "interrupt", "wakeup", "verbs",
                                                   "reduce",  "library"};
  return names[static_cast<std::size_t>(work)];
}

class CpuCore {
 public:
  explicit CpuCore(std::string name) : name_(std::move(name)) {}

  // Does `time` of `work` on this core, after whatever it is doing; call
  // from a thread, which returns when the work is done.
  void run(const sc_core::sc_time& time, CpuWork work) { sc_core::wait(reserve(time, work)); }
  // The same for a caller that waits it out itself (an MMIO write's issue
  // time is waited inside the PCIe link, in one wait with the write): books
  // the work and returns how long from now until it is done.
  sc_core::sc_time reserve(const sc_core::sc_time& time, CpuWork work) {
    const sc_core::sc_time now = sim_now();
    const sc_core::sc_time start = free_at_ > now ? free_at_ : now;
    free_at_ = start + time;
    busy_[static_cast<std::size_t>(work)] += time;
    return free_at_ - now;
  }
  // A piece of `work` just done that turned out to be spinning (a poll that
  // found nothing): its time moves from the work to spinning.
  void count_as_spinning(const sc_core::sc_time& time, CpuWork work) {
    busy_[static_cast<std::size_t>(work)] -= time;
    spinning_ += time;
  }
  // Spins until one of `events`: the core is occupied meanwhile, and the time is
  // counted as spinning.
  void spin_until(const sc_core::sc_event_or_list& events) {
    const sc_core::sc_time from = sim_now();
    sc_core::wait(events);
    spinning_ += sim_now() - from;
    if (free_at_ < sim_now()) free_at_ = sim_now();
  }
  void spin_until(const sc_core::sc_event& event) {
    const sc_core::sc_time from = sim_now();
    sc_core::wait(event);
    spinning_ += sim_now() - from;
    if (free_at_ < sim_now()) free_at_ = sim_now();
  }
  // The same, giving up after `at_most`.
  void spin_until(const sc_core::sc_event& event, const sc_core::sc_time& at_most) {
    const sc_core::sc_time from = sim_now();
    sc_core::wait(at_most, event);
    spinning_ += sim_now() - from;
    if (free_at_ < sim_now()) free_at_ = sim_now();
  }
  // Spins for `time` (a spinning CPU noticing the line it polls changed).
  void spin_for(const sc_core::sc_time& time) {
    sc_core::wait(time);
    spinning_ += time;
    if (free_at_ < sim_now()) free_at_ = sim_now();
  }

  const std::string& name() const { return name_; }
  const sc_core::sc_time& busy(CpuWork work) const {
    return busy_[static_cast<std::size_t>(work)];
  }
  sc_core::sc_time total_busy() const {
    sc_core::sc_time sum;
    for (const sc_core::sc_time& t : busy_) sum += t;
    return sum;
  }
  const sc_core::sc_time& spinning() const { return spinning_; }

 private:
  std::string name_;
  sc_core::sc_time free_at_;
  std::array<sc_core::sc_time, kCpuWorkKinds> busy_{};
  sc_core::sc_time spinning_;
};

}  // namespace rnicsim
