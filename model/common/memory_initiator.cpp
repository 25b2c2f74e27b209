#include "common/memory_initiator.hpp"

#include <string>

namespace rnicsim {

sc_core::sc_time MemoryInitiator::read(std::uint64_t address, std::uint8_t* data,
                                       std::size_t length) {
  return transport(tlm::TLM_READ_COMMAND, address, data, length);
}

sc_core::sc_time MemoryInitiator::write(std::uint64_t address, const std::uint8_t* data,
                                        std::size_t length) {
  // The generic payload takes a non-const pointer; a write never modifies it.
  return transport(tlm::TLM_WRITE_COMMAND, address, const_cast<std::uint8_t*>(data), length);
}

sc_core::sc_time MemoryInitiator::transport(tlm::tlm_command command, std::uint64_t address,
                                            std::uint8_t* data, std::size_t length) {
  tlm::tlm_generic_payload payload;
  payload.set_command(command);
  payload.set_address(address);
  payload.set_data_ptr(data);
  payload.set_data_length(static_cast<unsigned int>(length));
  payload.set_streaming_width(static_cast<unsigned int>(length));
  payload.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
  sc_core::sc_time delay = sc_core::SC_ZERO_TIME;
  socket->b_transport(payload, delay);
  if (payload.is_response_error()) {
    SC_REPORT_ERROR(socket.name(), (payload.get_response_string() + " at address " +
                                    std::to_string(address) + ", length " +
                                    std::to_string(length))
                                       .c_str());
  }
  return delay;
}

}  // namespace rnicsim
