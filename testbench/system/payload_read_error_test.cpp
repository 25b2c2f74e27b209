// Host memory that cannot be read (the DMA read gets an Unsupported Request)
// never yields stale or made-up bytes. A request packet whose payload cannot
// be read is not sent: the WQE completes in IBV_WC_LOC_PROT_ERR, as rxe
// completes a WQE whose MR it cannot copy from, and the QP goes to ERR,
// flushing what follows. An atomic whose target cannot be read changes
// nothing and is NAKed as a remote operational error. The fault is made the
// way a driver bug or a corrupted page table would make it: the MR's
// page-table (MTT) entry in host memory names a frame beyond physical
// memory, and the NIC's walk reads it, as its caches have never held it.
#include "system/rc_bench.hpp"

namespace rnicsim {
namespace {

using testing::Buffer;
using testing::kAllAccess;
using testing::pattern;
using testing::RcBench;

// Points the MTT entry of `buffer`'s page `page` (on `node`) beyond physical memory.
void corrupt_page_entry(RcBench& bench, std::size_t node, const Buffer& buffer,
                        std::uint32_t page = 0) {
  const std::uint64_t beyond = bench.memory(node).config().size_bytes + (std::uint64_t{1} << 20);
  std::uint8_t entry[kMttEntryBytes];
  for (std::uint32_t i = 0; i < kMttEntryBytes; ++i)
    entry[i] = static_cast<std::uint8_t>(beyond >> (8 * i));
  const Node& owner = bench.testbed().node(node);
  bench.memory(node).write_bytes(
      owner.nic.translation.icm().mtt_base + (buffer.mr->first_mtt + page) * kMttEntryBytes, entry,
      kMttEntryBytes);
}

// The first WQE on a's send queue completes with `status` and `opcode`, the
// second, flushed, with IBV_WC_WR_FLUSH_ERR.
void expect_first_fails_second_flushed(RcBench& bench, ibv_wc_status status, ibv_wc_opcode opcode) {
  const ibv_wc first = bench.next_completion(0, bench.a.send_cq);
  EXPECT_EQ(first.wr_id, 1U);
  EXPECT_EQ(first.status, status);
  EXPECT_EQ(first.opcode, opcode);
  const ibv_wc second = bench.next_completion(0, bench.a.send_cq);
  EXPECT_EQ(second.wr_id, 2U);
  EXPECT_EQ(second.status, IBV_WC_WR_FLUSH_ERR);
}

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
    corrupt_page_entry(bench, 0, src);

    const std::uint64_t failed_reads = a.nic.dma_engine.stats().failed_requests;
    const std::uint64_t received = b.nic.transport.stats().acks_sent;
    post_write(bench, src, dst, 1);
    post_write(bench, src, dst, 2);
    expect_first_fails_second_flushed(bench, IBV_WC_LOC_PROT_ERR, IBV_WC_RDMA_WRITE);

    EXPECT_GE(a.nic.dma_engine.stats().failed_requests - failed_reads, 1U);
    const QpContext* qp = a.nic.transport.contexts().qp(bench.a.qps[0]->qp_num);
    ASSERT_NE(qp, nullptr);
    EXPECT_EQ(qp->state, IBV_QPS_ERR);
    // Nothing reached b: no request was acknowledged and its buffer is untouched.
    EXPECT_EQ(b.nic.transport.stats().acks_sent, received);
    EXPECT_EQ(bench.contents(dst, 0, 100), pattern(100, 9));
  });
}

TEST(PayloadReadError, AWriteFailingMidwaySendsNothingAfterTheFailedPacket) {
  // 8 KiB at the bench's PMTU of 1024 with the source's second page unreadable:
  // the first page's 4 packets leave, then nothing of the QP.
  RcBench bench;
  bench.run([&] {
    bench.connect();
    const Buffer src = bench.buffer(0, 8192, kAllAccess);
    const Buffer dst = bench.buffer(1, 8192, kAllAccess);
    bench.fill(src, pattern(8192, 6));
    bench.fill(dst, pattern(8192, 9));
    corrupt_page_entry(bench, 0, src, 1);
    Node& b = bench.testbed().node(1);
    const std::uint64_t received = b.nic.parser.stats().items;  // frames from a
    const ibv_sge sge{src.va, 8192, src.mr->lkey};
    for (std::uint64_t wr_id = 1; wr_id <= 2; ++wr_id) {
      ibv_send_wr wr = testing::signaled_write(sge, dst.va, dst.mr->rkey, wr_id);
      ASSERT_EQ(bench.driver(0).ibv_post_send(bench.a.qps[0], &wr, nullptr), 0);
    }
    expect_first_fails_second_flushed(bench, IBV_WC_LOC_PROT_ERR, IBV_WC_RDMA_WRITE);
    sc_core::wait(sc_core::sc_time(10, sc_core::SC_US));  // b's writes land after a's CQEs
    EXPECT_EQ(b.nic.parser.stats().items - received, 4U);
    EXPECT_EQ(bench.contents(dst, 0, 4096), bench.contents(src, 0, 4096));
    const std::vector<std::uint8_t> before = pattern(8192, 9);
    EXPECT_EQ(bench.contents(dst, 4096, 4096),
              std::vector<std::uint8_t>(before.begin() + 4096, before.end()));
  });
}

TEST(PayloadReadError, AnAtomicWhoseTargetCannotBeReadChangesNothingAndIsARemoteOperationalError) {
  RcBench bench;
  bench.run([&] {
    bench.connect();
    const Buffer result = bench.buffer(0, 16, kAllAccess);
    const Buffer target = bench.buffer(1, 16, kAllAccess);
    bench.fill(result, pattern(16, 4));
    corrupt_page_entry(bench, 1, target);

    Node& a = bench.testbed().node(0);
    Node& b = bench.testbed().node(1);
    const std::uint64_t naks = b.nic.transport.stats().naks_sent;
    const std::uint64_t failed_reads = b.nic.dma_engine.stats().failed_requests;
    const std::uint64_t writes = b.nic.dma_engine.stats().write_requests;
    const ibv_sge sge{result.va, 8, result.mr->lkey};
    ibv_send_wr add;
    add.wr_id = 1;
    add.opcode = IBV_WR_ATOMIC_FETCH_AND_ADD;
    add.sg_list = &sge;
    add.num_sge = 1;
    add.send_flags = IBV_SEND_SIGNALED;
    add.atomic.remote_addr = target.va;
    add.atomic.rkey = target.mr->rkey;
    add.atomic.compare_add = 5;
    ASSERT_EQ(bench.driver(0).ibv_post_send(bench.a.qps[0], &add, nullptr), 0);
    const ibv_wc wc = bench.next_completion(0, bench.a.send_cq);
    EXPECT_EQ(wc.wr_id, 1U);
    EXPECT_EQ(wc.status, IBV_WC_REM_OP_ERR);
    EXPECT_EQ(wc.opcode, IBV_WC_FETCH_ADD);

    EXPECT_EQ(b.nic.dma_engine.stats().failed_requests - failed_reads, 1U);
    EXPECT_EQ(b.nic.dma_engine.stats().write_requests, writes);  // nothing modified
    EXPECT_EQ(b.nic.transport.stats().naks_sent - naks, 1U);
    EXPECT_EQ(bench.contents(result, 0, 16), pattern(16, 4));  // no made-up original value
    EXPECT_EQ(a.nic.transport.contexts().qp(bench.a.qps[0]->qp_num)->state, IBV_QPS_ERR);
    EXPECT_EQ(b.nic.transport.contexts().qp(bench.b.qps[0]->qp_num)->state, IBV_QPS_ERR);
  });
}

// A READ of `length` bytes of `remote` into `local`, signaled, posted on a's QP.
void post_read(RcBench& bench, const Buffer& local, const Buffer& remote, std::uint32_t length,
               std::uint64_t wr_id) {
  const ibv_sge sge{local.va, length, local.mr->lkey};
  ibv_send_wr read =
      testing::signaled_rdma(IBV_WR_RDMA_READ, sge, remote.va, remote.mr->rkey, wr_id);
  ASSERT_EQ(bench.driver(0).ibv_post_send(bench.a.qps[0], &read, nullptr), 0);
}

// The responder cannot read the source of a READ response: that response is
// not sent, the READ is NAKed at its PSN as a remote operational error, and
// nothing the responder's QP queued after it leaves.
void expect_read_fails_at(std::uint32_t bad_page, std::uint32_t length,
                          std::uint64_t responses_sent) {
  RcBench bench;
  bench.run([&] {
    bench.connect();
    const Buffer local = bench.buffer(0, length, kAllAccess);
    const Buffer remote = bench.buffer(1, length, kAllAccess);
    bench.fill(local, pattern(length, 2));
    bench.fill(remote, pattern(length, 8));
    corrupt_page_entry(bench, 1, remote, bad_page);

    Node& a = bench.testbed().node(0);
    Node& b = bench.testbed().node(1);
    const std::uint64_t naks = b.nic.transport.stats().naks_sent;
    const std::uint64_t received = a.nic.parser.stats().items;  // frames from b
    post_read(bench, local, remote, length, 1);
    post_read(bench, local, remote, length, 2);
    expect_first_fails_second_flushed(bench, IBV_WC_REM_OP_ERR, IBV_WC_RDMA_READ);

    EXPECT_EQ(b.nic.transport.stats().naks_sent - naks, 1U);
    // Only the responses before the failed one, and the NAK, reached a: not
    // those of the second READ, which the responder had queued behind them.
    EXPECT_EQ(a.nic.parser.stats().items - received, responses_sent + 1);
    EXPECT_EQ(a.nic.transport.contexts().qp(bench.a.qps[0]->qp_num)->state, IBV_QPS_ERR);
    EXPECT_EQ(b.nic.transport.contexts().qp(bench.b.qps[0]->qp_num)->state, IBV_QPS_ERR);
  });
}

TEST(PayloadReadError, AReadWhoseSourceCannotBeReadIsARemoteOperationalError) {
  expect_read_fails_at(0, 100, 0);
}

TEST(PayloadReadError, AReadFailingMidwayStopsItsResponsesAtTheNak) {
  // 8 KiB at the bench's PMTU of 1024: the first page's 4 responses leave,
  // the second's do not, nor the second READ's (queued before the failure
  // shows: without the discard, 4 of them would follow).
  expect_read_fails_at(1, 8192, 4);
}

TEST(PayloadReadError, ALongReadMakesNoResponseAfterItsFailure) {
  // 256 KiB, one bad page among 64: the responder is still making this
  // READ's responses when the failure shows, and makes no more; those after
  // the bad page are good to read, so any made would reach the wire.
  expect_read_fails_at(1, 256 * 1024, 4);
}

}  // namespace
}  // namespace rnicsim
