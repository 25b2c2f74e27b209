#pragma once
// Conversions between configuration units (ns, Gbit/s, MHz) and sc_time.
// The simulation runs at 1 ps resolution (SystemC's default); every duration the
// model computes is a whole number of picoseconds.
//
// Each conversion that makes a duration checks it against kMaxDurationPs
// (simulation.hpp) and throws std::logic_error past it: the configuration keys
// are bounded so that no single duration comes near it, so reaching it is a
// bug in a bound, never a result.
#include <cstdint>
#include <systemc>

namespace rnicsim {

// Throws std::logic_error unless the kernel resolution is 1 ps.
void require_picosecond_resolution();

sc_core::sc_time picoseconds(std::uint64_t ps);
// Rounds to the nearest picosecond; values must be >= 0.
sc_core::sc_time nanoseconds(double ns);
double to_ns(const sc_core::sc_time& t);
std::uint64_t to_ps(const sc_core::sc_time& t);

// Time to push `bits` through a datapath of `gbps` Gbit/s: bits * 1000 / gbps ps.
// Exact when that is a whole number of picoseconds, else rounded up, so a
// stage never runs faster than its configured rate.
sc_core::sc_time serialization_time(std::uint64_t bits, double gbps);

// A whole number of picoseconds computed in floating point (from ns, cycles of
// a clock, bits over a rate) as sc_time; throws std::logic_error if it is not
// finite, negative, or past kMaxDurationPs. `what` names the computation.
sc_core::sc_time checked_picoseconds(long double ps, const char* what);

// The current simulation time, the value sc_core::sc_time_stamp() returns.
// That is an out-of-line library call and the model asks for the time
// several times per packet; this reads it through the kernel's inline
// accessor.
inline const sc_core::sc_time& sim_now() {
  return sc_core::sc_get_curr_simcontext()->time_stamp();
}

}  // namespace rnicsim
