// Steady state allocates nothing end to end: once warm, two thousand more
// 4 KiB RDMA WRITEs between two composed nodes, posted and polled as
// perftest's write_bw does, make no heap allocation anywhere: post, doorbell
// (BlueFlame), requester, payload read, builder, ICRC, wire, parser,
// responder, DMA write, ACK, completer, CQE write, poll. This program
// replaces the global operator new to count, so it is a program of its own.
#include <gtest/gtest.h>

#include <array>

#include "counting_new.hpp"
#include "system/rc_bench.hpp"

namespace rnicsim {
namespace {

using testing::allocations;
using testing::Buffer;
using testing::kAllAccess;
using testing::pattern;
using testing::RcBench;

constexpr std::uint32_t kBytes = 4096;   // one packet at PMTU 4096
constexpr std::uint32_t kDepth = 128;    // perftest's tx depth
constexpr std::uint32_t kSignalEvery = 100;  // perftest's CQ moderation
// The warm-up wraps the send ring many times and fills every pool and ring
// to the depth the run needs.
constexpr std::uint64_t kWarmUp = 3000;
constexpr std::uint64_t kMeasured = 2000;

struct Counts {
  std::uint64_t completed = 0;
  std::uint64_t failed = 0;    // completions with an error status
  std::uint64_t warm = 0;      // allocations when kWarmUp messages had completed
  std::uint64_t finished = 0;  // ... and when kWarmUp + kMeasured had
  bool data_arrived = false;
};

// WRITEs of kBytes from a's buffer into b's, kDepth outstanding, every
// kSignalEvery-th signaled; a completion covers every WRITE before it.
Counts write_bw() {
  RcBench bench(config::Json{{"nic", {{"ethernet_mtu_bytes", 4200}}}});
  Counts counts;
  bench.run([&] {
    RcOptions options;
    options.mtu = IBV_MTU_4096;
    options.cap.max_send_wr = kDepth;
    options.cap.max_send_sge = 1;
    options.cap.max_inline_data = 0;
    options.cq_entries = kDepth;  // one page of CQEs: watched from the first poll
    bench.connect(options);
    const Buffer source = bench.buffer(0, kBytes, kAllAccess);
    const Buffer target = bench.buffer(1, kBytes, kAllAccess);
    bench.fill(source, pattern(kBytes, 3));
    const ibv_sge sge{source.va, kBytes, source.mr->lkey};
    const std::uint64_t total = kWarmUp + kMeasured;
    std::uint64_t posted = 0;
    std::array<ibv_wc, 16> wcs;
    VerbsDriver& driver = bench.driver(0);
    while (counts.completed < total) {
      bool posted_any = false;
      while (posted < total && posted - counts.completed < kDepth) {
        ibv_send_wr wr;
        wr.wr_id = posted;
        wr.opcode = IBV_WR_RDMA_WRITE;
        wr.sg_list = &sge;
        wr.num_sge = 1;
        const bool signaled = (posted + 1) % kSignalEvery == 0 || posted + 1 == total;
        wr.send_flags = signaled ? std::uint32_t{IBV_SEND_SIGNALED} : 0u;
        wr.rdma.remote_addr = target.va;
        wr.rdma.rkey = target.mr->rkey;
        if (driver.ibv_post_send(bench.a.qps[0], &wr, nullptr) != 0) ++counts.failed;
        ++posted;
        posted_any = true;
      }
      const int n = driver.ibv_poll_cq(bench.a.send_cq, static_cast<int>(wcs.size()), wcs.data());
      for (int k = 0; k < n; ++k) {
        const ibv_wc& wc = wcs[static_cast<std::size_t>(k)];
        if (wc.status != IBV_WC_SUCCESS) ++counts.failed;
        const std::uint64_t before = counts.completed;
        counts.completed = wc.wr_id + 1;
        if (before < kWarmUp && counts.completed >= kWarmUp) counts.warm = allocations;
      }
      if (n == 0 && !posted_any) driver.wait_cq(bench.a.send_cq);
    }
    counts.finished = allocations;
    counts.data_arrived = bench.contents(target, 0, kBytes) == pattern(kBytes, 3);
  });
  return counts;
}

TEST(RcAllocation, SteadyStateWritesAllocateNothing) {
  const Counts counts = write_bw();
  ASSERT_EQ(counts.completed, kWarmUp + kMeasured);
  EXPECT_EQ(counts.failed, 0u);
  EXPECT_TRUE(counts.data_arrived);
  EXPECT_GT(counts.warm, 0u);  // the count is live: building and warming up allocate
  EXPECT_EQ(counts.finished - counts.warm, 0u)
      << (counts.finished - counts.warm) << " allocations over " << kMeasured << " messages";
}

}  // namespace
}  // namespace rnicsim
