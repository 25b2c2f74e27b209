#pragma once
// The tagged DMA interface between NIC blocks and the DMA engine: a requester
// hands the engine a DmaRequest and later gets a DmaCompletion carrying the
// same tag, so it can keep several requests in flight. Both are plain values
// of fixed size (a request holds its segments inline), so they can travel on
// a Channel and cost no allocation.
#include <array>
#include <cstddef>
#include <cstdint>
#include <systemc>

#include "pcie/tlp_list.hpp"

namespace rnicsim {

constexpr std::size_t kMaxDmaSegments = pcie::kMaxWindowRuns;

enum class DmaOp : std::uint8_t { kRead, kWrite };

struct DmaSegment {
  std::uint64_t address = 0;  // physical
  std::uint32_t length = 0;
};

struct DmaRequest {
  std::uint32_t tag = 0;  // the requester's own; its completion carries it back
  DmaOp op = DmaOp::kRead;
  std::uint32_t segment_count = 0;
  std::array<DmaSegment, kMaxDmaSegments> segments{};
  // The segments' bytes back to back: filled by a read, the data of a write.
  // The requester keeps it (unchanged, for a write) until the completion.
  std::uint8_t* buffer = nullptr;
  // Bits at the end of the last byte that carry no data (0-7): only the
  // ideal PCIe link of the seed figure counts them (pcie::TlpWindow::pad_bits).
  std::uint8_t pad_bits = 0;

  // One contiguous range.
  static DmaRequest read(std::uint32_t tag, std::uint64_t address, std::uint32_t length,
                         std::uint8_t* buffer);
  static DmaRequest write(std::uint32_t tag, std::uint64_t address, std::uint32_t length,
                          const std::uint8_t* buffer);
  // Appends a segment; false when the request holds kMaxDmaSegments already.
  bool add_segment(std::uint64_t address, std::uint32_t length);
  std::uint64_t length() const;
};

enum class DmaStatus : std::uint8_t {
  kOk,
  kUnsupportedRequest,  // a read of memory the host does not have (a posted write never fails)
};

struct DmaCompletion {
  std::uint32_t tag = 0;
  DmaStatus status = DmaStatus::kOk;
  // When the data was complete: in the buffer (read), in host memory (write).
  sc_core::sc_time time;
  bool ok() const { return status == DmaStatus::kOk; }
};

}  // namespace rnicsim
