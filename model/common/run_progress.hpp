#pragma once
// RunProgress: what a long run shows on a terminal while it simulates, and
// where a requested stop (simulation.hpp) takes effect.
//
// Experiments call advance() for every item they complete (a Data arrived, a
// DMA transfer returned, an address translated). Once a second of wall time
// has passed, and then every second, one line on the terminal is rewritten:
//   rnicsim: 1.2 ms simulated | 1234567 of 10000000 Data (12%) | 650k Data/s | about 14 s left
// A run made of parts (perf -a's sizes) adds a note after the count:
//   rnicsim: 3.1 ms simulated | 5000 of 23000 iterations (21%) | size 6 of 23: 64 B | ...
// Without a terminal it prints nothing; the results never depend on it.
#include <chrono>
#include <cstdint>
#include <iosfwd>
#include <string>

namespace rnicsim {

// The progress line (without the terminal's control characters): `seconds`
// of wall time have passed; an empty `note` adds nothing.
std::string progress_line(double simulated_ns, std::uint64_t done, std::uint64_t total,
                          const std::string& unit, double seconds, const std::string& note);

class RunProgress {
 public:
  // `terminal` null: quiet.
  explicit RunProgress(std::ostream* terminal = nullptr);
  // A run that ends early (an error, an interrupt) leaves no half line behind.
  ~RunProgress() { finish(); }
  RunProgress(const RunProgress&) = delete;
  RunProgress& operator=(const RunProgress&) = delete;

  // Starts counting `total` items named `unit` ("Data", "transfers").
  void start(std::string unit, std::uint64_t total);
  // Shown after the count from the next line on (which part of the run is running).
  void set_note(std::string note) { note_ = std::move(note); }
  // `items` more are done. Stops the simulation if a stop was requested.
  void advance(std::uint64_t items = 1);
  // Clears the progress line, if one was shown.
  void finish();

 private:
  using Clock = std::chrono::steady_clock;
  // Reading the clock costs more than an item's bookkeeping; look every so often.
  static constexpr std::uint32_t kItemsBetweenClockReads = 64;

  void show(Clock::time_point now);

  std::ostream* terminal_;
  std::string unit_;
  std::string note_;
  std::uint64_t total_ = 0;
  std::uint64_t done_ = 0;
  std::uint32_t until_clock_read_ = kItemsBetweenClockReads;
  Clock::time_point started_;
  Clock::time_point next_report_;
  bool shown_ = false;
  bool stopping_ = false;
};

}  // namespace rnicsim
