#pragma once
// The transport's command unit (see transport_shared.hpp for the units).
#include <cstdint>
#include <systemc>
#include <tlm>
#include <tlm_utils/simple_target_socket.h>

#include "common/module_macros.hpp"
#include "nic/dma/dma_engine.hpp"
#include "nic/translation/memory_translation.hpp"
#include "nic/transport/transport_shared.hpp"

namespace rnicsim {

// Doorbells, BlueFlame writes and the command mailbox. A deregistration
// command drops the MR's entries from `translation`'s caches.
class CommandUnit : public sc_core::sc_module {
 public:
  tlm_utils::simple_target_socket<CommandUnit> pcie2nic;

  RNICSIM_PROCESS_MODULE(CommandUnit);
  CommandUnit(const sc_core::sc_module_name& name, TransportShared& shared, DmaPort& port,
              MemoryTranslation& translation);

 private:
  void b_transport(tlm::tlm_generic_payload& payload, sc_core::sc_time& delay);
  void run_commands();
  CommandStatus execute(const Command& command);

  TransportShared& shared_;
  DmaClient dma_;
  MemoryTranslation& translation_;
  std::deque<std::uint64_t> mailboxes_;
  sc_core::sc_event command_rung_;
};

}  // namespace rnicsim
