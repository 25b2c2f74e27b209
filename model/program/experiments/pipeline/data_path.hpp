#pragma once
// DataPath: one host-to-peer path of the seed figure, built from the real
// blocks. An application produces a Data every interval; it crosses the
// stages below and is received by the peer NIC, which checks its bytes.
//
//   source -> app_write -> [kernel_copy] -> dma -> wire -> peer
//                   \____________|_____________/
//                           host memory
//
// Two compositions (PipelineConfig::testbed). "stages": the stages above
// alone, each with its own timing, as the teaching view. "testbed": the same
// CPU stages on the host of the testbed's subject node (roles.subject), whose
// own blocks do the rest: the DMA stage reads through that NIC's DMA engine,
// request splitter and PCIe link (stage_view/dma_read_stage.hpp), the Data
// leave through its MAC channel onto the wire towards its peer, and are taken
// from that wire at the peer node.
//
// The Ethernet path has the kernel copy, the RDMA path does not. The source
// keeps the application's backlog (data_source.hpp), so a slow stage shows up
// as queueing delay rather than as a slower producer. Nothing is kept per Data
// once it has arrived: each arrival goes to the observer and into the path's
// running totals, so memory does not grow with the workload.
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <systemc>
#include <vector>

#include "common/channel.hpp"
#include "common/module_macros.hpp"
#include "common/run_progress.hpp"
#include "common/transfer.hpp"
#include "stage_view/dma_read_stage.hpp"
#include "stage_view/dma_stage.hpp"
#include "program/experiments/pipeline/data_source.hpp"
#include "program/experiments/pipeline/pipeline_config.hpp"
#include "stage_view/application_writer.hpp"
#include "stage_view/kernel_copy.hpp"
#include "system/testbed.hpp"

namespace rnicsim {

// One Data's journey, from production to its last bit at the peer NIC.
struct DataTimeline {
  std::uint64_t index = 0;
  double produced_ns = 0;
  std::vector<double> stage_start_ns;  // per stage, in path order
  std::vector<double> stage_end_ns;    // visible to the next stage (the wire: last bit at the peer)
  double arrival_ns = 0;
  double latency_ns = 0;               // arrival - production
  bool bytes_match = false;            // the peer received exactly the bytes produced
};

// What the path keeps of all its arrivals: counts and extremes, no per-Data list.
struct ArrivalTotals {
  std::uint64_t arrived = 0;
  std::uint64_t data_mismatches = 0;
  double first_latency_ns = 0;  // Data 0's
  double min_latency_ns = 0;
  double max_latency_ns = 0;
  double latency_sum_ns = 0;
  double first_arrival_ns = 0;
  double last_arrival_ns = 0;
};

class DataPath : public sc_core::sc_module {
 public:
  // Called for every Data as it reaches the peer NIC.
  using Observer = std::function<void(const DataTimeline& data)>;

  RNICSIM_PROCESS_MODULE(DataPath);

  DataPath(const sc_core::sc_module_name& name, const PipelineConfig& config,
           bool with_kernel_copy, const Encapsulation& encapsulation, RunProgress& progress);

  // The stages in path order, and their names as the results give them (the
  // testbed's wire is "<subject>_to_<peer>" in the model, "wire" in the results).
  std::vector<const PipelineStage<Transfer>*> stages() const;
  std::vector<std::string> stage_names() const;
  void set_observer(Observer observer) { observer_ = std::move(observer); }
  const ArrivalTotals& totals() const { return totals_; }
  const HostMemory& memory() const { return *memory_; }
  // The testbed composition's nodes and wires; null for the stages composition.
  const Testbed* testbed() const { return testbed_.get(); }
  // The testbed composition's sending node (roles.subject) and the wire its Data cross.
  const Node& subject() const { return testbed_->node(subject_); }
  const WireLink& wire() const { return *wire_; }
  const PipelineWorkload& workload() const { return workload_; }

 private:
  void receive();
  void count(const DataTimeline& data);

  PipelineWorkload workload_;
  RunProgress& progress_;
  std::unique_ptr<Testbed> testbed_;       // the testbed composition's nodes and wires
  std::size_t subject_ = 0;                // the testbed's sending node
  std::unique_ptr<HostMemory> own_memory_;  // the stages composition's
  HostMemory* memory_;                      // the subject host's memory, or own_memory_
  DataSource source_;
  Channel<Transfer> app2next_;
  std::unique_ptr<Channel<Transfer>> kernel2dma_;
  ApplicationWriter app_write_;
  std::unique_ptr<KernelCopy> kernel_copy_;
  // Stages: a DMA stage of its own timing and a wire of its own.
  std::unique_ptr<DmaStage> dma_;
  std::unique_ptr<Channel<Transfer>> dma2wire_;
  std::unique_ptr<WireLink> own_wire_;
  // Testbed: reads through the subject NIC's DMA engine; the wire is the testbed's.
  std::unique_ptr<DmaReadStage> nic_dma_;
  WireLink* wire_ = nullptr;
  Observer observer_;
  ArrivalTotals totals_;
  DataTimeline arriving_;  // receive()'s work space: a member, as that thread never ends
};

}  // namespace rnicsim
