#pragma once
// Priority flow control (IEEE 802.1Qbb) as every MAC does it, NIC or switch
// port: the receiving side asks its peer to pause a priority while its buffer
// for that priority is above XOFF, and to resume once it falls to XON; the
// transmitting side holds a paused priority's frames until the pause time
// runs out or a resume arrives (a frame already being serialized finishes).
//
// PfcConfig is the "pfc" section (a node section: nodes.<name>.pfc for a
// NIC, nodes.<switch>.pfc for a switch's ports). PauseTimers is the transmit
// side's state: kernel-free arithmetic, tested on its own.
#include <array>
#include <cstdint>
#include <systemc>

#include "config/config.hpp"
#include "config/run_config.hpp"
#include "formats/mac_control.hpp"

namespace rnicsim {

struct PfcConfig {
  bool enabled = false;
  std::uint8_t priorities = 0xFF;       // bit i: priority i is lossless (pauses sent and honoured)
  std::uint64_t xoff_bytes = 0;         // the receiver's buffer for one priority: pause above
  std::uint64_t xon_bytes = 0;          // resume at or below
  std::uint16_t pause_quanta = 0xFFFF;  // the time a pause asks for, in 512 bit times
  // While the condition holds the pause is sent again after this many
  // quanta, before the peer's timer runs out.
  std::uint16_t refresh_quanta = 0x8000;

  bool lossless(unsigned priority) const { return enabled && ((priorities >> priority) & 1u); }
};

void declare_pfc_keys(config::Schema& schema);
PfcConfig pfc_config(const config::Section& pfc);

// The time `quanta` pause quanta last at `gbps`: quanta x 512 bit times.
sc_core::sc_time pause_time(std::uint32_t quanta, double gbps);

// A transmitter's pause state: per priority, until when it may not send, and
// how long it has been paused in all.
class PauseTimers {
 public:
  explicit PauseTimers(double gbps) : gbps_(gbps) {}

  // A PFC frame arrived at `now`: each enabled priority is paused for its
  // time from now (0: resumed at once), replacing what it had.
  void apply(const packet::PfcPause& pause, const sc_core::sc_time& now);
  // Bit i set: priority i may not start a frame at `now`.
  std::uint8_t paused(const sc_core::sc_time& now) const;
  // The earliest time after `now` at which a paused priority's time runs
  // out; SC_ZERO_TIME when none is paused.
  sc_core::sc_time next_expiry(const sc_core::sc_time& now) const;
  // Time priority `p` has spent paused up to `now`.
  sc_core::sc_time paused_time(unsigned p, const sc_core::sc_time& now) const;

 private:
  double gbps_;
  std::array<sc_core::sc_time, packet::kPfcPriorities> until_{};
  std::array<sc_core::sc_time, packet::kPfcPriorities> since_{};
  std::array<sc_core::sc_time, packet::kPfcPriorities> closed_{};  // paused time of past pauses
};

}  // namespace rnicsim
