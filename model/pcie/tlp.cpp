#include "pcie/tlp.hpp"

#include <algorithm>

namespace rnicsim::pcie {
namespace {

std::vector<TlpSpan> split_on_multiples(std::uint64_t address, std::uint64_t length,
                                        std::uint64_t unit) {
  std::vector<TlpSpan> spans;
  while (length > 0) {
    const std::uint64_t to_boundary = unit - address % unit;
    const std::uint64_t piece = std::min(length, to_boundary);
    spans.push_back(TlpSpan{address, static_cast<std::uint32_t>(piece)});
    address += piece;
    length -= piece;
  }
  return spans;
}

}  // namespace

std::vector<TlpSpan> split_requests(std::uint64_t address, std::uint64_t length,
                                    std::uint32_t max_bytes) {
  return split_on_multiples(address, length, max_bytes);
}

std::vector<TlpSpan> split_completions(std::uint64_t address, std::uint32_t length,
                                       std::uint32_t completion_bytes) {
  return split_on_multiples(address, length, completion_bytes);
}

CompletionSizes completion_sizes(std::uint64_t address, std::uint32_t length,
                                 std::uint32_t completion_bytes) {
  CompletionSizes sizes;
  sizes.first = static_cast<std::uint32_t>(
      std::min<std::uint64_t>(length, completion_bytes - address % completion_bytes));
  const std::uint32_t rest = length - sizes.first;
  sizes.full = rest / completion_bytes;
  sizes.tail = rest % completion_bytes;
  return sizes;
}

}  // namespace rnicsim::pcie
