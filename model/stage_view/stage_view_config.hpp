#pragma once
// The seed figure's stages' timing, and the keys only they read: the CPU
// stages' (host.app_write_*, host.kernel_copy_*) and the DMA stage's
// (dma.gbps, dma.latency_ns). The real blocks (host memory, the DMA engine
// over PCIe) have their own keys in their own folders.
#include "common/stage_timing.hpp"
#include "config/config.hpp"
#include "config/run_config.hpp"

namespace rnicsim {

struct CpuStagesConfig {
  StageTiming app_write;    // the application writing its data into a user buffer
  StageTiming kernel_copy;  // the socket path's user-to-kernel copy (Ethernet path only)
};

void declare_stage_view_keys(config::Schema& schema);
// From a node's "host" section.
CpuStagesConfig cpu_stages_config(const config::Section& host);
// The DMA stage's datapath timing (the pipeline experiment's "dma" step),
// from a node's "dma" section.
StageTiming dma_stage_timing(const config::Section& dma);

}  // namespace rnicsim
