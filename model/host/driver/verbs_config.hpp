#pragma once
// The driver's CPU costs and choices (node section "verbs"): what each verb
// costs the calling thread, how soon a spinning CPU notices a write the NIC
// made, and up to which size a WQE goes with its doorbell (BlueFlame).
#include <cstdint>
#include <systemc>

#include "config/config.hpp"
#include "config/run_config.hpp"

namespace rnicsim {

struct VerbsConfig {
  sc_core::sc_time post_send;       // ibv_post_send, per WQE, before the doorbell
  sc_core::sc_time post_recv;       // ibv_post_recv, per WQE
  sc_core::sc_time poll_cq;         // ibv_poll_cq, per call
  sc_core::sc_time mmio_write;      // CPU time to issue one MMIO write (write-combining flush)
  sc_core::sc_time notice;          // a spinning CPU sees a cache line the NIC wrote
  sc_core::sc_time command;         // driver work per command, besides waiting for the NIC
  std::uint32_t blueflame_bytes = 0;  // WQEs up to this size go with the doorbell; 0 = never
};

void declare_verbs_keys(config::Schema& schema);
VerbsConfig verbs_config(const config::Section& verbs);

}  // namespace rnicsim
