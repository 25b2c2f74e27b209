#pragma once
// The kernel network stack's config section ("kernel", per node): the CPU's
// cost of each piece of work, and the TCP connection's settings.
#include <cstdint>
#include <systemc>

#include "config/config.hpp"
#include "config/run_config.hpp"
#include "host/kernel/tcp_connection.hpp"

namespace rnicsim {

struct KernelConfig {
  sc_core::sc_time syscall;           // entry and exit of send() or recv()
  double copy_gbps = 0;               // copy_from_user / copy_to_user bandwidth
  sc_core::sc_time copy_call;         // fixed cost of each copy
  sc_core::sc_time tx_segment;        // TCP/IP output and driver transmit, per frame handed to the NIC
  sc_core::sc_time rx_segment;        // driver, IP and TCP input, per frame received
  sc_core::sc_time pure_ack;          // building and sending an ACK without data
  sc_core::sc_time interrupt;         // hard interrupt, softirq entry, NAPI scheduling
  sc_core::sc_time wakeup;            // waking the thread blocked in recv()
  bool busy_poll = false;             // recv() spins on the receive ring instead of sleeping
  std::uint32_t napi_budget = 0;      // frames per NAPI poll
  bool tso = false;                   // TCP segmentation offload
  std::uint32_t tso_max_bytes = 0;    // payload per TSO frame
  bool checksum_offload = false;      // transmit checksum offload (receive is always checked)
  std::uint32_t ring_entries = 0;     // each of the driver's rings
  kernel::TcpConfig tcp;

  // The time to copy `bytes` between user and kernel memory.
  sc_core::sc_time copy_time(std::uint64_t bytes) const;
};

void declare_kernel_keys(config::Schema& schema);
// `mtu`: the NIC port's Ethernet MTU, which sets the MSS.
KernelConfig kernel_config(const config::Section& kernel, std::uint32_t mtu);

}  // namespace rnicsim
