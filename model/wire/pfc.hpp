#pragma once
// Priority flow control (IEEE 802.1Qbb) as every MAC does it, NIC or switch
// port: the receiving side asks its peer to pause a priority while its buffer
// for that priority is above XOFF, and to resume once it falls to XON; the
// transmitting side holds a paused priority's frames until the pause time
// runs out or a resume arrives (a frame already being serialized finishes).
//
// PfcConfig is the "pfc" section (a node section: nodes.<name>.pfc for a
// NIC, nodes.<switch>.pfc for a switch's ports). The arithmetic is the MAC's
// PFC unit (wire/pfc_unit.hpp).
#include "config/config.hpp"
#include "config/run_config.hpp"
#include "wire/pfc_unit.hpp"  // PfcConfig

namespace rnicsim {

void declare_pfc_keys(config::Schema& schema);
PfcConfig pfc_config(const config::Section& pfc);

}  // namespace rnicsim
