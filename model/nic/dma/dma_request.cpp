#include "nic/dma/dma_request.hpp"

namespace rnicsim {

DmaRequest DmaRequest::read(std::uint32_t tag, std::uint64_t address, std::uint32_t length,
                            std::uint8_t* buffer) {
  DmaRequest request;
  request.tag = tag;
  request.op = DmaOp::kRead;
  request.add_segment(address, length);
  request.buffer = buffer;
  return request;
}

DmaRequest DmaRequest::write(std::uint32_t tag, std::uint64_t address, std::uint32_t length,
                             const std::uint8_t* buffer) {
  DmaRequest request = read(tag, address, length, nullptr);
  request.op = DmaOp::kWrite;
  // The engine never modifies a write's buffer; one pointer type serves both.
  request.buffer = const_cast<std::uint8_t*>(buffer);
  return request;
}

bool DmaRequest::add_segment(std::uint64_t address, std::uint32_t length) {
  if (segment_count == kMaxDmaSegments) return false;
  segments[segment_count++] = DmaSegment{address, length};
  return true;
}

std::uint64_t DmaRequest::length() const {
  std::uint64_t total = 0;
  for (std::uint32_t i = 0; i < segment_count; ++i) total += segments[i].length;
  return total;
}

}  // namespace rnicsim
