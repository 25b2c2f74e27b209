#pragma once
// InterruptController: the host's side of MSI-X. Between the root complex
// and host memory it passes every access through, except the posted writes
// into the MSI window: those are interrupts, whose 4-byte data names the
// vector; the controller counts them and wakes whoever waits on the vector.
//
// x86 keeps its MSI window at 0xFEE00000, in a hole below 4 GiB. Host memory
// here is sparse and may be larger than that, so the window sits just above
// the largest memory a host can have (2^52 bytes, x86-64's physical limit):
// no memory address aliases it.
#include <cstdint>
#include <map>
#include <memory>
#include <systemc>
#include <tlm>
#include <tlm_utils/simple_initiator_socket.h>
#include <tlm_utils/simple_target_socket.h>

#include "common/little_endian.hpp"

namespace rnicsim {

inline constexpr std::uint64_t kMsiWindowBase = 1ULL << 52;
inline constexpr std::uint64_t kMsiWindowBytes = 4096;

class InterruptController : public sc_core::sc_module {
 public:
  tlm_utils::simple_target_socket<InterruptController> from_pcie;
  tlm_utils::simple_initiator_socket<InterruptController> to_memory;

  explicit InterruptController(const sc_core::sc_module_name& name)
      : sc_core::sc_module(name), from_pcie("from_pcie"), to_memory("to_memory") {
    from_pcie.register_b_transport(this, &InterruptController::b_transport);
  }

  // Notified when an interrupt for `vector` arrives.
  const sc_core::sc_event& interrupt(std::uint32_t vector) { return line(vector).event; }
  std::uint64_t count(std::uint32_t vector) { return line(vector).count; }

 private:
  struct Line {
    sc_core::sc_event event;
    std::uint64_t count = 0;
  };
  Line& line(std::uint32_t vector) {
    std::unique_ptr<Line>& slot = lines_[vector];
    if (!slot) slot = std::make_unique<Line>();
    return *slot;
  }
  void b_transport(tlm::tlm_generic_payload& payload, sc_core::sc_time& delay) {
    const std::uint64_t address = payload.get_address();
    if (address < kMsiWindowBase || address >= kMsiWindowBase + kMsiWindowBytes) {
      to_memory->b_transport(payload, delay);
      return;
    }
    if (payload.get_command() != tlm::TLM_WRITE_COMMAND || payload.get_data_length() != 4) {
      payload.set_response_status(tlm::TLM_ADDRESS_ERROR_RESPONSE);
      return;
    }
    const auto vector = static_cast<std::uint32_t>(load_little_endian(payload.get_data_ptr(), 4));
    Line& target = line(vector);
    ++target.count;
    target.event.notify(delay);
    payload.set_response_status(tlm::TLM_OK_RESPONSE);
  }

  std::map<std::uint32_t, std::unique_ptr<Line>> lines_;
};

}  // namespace rnicsim
