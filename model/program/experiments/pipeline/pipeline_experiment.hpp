#pragma once
// The pipeline experiment: the Ethernet path and the RDMA path of the seed
// figure, simulated side by side in one run from the same block classes.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "common/run_progress.hpp"
#include "common/stage.hpp"
#include "program/experiments/pipeline/data_path.hpp"
#include "program/experiments/pipeline/pipeline_config.hpp"
#include "system/testbed.hpp"

namespace rnicsim {

struct StageSummary {
  std::string name;
  StageStats stats;
  double mean_service_ns = 0;   // busy time per item
  double mean_occupied_ns = 0;  // busy + blocked time per item: how long the stage is held
};

// The testbed composition's own blocks, counted: proof of the path the Data took.
struct TestbedCounts {
  std::uint64_t pcie_read_requests = 0;     // MRds on the subject host's PCIe link
  std::uint64_t pcie_completion_bytes = 0;  // downstream TLP bytes (the ideal link: payload alone)
  std::uint64_t pcie_dllps = 0;             // both directions
  std::uint64_t dma_bytes_read = 0;         // by the subject NIC's DMA engine
  std::uint64_t wire_frames = 0;            // Data the wire from the subject to its peer carried
};

struct PathResult {
  std::string name;
  std::vector<StageSummary> stages;
  ArrivalTotals arrivals;         // every Data, counted as it arrived
  double first_latency_ns = 0;    // Data 0 from production to its last bit at the peer
  double mean_latency_ns = 0;
  double steady_gbps = 0;
  std::string bottleneck;  // the stage (or "workload") that limits bandwidth
  std::string encapsulation;  // protocol headers on the wire when framing is "ethernet"
  HostMemoryStats memory;
  std::optional<TestbedCounts> testbed;  // the testbed composition only
  nlohmann::json statistics;  // the testbed composition's blocks' (Testbed::statistics)
};

struct PipelineResult {
  std::uint64_t data_bits = 0;
  double interval_ns = 0;
  std::uint64_t count = 0;
  std::uint64_t seed = 0;
  std::string framing;  // "none", "ethernet" or "roce"
  std::vector<PathResult> paths;  // "ethernet", then "rdma"
};

// A path's name and its stages' names, in order.
struct PathLayout {
  std::string name;
  std::vector<std::string> stages;
};

// Follows a run as it goes: the paths before the simulation starts, then
// every Data as it reaches the peer NIC (per path in arrival order).
class PipelineObserver {
 public:
  virtual ~PipelineObserver() = default;
  virtual void begin(const std::vector<PathLayout>& paths) = 0;
  virtual void arrived(std::size_t path, const DataTimeline& data) = 0;
};

// Elaborates and simulates both paths. Call once per process (SystemC allows
// one elaboration). Throws SimulatedTimeExceeded or Interrupted (simulation.hpp).
PipelineResult run_pipeline(const PipelineConfig& config, RunProgress& progress,
                            PipelineObserver* observer = nullptr);

// (arrived - 1) x data_bits over the time from the first arrival to the last,
// as the seed figure measures it. Needs at least two arrivals.
double steady_gbps(const ArrivalTotals& arrivals, std::uint64_t data_bits);

// The stage held longest per item (busy serving it, or blocked with it
// because the queue after it is full); the workload (its production
// interval) competes too. Ties go to the stage furthest downstream, the
// workload counting as upstream of every stage: when a slow stage backs the
// path up, the stages before it are held as long as it is, and it is the
// last of them.
std::string find_bottleneck(const std::vector<StageSummary>& stages, double interval_ns);

}  // namespace rnicsim
