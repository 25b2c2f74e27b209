#pragma once
// BarDecoder: the NIC's register window (BAR) as the host's MMIO writes reach
// it: the Ethernet port's registers (interface/ethernet_formats.hpp) go to
// the port, everything else (doorbells, BlueFlame, commands) to the command
// unit. Structure only: the targets keep their own decoding.
#include <cstdint>
#include <systemc>
#include <tlm>
#include <tlm_utils/simple_initiator_socket.h>
#include <tlm_utils/simple_target_socket.h>

#include "common/little_endian.hpp"
#include "interface/ethernet_formats.hpp"
#include "nic/ethernet/ethernet_port.hpp"

namespace rnicsim {

class BarDecoder : public sc_core::sc_module {
 public:
  tlm_utils::simple_target_socket<BarDecoder> pcie2nic;
  tlm_utils::simple_initiator_socket<BarDecoder> to_commands;

  explicit BarDecoder(const sc_core::sc_module_name& name)
      : sc_core::sc_module(name), pcie2nic("pcie2nic"), to_commands("to_commands") {
    pcie2nic.register_b_transport(this, &BarDecoder::b_transport);
  }

  // The port that owns the Ethernet registers; none when the NIC runs RoCE only.
  void attach_ethernet_port(EthernetPort* port) { ethernet_ = port; }

 private:
  void b_transport(tlm::tlm_generic_payload& payload, sc_core::sc_time& delay) {
    const std::uint64_t offset = payload.get_address();
    if (offset < ethernet::kBarEthernet) {
      to_commands->b_transport(payload, delay);
      return;
    }
    const auto reg = ethernet::decode_ethernet_register(offset);
    const std::uint32_t length = payload.get_data_length();
    if (ethernet_ == nullptr || !reg || (length != 4 && length != 8)) {
      payload.set_response_status(tlm::TLM_ADDRESS_ERROR_RESPONSE);
      return;
    }
    ethernet_->write_register(*reg, load_little_endian(payload.get_data_ptr(), length));
    payload.set_response_status(tlm::TLM_OK_RESPONSE);
  }

  EthernetPort* ethernet_ = nullptr;
};

}  // namespace rnicsim
