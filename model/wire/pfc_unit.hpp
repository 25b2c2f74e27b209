#pragma once
// PfcUnit: the PFC MAC control unit of a MacPort (wire/mac_port.hpp), the
// part of the MAC that does IEEE 802.1Qbb priority flow control:
// - receive: a MAC Control frame is consumed; a PFC frame (opcode 0x0101)
//   pauses each lossless priority it names for its quanta, 0 resumes it;
// - the priorities the MAC may not start a frame of, when the first of them
//   resumes, and the time each has spent paused;
// - XOFF/XON: told the receive buffer's level for some priorities, it
//   congests the lossless ones among them above pfc.xoff_bytes and relieves
//   them at or below pfc.xon_bytes; each change builds one PFC frame naming
//   the priorities that changed, and while any stays congested the pause is
//   built again every pfc.refresh_quanta (armed by the first congestion, kept
//   while one is pending, dropped at a refresh that finds none congested).
//
// Two implementations, chosen by `pfc.impl`: the model's (make_model_pfc_unit)
// and the verilated rtl/pfc_unit (wire/pfc_unit_rtl.hpp). They must agree
// frame for frame and picosecond for picosecond (testbench/cosim).
//
// Free of SystemC (wire/pfc_unit_rtl.hpp includes Verilator's headers,
// which must not see SystemC's): times are picoseconds the caller gives, each no earlier than
// the last. Each call is one instant: time passes to `now_ps`, then the
// call's own action, then a refresh that fell due by `now_ps` builds its
// frame for the priorities still congested.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <utility>
#include <vector>

#include "common/block_impl.hpp"
#include "formats/headers.hpp"

namespace rnicsim {

// The "pfc" section (wire/pfc.hpp declares its keys).
struct PfcConfig {
  bool enabled = false;
  std::uint8_t priorities = 0xFF;       // bit i: priority i is lossless (pauses sent and honoured)
  std::uint64_t xoff_bytes = 0;         // the receiver's buffer for one priority: pause above
  std::uint64_t xon_bytes = 0;          // resume at or below
  std::uint16_t pause_quanta = 0xFFFF;  // the time a pause asks for, in 512 bit times
  // While the condition holds the pause is sent again after this many
  // quanta, before the peer's timer runs out.
  std::uint16_t refresh_quanta = 0x8000;
  BlockImpl impl = BlockImpl::kModel;  // the MACs' PFC unit: the model or rtl/pfc_unit

  bool lossless(unsigned priority) const { return enabled && ((priorities >> priority) & 1u); }
};

// What a received frame was to the PFC unit.
struct PfcReceived {
  bool control = false;      // a MAC Control frame: the MAC consumes it
  std::uint8_t pauses = 0;   // lossless priorities it paused
  std::uint8_t resumes = 0;  // lossless priorities it resumed (0 quanta)
};

class PfcUnit {
 public:
  virtual ~PfcUnit() = default;
  virtual const char* name() const = 0;

  // A frame (no FCS) whose last bit arrived at `now_ps`.
  virtual PfcReceived receive(const std::uint8_t* frame, std::size_t length,
                              std::uint64_t now_ps) = 0;
  // The receive buffer holds `bytes` for `priorities` (bit p: priority p).
  virtual void buffer_level(std::uint8_t priorities, std::uint64_t bytes, std::uint64_t now_ps) = 0;
  // Time passes to `now_ps`: pauses run out, a refresh may fall due.
  virtual void advance(std::uint64_t now_ps) = 0;

  // As of the last call:
  virtual std::uint8_t paused() const = 0;          // bit p: may not start a frame
  virtual std::uint64_t resume_in_ps() const = 0;   // until the first resumes; 0: none paused
  virtual std::uint64_t refresh_in_ps() const = 0;  // until the refresh; 0: none armed
  virtual std::uint8_t congested() const = 0;       // asked of the peer
  // Time `priority` has spent paused up to `now_ps` (no earlier than the
  // last call's time), changing nothing: a statistics read.
  virtual std::uint64_t paused_ps(unsigned priority, std::uint64_t now_ps) const = 0;
  // Test only: a backdoor, as a verification environment has one, that sets
  // the time `priority` has spent paused, as of the last call, to `ps`: a
  // 64-bit statistic reaches its high bits only after months of pause.
  virtual void load_paused_ps(unsigned priority, std::uint64_t ps) = 0;

  // The PFC frames built and not yet taken (no FCS), oldest first.
  std::vector<std::vector<std::uint8_t>> take_frames() { return std::exchange(frames_, {}); }
  bool has_frames() const { return !frames_.empty(); }

 protected:
  std::vector<std::vector<std::uint8_t>> frames_;
};

// The priorities PFC covers: none when it is off.
inline std::uint8_t lossless_priorities(const PfcConfig& config) {
  return config.enabled ? config.priorities : 0;
}

// The time `quanta` pause quanta last at `gbps`, in picoseconds: quanta x
// 512 bit times, exact to the picosecond as a frame's time is.
std::uint64_t pause_ps(std::uint32_t quanta, double gbps);

// One pause quantum (512 bit times) at `gbps` in picoseconds, when that is a
// whole number (5120 at 100 Gbit/s); nullopt otherwise.
std::optional<std::uint64_t> whole_quantum_ps(double gbps);

std::unique_ptr<PfcUnit> make_model_pfc_unit(const PfcConfig& config, double gbps,
                                             const packet::MacAddress& source);
// The 8-byte rtl/pfc_unit, verilated (wire/pfc_unit_rtl.cpp). Throws
// std::invalid_argument when the rate's pause quantum is not a whole number
// of picoseconds, which the RTL's timers count.
std::unique_ptr<PfcUnit> make_rtl_pfc_unit(const PfcConfig& config, double gbps,
                                           const packet::MacAddress& source);

}  // namespace rnicsim
