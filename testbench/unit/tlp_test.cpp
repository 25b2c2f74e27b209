// TLP arithmetic and the IOTLB, without the kernel: directed cases worked out
// by hand from the PCIe rules (MPS, MRRS, 4 KiB boundary, completion boundary).
#include <gtest/gtest.h>

#include <vector>

#include "pcie/iotlb.hpp"
#include "pcie/pcie_config.hpp"
#include "pcie/tlp.hpp"

namespace rnicsim::pcie {
namespace {

using Spans = std::vector<TlpSpan>;

TEST(SplitRequests, AnAlignedTransferIsCutAtTheMaximumSize) {
  // 1 KiB write at MPS 256: four full TLPs.
  EXPECT_EQ(split_requests(0x10000, 1024, 256),
            (Spans{{0x10000, 256}, {0x10100, 256}, {0x10200, 256}, {0x10300, 256}}));
}

TEST(SplitRequests, AnUnalignedStartGetsAShortFirstTlpThenAlignedOnes) {
  // 600 B from 0x1F0 at MRRS 512: 16 B up to 0x200, then 512, then 72.
  EXPECT_EQ(split_requests(0x1F0, 600, 512), (Spans{{0x1F0, 16}, {0x200, 512}, {0x400, 72}}));
}

TEST(SplitRequests, NoRequestCrossesA4KiBBoundary) {
  // MRRS 4096 from 0xF00: the first request stops at 0x1000.
  EXPECT_EQ(split_requests(0xF00, 4096, 4096), (Spans{{0xF00, 256}, {0x1000, 3840}}));
  for (const TlpSpan& s : split_requests(0x12345, 100000, 4096)) {
    EXPECT_EQ(s.address / 4096, (s.address + s.length - 1) / 4096) << s.address;
  }
}

TEST(SplitRequests, ShortAndEmptyTransfers) {
  EXPECT_EQ(split_requests(0x1000, 8, 512), (Spans{{0x1000, 8}}));
  EXPECT_TRUE(split_requests(0x1000, 0, 512).empty());
}

TEST(SplitCompletions, CompletionsEndOnCompletionBoundaries) {
  // 200 B from 0x1010 with 64 B completions: 48 up to 0x1040, 64, 64, 24.
  EXPECT_EQ(split_completions(0x1010, 200, 64),
            (Spans{{0x1010, 48}, {0x1040, 64}, {0x1080, 64}, {0x10C0, 24}}));
  // The same with 128 B completions: 112 up to 0x1080, then 88.
  EXPECT_EQ(split_completions(0x1010, 200, 128), (Spans{{0x1010, 112}, {0x1080, 88}}));
}

TEST(SplitCompletions, CompletionSizesDescribeTheSameList) {
  // 200 B from 0x1010 at 64 B: 48, two of 64, then 24.
  const CompletionSizes s = completion_sizes(0x1010, 200, 64);
  EXPECT_EQ(s.first, 48u);
  EXPECT_EQ(s.full, 2u);
  EXPECT_EQ(s.tail, 24u);
  EXPECT_EQ(s.count(), 4u);
  for (std::uint32_t unit : {64u, 128u, 256u}) {
    for (std::uint64_t address : {0x2000ULL, 0x2001ULL, 0x203FULL, 0x2040ULL, 0x20C7ULL}) {
      for (std::uint32_t length : {1u, 7u, 63u, 64u, 65u, 200u, 512u, 4096u}) {
        const Spans list = split_completions(address, length, unit);
        const CompletionSizes sizes = completion_sizes(address, length, unit);
        Spans rebuilt{{address, sizes.first}};
        for (std::uint32_t i = 0; i < sizes.full; ++i) {
          rebuilt.push_back({rebuilt.back().address + rebuilt.back().length, unit});
        }
        if (sizes.tail > 0) rebuilt.push_back({rebuilt.back().address + rebuilt.back().length, sizes.tail});
        EXPECT_EQ(rebuilt, list) << address << " " << length << " " << unit;
        EXPECT_EQ(sizes.count(), list.size());
      }
    }
  }
}

TEST(TlpBytes, HeadersAndFramingFollowTheSpec) {
  EXPECT_EQ(read_request_wire_bytes(8ULL << 30), 24u);    // above 4 GiB: 4 DW header + 8
  EXPECT_EQ(read_request_wire_bytes((1ULL << 32) - 4), 20u);  // below: 3 DW header + 8
  EXPECT_EQ(write_request_wire_bytes(8ULL << 30, 256), 280u);
  EXPECT_EQ(write_request_wire_bytes(0x1000, 256), 276u);
  EXPECT_EQ(completion_wire_bytes(64), 84u);         // 3 DW header + 64 + 8
  EXPECT_EQ(completion_wire_bytes(0), 20u);
}

TEST(PcieConfig, LinkRateIsLanesTimesRateTimesEncodingLessSkip) {
  PcieConfig c;
  c.generation = 3;
  c.lanes = 8;
  EXPECT_DOUBLE_EQ(c.link_gbps(), 8 * 8.0 * 128 / 130 * (1 - 4.0 / 1538));
  c.generation = 1;
  c.lanes = 1;
  EXPECT_DOUBLE_EQ(c.link_gbps(), 2.5 * 0.8 * (1 - 4.0 / 1538));
  c.generation = 5;
  c.lanes = 16;
  EXPECT_DOUBLE_EQ(c.link_gbps(), 16 * 32.0 * 128 / 130 * (1 - 4.0 / 1538));
}

TEST(Iotlb, HitsMissesAndLeastRecentlyUsedEviction) {
  Iotlb tlb(2, 4096);
  const sc_core::sc_time walk(220, sc_core::SC_NS);
  const auto at = [](double ns) { return sc_core::sc_time(ns, sc_core::SC_NS); };
  EXPECT_EQ(tlb.translate(0x0000, at(0), walk), at(220));     // page 0 in
  EXPECT_EQ(tlb.translate(0x0FFF, at(300), walk), at(300));   // same page, ready
  EXPECT_EQ(tlb.translate(0x1000, at(400), walk), at(620));   // page 1 in
  EXPECT_EQ(tlb.translate(0x0010, at(500), walk), at(500));   // page 0 now most recent
  EXPECT_EQ(tlb.translate(0x2000, at(700), walk), at(920));   // page 2 evicts page 1
  EXPECT_EQ(tlb.translate(0x0000, at(800), walk), at(800));
  EXPECT_EQ(tlb.translate(0x1000, at(900), walk), at(1120));  // page 1 walked again
  EXPECT_EQ(tlb.hits(), 3u);
  EXPECT_EQ(tlb.misses(), 4u);
}

TEST(Iotlb, AHitOnAPageStillBeingWalkedWaitsForTheWalk) {
  Iotlb tlb(4, 4096);
  const sc_core::sc_time walk(220, sc_core::SC_NS);
  EXPECT_EQ(tlb.translate(0x1000, sc_core::sc_time(10, sc_core::SC_NS), walk),
            sc_core::sc_time(230, sc_core::SC_NS));
  EXPECT_EQ(tlb.translate(0x1040, sc_core::sc_time(15, sc_core::SC_NS), walk),
            sc_core::sc_time(230, sc_core::SC_NS));
  EXPECT_EQ(tlb.hits(), 1u);
}

}  // namespace
}  // namespace rnicsim::pcie
