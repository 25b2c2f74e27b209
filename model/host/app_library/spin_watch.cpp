// The spin watch: a program spinning on its registered memory (perftest's
// write_lat polls the last byte of its buffer) calls nothing, so nothing
// would tell the simulator it waits. The rule (README: spinning on memory):
//
// 1. A program that has run a whole tick of its own CPU time (kTick) with
//    no call to the simulator is watched: its shared pages are protected.
// 2. Each load or store of a watched page faults; the page is opened for
//    that one instruction (single step), and the bytes at the address are
//    read after it.
// 3. Two accesses in a row of the same address finding the same bytes, with
//    no call between, are a spin: the program waits (kWaitWrite) until the
//    NIC's next write changes those bytes, and resumes at that time. Any
//    call, or kMaxLooks accesses that are not a spin, ends the watch.
//
// The tick only decides when the watch begins; whether the program spins,
// and the simulated time it resumes at, come from what it reads. A spin
// loop reads the same bytes on every turn, so the outcome is the same
// whichever turn is watched: results do not depend on the host's speed.
// The main thread is watched; other threads are not (README).
#include <signal.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <ucontext.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <cstring>

#include "host/app_library/app_bridge_client.hpp"

namespace rnicsim::app {
namespace {

constexpr long kTickNs = 2'000'000;  // 2 ms of the program's CPU time
constexpr int kMaxLooks = 64;
constexpr std::uint64_t kPage = 4096;
constexpr greg_t kTrapFlag = 0x100;

volatile sig_atomic_t watching = 0;
pid_t watched_thread = 0;
std::uint64_t calls_at_tick = 0;
// The access being single-stepped, and the last one seen.
std::uint64_t stepping = 0;
bool stepping_store = false;
struct Look {
  std::uint64_t address = 0;
  std::uint32_t length = 0;
  std::uint8_t bytes[8] = {};
  std::uint64_t calls = 0;
  bool valid = false;
};
Look last;
int looks = 0;

void protect_all(int protection) {
  for_each_shared([&](const SharedRange& r) {
    mprotect(reinterpret_cast<void*>(r.first), r.length, protection);
  });
}

bool shared(std::uint64_t address) {
  bool found = false;
  for_each_shared([&](const SharedRange& r) {
    if (address >= r.first && address - r.first < r.length) found = true;
  });
  return found;
}

void on_tick(int, siginfo_t*, void*) {
  const std::uint64_t calls = calls_made();
  if (calls != calls_at_tick || in_call() || watching) {
    calls_at_tick = calls;
    return;
  }
  // A whole tick without a call: spinning, or computing. Watch.
  last.valid = false;
  looks = 0;
  watching = 1;
  protect_all(PROT_NONE);
}

void on_step(int signal_number, siginfo_t*, void* context) {
  auto* uc = static_cast<ucontext_t*>(context);
  if (stepping == 0) {
    signal(signal_number, SIG_DFL);  // not ours: a debugger's or the program's
    return;
  }
  uc->uc_mcontext.gregs[REG_EFL] &= ~kTrapFlag;
  const std::uint64_t address = stepping;
  stepping = 0;
  if (!watching) return;
  if (stepping_store) {
    // The program writing its buffer is not waiting on it.
    mprotect(reinterpret_cast<void*>(address / kPage * kPage), kPage, PROT_NONE);
    return;
  }
  Look look;
  look.address = address;
  look.length = static_cast<std::uint32_t>(std::min<std::uint64_t>(8, kPage - address % kPage));
  std::memcpy(look.bytes, reinterpret_cast<const void*>(address), look.length);
  look.calls = calls_made();
  look.valid = true;
  const bool spin = last.valid && last.address == look.address && last.length == look.length &&
                    last.calls == look.calls &&
                    std::memcmp(last.bytes, look.bytes, look.length) == 0;
  if (spin) {
    stop_spin_watch();
    bridge::WaitWrite wait{};
    wait.address = look.address;
    wait.length = look.length;
    std::memcpy(wait.seen, look.bytes, look.length);
    call(bridge::Request::kWaitWrite, &wait, sizeof wait);
    calls_at_tick = calls_made();
    return;
  }
  last = look;
  if (++looks >= kMaxLooks) {
    stop_spin_watch();  // computing on its buffers, not spinning
    return;
  }
  mprotect(reinterpret_cast<void*>(address / kPage * kPage), kPage, PROT_NONE);
}

}  // namespace

void start_spin_watch() {
  if (std::getenv("RNICSIM_NO_SPIN_WATCH") != nullptr) return;
  watched_thread = static_cast<pid_t>(syscall(SYS_gettid));
  struct sigaction step {};
  step.sa_sigaction = on_step;
  step.sa_flags = SA_SIGINFO;
  sigemptyset(&step.sa_mask);
  sigaction(SIGTRAP, &step, nullptr);
  struct sigaction tick {};
  tick.sa_sigaction = on_tick;
  tick.sa_flags = SA_SIGINFO | SA_RESTART;
  sigemptyset(&tick.sa_mask);
  const int tick_signal = SIGRTMIN + 2;
  sigaction(tick_signal, &tick, nullptr);
  sigevent event{};
  event.sigev_notify = SIGEV_THREAD_ID;
  event.sigev_signo = tick_signal;
  event._sigev_un._tid = watched_thread;
  timer_t timer;
  if (timer_create(CLOCK_THREAD_CPUTIME_ID, &event, &timer) != 0) return;
  const itimerspec every{{0, kTickNs}, {0, kTickNs}};
  timer_settime(timer, 0, &every, nullptr);
}

bool spin_watch_fault(void* address, void* context) {
  const auto at = reinterpret_cast<std::uint64_t>(address);
  if (!watching || !shared(at)) return false;
  if (static_cast<pid_t>(syscall(SYS_gettid)) != watched_thread) {
    // Another thread: the page opens for good (that thread is not watched).
    mprotect(reinterpret_cast<void*>(at / kPage * kPage), kPage, PROT_READ | PROT_WRITE);
    return true;
  }
  // Open the page for this one access, and look after it (SIGTRAP).
  mprotect(reinterpret_cast<void*>(at / kPage * kPage), kPage, PROT_READ | PROT_WRITE);
  stepping = at;
  // The page fault's error code: bit 1 set for a write.
  auto* uc = static_cast<ucontext_t*>(context);
  stepping_store = (uc->uc_mcontext.gregs[REG_ERR] & 2) != 0;
  uc->uc_mcontext.gregs[REG_EFL] |= kTrapFlag;
  return true;
}

void stop_spin_watch() {
  if (!watching) return;
  watching = 0;
  last.valid = false;
  protect_all(PROT_READ | PROT_WRITE);
}

}  // namespace rnicsim::app
