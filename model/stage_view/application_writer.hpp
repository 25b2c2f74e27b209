#pragma once
// ApplicationWriter: the application producing its data into a user buffer in
// host memory, the first stage of both the Ethernet and the RDMA path.
// The CPU's store rate and per-write latency are the stage timing; the bytes
// really land in host memory, and the item then carries only their address.
#include <cstdint>
#include <systemc>

#include "common/stage.hpp"
#include "common/transfer.hpp"
#include "common/memory_initiator.hpp"

namespace rnicsim {

class ApplicationWriter : public PipelineStage<Transfer> {
 public:
  MemoryInitiator cpu2mem;

  // The user buffer is a ring of `buffer_slots` Data, as an application
  // reuses its send buffers: Data `i` is written at
  // user_buffer_address + (i mod buffer_slots) * (its size in bytes).
  ApplicationWriter(const sc_core::sc_module_name& name, const StageTiming& timing,
                    std::uint64_t user_buffer_address, std::uint64_t buffer_slots);

 protected:
  sc_core::sc_time serve(Transfer& item) override;

 private:
  std::uint64_t user_buffer_address_;
  std::uint64_t buffer_slots_;
};

}  // namespace rnicsim
