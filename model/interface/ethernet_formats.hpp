#pragma once
// The Ethernet port's structures in host memory and its registers: what the
// kernel's driver and the NIC agree on, byte for byte (little-endian, as the
// NIC's other structures).
//
// Rings are arrays of 16-byte descriptors in one contiguous range of host
// memory. Producer and consumer indices are free-running 32-bit counters;
// an index's ring slot is index mod entries.
//
//   transmit descriptor: buffer address (8) | length (4) | mss (2) | flags (1) | 0 (1)
//     The buffer holds one frame (no FCS); with kTxTso it holds one TCP
//     frame whose payload the NIC cuts into `mss`-byte segments.
//   transmit completion: the NIC writes the count of descriptors it has sent
//     (its consumer index, 4 bytes) to the driver's head write-back address.
//   receive descriptor: buffer address (8) | buffer bytes (4) | written back
//     by the NIC when a frame is in the buffer: frame bytes (2) | flags (1) |
//     status (1, kRxDone)
#include <array>
#include <cstdint>
#include <optional>

namespace rnicsim::ethernet {

constexpr std::uint32_t kDescriptorBytes = 16;

// Transmit descriptor flags.
constexpr std::uint8_t kTxChecksumOffload = 1;  // the NIC fills in the TCP checksum
constexpr std::uint8_t kTxTso = 2;              // the NIC segments the TCP payload

struct TxDescriptor {
  std::uint64_t buffer_address = 0;
  std::uint32_t length = 0;
  std::uint16_t mss = 0;  // with kTxTso
  std::uint8_t flags = 0;
};
std::array<std::uint8_t, kDescriptorBytes> encode_tx_descriptor(const TxDescriptor& d);
TxDescriptor decode_tx_descriptor(const std::uint8_t* bytes);

// Receive write-back flags and status.
constexpr std::uint8_t kRxChecksumGood = 1;  // receive checksum offload: TCP checksum verified
constexpr std::uint8_t kRxChecksumBad = 2;   // ... and found wrong (the frame is still delivered)
constexpr std::uint8_t kRxDone = 1;          // status: the NIC has written a frame here
constexpr std::uint32_t kRxWritebackOffset = 12;
constexpr std::uint32_t kRxWritebackBytes = 4;

struct RxDescriptor {
  std::uint64_t buffer_address = 0;
  std::uint32_t buffer_bytes = 0;
  // Written back by the NIC.
  std::uint16_t frame_bytes = 0;
  std::uint8_t flags = 0;
  std::uint8_t status = 0;
};
std::array<std::uint8_t, kDescriptorBytes> encode_rx_descriptor(const RxDescriptor& d);
RxDescriptor decode_rx_descriptor(const std::uint8_t* bytes);
std::array<std::uint8_t, kRxWritebackBytes> encode_rx_writeback(std::uint16_t frame_bytes,
                                                                std::uint8_t flags);

// ---- The port's registers in the NIC's BAR ----------------------------------
// After the RDMA registers (interface/queue_formats.hpp), which end below
// 0x2201000 (the last QP's BlueFlame window). Writes of 4 or 8 bytes.
constexpr std::uint64_t kBarEthernet = 0x10000000;  // past the QPs' BlueFlame windows

enum class EthernetRegister : std::uint64_t {
  kTxRingBase = 0x00,         // 8: physical address of the transmit ring
  kTxRingEntries = 0x08,      // 4: a power of two
  kTxHeadWriteback = 0x10,    // 8: where the NIC writes its transmit consumer index
  kRxRingBase = 0x18,         // 8
  kRxRingEntries = 0x20,      // 4: a power of two
  kInterruptAddress = 0x28,   // 8: the MSI-X message's address
  kInterruptData = 0x30,      // 4: the MSI-X message's data (the host's vector)
  kTxTail = 0x38,             // 4: transmit doorbell, the producer index
  kRxTail = 0x40,             // 4: receive doorbell, the producer index
  kInterruptArm = 0x48,       // 4: re-arms the interrupt; the value is the driver's
                              //    receive consumer index (frames it has taken)
};
// nullopt for an offset that is none of the registers.
std::optional<EthernetRegister> decode_ethernet_register(std::uint64_t bar_offset);

}  // namespace rnicsim::ethernet
