#include "kernel/ethernet_driver.hpp"

#include <stdexcept>

namespace rnicsim {

using ethernet::EthernetRegister;
using ethernet::kDescriptorBytes;

EthernetDriver::EthernetDriver(Host& host, KernelMemory& kernel_memory,
                               const EthernetDriverConfig& config)
    : host_(host), config_(config) {
  auto power_of_two = [](std::uint32_t n) { return n != 0 && (n & (n - 1)) == 0; };
  if (!power_of_two(config.tx_entries) || !power_of_two(config.rx_entries)) {
    throw std::invalid_argument("Ethernet driver: ring entries must be powers of two");
  }
  tx_ring_ = kernel_memory.allocate(std::uint64_t{config.tx_entries} * kDescriptorBytes, 4096,
                                    "the transmit ring");
  rx_ring_ = kernel_memory.allocate(std::uint64_t{config.rx_entries} * kDescriptorBytes, 4096,
                                    "the receive ring");
  tx_head_ = kernel_memory.allocate(64, 64, "the transmit head write-back");
  tx_copy_area_ = kernel_memory.allocate(std::uint64_t{config.tx_entries} * config.tx_copy_bytes,
                                         64, "the transmit copy buffers");
  rx_buffers_ = kernel_memory.allocate(std::uint64_t{config.rx_entries} * config.rx_buffer_bytes,
                                       64, "the receive buffers");
}

void EthernetDriver::write_register(EthernetRegister reg, std::uint64_t value,
                                    std::uint32_t bytes) {
  std::uint8_t data[8];
  for (std::uint32_t i = 0; i < bytes; ++i) data[i] = static_cast<std::uint8_t>(value >> (8 * i));
  host_.mmio_write(ethernet::kBarEthernet + static_cast<std::uint64_t>(reg), data, bytes,
                   sc_core::SC_ZERO_TIME);
}

void EthernetDriver::open() {
  const std::uint8_t zero[4] = {};
  host_.memory.write_bytes(tx_head_, zero, sizeof zero);
  write_register(EthernetRegister::kTxRingBase, tx_ring_, 8);
  write_register(EthernetRegister::kTxRingEntries, config_.tx_entries, 4);
  write_register(EthernetRegister::kTxHeadWriteback, tx_head_, 8);
  write_register(EthernetRegister::kRxRingBase, rx_ring_, 8);
  write_register(EthernetRegister::kRxRingEntries, config_.rx_entries, 4);
  write_register(EthernetRegister::kInterruptAddress, kMsiWindowBase, 8);
  write_register(EthernetRegister::kInterruptData, config_.vector, 4);
  for (std::uint32_t i = 0; i < config_.rx_entries; ++i) post_rx(rx_tail_++);
  write_register(EthernetRegister::kRxTail, rx_tail_, 4);
  arm_interrupt();
}

void EthernetDriver::post_rx(std::uint32_t index) {
  ethernet::RxDescriptor d;
  d.buffer_address =
      rx_buffers_ + std::uint64_t{index % config_.rx_entries} * config_.rx_buffer_bytes;
  d.buffer_bytes = config_.rx_buffer_bytes;
  const auto bytes = ethernet::encode_rx_descriptor(d);
  host_.memory.write_bytes(rx_ring_ + std::uint64_t{index % config_.rx_entries} * kDescriptorBytes,
                           bytes.data(), bytes.size());
}

std::uint32_t EthernetDriver::transmit_room() {
  std::uint8_t head[4];
  host_.memory.read_bytes(tx_head_, head, sizeof head);
  tx_clean_ = static_cast<std::uint32_t>(head[0] | head[1] << 8 | head[2] << 16 |
                                         static_cast<std::uint32_t>(head[3]) << 24);
  return config_.tx_entries - (tx_tail_ - tx_clean_);
}

void EthernetDriver::transmit(std::uint64_t address, std::uint32_t length, std::uint8_t flags,
                              std::uint16_t mss) {
  if (tx_tail_ - tx_clean_ >= config_.tx_entries) {
    throw std::logic_error("Ethernet driver: transmit with a full ring");
  }
  ethernet::TxDescriptor d;
  d.buffer_address = address;
  d.length = length;
  d.flags = flags;
  d.mss = mss;
  const auto bytes = ethernet::encode_tx_descriptor(d);
  host_.memory.write_bytes(tx_ring_ + std::uint64_t{tx_tail_ % config_.tx_entries} * kDescriptorBytes,
                           bytes.data(), bytes.size());
  ++tx_tail_;
  write_register(EthernetRegister::kTxTail, tx_tail_, 4);
}

void EthernetDriver::transmit_copy(const std::vector<std::uint8_t>& frame, std::uint8_t flags,
                                   std::uint16_t mss) {
  if (frame.size() > config_.tx_copy_bytes) {
    throw std::invalid_argument("Ethernet driver: a " + std::to_string(frame.size()) +
                                "-byte frame does not fit its " +
                                std::to_string(config_.tx_copy_bytes) + "-byte copy buffer");
  }
  const std::uint64_t buffer =
      tx_copy_area_ + std::uint64_t{tx_tail_ % config_.tx_entries} * config_.tx_copy_bytes;
  host_.memory.write_bytes(buffer, frame.data(), frame.size());
  transmit(buffer, static_cast<std::uint32_t>(frame.size()), flags, mss);
}

std::size_t EthernetDriver::poll(std::size_t budget,
                                 const std::function<void(ReceivedFrame&&)>& deliver) {
  std::size_t taken = 0;
  while (taken < budget) {
    const std::uint64_t slot =
        rx_ring_ + std::uint64_t{rx_next_ % config_.rx_entries} * kDescriptorBytes;
    std::uint8_t bytes[kDescriptorBytes];
    host_.memory.read_bytes(slot, bytes, sizeof bytes);
    const ethernet::RxDescriptor d = ethernet::decode_rx_descriptor(bytes);
    if ((d.status & ethernet::kRxDone) == 0) break;
    ReceivedFrame frame;
    frame.bytes.resize(d.frame_bytes);
    host_.memory.read_bytes(d.buffer_address, frame.bytes.data(), frame.bytes.size());
    frame.flags = d.flags;
    ++rx_next_;
    ++taken;
    post_rx(rx_tail_++);
    deliver(std::move(frame));
  }
  if (taken > 0) write_register(EthernetRegister::kRxTail, rx_tail_, 4);
  return taken;
}

void EthernetDriver::arm_interrupt() {
  write_register(EthernetRegister::kInterruptArm, rx_next_, 4);
}

}  // namespace rnicsim
