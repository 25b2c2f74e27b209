// Kernel-free parts of memory registration: the MPT entry's byte layout, keys,
// the translation cache's replacement, and the page allocator's scattering.
#include <gtest/gtest.h>

#include <algorithm>
#include <set>
#include <stdexcept>
#include <vector>

#include "host/memory/page_allocator.hpp"
#include "interface/mpt_format.hpp"
#include "nic/translation/translation_cache.hpp"

namespace rnicsim {
namespace {

TEST(MptFormat, EntryRoundTripsThroughItsDocumentedLayout) {
  MptEntry e;
  e.valid = true;
  e.key_variant = 0x5A;
  e.access = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_READ;
  e.page_shift = 12;
  e.pd = 0x01020304;
  e.base_va = 0x1122334455667788ULL;
  e.length = 0x10000;
  e.first_mtt = 0x42;
  e.pages = 16;
  const auto bytes = encode_mpt(e);
  EXPECT_EQ(bytes[0], 1);
  EXPECT_EQ(bytes[1], 0x5A);
  EXPECT_EQ(bytes[2], 5);
  EXPECT_EQ(bytes[3], 12);
  EXPECT_EQ(bytes[4], 0x04);   // PD, little-endian
  EXPECT_EQ(bytes[8], 0x88);   // base VA
  EXPECT_EQ(bytes[15], 0x11);
  EXPECT_EQ(bytes[18], 0x01);  // length 0x10000
  EXPECT_EQ(bytes[24], 0x42);
  EXPECT_EQ(bytes[32], 16);
  EXPECT_TRUE(std::all_of(bytes.begin() + 36, bytes.end(), [](std::uint8_t b) { return b == 0; }));
  EXPECT_EQ(decode_mpt(bytes.data()), e);
}

TEST(MptFormat, KeysAreIndexAndVariant) {
  EXPECT_EQ(make_key(0x1234, 0x56), 0x123456u);
  EXPECT_EQ(key_index(0x123456), 0x1234u);
  EXPECT_EQ(key_variant(0x123456), 0x56);
}

TEST(TranslationCache, LruEvictsTheLeastRecentlyUsedWayOfASet) {
  TranslationCache<int> cache({4, 4, Replacement::kLru}, 1);  // one set of 4
  for (std::uint64_t i = 0; i < 4; ++i) {
    EXPECT_FALSE(cache.lookup(i));
    cache.insert(i, static_cast<int>(i * 10));
  }
  EXPECT_EQ(cache.lookup(0), 0);   // 0 is now the most recent; 1 the least
  cache.insert(4, 40);             // evicts 1
  EXPECT_FALSE(cache.lookup(1));
  EXPECT_EQ(cache.lookup(2), 20);
  EXPECT_EQ(cache.lookup(4), 40);
  EXPECT_EQ(cache.hits(), 3u);
  EXPECT_EQ(cache.misses(), 5u);
}

TEST(TranslationCache, IndexesMapToSetsByModulo) {
  TranslationCache<int> cache({4, 1, Replacement::kLru}, 1);  // direct-mapped, 4 sets
  cache.insert(1, 1);
  cache.insert(5, 5);  // same set as 1: evicts it
  EXPECT_FALSE(cache.lookup(1));
  EXPECT_EQ(cache.lookup(5), 5);
  cache.insert(2, 2);  // another set: 5 stays
  EXPECT_EQ(cache.lookup(5), 5);
  cache.invalidate(5);
  EXPECT_FALSE(cache.lookup(5));
}

TEST(TranslationCache, RandomReplacementIsFixedByTheSeed) {
  const auto victims = [](std::uint64_t seed) {
    TranslationCache<int> cache({8, 8, Replacement::kRandom}, seed);
    for (std::uint64_t i = 0; i < 40; ++i) cache.insert(i, 0);
    std::vector<bool> present;
    for (std::uint64_t i = 0; i < 40; ++i) present.push_back(cache.lookup(i).has_value());
    return present;
  };
  const std::vector<bool> present = victims(7);
  EXPECT_EQ(present, victims(7));
  EXPECT_EQ(std::count(present.begin(), present.end(), true), 8);
  EXPECT_THROW(TranslationCache<int>({6, 4, Replacement::kLru}, 1), std::invalid_argument);
}

TEST(TranslationCache, PeekNeitherCountsNorChangesTheVictim) {
  TranslationCache<int> cache({2, 2, Replacement::kLru}, 1);  // one set of 2
  cache.insert(0, 10);
  cache.insert(1, 11);                // 0 is the least recently used
  EXPECT_EQ(cache.peek(0), 10);       // a lookup here would save 0 from eviction
  EXPECT_FALSE(cache.peek(2));
  EXPECT_EQ(cache.hits(), 0u);
  EXPECT_EQ(cache.misses(), 0u);
  cache.insert(2, 12);                // evicts 0 all the same
  EXPECT_FALSE(cache.peek(0));
  EXPECT_EQ(cache.peek(1), 11);
}

TEST(PageAllocator, WithoutFragmentationPagesComeInAddressOrder) {
  PageAllocator allocator(0x1000, 16 * 4096, 4096, 0.0, 1);
  EXPECT_EQ(allocator.allocate(3), (std::vector<std::uint64_t>{0x1000, 0x2000, 0x3000}));
  EXPECT_EQ(allocator.free_frames(), 13u);
}

TEST(PageAllocator, FullFragmentationScattersEveryFrameOnce) {
  PageAllocator allocator(1ULL << 30, 1024 * 4096, 4096, 1.0, 42);
  const std::vector<std::uint64_t> frames = allocator.allocate(1024);
  EXPECT_EQ(std::set<std::uint64_t>(frames.begin(), frames.end()).size(), 1024u);
  EXPECT_FALSE(std::is_sorted(frames.begin(), frames.end()));
  std::size_t contiguous = 0;
  for (std::size_t i = 1; i < frames.size(); ++i) contiguous += frames[i] == frames[i - 1] + 4096;
  EXPECT_LT(contiguous, 20u);  // a random order leaves almost no neighbours together
  for (std::uint64_t f : frames) {
    EXPECT_EQ(f % 4096, 0u);
    EXPECT_GE(f, 1ULL << 30);
    EXPECT_LT(f, (1ULL << 30) + 1024 * 4096);
  }
  EXPECT_THROW(allocator.allocate(1), std::runtime_error);
}

// The command mailbox's pages: the highest run of free frames, taken out of
// the shuffled order so no later allocation hands one of them out again.
TEST(PageAllocator, ContiguousFramesAreTheHighestFreeRunAndNeverHandedOutAgain) {
  PageAllocator allocator(0x10000, 256 * 4096, 4096, 1.0, 5);
  const std::vector<std::uint64_t> before = allocator.allocate(100);
  std::set<std::uint64_t> used(before.begin(), before.end());
  const std::uint64_t first = allocator.allocate_contiguous(8);
  EXPECT_EQ(first % 4096, 0u);
  for (std::uint64_t f = first; f < first + 8 * 4096; f += 4096) {
    EXPECT_EQ(used.count(f), 0u) << std::hex << f;
    used.insert(f);
  }
  // No free run lies above it: some frame just past its end is taken (or the pool ends).
  const std::uint64_t end = 0x10000 + 256 * 4096;
  if (first + 8 * 4096 < end) {
    EXPECT_EQ(used.count(first + 8 * 4096), 1u);
  }
  EXPECT_EQ(allocator.free_frames(), 256u - 108u);
  const std::vector<std::uint64_t> rest = allocator.allocate(allocator.free_frames());
  for (std::uint64_t f : rest) EXPECT_EQ(used.count(f), 0u) << std::hex << f;
  used.insert(rest.begin(), rest.end());
  EXPECT_EQ(used.size(), 256u);  // every frame handed out exactly once
  EXPECT_THROW(allocator.allocate_contiguous(1), std::runtime_error);
}

TEST(PageAllocator, ContiguousFramesOfAnUnfragmentedPoolAreItsTop) {
  PageAllocator allocator(0, 16 * 4096, 4096, 0.0, 1);
  EXPECT_EQ(allocator.allocate_contiguous(4), 12u * 4096);
  EXPECT_EQ(allocator.allocate(2), (std::vector<std::uint64_t>{0, 4096}));
  EXPECT_THROW(allocator.allocate_contiguous(11), std::runtime_error);
  EXPECT_EQ(allocator.allocate_contiguous(10), 2u * 4096);
}

TEST(PageAllocator, TheSeedFixesTheOrderAndLargePagesAreAligned) {
  PageAllocator a(0, 64ULL << 21, 2ULL << 20, 1.0, 3);
  PageAllocator b(0, 64ULL << 21, 2ULL << 20, 1.0, 3);
  const auto frames = a.allocate(64);
  EXPECT_EQ(frames, b.allocate(64));
  for (std::uint64_t f : frames) EXPECT_EQ(f % (2ULL << 20), 0u);
  a.release({frames[5]});
  EXPECT_EQ(a.allocate(1), (std::vector<std::uint64_t>{frames[5]}));
}

TEST(PageAllocator, APoolAsLargeAsAPhysicalAddressSpaceCostsOnlyWhatIsAllocated) {
  // 2^52 bytes (host.memory_bytes' maximum) is 2^40 frames: listing them
  // would need 8 TiB. The order is drawn as frames are handed out.
  PageAllocator allocator(0, 1ULL << 52, 4096, 1.0, 7);
  EXPECT_EQ(allocator.free_frames(), 1ULL << 40);
  const std::vector<std::uint64_t> frames = allocator.allocate(100000);
  EXPECT_EQ(std::set<std::uint64_t>(frames.begin(), frames.end()).size(), frames.size());
  std::uint64_t in_the_upper_half = 0;
  for (std::uint64_t f : frames) {
    ASSERT_EQ(f % 4096, 0u);
    ASSERT_LT(f, 1ULL << 52);
    in_the_upper_half += f >= (1ULL << 51);
  }
  // Uniform over the pool: about half in each half (binomial, sd 158; 5 sd).
  EXPECT_NEAR(static_cast<double>(in_the_upper_half), 50000.0, 800.0);
  EXPECT_EQ(allocator.free_frames(), (1ULL << 40) - 100000);
}

TEST(PageAllocator, PartialFragmentationSwapsThatShareOfTheFrames) {
  // With fragmentation 0.25 a quarter of the draws take a random frame; the
  // rest continue the address order, so about three quarters of consecutive
  // allocations stay physically contiguous.
  PageAllocator allocator(0, 1ULL << 40, 4096, 0.25, 11);
  const std::vector<std::uint64_t> frames = allocator.allocate(10000);
  std::size_t contiguous = 0;
  for (std::size_t i = 1; i < frames.size(); ++i) contiguous += frames[i] == frames[i - 1] + 4096;
  // A pair stays contiguous when neither draw swapped: 0.75^2 = 56% (+- 3%).
  EXPECT_NEAR(static_cast<double>(contiguous) / 9999.0, 0.5625, 0.03);
}

}  // namespace
}  // namespace rnicsim
