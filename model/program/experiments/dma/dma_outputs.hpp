#pragma once
// Files the dma experiment writes into its output folder:
//   summary.json  read_latency_ns, read_bw_gbps, write_bw_gbps per size (schema in results/README.md)
//   dma.csv       one row per size
//   stats.json    PCIe link and IOTLB statistics with units
#include <filesystem>

#include "program/experiments/dma/dma_experiment.hpp"

namespace rnicsim {

void write_dma_outputs(const DmaTestConfig& config, const DmaTestResult& result,
                       const std::filesystem::path& folder);

}  // namespace rnicsim
