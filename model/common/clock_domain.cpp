#include "common/clock_domain.hpp"

#include <cmath>
#include <stdexcept>

#include "common/time_units.hpp"

namespace rnicsim {

ClockDomain::ClockDomain(double mhz) : mhz_(mhz) {
  if (!(mhz > 0)) throw std::invalid_argument("clock must be > 0 MHz");
  for (std::uint64_t n = 0; n < kTabulatedCycles; ++n) small_[n] = compute(n);
}

sc_core::sc_time ClockDomain::cycles(std::uint64_t n) const {
  return n < kTabulatedCycles ? small_[n] : compute(n);
}

sc_core::sc_time ClockDomain::compute(std::uint64_t n) const {
  return checked_picoseconds(std::round(static_cast<long double>(n) * 1e6L / mhz_),
                             "a count of clock cycles");
}

}  // namespace rnicsim
