#pragma once
// The dma experiment, in the spirit of pcie-bench (Neugebauer et al.,
// SIGCOMM 2018): for each transfer size, the median latency of single DMA
// reads on an otherwise idle link, and the read and write bandwidth with many
// transfers in flight. NIC -> DmaEngine -> PcieLink -> host memory.
#include <cstdint>
#include <string>
#include <vector>

#include "common/run_progress.hpp"
#include "config/config.hpp"
#include "config/run_config.hpp"
#include "system/testbed.hpp"

namespace rnicsim {

struct DmaTestConfig {
  std::vector<std::uint64_t> sizes_bytes;
  std::uint32_t latency_samples = 0;  // single reads per size
  std::uint64_t window_bytes = 0;     // transfers fall in a buffer of this size
  std::uint32_t in_flight = 0;        // concurrent transfers in the bandwidth runs
  std::uint64_t bandwidth_bytes = 0;  // bytes moved per size and direction
  std::uint64_t seed = 0;             // latency samples' random offsets
  TestbedConfig testbed;  // the subject node (roles.subject) alone, on a loopback cable
};

struct DmaSizeResult {
  std::uint64_t size_bytes = 0;
  double read_latency_ns = 0;      // median
  double read_latency_min_ns = 0;
  double read_latency_max_ns = 0;
  double read_bw_gbps = 0;
  double write_bw_gbps = 0;
};

struct DmaTestResult {
  double link_gbps = 0;  // one direction's usable bit rate
  std::vector<DmaSizeResult> sizes;
  pcie::LinkDirectionStats upstream;
  pcie::LinkDirectionStats downstream;
  pcie::PcieLinkStats link;
  std::uint64_t iotlb_hits = 0;
  std::uint64_t iotlb_misses = 0;
  std::uint64_t dma_requests = 0;
  nlohmann::json statistics;  // every block's (Testbed::statistics): statistics.json
};

void declare_dma_test_keys(config::Schema& schema);
// Reads a configuration config::load has checked (declare_dma_test_keys adds
// the rules that the window holds every transfer and fits in host memory).
// The testbed is the node roles.subject names, alone: the experiment
// measures its host, PCIe link and DMA engine.
DmaTestConfig dma_test_config(config::RunConfig& run);

// Elaborates and simulates; call once per process. Throws
// SimulatedTimeExceeded or Interrupted (simulation.hpp).
DmaTestResult run_dma_test(const DmaTestConfig& config, RunProgress& progress);

}  // namespace rnicsim
