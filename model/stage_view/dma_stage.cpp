#include "stage_view/dma_stage.hpp"

#include <memory>

namespace rnicsim {

DmaStage::DmaStage(const sc_core::sc_module_name& name, const StageTiming& timing)
    : PipelineStage<Transfer>(name, timing), dma2host("dma2host") {}

sc_core::sc_time DmaStage::serve(Transfer& item) {
  auto nic_buffer = std::make_shared<Bytes>(item.size_bytes());
  const sc_core::sc_time delay = dma2host.read(item.host_address(), nic_buffer->data(),
                                              nic_buffer->size());
  item.set_bytes(std::move(nic_buffer));
  return delay;
}

}  // namespace rnicsim
