#pragma once
// The BTH opcode table the model supports: which extended headers follow the
// BTH (in wire order), how much payload a packet may carry and where the
// packet sits in its message. Source: the IBTA opcode table (Linux
// ib_pack.h, rxe_opcode.c).
//
// Supported: RC 0x00-0x14, 0x16, 0x17; UC SEND and RDMA WRITE 0x20-0x2B;
// UD SEND ONLY 0x64 and SEND ONLY WITH IMMEDIATE 0x65; CNP 0x81. Not
// supported: RD, XRC, FLUSH, ATOMIC WRITE, manufacturer-specific.
#include <array>
#include <cstddef>
#include <cstdint>

namespace rnicsim::packet {

// Opcode bits 7:5.
enum class Transport : std::uint8_t { kRc, kUc, kUd, kCnp };

enum class ExtHeader : std::uint8_t {
  kReth,
  kAeth,
  kAtomicEth,
  kAtomicAckEth,
  kImmDt,
  kIeth,
  kDeth,
  kCnpReserved,  // the 16 zero bytes of a CNP
};

// Bytes between the BTH and the ICRC that are not headers, pad excluded.
// FIRST and MIDDLE fill the path MTU exactly; LAST carries at least one byte
// (a message that ends on a PMTU boundary needs no empty LAST); only ONLY may
// be empty (IBTA; Linux rxe_resp.c check_length).
enum class PayloadRule : std::uint8_t { kNone, kExactlyPmtu, kOneToPmtu, kZeroToPmtu };

// Single-packet operations (ACK, READ REQUEST, atomics, CNP) are kOnly.
enum class MessagePosition : std::uint8_t { kFirst, kMiddle, kLast, kOnly };

struct OpcodeInfo {
  static constexpr std::size_t kMaxHeaders = 2;

  std::uint8_t opcode;
  const char* name;  // "RC SEND FIRST", "UD SEND ONLY", "CNP": REFERENCE table words
  Transport transport;
  std::uint8_t header_count;
  std::array<ExtHeader, kMaxHeaders> headers;  // wire order; first header_count valid
  PayloadRule payload;
  MessagePosition position;

  bool has_header(ExtHeader header) const;
  std::size_t ext_header_bytes() const;
};

// nullptr for opcodes the model does not support.
const OpcodeInfo* find_opcode(std::uint8_t opcode);

std::size_t ext_header_size(ExtHeader header);

constexpr std::uint32_t kMinPmtu = 256;
constexpr std::uint32_t kMaxPmtu = 4096;
// 256, 512, 1024, 2048 or 4096.
bool is_valid_pmtu(std::uint32_t pmtu);

// Whether a packet may carry `length` payload bytes under `rule` on a path
// with MTU `pmtu`. With pmtu 0 (unknown, as for a parser that has no QP
// context) "exactly PMTU" accepts any valid PMTU and the upper bound is 4096.
bool payload_length_ok(PayloadRule rule, std::size_t length, std::uint32_t pmtu);

}  // namespace rnicsim::packet
