#pragma once
// Transaction-layer packet arithmetic: how a DMA transfer is cut into TLPs
// and how many bytes each TLP occupies on the link. Pure functions, so the
// rules can be tested on their own.
//
// Sizes per TLP (PCIe Base Spec; the same accounting as pcie-bench's model,
// github.com/pcie-bench/pcie-model model/pcie.py):
//   memory request header 3 DW below 4 GiB and 4 DW above (the spec requires
//   the 32-bit format for addresses below 4 GiB, section 2.2.4.1),
//   completion header 3 DW, plus 8 B per TLP for framing, the 2 B sequence
//   number and the 4 B LCRC. A DLLP (ACK, flow-control update) is 8 B.
#include <cstdint>
#include <vector>

namespace rnicsim::pcie {

constexpr std::uint32_t kTlpFramingBytes = 8;     // framing + sequence number + LCRC
constexpr std::uint32_t kCompletionHeaderBytes = 12;
constexpr std::uint32_t kDllpBytes = 8;
constexpr std::uint64_t kAddressBoundaryBytes = 4096;  // no request may cross one

struct TlpSpan {
  std::uint64_t address = 0;
  std::uint32_t length = 0;
  bool operator==(const TlpSpan& other) const {
    return address == other.address && length == other.length;
  }
};

// Cuts [address, address + length) into requests of at most `max_bytes`
// (MPS for writes, MRRS for reads; a power of two <= 4096) that end on
// multiples of max_bytes. Requests therefore never cross a 4 KiB boundary, and
// after an unaligned first piece every request is naturally aligned.
std::vector<TlpSpan> split_requests(std::uint64_t address, std::uint64_t length,
                                    std::uint32_t max_bytes);

// The completions a root complex returns for one read request: they end on
// multiples of `completion_bytes` (a multiple of the read completion boundary,
// at most MPS), so only the first and last may be shorter.
std::vector<TlpSpan> split_completions(std::uint64_t address, std::uint32_t length,
                                       std::uint32_t completion_bytes);

// The same completions without a list, for the link's hot path: the first
// carries `first` bytes, then `full` completions carry completion_bytes each,
// then one more carries `tail` bytes if tail > 0.
struct CompletionSizes {
  std::uint32_t first = 0;
  std::uint32_t full = 0;
  std::uint32_t tail = 0;
  std::uint32_t count() const { return 1 + full + (tail > 0 ? 1 : 0); }
};
CompletionSizes completion_sizes(std::uint64_t address, std::uint32_t length,
                                 std::uint32_t completion_bytes);

// Inline: the link asks for these for every TLP.
constexpr std::uint32_t memory_request_header_bytes(std::uint64_t address) {
  return address >= (1ULL << 32) ? 16 : 12;
}
// Bytes on the link, framing included.
constexpr std::uint32_t read_request_wire_bytes(std::uint64_t address) {
  return memory_request_header_bytes(address) + kTlpFramingBytes;
}
constexpr std::uint32_t write_request_wire_bytes(std::uint64_t address, std::uint32_t payload) {
  return memory_request_header_bytes(address) + payload + kTlpFramingBytes;
}
constexpr std::uint32_t completion_wire_bytes(std::uint32_t payload) {
  return kCompletionHeaderBytes + payload + kTlpFramingBytes;
}

}  // namespace rnicsim::pcie
