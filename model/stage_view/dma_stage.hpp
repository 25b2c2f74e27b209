#pragma once
// DmaStage: the NIC's DMA read as one stage of a datapath: it reads an item's
// buffer out of host memory into the NIC (the item then carries the bytes).
// The stage timing is the NIC-internal datapath (latency + bandwidth); its
// reads go through `dma2host`, bound either to host memory directly (the seed
// figure's 1 ns DMA step) or to a DmaEngine, which adds the PCIe link's TLPs,
// tags and round trip on top.
#include <systemc>

#include "common/stage.hpp"
#include "common/transfer.hpp"
#include "common/memory_initiator.hpp"

namespace rnicsim {

class DmaStage : public PipelineStage<Transfer> {
 public:
  MemoryInitiator dma2host;

  DmaStage(const sc_core::sc_module_name& name, const StageTiming& timing);

 protected:
  sc_core::sc_time serve(Transfer& item) override;
};

}  // namespace rnicsim
