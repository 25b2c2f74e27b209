#pragma once
// EthernetPort: the NIC's plain Ethernet mode, the device a kernel network
// stack drives (one transmit ring, one receive ring, one interrupt vector).
//
//   driver --MMIO--> registers (ring set-up, tail doorbells, interrupt arm)
//   transmit: doorbell -> descriptor fetch (DMA read, a batch at a time)
//             -> buffer read (DMA, several in flight) -> [checksum, TSO]
//             -> tx_out (to the MAC) -> head write-back (DMA write) -> event
//   receive:  rx_in (non-RoCE frames from the MAC) -> next posted descriptor
//             (fetched a batch at a time) -> frame DMA-written into its
//             buffer -> descriptor written back -> event
//   events -> interrupt moderation -> MSI-X (a posted DMA write)
//
// Every write the port makes goes through one DMA port, in order, so PCIe's
// posted-write ordering puts a frame before its write-back and the
// write-back before the interrupt that announces it. A frame that finds no
// posted buffer is dropped and counted (rx_no_buffer), as a NIC does: the
// kernel's TCP window is what keeps that from happening.
#include <cstdint>
#include <deque>
#include <memory>
#include <optional>
#include <systemc>
#include <vector>

#include "common/channel.hpp"
#include "common/module_macros.hpp"
#include "common/transfer.hpp"
#include "nic/ethernet/ethernet_config.hpp"
#include "interface/ethernet_formats.hpp"
#include "nic/ethernet/interrupt_moderation.hpp"
#include "nic/transport/dma_client.hpp"
#include "common/statistics.hpp"

namespace rnicsim {

struct EthernetPortStats {
  std::uint64_t tx_descriptors = 0;
  std::uint64_t tx_frames = 0;       // on the wire, TSO segments counted one by one
  std::uint64_t tx_bytes = 0;        // frame bytes without FCS
  std::uint64_t tso_segments = 0;    // frames cut from TSO descriptors
  std::uint64_t tx_offload_errors = 0;  // offload asked of a non-TCP frame: sent as it was
  std::uint64_t rx_frames = 0;       // written into posted buffers
  std::uint64_t rx_bytes = 0;
  std::uint64_t rx_no_buffer = 0;    // dropped: no buffer posted
  std::uint64_t rx_too_long = 0;     // dropped: larger than the posted buffer
  std::uint64_t rx_checksum_bad = 0; // delivered, flagged by receive checksum offload
  std::uint64_t descriptor_fetches = 0;
  std::uint64_t interrupts = 0;
};

// EthernetPortStats's names, units and meanings (common/statistics.hpp).
const StatisticsTable<EthernetPortStats>& ethernet_port_statistics();

class EthernetPort : public sc_core::sc_module {
 public:
  // Frames for the MAC, and frames from it (the RoCE ones go elsewhere).
  sc_core::sc_port<PushIf<Transfer>> tx_out;
  sc_core::sc_port<PopIf<Transfer>> rx_in;

  RNICSIM_PROCESS_MODULE(EthernetPort);

  EthernetPort(const sc_core::sc_module_name& name, const EthernetPortConfig& config,
               DmaPort& dma);

  // A posted MMIO write to one of the port's registers (ethernet_formats.hpp).
  void write_register(ethernet::EthernetRegister reg, std::uint64_t value);
  const EthernetPortStats& stats() const { return stats_; }

 private:
  struct Ring {
    std::uint64_t base = 0;
    std::uint32_t entries = 0;
    std::uint32_t tail = 0;      // the driver's producer index
    std::uint32_t fetched = 0;   // descriptors read into the port
    std::uint64_t address(std::uint32_t index) const {
      return base + static_cast<std::uint64_t>(index % entries) * ethernet::kDescriptorBytes;
    }
  };
  // A transmit descriptor whose buffer is being read.
  struct TxRead {
    ethernet::TxDescriptor descriptor;
    std::shared_ptr<Bytes> buffer;
    std::uint32_t ticket = 0;
  };

  void transmit();
  void prefetch_rx_descriptors();
  void receive();
  void interrupts();
  // Reads the next batch of `ring`'s descriptors (at most to the ring's end);
  // returns their bytes.
  std::vector<std::uint8_t> fetch_descriptors(Ring& ring);
  void send_frames(const TxRead& read);
  void send_frame(SharedBytes frame);
  void write_back_tx_head();
  void count_event();

  EthernetPortConfig config_;
  DmaClient dma_;
  Ring tx_;
  Ring rx_;
  std::uint64_t tx_head_writeback_ = 0;
  std::uint64_t interrupt_address_ = 0;
  std::uint32_t interrupt_data_ = 0;
  std::uint32_t tx_sent_ = 0;        // descriptors sent (the consumer index)
  std::uint32_t tx_written_back_ = 0;  // the consumer index last written back
  std::uint32_t tx_announced_ = 0;     // the consumer index at the last interrupt
  std::uint32_t rx_completed_ = 0;   // frames written back (the receive consumer index the NIC has reached)
  std::uint64_t frame_index_ = 0;
  std::deque<TxRead> tx_reads_;      // transmit()'s buffers being read
  Transfer receiving_;               // receive()'s frame in hand
  std::deque<ethernet::TxDescriptor> tx_descriptors_;  // fetched, buffer not yet read
  std::deque<ethernet::RxDescriptor> rx_descriptors_;  // fetched, not yet used
  ethernet::InterruptModeration moderation_;
  sc_core::sc_event tx_doorbell_;
  sc_core::sc_event rx_doorbell_;
  sc_core::sc_event rx_descriptors_used_;   // the prefetcher may fetch again
  sc_core::sc_event rx_descriptors_ready_;  // a fetch has landed
  sc_core::sc_event interrupt_due_;         // fire now, or the moderation timer moved
  std::uint32_t interrupts_to_send_ = 0;
  EthernetPortStats stats_;
};

}  // namespace rnicsim
