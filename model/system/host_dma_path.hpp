#pragma once
// HostDmaPath: a host's memory, the PCIe link, the NIC's request splitter and
// DMA engine, wired together. NIC blocks that read or write host memory bind
// to `dma_engine.nic2dma` or attach to `dma_engine`.
#include <systemc>

#include "dma/dma_engine.hpp"
#include "dma/request_splitter.hpp"
#include "host_memory/host_memory.hpp"
#include "pcie/pcie_link.hpp"

namespace rnicsim {

struct HostDmaPath : sc_core::sc_module {
  HostDmaPath(const sc_core::sc_module_name& name, const HostMemoryConfig& memory_config,
              const pcie::PcieConfig& pcie_config, const RequestSplitterConfig& splitter_config,
              const DmaEngineConfig& engine_config)
      : sc_core::sc_module(name),
        memory("memory", memory_config),
        pcie("pcie", pcie_config),
        splitter("request_split", splitter_config),
        dma_engine("dma_engine", engine_config) {
    pcie.pcie2mem.bind(memory.socket);
    splitter.split2pcie.bind(pcie.nic2pcie);
    dma_engine.dma2split.bind(splitter.dma2split);
  }

  HostMemory memory;
  pcie::PcieLink pcie;
  RequestSplitter splitter;
  DmaEngine dma_engine;
};

}  // namespace rnicsim
