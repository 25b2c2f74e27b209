#include "common/clock_domain.hpp"

#include <cmath>
#include <stdexcept>

#include "common/time_units.hpp"

namespace rnicsim {

ClockDomain::ClockDomain(double mhz) : mhz_(mhz) {
  if (!(mhz > 0)) throw std::invalid_argument("clock must be > 0 MHz");
}

sc_core::sc_time ClockDomain::cycles(std::uint64_t n) const {
  const long double ps = static_cast<long double>(n) * 1e6L / mhz_;
  return picoseconds(static_cast<std::uint64_t>(std::llround(ps)));
}

}  // namespace rnicsim
