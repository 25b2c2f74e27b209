#pragma once
// MemoryInitiator: the initiator side of host-memory traffic, for blocks that
// read or write host memory (CPU stages, the DMA engine). It wraps one TLM-2.0
// initiator socket and turns an error response into an SC_REPORT_ERROR that
// names the block, since a model block addressing memory that does not exist
// is a bug in the model, not a fault of the simulated system.
#include <cstddef>
#include <cstdint>
#include <systemc>
#include <tlm>
#include <tlm_utils/simple_initiator_socket.h>

namespace rnicsim {

class MemoryInitiator {
 public:
  tlm_utils::simple_initiator_socket<MemoryInitiator> socket;

  explicit MemoryInitiator(const char* socket_name) : socket(socket_name) {}

  // Each returns the delay the target annotated.
  sc_core::sc_time read(std::uint64_t address, std::uint8_t* data, std::size_t length);
  sc_core::sc_time write(std::uint64_t address, const std::uint8_t* data, std::size_t length);

 private:
  sc_core::sc_time transport(tlm::tlm_command command, std::uint64_t address,
                             std::uint8_t* data, std::size_t length);
};

}  // namespace rnicsim
