#include "host/kernel/ethernet_driver.hpp"

#include <stdexcept>

#include "common/little_endian.hpp"

namespace rnicsim {

using ethernet::EthernetRegister;
using ethernet::kDescriptorBytes;

EthernetDriver::EthernetDriver(Host& host, KernelMemory& kernel_memory,
                               const EthernetDriverConfig& config)
    : host_(host), kernel_memory_(kernel_memory), config_(config) {
  auto power_of_two = [](std::uint32_t n) { return n != 0 && (n & (n - 1)) == 0; };
  if (!power_of_two(config.tx_entries) || !power_of_two(config.rx_entries)) {
    throw std::invalid_argument("Ethernet driver: ring entries must be powers of two");
  }
  tx_ring_ = kernel_memory.allocate(std::uint64_t{config.tx_entries} * kDescriptorBytes, 4096,
                                    "the transmit ring");
  rx_ring_ = kernel_memory.allocate(std::uint64_t{config.rx_entries} * kDescriptorBytes, 4096,
                                    "the receive ring");
  tx_head_ = kernel_memory.allocate(64, 64, "the transmit head write-back");
  tx_copy_area_ = kernel_memory.allocate(config.tx_copy_area_bytes, 64, "the transmit copy area");
  slot_copy_end_.assign(config.tx_entries, 0);
  const std::uint64_t buffers = std::uint64_t{config.rx_entries} + config.rx_spare_buffers;
  rx_buffers_ = kernel_memory.allocate(buffers * config.rx_buffer_bytes, 64, "the receive buffers");
  // Handed out lowest address first.
  for (std::uint64_t i = buffers; i-- > 0;) {
    free_rx_buffers_.push_back(rx_buffers_ + i * config.rx_buffer_bytes);
  }
}

void EthernetDriver::add_rx_spare_buffers(std::uint32_t count, const std::string& what) {
  if (count == 0) return;
  const std::uint64_t first =
      kernel_memory_.allocate(std::uint64_t{count} * config_.rx_buffer_bytes, 64, what);
  // Under the others in the free list (its back is handed out first), lowest
  // address first, as the constructor orders its own.
  std::vector<std::uint64_t> added;
  for (std::uint64_t i = count; i-- > 0;) added.push_back(first + i * config_.rx_buffer_bytes);
  free_rx_buffers_.insert(free_rx_buffers_.begin(), added.begin(), added.end());
}

void EthernetDriver::write_register(EthernetRegister reg, std::uint64_t value,
                                    std::uint32_t bytes) {
  std::uint8_t data[8];
  store_little_endian(value, data, bytes);
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
  for (std::uint32_t i = 0; i < config_.rx_entries; ++i) {
    post_rx(free_rx_buffers_.back());
    free_rx_buffers_.pop_back();
  }
  write_register(EthernetRegister::kRxTail, rx_tail_, 4);
  arm_interrupt();
}

void EthernetDriver::post_rx(std::uint64_t buffer) {
  ethernet::RxDescriptor d;
  d.buffer_address = buffer;
  d.buffer_bytes = config_.rx_buffer_bytes;
  const auto bytes = ethernet::encode_rx_descriptor(d);
  host_.memory.write_bytes(rx_ring_ + std::uint64_t{rx_tail_ % config_.rx_entries} * kDescriptorBytes,
                           bytes.data(), bytes.size());
  ++rx_tail_;
}

void EthernetDriver::release_rx_buffer(std::uint64_t address) {
  if (rx_tail_ - rx_next_ < config_.rx_entries) {
    post_rx(address);
    write_register(EthernetRegister::kRxTail, rx_tail_, 4);
  } else {
    free_rx_buffers_.push_back(address);
  }
}

std::uint32_t EthernetDriver::transmit_room() {
  std::uint8_t head[4];
  host_.memory.read_bytes(tx_head_, head, sizeof head);
  const auto sent = static_cast<std::uint32_t>(load_little_endian(head, sizeof head));
  for (; tx_clean_ != sent; ++tx_clean_) {
    const std::uint64_t end = slot_copy_end_[tx_clean_ % config_.tx_entries];
    if (end > copy_tail_) copy_tail_ = end;  // slots of transmit() keep 0
  }
  return config_.tx_entries - (tx_tail_ - tx_clean_);
}

namespace {
// Where a frame of `bytes` goes in a copy area whose next free byte is at
// free-running offset `head`: there, or at the area's start if it would
// cross the end.
std::uint64_t copy_start(std::uint64_t head, std::uint64_t bytes, std::uint64_t area) {
  const std::uint64_t offset = head % area;
  return offset + bytes > area ? head + (area - offset) : head;
}
}  // namespace

bool EthernetDriver::can_transmit_copy(std::size_t bytes) {
  if (transmit_room() == 0) return false;
  const std::uint64_t start = copy_start(copy_head_, bytes, config_.tx_copy_area_bytes);
  return start + bytes - copy_tail_ <= config_.tx_copy_area_bytes;
}

void EthernetDriver::transmit(std::uint64_t address, std::uint32_t length, std::uint8_t flags,
                              std::uint16_t mss) {
  if (tx_tail_ - tx_clean_ >= config_.tx_entries) {
    throw std::logic_error("Ethernet driver: transmit with a full ring");
  }
  slot_copy_end_[tx_tail_ % config_.tx_entries] = 0;  // no copy to free (transmit_copy sets one)
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
  if (!can_transmit_copy(frame.size())) {
    throw std::logic_error("Ethernet driver: transmit_copy of " + std::to_string(frame.size()) +
                           " bytes without room (" + std::to_string(config_.tx_copy_area_bytes) +
                           "-byte copy area)");
  }
  const std::uint64_t start = copy_start(copy_head_, frame.size(), config_.tx_copy_area_bytes);
  const std::uint64_t buffer = tx_copy_area_ + start % config_.tx_copy_area_bytes;
  host_.memory.write_bytes(buffer, frame.data(), frame.size());
  copy_head_ = start + frame.size();
  transmit(buffer, static_cast<std::uint32_t>(frame.size()), flags, mss);
  slot_copy_end_[(tx_tail_ - 1) % config_.tx_entries] = copy_head_;
}

std::size_t EthernetDriver::poll(std::size_t budget,
                                 const std::function<void(ReceivedFrame&&)>& deliver,
                                 bool hold_buffers) {
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
    frame.buffer_address = d.buffer_address;
    ++rx_next_;
    ++taken;
    if (!hold_buffers) {
      post_rx(d.buffer_address);
    } else if (!free_rx_buffers_.empty()) {
      post_rx(free_rx_buffers_.back());
      free_rx_buffers_.pop_back();
    }  // else the ring runs one short until a buffer comes back
    deliver(std::move(frame));
  }
  if (taken > 0) write_register(EthernetRegister::kRxTail, rx_tail_, 4);
  return taken;
}

void EthernetDriver::arm_interrupt() {
  write_register(EthernetRegister::kInterruptArm, rx_next_, 4);
}

}  // namespace rnicsim
