// The request splitter on its own, against a link that records the TLP lists
// it is given: the cuts at MRRS and MPS, the 4 KiB boundary, single bytes, a
// window cut short by its TLP budget, and each TLP's earliest time. Every
// test runs with the model's split engine and with the RTL's
// (request_splitter.impl rtl), which must give the same TLPs.
#include "nic/dma/request_splitter.hpp"

#include <gtest/gtest.h>

#include <random>
#include <stdexcept>
#include <string>
#include <systemc>
#include <vector>

#include "block/impl_param.hpp"
#include "common/time_units.hpp"
#include "nic/dma/request_splitter_rtl.hpp"
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
  explicit Bench(BlockImpl impl, std::uint32_t mrrs = 512, std::uint32_t mps = 256)
      : Bench(RequestSplitterConfig{impl, mrrs, mps}) {}
  explicit Bench(const RequestSplitterConfig& config)
      : splitter("request_splitter", config,
                 rtl_bridge::make_split_engine(config.impl, config.sizes())),
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

class RequestSplitterImpl : public ::testing::TestWithParam<BlockImpl> {};

TEST_P(RequestSplitterImpl, ReadsAreCutAtMrrsOnItsMultiples) {
  Bench bench(GetParam());
  // 1100 B from 0x10010 at MRRS 512: 496 up to 0x10200, 512, then 92.
  EXPECT_EQ(bench.split(kRead, {{0x10010, 1100, nullptr}}),
            (Spans{{0x10010, 496}, {0x10200, 512}, {0x10400, 92}}));
  EXPECT_EQ(bench.splitter.stats().tlps, 3u);
}

TEST_P(RequestSplitterImpl, WritesAreCutAtMps) {
  Bench bench(GetParam());
  EXPECT_EQ(bench.split(kWrite, {{0x2000, 600, nullptr}}),
            (Spans{{0x2000, 256}, {0x2100, 256}, {0x2200, 88}}));
}

TEST_P(RequestSplitterImpl, NoTlpCrosses4KiB) {
  Bench bench(GetParam(), 4096, 256);
  // MRRS 4096 from 0xF00: the first request stops at the boundary.
  EXPECT_EQ(bench.split(kRead, {{0xF00, 4096, nullptr}}), (Spans{{0xF00, 256}, {0x1000, 3840}}));
  // 256 B written across 0x3000 at MPS 256: 128 on each side.
  EXPECT_EQ(bench.split(kWrite, {{0x2F80, 256, nullptr}}), (Spans{{0x2F80, 128}, {0x3000, 128}}));
}

TEST_P(RequestSplitterImpl, OneByteIsOneTlp) {
  Bench bench(GetParam());
  EXPECT_EQ(bench.split(kRead, {{0x3FFF, 1, nullptr}}), (Spans{{0x3FFF, 1}}));
  EXPECT_EQ(bench.split(kWrite, {{0x3FFF, 1, nullptr}, {0x5000, 1, nullptr}}),
            (Spans{{0x3FFF, 1}, {0x5000, 1}}));
}

TEST_P(RequestSplitterImpl, AWindowStopsAtItsTlpBudgetAndIsTrimmedToIt) {
  Bench bench(GetParam());
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

TEST_P(RequestSplitterImpl, EachTlpCarriesItsEarliestTime) {
  Bench bench(GetParam());
  const sc_core::sc_time earliest[] = {nanoseconds(30), nanoseconds(10)};
  bench.window.kind = kRead;
  bench.window.run_count = 1;
  bench.window.runs[0] = {0x1000, 1024, nullptr};
  bench.splitter.split(bench.window, 2, earliest);
  ASSERT_EQ(bench.link.booked.size(), 2u);
  EXPECT_EQ(bench.link.booked[0].earliest, nanoseconds(30));
  EXPECT_EQ(bench.link.booked[1].earliest, nanoseconds(10));
}

// The RTL takes a cycle for each run it is given and one for each TLP; the
// model takes none.
TEST_P(RequestSplitterImpl, CountsOneRtlCyclePerRunAndOnePerTlp) {
  Bench bench(GetParam());
  bench.split(kRead, {{0x10010, 1100, nullptr}, {0x9000, 100, nullptr}});  // 3 + 1 TLPs
  bench.split(kWrite, {{0x5000, 600, nullptr}}, 2);                         // 2 TLPs, cut short
  EXPECT_EQ(bench.splitter.stats().tlps, 6u);
  EXPECT_EQ(bench.splitter.stats().rtl_cycles, GetParam() == BlockImpl::kRtl ? 3u + 6u : 0u);
}

// The engines on their own, through the factory the NIC uses: random runs
// (any address, 1 byte to 64 KiB, budgets 1 to 40) at every MPS and MRRS
// give the same cuts, and the RTL takes one cycle more than its TLPs.
TEST(SplitEngines, TheRtlEngineCutsAsTheModelAtEverySize) {
  std::mt19937_64 rng(0x5B12);
  std::size_t tlps = 0;
  for (std::uint32_t mps = 128; mps <= 4096; mps *= 2) {
    for (std::uint32_t mrrs = 128; mrrs <= 4096; mrrs *= 2) {
      const TlpSizes sizes{mps, mrrs};
      const auto model = rtl_bridge::make_split_engine(BlockImpl::kModel, sizes);
      const auto rtl = rtl_bridge::make_split_engine(BlockImpl::kRtl, sizes);
      for (int i = 0; i < 50; ++i) {
        const SplitRequest request{(rng() & 1) != 0, rng() >> 2,
                                   1 + static_cast<std::uint32_t>(rng() % 65536),
                                   1 + static_cast<std::uint32_t>(rng() % 40)};
        std::vector<TlpCut> want, got;
        const SplitResult m = model->cut(request, want);
        const SplitResult r = rtl->cut(request, got);
        ASSERT_EQ(got.size(), want.size()) << "MPS " << mps << ", MRRS " << mrrs << ", run " << i;
        for (std::size_t k = 0; k < want.size(); ++k) {
          EXPECT_EQ(got[k].address, want[k].address) << "run " << i << ", TLP " << k;
          EXPECT_EQ(got[k].length, want[k].length) << "run " << i << ", TLP " << k;
        }
        EXPECT_EQ(r.covered_bytes, m.covered_bytes) << "run " << i;
        EXPECT_EQ(m.cycles, 0u);
        EXPECT_EQ(r.cycles, want.size() + 1) << "run " << i;
        tlps += want.size();
      }
    }
  }
  EXPECT_GT(tlps, 36u * 50u * 5u);  // mostly runs of several TLPs
}

// What the RTL's ports cannot carry is refused before a cycle runs.
TEST(SplitEngines, TheRtlEngineRefusesAnEmptyRunAndABudgetPast16Bits) {
  const auto rtl = rtl_bridge::make_split_engine(BlockImpl::kRtl, TlpSizes{256, 512});
  std::vector<TlpCut> cuts;
  EXPECT_THROW(rtl->cut(SplitRequest{true, 0x1000, 0, 4}, cuts), std::invalid_argument);
  EXPECT_THROW(rtl->cut(SplitRequest{true, 0x1000, 64, 0}, cuts), std::invalid_argument);
  EXPECT_THROW(rtl->cut(SplitRequest{true, 0x1000, 64, 65536}, cuts), std::invalid_argument);
  EXPECT_TRUE(cuts.empty());
  // And it still works after them.
  EXPECT_EQ(rtl->cut(SplitRequest{true, 0x1000, 600, 65535}, cuts).covered_bytes, 600u);
  EXPECT_EQ(cuts.size(), 3u);
}

INSTANTIATE_TEST_SUITE_P(Engine, RequestSplitterImpl, every_impl(), impl_param_name);

}  // namespace
}  // namespace rnicsim
