#include "formats/opcodes.hpp"

#include "formats/headers.hpp"

namespace rnicsim::packet {

namespace {

using E = ExtHeader;
using R = PayloadRule;
using P = MessagePosition;
using T = Transport;

constexpr OpcodeInfo no_headers(std::uint8_t opcode, const char* name, T transport, R rule,
                                P position) {
  return OpcodeInfo{opcode, name, transport, 0, {E::kReth, E::kReth}, rule, position};
}
constexpr OpcodeInfo one_header(std::uint8_t opcode, const char* name, T transport, E header,
                                R rule, P position) {
  return OpcodeInfo{opcode, name, transport, 1, {header, header}, rule, position};
}
constexpr OpcodeInfo two_headers(std::uint8_t opcode, const char* name, T transport, E first,
                                 E second, R rule, P position) {
  return OpcodeInfo{opcode, name, transport, 2, {first, second}, rule, position};
}

constexpr OpcodeInfo kOpcodes[] = {
    no_headers(0x00, "RC SEND FIRST", T::kRc, R::kExactlyPmtu, P::kFirst),
    no_headers(0x01, "RC SEND MIDDLE", T::kRc, R::kExactlyPmtu, P::kMiddle),
    no_headers(0x02, "RC SEND LAST", T::kRc, R::kOneToPmtu, P::kLast),
    one_header(0x03, "RC SEND LAST WITH IMMEDIATE", T::kRc, E::kImmDt, R::kOneToPmtu, P::kLast),
    no_headers(0x04, "RC SEND ONLY", T::kRc, R::kZeroToPmtu, P::kOnly),
    one_header(0x05, "RC SEND ONLY WITH IMMEDIATE", T::kRc, E::kImmDt, R::kZeroToPmtu, P::kOnly),
    one_header(0x06, "RC RDMA WRITE FIRST", T::kRc, E::kReth, R::kExactlyPmtu, P::kFirst),
    no_headers(0x07, "RC RDMA WRITE MIDDLE", T::kRc, R::kExactlyPmtu, P::kMiddle),
    no_headers(0x08, "RC RDMA WRITE LAST", T::kRc, R::kOneToPmtu, P::kLast),
    one_header(0x09, "RC RDMA WRITE LAST WITH IMMEDIATE", T::kRc, E::kImmDt, R::kOneToPmtu,
               P::kLast),
    one_header(0x0A, "RC RDMA WRITE ONLY", T::kRc, E::kReth, R::kZeroToPmtu, P::kOnly),
    two_headers(0x0B, "RC RDMA WRITE ONLY WITH IMMEDIATE", T::kRc, E::kReth, E::kImmDt,
                R::kZeroToPmtu, P::kOnly),
    one_header(0x0C, "RC RDMA READ REQUEST", T::kRc, E::kReth, R::kNone, P::kOnly),
    one_header(0x0D, "RC RDMA READ RESPONSE FIRST", T::kRc, E::kAeth, R::kExactlyPmtu, P::kFirst),
    no_headers(0x0E, "RC RDMA READ RESPONSE MIDDLE", T::kRc, R::kExactlyPmtu, P::kMiddle),
    one_header(0x0F, "RC RDMA READ RESPONSE LAST", T::kRc, E::kAeth, R::kOneToPmtu, P::kLast),
    one_header(0x10, "RC RDMA READ RESPONSE ONLY", T::kRc, E::kAeth, R::kZeroToPmtu, P::kOnly),
    one_header(0x11, "RC ACKNOWLEDGE", T::kRc, E::kAeth, R::kNone, P::kOnly),
    two_headers(0x12, "RC ATOMIC ACKNOWLEDGE", T::kRc, E::kAeth, E::kAtomicAckEth, R::kNone,
                P::kOnly),
    one_header(0x13, "RC COMPARE & SWAP", T::kRc, E::kAtomicEth, R::kNone, P::kOnly),
    one_header(0x14, "RC FETCH & ADD", T::kRc, E::kAtomicEth, R::kNone, P::kOnly),
    one_header(0x16, "RC SEND LAST WITH INVALIDATE", T::kRc, E::kIeth, R::kOneToPmtu, P::kLast),
    one_header(0x17, "RC SEND ONLY WITH INVALIDATE", T::kRc, E::kIeth, R::kZeroToPmtu, P::kOnly),
    no_headers(0x20, "UC SEND FIRST", T::kUc, R::kExactlyPmtu, P::kFirst),
    no_headers(0x21, "UC SEND MIDDLE", T::kUc, R::kExactlyPmtu, P::kMiddle),
    no_headers(0x22, "UC SEND LAST", T::kUc, R::kOneToPmtu, P::kLast),
    one_header(0x23, "UC SEND LAST WITH IMMEDIATE", T::kUc, E::kImmDt, R::kOneToPmtu, P::kLast),
    no_headers(0x24, "UC SEND ONLY", T::kUc, R::kZeroToPmtu, P::kOnly),
    one_header(0x25, "UC SEND ONLY WITH IMMEDIATE", T::kUc, E::kImmDt, R::kZeroToPmtu, P::kOnly),
    one_header(0x26, "UC RDMA WRITE FIRST", T::kUc, E::kReth, R::kExactlyPmtu, P::kFirst),
    no_headers(0x27, "UC RDMA WRITE MIDDLE", T::kUc, R::kExactlyPmtu, P::kMiddle),
    no_headers(0x28, "UC RDMA WRITE LAST", T::kUc, R::kOneToPmtu, P::kLast),
    one_header(0x29, "UC RDMA WRITE LAST WITH IMMEDIATE", T::kUc, E::kImmDt, R::kOneToPmtu,
               P::kLast),
    one_header(0x2A, "UC RDMA WRITE ONLY", T::kUc, E::kReth, R::kZeroToPmtu, P::kOnly),
    two_headers(0x2B, "UC RDMA WRITE ONLY WITH IMMEDIATE", T::kUc, E::kReth, E::kImmDt,
                R::kZeroToPmtu, P::kOnly),
    one_header(0x64, "UD SEND ONLY", T::kUd, E::kDeth, R::kZeroToPmtu, P::kOnly),
    two_headers(0x65, "UD SEND ONLY WITH IMMEDIATE", T::kUd, E::kDeth, E::kImmDt, R::kZeroToPmtu,
                P::kOnly),
    one_header(0x81, "CNP", T::kCnp, E::kCnpReserved, R::kNone, P::kOnly),
};

constexpr std::size_t kOpcodeCount = sizeof(kOpcodes) / sizeof(kOpcodes[0]);

// Opcode -> index into kOpcodes, or kOpcodeCount: one load per lookup on the
// receive path instead of a search.
constexpr std::array<std::uint8_t, 256> make_index() {
  std::array<std::uint8_t, 256> index{};
  for (auto& entry : index) entry = static_cast<std::uint8_t>(kOpcodeCount);
  for (std::size_t i = 0; i < kOpcodeCount; ++i) {
    index[kOpcodes[i].opcode] = static_cast<std::uint8_t>(i);
  }
  return index;
}

constexpr std::array<std::uint8_t, 256> kIndex = make_index();

}  // namespace

bool OpcodeInfo::has_header(ExtHeader header) const {
  for (std::size_t i = 0; i < header_count; ++i) {
    if (headers[i] == header) return true;
  }
  return false;
}

std::size_t OpcodeInfo::ext_header_bytes() const {
  std::size_t bytes = 0;
  for (std::size_t i = 0; i < header_count; ++i) bytes += ext_header_size(headers[i]);
  return bytes;
}

const OpcodeInfo* find_opcode(std::uint8_t opcode) {
  const std::uint8_t i = kIndex[opcode];
  return i < kOpcodeCount ? &kOpcodes[i] : nullptr;
}

std::size_t ext_header_size(ExtHeader header) {
  switch (header) {
    case ExtHeader::kReth:
      return Reth::kSize;
    case ExtHeader::kAeth:
      return Aeth::kSize;
    case ExtHeader::kAtomicEth:
      return AtomicEth::kSize;
    case ExtHeader::kAtomicAckEth:
      return AtomicAckEth::kSize;
    case ExtHeader::kImmDt:
      return ImmDt::kSize;
    case ExtHeader::kIeth:
      return Ieth::kSize;
    case ExtHeader::kDeth:
      return Deth::kSize;
    case ExtHeader::kCnpReserved:
      return kCnpReservedSize;
  }
  return 0;
}

bool is_valid_pmtu(std::uint32_t pmtu) {
  return pmtu >= kMinPmtu && pmtu <= kMaxPmtu && (pmtu & (pmtu - 1)) == 0;
}

bool payload_length_ok(PayloadRule rule, std::size_t length, std::uint32_t pmtu) {
  const std::size_t limit = pmtu == 0 ? kMaxPmtu : pmtu;
  switch (rule) {
    case PayloadRule::kNone:
      return length == 0;
    case PayloadRule::kExactlyPmtu:
      return pmtu == 0 ? length <= kMaxPmtu && is_valid_pmtu(static_cast<std::uint32_t>(length))
                       : length == pmtu;
    case PayloadRule::kOneToPmtu:
      return length >= 1 && length <= limit;
    case PayloadRule::kZeroToPmtu:
      return length <= limit;
  }
  return false;
}

}  // namespace rnicsim::packet
