#pragma once
#include "common/stage_timing.hpp"
#include "config/config.hpp"

namespace rnicsim {

void declare_dma_keys(config::Schema& schema);
StageTiming dma_timing(const config::Json& doc);

}  // namespace rnicsim
