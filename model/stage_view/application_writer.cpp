#include "stage_view/application_writer.hpp"

namespace rnicsim {

ApplicationWriter::ApplicationWriter(const sc_core::sc_module_name& name,
                                     const StageTiming& timing, std::uint64_t user_buffer_address,
                                     std::uint64_t buffer_slots)
    : PipelineStage<Transfer>(name, timing),
      cpu2mem("cpu2mem"),
      user_buffer_address_(user_buffer_address),
      buffer_slots_(buffer_slots) {}

sc_core::sc_time ApplicationWriter::serve(Transfer& item) {
  const std::uint64_t address =
      user_buffer_address_ + item.index() % buffer_slots_ * item.size_bytes();
  const sc_core::sc_time delay = cpu2mem.write(address, item.bytes()->data(), item.size_bytes());
  item.set_host_address(address);
  item.set_bytes(nullptr);  // from here on the data lives in host memory only
  return delay;
}

}  // namespace rnicsim
