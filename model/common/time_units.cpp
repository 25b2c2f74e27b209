#include "common/time_units.hpp"

#include <cmath>
#include <stdexcept>
#include <string>

#include "common/simulation.hpp"

namespace rnicsim {

void require_picosecond_resolution() {
  if (sc_core::sc_get_time_resolution() != sc_core::sc_time(1, sc_core::SC_PS)) {
    throw std::logic_error("rnicsim needs the SystemC time resolution at 1 ps");
  }
}

sc_core::sc_time checked_picoseconds(long double ps, const char* what) {
  if (!(ps >= 0 && ps <= static_cast<long double>(kMaxDurationPs))) {
    throw std::logic_error(std::string(what) + " gives " + std::to_string(static_cast<double>(ps)) +
                           " ps, outside [0, 2^62] ps: a configuration bound is missing");
  }
  return sc_core::sc_time::from_value(static_cast<std::uint64_t>(ps));
}

sc_core::sc_time picoseconds(std::uint64_t ps) {
  // An integer needs no floating-point check (the model asks for a duration
  // in ps per event it schedules).
  if (ps <= kMaxDurationPs) return sc_core::sc_time::from_value(ps);
  return checked_picoseconds(static_cast<long double>(ps), "a duration");
}

sc_core::sc_time nanoseconds(double ns) {
  return checked_picoseconds(std::round(static_cast<long double>(ns) * 1000.0L), "a time in ns");
}

double to_ns(const sc_core::sc_time& t) { return static_cast<double>(t.value()) / 1000.0; }

std::uint64_t to_ps(const sc_core::sc_time& t) { return t.value(); }

sc_core::sc_time serialization_time(std::uint64_t bits, double gbps) {
  // A whole rate of Gbit/s (every link rate) in integers: exact, or the
  // next picosecond up, as the floating-point rule below gives for such
  // rates up to 10^5 Gbit/s and frames up to 2^32 bits. There a fraction is
  // at least 10^-5 ps from a whole picosecond, and long double's error
  // (64-bit mantissa, results below 2^42 ps) under 2.4e-7 ps, so the rule's
  // 1e-6 tolerance never applies and its ceil is the integer one. Each MAC
  // asks per frame.
  if (gbps >= 1 && gbps <= 1e5 && bits <= (std::uint64_t{1} << 32) && gbps == std::floor(gbps)) {
    const auto rate = static_cast<std::uint64_t>(gbps);
    return sc_core::sc_time::from_value((bits * 1000 + rate - 1) / rate);
  }
  const long double ps = static_cast<long double>(bits) * 1000.0L / gbps;
  const long double nearest = std::round(ps);
  // Tolerate the rounding noise of a non-binary fraction such as 1000/3 * 3;
  // long double keeps that noise far below 1e-6 ps at any simulated length.
  const bool whole = std::fabs(ps - nearest) <= 1e-6L;
  return checked_picoseconds(whole ? nearest : std::ceil(ps), "a serialization time");
}

}  // namespace rnicsim
