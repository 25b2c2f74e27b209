#include "dma/dma_engine.hpp"

#include <memory>

namespace rnicsim {

DmaEngine::DmaEngine(const sc_core::sc_module_name& name, const StageTiming& timing)
    : PipelineStage<Transfer>(name, timing), dma2mem("dma2mem") {}

sc_core::sc_time DmaEngine::serve(Transfer& item) {
  auto nic_buffer = std::make_shared<Bytes>(item.size_bytes());
  const sc_core::sc_time delay = dma2mem.read(item.host_address(), nic_buffer->data(),
                                              nic_buffer->size());
  item.set_bytes(std::move(nic_buffer));
  return delay;
}

}  // namespace rnicsim
