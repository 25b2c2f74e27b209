#pragma once
// DmaReadStage: the DMA step of the seed figure on the composed testbed. It
// reads each Data's buffer out of host memory through the NIC's own DMA
// engine (a port of its own), so the time is the request splitter's and the
// host's PCIe link's (pcie.ideal for the seed figure), and hands the Data on,
// carrying its bytes, once its read has completed.
//
//   in --> issue (a read per Data, up to `reads_in_flight` outstanding)
//      --> requested --> "dma" stage (waits for that Data's completion) --> out
//
// Reads are asked as Data come, so the link's latency is pipelined as a real
// engine's tags pipeline it; Data leave in the order they came. The listed
// stage ("dma") is the completion side: its span for a Data runs from when
// it takes the Data (the Data before it has left) to its read's completion,
// and its busy time is the part of that wait the Data's bits occupy the
// PCIe link (`link_gbps`); the rest is the link's pipelined latency. Time a
// Data waited for a free read tag is the stage's blocked time: with too few
// tags for the latency, the DMA step is what limits the rate.
// A Data's size counts in bits: the unused end of its last byte goes as the
// request's pad bits (dma_request.hpp).
#include <cstdint>
#include <string>
#include <systemc>
#include <vector>

#include "common/channel.hpp"
#include "common/module_macros.hpp"
#include "common/ring_queue.hpp"
#include "common/stage.hpp"
#include "common/transfer.hpp"
#include "nic/dma/dma_engine.hpp"

namespace rnicsim {

class DmaReadStage : public sc_core::sc_module {
 public:
  RNICSIM_PROCESS_MODULE(DmaReadStage);

  // Attaches a port named after this block to `engine` (during elaboration).
  DmaReadStage(const sc_core::sc_module_name& name, DmaEngine& engine,
               std::uint32_t reads_in_flight, double link_gbps);

  sc_core::sc_port<PopIf<Transfer>> in;
  // Where Data go once read: the completion stage's output port.
  sc_core::sc_port<PushIf<Transfer>, 0>& output() { return completion_.out; }

  // The stage a pipeline lists: its statistics and spans are the DMA step's.
  const PipelineStage<Transfer>& stage() const { return completion_; }

 private:
  // The completion side: serves each Data by waiting for its read.
  class Completion : public PipelineStage<Transfer> {
   public:
    Completion(const sc_core::sc_module_name& name, DmaReadStage& owner)
        : PipelineStage<Transfer>(name, StageTiming()), owner_(owner) {}

   protected:
    sc_core::sc_time serve(Transfer& item) override;

   private:
    DmaReadStage& owner_;
  };

  void issue();
  // Takes the port's completions, marking their tags done.
  void collect_completions();

  DmaPort& port_;
  std::uint32_t reads_in_flight_;
  double link_gbps_;
  Channel<Transfer> requested_;
  Completion completion_;
  std::vector<bool> done_;   // by tag: its read has completed
  RingQueue<std::uint32_t> tags_in_order_;  // of the Data in `requested_` and in service
  sc_core::sc_time tag_wait_;  // waited for tags, not yet counted by the completion side
  std::uint64_t issued_ = 0;
  std::uint64_t finished_ = 0;  // Data handed on by the completion side
  sc_core::sc_event finished_event_;
};

}  // namespace rnicsim
