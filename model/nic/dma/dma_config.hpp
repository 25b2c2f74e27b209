#pragma once
#include "common/stage_timing.hpp"
#include "config/config.hpp"
#include "config/run_config.hpp"
#include "nic/dma/dma_engine.hpp"
#include "nic/dma/request_splitter.hpp"
#include "pcie/pcie_config.hpp"

namespace rnicsim {

void declare_dma_keys(config::Schema& schema);
// The PCIe requester: its tags and its write window.
DmaEngineConfig dma_engine_config(const config::Section& dma);
// The request splitter: its implementation, and the link's request sizes.
RequestSplitterConfig request_splitter_config(const config::Section& request_splitter,
                                              const pcie::PcieConfig& pcie);

}  // namespace rnicsim
