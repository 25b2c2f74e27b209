#pragma once
// Host: one host's hardware and software, composed (structure only).
//
//   memory <-- interrupts (MSI-X) <--pcie2mem-- pcie (root complex, IOMMU, link) <--nic2pcie-- the NIC's request splitter
//                        pcie --pcie2nic--> the NIC's registers (MMIO)
//   software(): the page allocator, one application's address space and the
//               verbs driver, which writes the NIC's tables into `memory`.
//
// The NIC binds to `pcie`; Node does that. Blocks keep their own timing,
// config keys and statistics; see their READMEs.
#include <cstdint>
#include <memory>
#include <string>
#include <optional>
#include <systemc>
#include <vector>
#include <tlm_utils/simple_initiator_socket.h>

#include "config/run_config.hpp"
#include "host/driver/address_space.hpp"
#include "host/driver/verbs.hpp"
#include "host/driver/verbs_config.hpp"
#include "host/interrupt_controller.hpp"
#include "host/memory/host_memory.hpp"
#include "host/memory/page_allocator.hpp"
#include "interface/mpt_format.hpp"
#include "pcie/pcie_config.hpp"
#include "pcie/pcie_link.hpp"

namespace rnicsim {

// Where the driver places the NIC's tables (MPT, MTT) in host memory; the
// application's pages follow them.
inline constexpr std::uint64_t kIcmBase = 16ULL << 20;
// Where an application's buffers start in its virtual address space.
inline constexpr std::uint64_t kApplicationVirtualBase = 1ULL << 40;

// Where the application's pages start: the first page boundary after the
// NIC's tables. The translation experiment's memory rule uses it too.
std::uint64_t page_pool_base(const IcmLayout& icm, std::uint64_t page_bytes);

struct HostConfig {
  HostMemoryConfig memory;
  pcie::PcieConfig pcie;
  std::uint64_t page_bytes = 0;  // application buffers' page size
  double fragmentation = 0;      // how scattered free frames are (PageAllocator)
  std::uint64_t page_seed = 0;   // the page allocator's random stream
  IcmLayout icm;                 // the NIC's tables, from kIcmBase
  ibv_port_attr port;            // the NIC's port, as ibv_query_port reports it
  std::optional<VerbsConfig> verbs;  // set when the experiment uses the queue verbs
};

// Node `node`'s host hardware: its "host" and "pcie" sections; `icm` comes
// from its NIC's table sizes.
HostConfig host_config(config::RunConfig& run, const std::string& node, const IcmLayout& icm);
// Adds what the host's software needs (host.page_bytes, host.fragmentation),
// read only by experiments that register memory.
void read_host_software_config(config::RunConfig& run, const std::string& node, HostConfig& c);
// Adds the driver's CPU costs (verbs.*), read only by experiments that post work.
void read_verbs_config(config::RunConfig& run, const std::string& node, HostConfig& c);

// The host's software: an application's memory and the driver.
struct HostSoftware {
  HostSoftware(HostMemory& memory, const HostConfig& config);
  PageAllocator pages;
  AddressSpace process;
  VerbsDriver driver;
};

class Host : public sc_core::sc_module {
 public:
  Host(const sc_core::sc_module_name& name, const HostConfig& config);

  HostMemory memory;
  pcie::PcieLink pcie;
  // Between the root complex and memory: MSI-X writes become interrupts.
  InterruptController interrupts;
  // The CPU's MMIO writes to the NIC's registers.
  tlm_utils::simple_initiator_socket<Host> cpu2pcie;

  // A posted MMIO write to the NIC's register window, `after` from now (the
  // CPU's work before it); call from an SC_THREAD.
  void mmio_write(std::uint64_t offset, const std::uint8_t* data, std::uint32_t length,
                  const sc_core::sc_time& after);

  // Made on first use: a host that only serves DMA (the dma experiment) needs
  // no page pool. Throws std::invalid_argument when host memory holds no page
  // after the NIC's tables.
  HostSoftware& software();
  const HostConfig& config() const { return config_; }

 private:
  HostConfig config_;
  std::unique_ptr<HostSoftware> software_;
  std::vector<std::unique_ptr<tlm::tlm_generic_payload>> mmio_pool_;
  std::vector<tlm::tlm_generic_payload*> free_mmio_;
};

}  // namespace rnicsim
