#pragma once
// HostDmaPath: a host's memory, the PCIe link and the NIC's DMA engine, wired
// together. NIC blocks that read or write host memory bind to
// `dma_engine.nic2dma`.
#include <systemc>

#include "dma/dma_engine.hpp"
#include "host_memory/host_memory.hpp"
#include "pcie/pcie_link.hpp"

namespace rnicsim {

struct HostDmaPath : sc_core::sc_module {
  HostDmaPath(const sc_core::sc_module_name& name, const HostMemoryConfig& memory_config,
              const pcie::PcieConfig& pcie_config, const DmaEngineConfig& engine_config)
      : sc_core::sc_module(name),
        memory("memory", memory_config),
        pcie("pcie", pcie_config),
        dma_engine("dma_engine", engine_config) {
    pcie.pcie2mem.bind(memory.socket);
    dma_engine.dma2pcie.bind(pcie.nic2pcie);
  }

  HostMemory memory;
  pcie::PcieLink pcie;
  DmaEngine dma_engine;
};

}  // namespace rnicsim
