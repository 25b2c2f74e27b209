// The request splitter on its own, against a link that records the TLP lists
// it is given: the cuts at MRRS and MPS, the 4 KiB boundary, single bytes, a
// window cut short by its TLP budget, and each TLP's earliest time.
#include <gtest/gtest.h>

#include <systemc>
#include <vector>

#include "common/time_units.hpp"
#include "dma/request_splitter.hpp"
#include "pcie/tlp.hpp"
#include "pcie/tlp_list.hpp"

namespace rnicsim {
namespace {

using Spans = std::vector<pcie::TlpSpan>;

struct RecordingLink : sc_core::sc_module, pcie::TlpListIf {
  sc_core::sc_export<pcie::TlpListIf> nic2pcie;
  explicit RecordingLink(const sc_core::sc_module_name& name)
      : sc_core::sc_module(name), nic2pcie("nic2pcie") {
    nic2pcie.bind(*this);
  }
  void book(pcie::TlpWindow& /*window*/, pcie::Tlp* tlps, std::uint32_t count) override {
    booked.assign(tlps, tlps + count);
  }
  std::vector<pcie::Tlp> booked;
};

struct Bench {
  explicit Bench(std::uint32_t mrrs = 512, std::uint32_t mps = 256)
      : splitter("request_split", RequestSplitterConfig{BlockImpl::kModel, mrrs, mps}),
        link("pcie") {
    splitter.split2pcie.bind(link.nic2pcie);
    sc_core::sc_start(sc_core::SC_ZERO_TIME);
  }
  // Splits one window of `runs` and returns what the link was given.
  Spans split(pcie::TlpKind kind, std::vector<pcie::DataRun> runs, std::uint32_t max_tlps = 64) {
    window.kind = kind;
    window.run_count = static_cast<std::uint32_t>(runs.size());
    std::copy(runs.begin(), runs.end(), window.runs.begin());
    const BookedTlps booked = splitter.split(window, max_tlps, nullptr);
    EXPECT_EQ(booked.count, link.booked.size());
    Spans spans;
    for (const pcie::Tlp& t : link.booked) spans.push_back({t.address, t.length});
    return spans;
  }
  RequestSplitter splitter;
  RecordingLink link;
  pcie::TlpWindow window;
};

constexpr auto kRead = pcie::TlpKind::kMemoryRead;
constexpr auto kWrite = pcie::TlpKind::kMemoryWrite;

TEST(RequestSplitter, ReadsAreCutAtMrrsOnItsMultiples) {
  Bench bench;
  // 1100 B from 0x10010 at MRRS 512: 496 up to 0x10200, 512, then 92.
  EXPECT_EQ(bench.split(kRead, {{0x10010, 1100, nullptr}}),
            (Spans{{0x10010, 496}, {0x10200, 512}, {0x10400, 92}}));
  EXPECT_EQ(bench.splitter.stats().tlps, 3u);
}

TEST(RequestSplitter, WritesAreCutAtMps) {
  Bench bench;
  EXPECT_EQ(bench.split(kWrite, {{0x2000, 600, nullptr}}),
            (Spans{{0x2000, 256}, {0x2100, 256}, {0x2200, 88}}));
}

TEST(RequestSplitter, NoTlpCrosses4KiB) {
  Bench bench(4096, 256);
  // MRRS 4096 from 0xF00: the first request stops at the boundary.
  EXPECT_EQ(bench.split(kRead, {{0xF00, 4096, nullptr}}), (Spans{{0xF00, 256}, {0x1000, 3840}}));
  // 256 B written across 0x3000 at MPS 256: 128 on each side.
  EXPECT_EQ(bench.split(kWrite, {{0x2F80, 256, nullptr}}), (Spans{{0x2F80, 128}, {0x3000, 128}}));
}

TEST(RequestSplitter, OneByteIsOneTlp) {
  Bench bench;
  EXPECT_EQ(bench.split(kRead, {{0x3FFF, 1, nullptr}}), (Spans{{0x3FFF, 1}}));
  EXPECT_EQ(bench.split(kWrite, {{0x3FFF, 1, nullptr}, {0x5000, 1, nullptr}}),
            (Spans{{0x3FFF, 1}, {0x5000, 1}}));
}

TEST(RequestSplitter, AWindowStopsAtItsTlpBudgetAndIsTrimmedToIt) {
  Bench bench;
  const std::vector<pcie::DataRun> runs = {{0x5000, 600, nullptr}, {0x9000, 100, nullptr}};
  EXPECT_EQ(bench.split(kRead, runs, 3), (Spans{{0x5000, 512}, {0x5200, 88}, {0x9000, 100}}));
  EXPECT_EQ(bench.window.run_count, 2u);
  EXPECT_EQ(bench.window.bytes(), 700u);
  // Two TLPs end with the first run.
  EXPECT_EQ(bench.split(kRead, runs, 2), (Spans{{0x5000, 512}, {0x5200, 88}}));
  EXPECT_EQ(bench.window.run_count, 1u);
  EXPECT_EQ(bench.window.bytes(), 600u);
  // One TLP ends inside it.
  EXPECT_EQ(bench.split(kRead, runs, 1), (Spans{{0x5000, 512}}));
  EXPECT_EQ(bench.window.run_count, 1u);
  EXPECT_EQ(bench.window.runs[0].length, 512u);
}

TEST(RequestSplitter, EachTlpCarriesItsEarliestTime) {
  Bench bench;
  const sc_core::sc_time earliest[] = {nanoseconds(30), nanoseconds(10)};
  bench.window.kind = kRead;
  bench.window.run_count = 1;
  bench.window.runs[0] = {0x1000, 1024, nullptr};
  bench.splitter.split(bench.window, 2, earliest);
  ASSERT_EQ(bench.link.booked.size(), 2u);
  EXPECT_EQ(bench.link.booked[0].earliest, nanoseconds(30));
  EXPECT_EQ(bench.link.booked[1].earliest, nanoseconds(10));
}

}  // namespace
}  // namespace rnicsim
