// CRC-32 kernels: the 256-bit fold must give ISA-L's result bit for bit, for
// every length, alignment and running CRC, and both must agree with a plain
// bit-at-a-time CRC written from the definition.
#include "formats/crc32.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <random>
#include <stdexcept>
#include <vector>

namespace rnicsim::packet {
namespace {

// zlib's CRC-32 one bit at a time: reflected polynomial 0xEDB88320.
std::uint32_t bitwise_crc32(const std::uint8_t* data, std::size_t length, std::uint32_t crc) {
  crc = ~crc;
  for (std::size_t i = 0; i < length; ++i) {
    crc ^= data[i];
    for (int bit = 0; bit < 8; ++bit) crc = (crc >> 1) ^ (0xEDB88320u & (0u - (crc & 1u)));
  }
  return ~crc;
}

std::vector<std::uint8_t> random_bytes(std::size_t size, std::uint32_t seed) {
  std::mt19937 generator(seed);
  std::vector<std::uint8_t> bytes(size);
  for (auto& byte : bytes) byte = static_cast<std::uint8_t>(generator());
  return bytes;
}

TEST(Crc32, IsalAndDispatchMatchTheBitwiseDefinition) {
  const std::vector<std::uint8_t> data = random_bytes(9000, 1);
  for (std::size_t length : {0u, 1u, 3u, 4u, 5u, 127u, 128u, 511u, 512u, 4096u, 4153u, 9000u}) {
    for (std::uint32_t start : {0u, 0xFFFFFFFFu, 0x12345678u}) {
      const std::uint32_t want = bitwise_crc32(data.data(), length, start);
      EXPECT_EQ(detail::crc32_isal(data.data(), length, start), want) << "length " << length;
      EXPECT_EQ(crc32(data.data(), length, start), want) << "length " << length;
    }
  }
}

TEST(Crc32, FoldMatchesIsalForEveryLengthAlignmentAndRunningCrc) {
  if (!detail::crc32_fold_available()) GTEST_SKIP() << "no AVX2 + VPCLMULQDQ on this processor";
  const std::vector<std::uint8_t> data = random_bytes(4 * 1024 + 64, 2);
  std::mt19937 generator(3);
  for (std::size_t offset = 0; offset < 8; ++offset) {
    for (std::size_t length = detail::kFoldBlockBytes; length + offset <= data.size(); ++length) {
      const std::uint32_t start = generator();
      const std::uint8_t* p = data.data() + offset;
      ASSERT_EQ(detail::crc32_fold(p, length, start), detail::crc32_isal(p, length, start))
          << "offset " << offset << ", length " << length << ", crc " << start;
    }
  }
}

TEST(Crc32, FoldMatchesTheBitwiseDefinitionOnEdgePatterns) {
  if (!detail::crc32_fold_available()) GTEST_SKIP() << "no AVX2 + VPCLMULQDQ on this processor";
  for (std::uint8_t fill : {std::uint8_t{0x00}, std::uint8_t{0xFF}, std::uint8_t{0x80}}) {
    for (std::size_t length : {128u, 4096u, 65536u + 17u}) {
      const std::vector<std::uint8_t> data(length, fill);
      EXPECT_EQ(detail::crc32_fold(data.data(), length, 0), bitwise_crc32(data.data(), length, 0))
          << "fill " << int{fill} << ", length " << length;
    }
  }
  // A single set bit anywhere must change the result the same way.
  std::vector<std::uint8_t> data(1024, 0);
  for (std::size_t bit = 0; bit < 8 * data.size(); bit += 61) {
    data[bit / 8] ^= static_cast<std::uint8_t>(1u << (bit % 8));
    ASSERT_EQ(detail::crc32_fold(data.data(), data.size(), 0),
              bitwise_crc32(data.data(), data.size(), 0))
        << "bit " << bit;
    data[bit / 8] ^= static_cast<std::uint8_t>(1u << (bit % 8));
  }
}

TEST(Crc32, ChainsAcrossPiecesOfAnySize) {
  const std::vector<std::uint8_t> data = random_bytes(20000, 4);
  const std::uint32_t whole = crc32(data.data(), data.size());
  std::mt19937 generator(5);
  for (int trial = 0; trial < 50; ++trial) {
    std::uint32_t crc = 0;
    std::size_t at = 0;
    while (at < data.size()) {
      const std::size_t piece = std::min<std::size_t>(generator() % 3000, data.size() - at);
      crc = crc32(data.data() + at, piece, crc);
      at += piece;
    }
    ASSERT_EQ(crc, whole) << "trial " << trial;
  }
}

TEST(Crc32, OrMaskedEqualsTheCrcOfTheMaskedCopy) {
  const std::vector<std::uint8_t> data = random_bytes(5000, 6);
  std::vector<std::uint8_t> mask(kCrc32MaskBytes, 0);
  std::mt19937 generator(7);
  for (std::size_t length = kCrc32MaskBytes; length <= data.size(); length += 7) {
    for (std::size_t i = 0; i < mask.size(); ++i) mask[i] = (generator() % 4 == 0) ? 0xFF : 0x00;
    std::vector<std::uint8_t> copy(data.begin(),
                                   data.begin() + static_cast<std::ptrdiff_t>(length));
    for (std::size_t i = 0; i < mask.size(); ++i) copy[i] |= mask[i];
    const std::uint32_t want = bitwise_crc32(copy.data(), copy.size(), 0x0BADF00Du);
    ASSERT_EQ(crc32_or_masked(data.data(), length, mask.data(), 0x0BADF00Du), want)
        << "length " << length;
    ASSERT_EQ(detail::crc32_isal_or_masked(data.data(), length, mask.data(), 0x0BADF00Du), want)
        << "length " << length;
    if (detail::crc32_fold_available()) {
      ASSERT_EQ(detail::crc32_fold_or_masked(data.data(), length, mask.data(), 0x0BADF00Du), want)
          << "length " << length;
    }
  }
  EXPECT_THROW(crc32_or_masked(data.data(), kCrc32MaskBytes - 1, mask.data()),
               std::invalid_argument);
}

TEST(Crc32, KernelNameFollowsTheProcessor) {
  EXPECT_STREQ(crc32_kernel(), detail::crc32_fold_chosen() ? "vpclmulqdq-avx2" : "isa-l");
  if (!detail::crc32_fold_available()) {
    EXPECT_FALSE(detail::crc32_fold_chosen());
  }
}

}  // namespace
}  // namespace rnicsim::packet
