#pragma once
#include "common/stage_timing.hpp"
#include "config/config.hpp"
#include "config/run_config.hpp"
#include "dma/dma_engine.hpp"
#include "pcie/pcie_config.hpp"

namespace rnicsim {

void declare_dma_keys(config::Schema& schema);
// The DMA stage's datapath timing (the pipeline experiment's "dma" step).
StageTiming dma_timing(const config::Section& dma);
// The PCIe requester: its tags, and the link's request sizes.
DmaEngineConfig dma_engine_config(const config::Section& dma, const pcie::PcieConfig& pcie);

}  // namespace rnicsim
