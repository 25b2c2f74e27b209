#pragma once
// A clock domain: blocks charge their costs in cycles of their own clock.
// Model blocks never tick a clock; they turn cycle counts into time.
#include <array>
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
  static constexpr std::uint64_t kTabulatedCycles = 256;
  sc_core::sc_time compute(std::uint64_t n) const;

  double mhz_;
  // cycles(n) for the small counts blocks charge per packet, worked out once:
  // the conversion is long-double arithmetic.
  std::array<sc_core::sc_time, kTabulatedCycles> small_;
};

}  // namespace rnicsim
