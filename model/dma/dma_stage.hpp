#pragma once
// DmaEngine: the NIC reading a buffer out of host memory into its own buffer.
// For now a latency + bandwidth stage over a direct TLM path to host memory;
// the PCIe link (TLP split, tags, credits) will sit between the two sockets.
#include <systemc>

#include "common/stage.hpp"
#include "common/transfer.hpp"
#include "host_memory/memory_initiator.hpp"

namespace rnicsim {

class DmaEngine : public PipelineStage<Transfer> {
 public:
  MemoryInitiator dma2mem;

  DmaEngine(const sc_core::sc_module_name& name, const StageTiming& timing);

 protected:
  sc_core::sc_time serve(Transfer& item) override;
};

}  // namespace rnicsim
