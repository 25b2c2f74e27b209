#include "common/run_progress.hpp"

#include <cstdio>
#include <ostream>
#include <systemc>
#include <utility>

#include "common/simulation.hpp"
#include "common/time_units.hpp"

namespace rnicsim {
namespace {

constexpr auto kFirstReport = std::chrono::seconds(1);
constexpr auto kReportEvery = std::chrono::seconds(1);

// "12.3 us": three significant digits in the largest unit that is at least 1.
std::string simulated_time_text(double ns) {
  static constexpr struct {
    double ns;
    const char* unit;
  } kUnits[] = {{1e9, "s"}, {1e6, "ms"}, {1e3, "us"}, {1, "ns"}};
  for (const auto& u : kUnits) {
    if (ns >= u.ns || u.ns == 1) {
      char text[32];
      std::snprintf(text, sizeof text, "%.3g %s", ns / u.ns, u.unit);
      return text;
    }
  }
  return {};
}

// "650k": three significant digits with a k or M suffix.
std::string count_text(double count) {
  char text[32];
  if (count >= 1e6) {
    std::snprintf(text, sizeof text, "%.3gM", count / 1e6);
  } else if (count >= 1e3) {
    std::snprintf(text, sizeof text, "%.3gk", count / 1e3);
  } else {
    std::snprintf(text, sizeof text, "%.3g", count);
  }
  return text;
}

}  // namespace

std::string progress_line(double simulated_ns, std::uint64_t done, std::uint64_t total,
                          const std::string& unit, double seconds, const std::string& note) {
  const double rate = seconds > 0 ? static_cast<double>(done) / seconds : 0;
  std::string line = "rnicsim: " + simulated_time_text(simulated_ns) + " simulated | " +
                     std::to_string(done) + " of " + std::to_string(total) + " " + unit;
  if (total > 0) line += " (" + std::to_string(done * 100 / total) + "%)";
  if (!note.empty()) line += " | " + note;
  line += " | " + count_text(rate) + " " + unit + "/s";
  if (rate > 0 && total > done) {
    line += " | about " + count_text(static_cast<double>(total - done) / rate) + " s left";
  }
  return line;
}

RunProgress::RunProgress(std::ostream* terminal) : terminal_(terminal) {}

void RunProgress::start(std::string unit, std::uint64_t total) {
  unit_ = std::move(unit);
  total_ = total;
  done_ = 0;
  started_ = Clock::now();
  next_report_ = started_ + kFirstReport;
}

void RunProgress::advance(std::uint64_t items) {
  done_ += items;
  if (stop_requested() && !stopping_) {
    stopping_ = true;
    // Paused, not stopped: simulate() can still unwind the threads.
    sc_core::sc_pause();
  }
  if (terminal_ == nullptr || --until_clock_read_ > 0) return;
  until_clock_read_ = kItemsBetweenClockReads;
  const Clock::time_point now = Clock::now();
  if (now >= next_report_) {
    show(now);
    next_report_ = now + kReportEvery;
  }
}

void RunProgress::show(Clock::time_point now) {
  const double seconds = std::chrono::duration<double>(now - started_).count();
  const std::string line = progress_line(to_ns(sim_now()), done_, total_, unit_,
                                         seconds, note_);
  // Carriage return and erase-to-end-of-line: the line is rewritten in place.
  *terminal_ << "\r" << line << "\x1b[K" << std::flush;
  shown_ = true;
}

void RunProgress::finish() {
  if (shown_) *terminal_ << "\r\x1b[K" << std::flush;
  shown_ = false;
}

}  // namespace rnicsim
