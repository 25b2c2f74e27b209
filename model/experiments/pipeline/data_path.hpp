#pragma once
// DataPath: one host-to-peer path of the seed figure, built from the real
// blocks. An application produces a Data every interval; it crosses the
// stages below and is received by the peer NIC, which checks its bytes.
//
//   producer -> app_write -> [kernel_copy] -> dma -> wire -> peer
//                   \____________|_____________/
//                           host memory
//
// The Ethernet path has the kernel copy, the RDMA path does not. The producer
// keeps its backlog (the application's own buffer) unbounded, so a slow stage
// shows up as queueing delay rather than as a slower producer.
#include <cstdint>
#include <memory>
#include <string>
#include <systemc>
#include <vector>

#include "common/channel.hpp"
#include "common/module_macros.hpp"
#include "common/transfer.hpp"
#include "dma/dma_stage.hpp"
#include "experiments/pipeline/pipeline_config.hpp"
#include "host_cpu/application_writer.hpp"
#include "host_cpu/kernel_copy.hpp"
#include "host_memory/host_memory.hpp"
#include "link/wire_link.hpp"

namespace rnicsim {

struct Arrival {
  Transfer transfer;
  sc_core::sc_time at;  // last bit at the peer NIC
  bool bytes_match;     // the received bytes equal what the application produced
};

class DataPath : public sc_core::sc_module {
 public:
  RNICSIM_PROCESS_MODULE(DataPath);

  DataPath(const sc_core::sc_module_name& name, const PipelineConfig& config,
           bool with_kernel_copy, const Encapsulation& encapsulation);

  // The stages in path order.
  std::vector<const PipelineStage<Transfer>*> stages() const;
  const std::vector<Arrival>& arrivals() const { return arrivals_; }
  const HostMemory& memory() const { return memory_; }
  const PipelineWorkload& workload() const { return workload_; }

 private:
  void produce();
  void receive();

  PipelineWorkload workload_;
  HostMemory memory_;
  Channel<Transfer> producer2app_;
  Channel<Transfer> app2next_;
  std::unique_ptr<Channel<Transfer>> kernel2dma_;
  Channel<Transfer> dma2wire_;
  Channel<Transfer> wire2peer_;
  ApplicationWriter app_write_;
  std::unique_ptr<KernelCopy> kernel_copy_;
  DmaStage dma_;
  WireLink wire_;
  std::vector<Arrival> arrivals_;
};

}  // namespace rnicsim
