#pragma once
// The fabric experiment's files (fabric_experiment.hpp lists them): the time
// series streamed as the run goes, the meters on the switch ports that face
// nodes, and the tables written once it has ended.
#include <array>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "program/experiments/fabric/fabric_workload.hpp"
#include "program/experiments/fabric/traffic.hpp"
#include "system/testbed.hpp"

namespace rnicsim {

// The bytes a message of `bytes` puts on an Ethernet cable at PMTU `mtu` as
// the NIC frames it (headers, ICRC, FCS, minimum frame, preamble and gap):
// the line-rate goodput rule is gbps x bytes / message_wire_bytes.
std::uint64_t message_wire_bytes(FlowVerb verb, std::uint64_t bytes, std::uint32_t mtu);

// throughput.csv and queues.csv, streamed: at each sample a row per flow
// that runs and per cabled switch queue that holds bytes (and once as it
// empties); and each flow's bytes over the samples in which every flow runs
// (the shares). With DCQCN on in any node, rates.csv too: a row per QP rate
// limiter at each sample where its rate or target changed.
class FabricSeries {
 public:
  FabricSeries(const std::filesystem::path& folder, Testbed& testbed, const Topology& topology,
               const TrafficConfig& traffic);
  // The run's flows, once its workload is built (before it simulates).
  void set_workload(const FabricWorkload* workload);
  // A sample at `time_ns` since the flows' time zero.
  void sample(std::uint64_t time_ns);
  // Ends both files; an OutputError if either could not be written.
  void close();
  // Each flow's bytes over the bins in which every flow ran; empty if there were none.
  std::vector<std::uint64_t> window_bytes() const;
  std::uint64_t window_ns() const { return window_to_ns_ - window_from_ns_; }
  // With DCQCN on (rates.csv written): summary.json's "dcqcn" (the switch
  // queues after the first cut, the CNPs); null otherwise.
  nlohmann::json dcqcn_summary() const;

 private:
  Testbed& testbed_;
  const Topology& topology_;
  const TrafficConfig& traffic_;
  void sample_rates(const std::string& time_us);
  std::uint64_t least_kmax() const;

  std::filesystem::path throughput_path_, queues_path_, rates_path_;
  std::ofstream throughput_, queues_, rates_;
  // The switches' egress queues together: their peak once the queue built
  // before the first cut (which DCQCN could not prevent) has drained, that is
  // from the first sample after some QP's rate was cut at which they hold no
  // more than the least Kmax; and their sum over the samples in which every
  // flow runs.
  bool cut_seen_ = false;
  bool drained_ = false;
  std::uint64_t first_cut_ns_ = 0;
  std::uint64_t drained_ns_ = 0;
  std::uint64_t queued_peak_after_drain_ = 0;
  std::uint64_t queued_sum_all_run_ = 0;
  std::uint64_t samples_all_run_ = 0;
  // (node, QP) -> the rate and target last written to rates.csv.
  std::map<std::pair<std::size_t, std::uint32_t>, std::pair<double, double>> last_rates_;
  const FabricWorkload* workload_ = nullptr;
  std::uint64_t last_time_ns_ = 0;
  std::vector<std::uint64_t> last_delivered_;
  struct Watched {
    std::size_t sw = 0;
    std::size_t port = 0;
    std::array<std::uint64_t, kTrafficClasses> last;  // bytes at the last sample
  };
  std::vector<Watched> watched_;
  bool window_open_ = false;
  std::uint64_t window_from_ns_ = 0, window_to_ns_ = 0;
  std::vector<std::uint64_t> window_start_, window_end_;
};

// A meter on each switch port that faces a node: the RoCE payload of the
// data frames it sends toward the node, and when the first began and the
// last ended. Taps the ports; it must outlive the simulation.
class ReceiverMeters {
 public:
  ReceiverMeters(Testbed& testbed, const Topology& topology);
  ReceiverMeters(const ReceiverMeters&) = delete;
  ReceiverMeters& operator=(const ReceiverMeters&) = delete;

  // summary.json's "receivers": per node that received data, the payload
  // rate its port carried against the line-rate goodput rule.
  nlohmann::json summary(const TrafficConfig& traffic, const FabricWorkload& workload,
                         const Topology& topology) const;

 private:
  struct PortMeter {
    std::uint64_t payload_bytes = 0;
    std::uint64_t data_frames = 0;
    std::uint64_t first_bit_ps = 0;
    std::uint64_t last_end_ps = 0;
  };
  std::vector<PortMeter> meters_;  // meters_[n]: toward node n; sized once, the taps hold them
  bool switched_ = false;
};

struct FlowTotals {
  std::uint64_t bytes = 0;
  std::uint64_t retransmitted = 0;
  std::uint64_t makespan_ns = 0;  // the last flow's finish
};
// flows.csv; returns the totals summary.json gives.
FlowTotals write_flows_csv(const std::filesystem::path& folder, const TrafficConfig& traffic,
                           const FabricWorkload& workload, const Topology& topology);

struct PortTotals {
  std::uint64_t drops = 0;  // switch queues' and NICs' receive buffers'
  std::uint64_t pause_frames = 0;
  std::uint64_t marks = 0;
  std::uint64_t headroom_peak = 0;  // the most PFC headroom one switch ingress held
  std::uint64_t queue_peak = 0;     // the deepest switch egress queue
};
// ports.csv (switched topologies: every cabled switch port, then every node's).
PortTotals write_ports_csv(const std::filesystem::path& folder, const Testbed& testbed,
                           const Topology& topology);

// summary.json's "shares_while_all_run": each flow's bytes over the window in
// which every flow ran, over the fair share (least, most, Jain's index);
// empty when there was no such window.
nlohmann::json share_summary(const FabricSeries& series);

}  // namespace rnicsim
