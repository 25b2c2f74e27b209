#include "stage_view/kernel_copy.hpp"

namespace rnicsim {

KernelCopy::KernelCopy(const sc_core::sc_module_name& name, const StageTiming& timing,
                       std::uint64_t kernel_buffer_address, std::uint64_t buffer_slots)
    : PipelineStage<Transfer>(name, timing),
      cpu2mem("cpu2mem"),
      kernel_buffer_address_(kernel_buffer_address),
      buffer_slots_(buffer_slots) {}

sc_core::sc_time KernelCopy::serve(Transfer& item) {
  const std::uint64_t destination =
      kernel_buffer_address_ + item.index() % buffer_slots_ * item.size_bytes();
  bounce_.resize(item.size_bytes());
  sc_core::sc_time delay = cpu2mem.read(item.host_address(), bounce_.data(), bounce_.size());
  delay += cpu2mem.write(destination, bounce_.data(), bounce_.size());
  item.set_host_address(destination);
  return delay;
}

}  // namespace rnicsim
