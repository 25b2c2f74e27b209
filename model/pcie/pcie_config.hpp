#pragma once
// Configuration of the PCIe link between a NIC and its host's root complex.
#include <cstdint>
#include <string>
#include <systemc>

#include "config/config.hpp"
#include "config/run_config.hpp"

namespace rnicsim::pcie {

struct PcieConfig {
  std::uint32_t generation = 3;       // 1..5
  std::uint32_t lanes = 8;            // 1, 2, 4, 8, 16, 32
  std::uint32_t mps_bytes = 256;      // max payload size
  std::uint32_t mrrs_bytes = 512;     // max read request size
  std::uint32_t rcb_bytes = 64;       // read completion boundary
  std::uint32_t completion_bytes = 128;  // payload of the root complex's completions
  sc_core::sc_time link_latency;      // one direction: PHY and data-link pipelines, wire
  sc_core::sc_time root_complex_latency;  // MRd arrival to first completion, local DRAM
  sc_core::sc_time read_line_interval;    // one window's 64 B lines follow at most this often
  sc_core::sc_time remote_socket_extra;   // added when the memory is on the other socket
  bool memory_remote = false;
  std::uint32_t ack_every_bytes = 0;  // one ACK DLLP back per this many bytes received
  std::uint32_t fc_update_every_bytes = 0;  // one UpdateFC DLLP back per this many bytes
  bool iommu = false;
  std::uint32_t iotlb_entries = 0;
  sc_core::sc_time iotlb_miss;        // page walk on an IOTLB miss
  std::uint32_t iommu_page_bytes = 4096;
  // The seed figure's ideal link (README.md): TLPs are their payload alone,
  // with no header, framing or DLLPs, at `ideal_gbps`, and a transfer may end
  // mid-byte (TlpWindow::pad_bits), so sizes count in bits.
  bool ideal = false;
  double ideal_gbps = 0;

  // Usable bit rate of one direction: lanes x GT/s x line-code efficiency,
  // less the SKP ordered sets (4 symbols every 1538); ideal_gbps on the ideal link.
  double link_gbps() const;
  // Raw transfer rate per lane in GT/s and the line code's efficiency.
  double gigatransfers_per_lane() const;
  double encoding_efficiency() const;
};

void declare_pcie_keys(config::Schema& schema);
// Reads a configuration config::load has checked (the key rules and the
// completion size's rule against the RCB and MPS that declare_pcie_keys adds).
PcieConfig pcie_config(const config::Section& pcie);

}  // namespace rnicsim::pcie
