#pragma once
// The pipeline experiment: the Ethernet path and the RDMA path of the seed
// figure, simulated side by side in one run from the same block classes.
#include <cstdint>
#include <string>
#include <vector>

#include "common/stage.hpp"
#include "host_memory/host_memory.hpp"
#include "experiments/pipeline/pipeline_config.hpp"

namespace rnicsim {

struct DataTimeline {
  std::uint64_t index = 0;
  double produced_ns = 0;
  std::vector<double> stage_start_ns;  // per stage, in path order
  std::vector<double> stage_end_ns;    // visible to the next stage (the wire: last bit at the peer)
  double arrival_ns = 0;
  double latency_ns = 0;               // arrival - production
};

struct StageSummary {
  std::string name;
  StageStats stats;
  double mean_service_ns = 0;   // busy time per item
  double mean_occupied_ns = 0;  // busy + blocked time per item: how long the stage is held
};

struct PathResult {
  std::string name;
  std::vector<StageSummary> stages;
  std::vector<DataTimeline> data;  // in arrival order
  std::uint64_t data_mismatches = 0;
  double first_latency_ns = 0;
  double steady_gbps = 0;
  std::string bottleneck;  // the stage (or "workload") that limits bandwidth
  std::string encapsulation;  // protocol headers on the wire when framing is "ethernet"
  HostMemoryStats memory;
};

struct PipelineResult {
  std::uint64_t data_bits = 0;
  double interval_ns = 0;
  std::uint64_t count = 0;
  std::uint64_t seed = 0;
  std::string framing;  // "none" or "ethernet"
  std::vector<PathResult> paths;  // "ethernet", then "rdma"
};

// Elaborates and simulates both paths. Call once per process (SystemC allows
// one elaboration).
PipelineResult run_pipeline(const PipelineConfig& config);

// (count - 1) x data_bits over the time from the first arrival to the last,
// as the seed figure measures it. Needs at least two arrivals.
double steady_gbps(const std::vector<DataTimeline>& data, std::uint64_t data_bits);

// The stage held longest per item (busy serving it, or blocked with it
// because the queue after it is full); the workload (its production
// interval) competes too. Ties go to the stage furthest downstream, the
// workload counting as upstream of every stage: when a slow stage backs the
// path up, the stages before it are held as long as it is, and it is the
// last of them.
std::string find_bottleneck(const std::vector<StageSummary>& stages, double interval_ns);

}  // namespace rnicsim
