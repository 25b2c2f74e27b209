#pragma once
// EthernetDriver: the kernel's driver of the NIC's Ethernet port
// (nic/ethernet/ethernet_port.hpp), as a NAPI driver works it: rings and
// buffers in kernel memory, doorbells by MMIO, an interrupt that the driver
// re-arms when a poll finds no more work.
//
// Call from an SC_THREAD. The driver's reads and writes of host memory take
// no simulated time here: the kernel stack that calls it charges the CPU's
// time for its work (host/kernel/README.md).
#include <cstdint>
#include <functional>
#include <string>
#include <systemc>
#include <vector>

#include "host/host.hpp"
#include "host/kernel/kernel_memory.hpp"
#include "interface/ethernet_formats.hpp"

namespace rnicsim {

struct EthernetDriverConfig {
  std::uint32_t tx_entries = 256;        // a power of two
  std::uint32_t rx_entries = 256;        // a power of two
  std::uint32_t rx_buffer_bytes = 2048;  // one frame each
  // Kernel memory transmit_copy() places frames in, one after the other, a
  // frame's bytes freed when the NIC reports it sent.
  std::uint32_t tx_copy_area_bytes = 1 << 20;
  // Receive buffers beyond the ring's: what a caller that holds buffers
  // (a socket queue, until recv() copies them out) may keep.
  std::uint32_t rx_spare_buffers = 0;
  std::uint32_t vector = 0;              // the MSI-X vector
};

// A received frame as the driver hands it up.
struct ReceivedFrame {
  std::vector<std::uint8_t> bytes;  // a copy, for parsing: the frame stays in its buffer
  std::uint64_t buffer_address = 0;
  std::uint8_t flags = 0;  // ethernet::kRxChecksumGood / kRxChecksumBad
};

class EthernetDriver {
 public:
  EthernetDriver(Host& host, KernelMemory& kernel_memory, const EthernetDriverConfig& config);

  // Programs the port, posts every receive buffer and arms the interrupt.
  void open();
  // `count` more spare receive buffers from kernel memory, for a caller that
  // learns after construction how many it may hold (one socket's receive
  // window each); handed out after every earlier one. Before open(). Throws
  // std::invalid_argument naming `what` when kernel memory is exhausted.
  void add_rx_spare_buffers(std::uint32_t count, const std::string& what);

  // Free transmit slots (after reclaiming what the NIC reports sent).
  std::uint32_t transmit_room();
  // Whether transmit_copy() has a slot and room for `bytes` now (reclaims too).
  bool can_transmit_copy(std::size_t bytes);
  // Queues a frame already in host memory (a socket buffer, say) and rings
  // the doorbell. Needs transmit_room() > 0.
  void transmit(std::uint64_t address, std::uint32_t length, std::uint8_t flags = 0,
                std::uint16_t mss = 0);
  // Copies `frame` into the copy area first. Needs can_transmit_copy().
  void transmit_copy(const std::vector<std::uint8_t>& frame, std::uint8_t flags = 0,
                     std::uint16_t mss = 0);

  // Takes up to `budget` received frames, posts a buffer in place of each
  // (the frame's own, unless `hold_buffers`: then a spare one, and the caller
  // gives the frame's back with release_rx_buffer) and rings the receive
  // doorbell once; returns how many it took.
  std::size_t poll(std::size_t budget, const std::function<void(ReceivedFrame&&)>& deliver,
                   bool hold_buffers = false);
  // A held buffer back to the driver, which posts it if the ring has room.
  void release_rx_buffer(std::uint64_t address);
  // Re-arms the interrupt (NAPI's completion).
  void arm_interrupt();
  const sc_core::sc_event& interrupt() { return host_.interrupts.interrupt(config_.vector); }
  std::uint64_t rx_ring() const { return rx_ring_; }
  // Notified when the NIC writes back a receive descriptor (what a busy
  // poller watches), and when it writes its transmit consumer index.
  const sc_core::sc_event& receive_written() {
    return host_.memory.watch(rx_ring_, std::uint64_t{config_.rx_entries} * ethernet::kDescriptorBytes);
  }
  const sc_core::sc_event& transmit_done() { return host_.memory.watch(tx_head_, 4); }

 private:
  void write_register(ethernet::EthernetRegister reg, std::uint64_t value, std::uint32_t bytes);
  // Posts `buffer` at ring index rx_tail_ (no doorbell).
  void post_rx(std::uint64_t buffer);

  Host& host_;
  KernelMemory& kernel_memory_;
  EthernetDriverConfig config_;
  std::uint64_t tx_ring_ = 0;
  std::uint64_t rx_ring_ = 0;
  std::uint64_t tx_head_ = 0;        // where the NIC writes its transmit consumer index
  std::uint64_t tx_copy_area_ = 0;
  std::uint64_t copy_head_ = 0;  // free-running offsets in the copy area: next free byte,
  std::uint64_t copy_tail_ = 0;  // and the oldest byte still in use
  std::vector<std::uint64_t> slot_copy_end_;  // per transmit slot: copy_head_ after its frame
  std::uint64_t rx_buffers_ = 0;
  std::uint32_t tx_tail_ = 0;        // descriptors queued
  std::uint32_t tx_clean_ = 0;       // descriptors the NIC has reported sent
  std::uint32_t rx_tail_ = 0;        // buffers posted
  std::uint32_t rx_next_ = 0;        // the next descriptor to look at
  std::vector<std::uint64_t> free_rx_buffers_;  // neither posted nor held
};

}  // namespace rnicsim
