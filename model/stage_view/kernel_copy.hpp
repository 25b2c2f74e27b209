#pragma once
// KernelCopy: the socket send path's copy from the user buffer into a kernel
// buffer, the stage the Ethernet path has and the RDMA path does not.
// Timing is the copy rate and per-call latency (syscall and protocol work);
// the bytes really move between the two buffers in host memory.
#include <cstdint>
#include <systemc>

#include "common/stage.hpp"
#include "common/transfer.hpp"
#include "common/memory_initiator.hpp"

namespace rnicsim {

class KernelCopy : public PipelineStage<Transfer> {
 public:
  MemoryInitiator cpu2mem;

  // The kernel buffer is a ring of `buffer_slots` Data, like a socket's send
  // buffer: Data `i` is copied to
  // kernel_buffer_address + (i mod buffer_slots) * (its size in bytes).
  KernelCopy(const sc_core::sc_module_name& name, const StageTiming& timing,
             std::uint64_t kernel_buffer_address, std::uint64_t buffer_slots);

 protected:
  sc_core::sc_time serve(Transfer& item) override;

 private:
  std::uint64_t kernel_buffer_address_;
  std::uint64_t buffer_slots_;
  Bytes bounce_;  // the CPU's registers/cache line stand-in for the copy
};

}  // namespace rnicsim
