#pragma once
// The pipeline experiment's configuration: the seed figure's workload (a Data
// of data_bits produced every interval) and the per-block timing it runs on.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>

#include "common/stage_timing.hpp"
#include "config/config.hpp"
#include "config/run_config.hpp"
#include "stage_view/stage_view_config.hpp"
#include "system/testbed.hpp"

namespace rnicsim {

struct PipelineWorkload {
  std::uint64_t data_bits = 0;
  sc_core::sc_time interval;
  std::uint64_t count = 0;
  std::uint64_t seed = 0;          // the configuration's seed, as reported
  std::uint64_t pattern_seed = 0;  // selects the data pattern: seed's stream for "workload"
};

struct PipelineConfig {
  PipelineWorkload workload;
  std::size_t queue_items = 0;  // capacity of each channel between two stages
  std::uint64_t buffer_slots = 0;  // Data each user or kernel buffer ring holds
  HostMemoryConfig memory;
  CpuStagesConfig cpu;
  StageTiming dma;
  WireLinkConfig link;
  WireFraming::Kind framing;
  // The "testbed" composition (pipeline.composition): each path runs on two
  // nodes built from this (data_path.hpp), and the DMA step keeps up to
  // dma_reads_in_flight reads outstanding (NIC a's dma.read_tags). Unset: the
  // "stages" composition, timed by `dma` and `link` alone.
  std::optional<TestbedConfig> testbed;
  std::size_t subject = 0;  // the testbed node sending the Data (roles.subject)
  std::uint32_t dma_reads_in_flight = 0;
};

// Each Data in flight costs this much bookkeeping besides its bytes (the
// Transfer, its stage spans, its queue entry; measured about 175 B), in the
// pipeline's memory budget (common/memory_budget.hpp).
constexpr std::uint64_t kInFlightDataOverheadBytes = 512;

void declare_pipeline_keys(config::Schema& schema);
// Reads a configuration config::load has checked (declare_pipeline_keys adds
// the rules that the buffer rings fit in host memory and that the Data in
// flight fit in the memory budget).
// The seed pipeline's host and NIC blocks are roles.subject's node's; in the
// testbed composition its Data cross its cable to the other end.
PipelineConfig pipeline_config(config::RunConfig& run);

}  // namespace rnicsim
