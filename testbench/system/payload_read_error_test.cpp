// A request packet whose payload cannot be read from host memory (the DMA
// read gets an Unsupported Request) is never sent with stale bytes: the WQE
// completes in IBV_WC_LOC_PROT_ERR, as rxe completes a WQE whose MR it cannot
// copy from, and the QP goes to ERR, flushing what follows. The fault is
// made the way a driver bug or a corrupted page table would make it: the
// MR's page-table (MTT) entry in host memory names a frame beyond physical
// memory, and the NIC's walk reads it, as its caches have never held it.
#include "system/rc_bench.hpp"

namespace rnicsim {
namespace {

using testing::Buffer;
using testing::kAllAccess;
using testing::pattern;
using testing::RcBench;

void post_write(RcBench& bench, const Buffer& src, const Buffer& dst, std::uint64_t wr_id) {
  const ibv_sge sge{src.va, 100, src.mr->lkey};
  ibv_send_wr wr = testing::signaled_write(sge, dst.va, dst.mr->rkey, wr_id);
  ASSERT_EQ(bench.driver(0).ibv_post_send(bench.a.qps[0], &wr, nullptr), 0);
}

TEST(PayloadReadError, AWriteWhosePayloadCannotBeReadSendsNothingAndCompletesInError) {
  RcBench bench;
  bench.run([&] {
    bench.connect();
    const Buffer src = bench.buffer(0, 100, kAllAccess);
    const Buffer dst = bench.buffer(1, 100, kAllAccess);
    bench.fill(src, pattern(100, 6));
    bench.fill(dst, pattern(100, 9));

    Node& a = bench.testbed().node(0);
    Node& b = bench.testbed().node(1);
    const std::uint64_t beyond = bench.memory(0).config().size_bytes + (std::uint64_t{1} << 20);
    std::uint8_t entry[kMttEntryBytes];
    for (std::uint32_t i = 0; i < kMttEntryBytes; ++i)
      entry[i] = static_cast<std::uint8_t>(beyond >> (8 * i));
    bench.memory(0).write_bytes(
        a.nic.translation.icm().mtt_base + src.mr->first_mtt * kMttEntryBytes, entry,
        kMttEntryBytes);

    const std::uint64_t failed_reads = a.nic.dma_engine.stats().failed_requests;
    const std::uint64_t received = b.nic.transport.stats().acks_sent;
    post_write(bench, src, dst, 1);
    post_write(bench, src, dst, 2);
    const ibv_wc first = bench.next_completion(0, bench.a.send_cq);
    EXPECT_EQ(first.wr_id, 1U);
    EXPECT_EQ(first.status, IBV_WC_LOC_PROT_ERR);
    EXPECT_EQ(first.opcode, IBV_WC_RDMA_WRITE);
    const ibv_wc second = bench.next_completion(0, bench.a.send_cq);
    EXPECT_EQ(second.wr_id, 2U);
    EXPECT_EQ(second.status, IBV_WC_WR_FLUSH_ERR);

    EXPECT_GE(a.nic.dma_engine.stats().failed_requests - failed_reads, 1U);
    const QpContext* qp = a.nic.transport.contexts().qp(bench.a.qps[0]->qp_num);
    ASSERT_NE(qp, nullptr);
    EXPECT_EQ(qp->state, IBV_QPS_ERR);
    // Nothing reached b: no request was acknowledged and its buffer is untouched.
    EXPECT_EQ(b.nic.transport.stats().acks_sent, received);
    EXPECT_EQ(bench.contents(dst, 0, 100), pattern(100, 9));
  });
}

}  // namespace
}  // namespace rnicsim
