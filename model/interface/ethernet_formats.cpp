#include "interface/ethernet_formats.hpp"

#include <vector>

#include "common/little_endian.hpp"

namespace rnicsim::ethernet {
namespace {

std::array<std::uint8_t, kDescriptorBytes> to_array(const std::vector<std::uint8_t>& bytes) {
  std::array<std::uint8_t, kDescriptorBytes> out{};
  for (std::size_t i = 0; i < out.size() && i < bytes.size(); ++i) out[i] = bytes[i];
  return out;
}

}  // namespace

std::array<std::uint8_t, kDescriptorBytes> encode_tx_descriptor(const TxDescriptor& d) {
  std::vector<std::uint8_t> bytes;
  auto w = little_endian_writer(bytes);
  w.u64(d.buffer_address);
  w.u32(d.length);
  w.u16(d.mss);
  w.u8(d.flags);
  w.u8(0);
  return to_array(bytes);
}

TxDescriptor decode_tx_descriptor(const std::uint8_t* bytes) {
  LittleEndianReader r(bytes, kDescriptorBytes);
  TxDescriptor d;
  d.buffer_address = r.u64();
  d.length = r.u32();
  d.mss = r.u16();
  d.flags = r.u8();
  return d;
}

std::array<std::uint8_t, kDescriptorBytes> encode_rx_descriptor(const RxDescriptor& d) {
  std::vector<std::uint8_t> bytes;
  auto w = little_endian_writer(bytes);
  w.u64(d.buffer_address);
  w.u32(d.buffer_bytes);
  w.u16(d.frame_bytes);
  w.u8(d.flags);
  w.u8(d.status);
  return to_array(bytes);
}

RxDescriptor decode_rx_descriptor(const std::uint8_t* bytes) {
  LittleEndianReader r(bytes, kDescriptorBytes);
  RxDescriptor d;
  d.buffer_address = r.u64();
  d.buffer_bytes = r.u32();
  d.frame_bytes = r.u16();
  d.flags = r.u8();
  d.status = r.u8();
  return d;
}

std::array<std::uint8_t, kRxWritebackBytes> encode_rx_writeback(std::uint16_t frame_bytes,
                                                                std::uint8_t flags) {
  return {static_cast<std::uint8_t>(frame_bytes), static_cast<std::uint8_t>(frame_bytes >> 8),
          flags, kRxDone};
}

std::optional<EthernetRegister> decode_ethernet_register(std::uint64_t bar_offset) {
  if (bar_offset < kBarEthernet) return std::nullopt;
  const std::uint64_t offset = bar_offset - kBarEthernet;
  if (offset > static_cast<std::uint64_t>(EthernetRegister::kInterruptArm) || offset % 8 != 0) {
    return std::nullopt;
  }
  return static_cast<EthernetRegister>(offset);
}

}  // namespace rnicsim::ethernet
