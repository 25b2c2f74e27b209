#pragma once
// A clock domain: blocks charge their costs in cycles of their own clock.
// Model blocks never tick a clock; they turn cycle counts into time.
#include <cstdint>
#include <systemc>

namespace rnicsim {

class ClockDomain {
 public:
  // Throws std::invalid_argument unless mhz > 0.
  explicit ClockDomain(double mhz);

  double mhz() const { return mhz_; }
  // n cycles, rounded to the nearest picosecond. Computed from n rather than by
  // adding periods, so one long count of a 322.265625 MHz MAC clock (3103.03 ps)
  // does not drift; separate counts each round on their own.
  sc_core::sc_time cycles(std::uint64_t n) const;

 private:
  double mhz_;
};

}  // namespace rnicsim
