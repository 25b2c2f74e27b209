// Verbs over RC between two nodes: every operation moves the right bytes and
// completes once with the right status, opcode, byte_len and imm; errors end
// as libibverbs and the IB spec say.
#include "system/rc_bench.hpp"

namespace rnicsim {
namespace {

using testing::Buffer;
using testing::pattern;
using testing::RcBench;

using testing::kAllAccess;
using testing::sge_of;
using testing::work_request;

// Each node's driver reports its own NIC port: active MTU from that node's
// Ethernet MTU, Ethernet link layer, one GID; a second port does not exist.
TEST(RcVerbs, QueryPortReportsEachNodesOwnPort) {
  config::Json given;
  given["nodes"]["a"]["nic"]["ethernet_mtu_bytes"] = 4200;
  given["nodes"]["b"]["nic"]["ethernet_mtu_bytes"] = 1500;
  RcBench bench(given);
  ibv_port_attr a, b, none;
  ASSERT_EQ(bench.driver(0).ibv_query_port(1, &a), 0);
  ASSERT_EQ(bench.driver(1).ibv_query_port(1, &b), 0);
  EXPECT_EQ(a.active_mtu, IBV_MTU_4096);
  EXPECT_EQ(b.active_mtu, IBV_MTU_1024);
  for (const ibv_port_attr& port : {a, b}) {
    EXPECT_EQ(port.state, IBV_PORT_ACTIVE);
    EXPECT_EQ(port.max_mtu, IBV_MTU_4096);
    EXPECT_EQ(port.link_layer, IBV_LINK_LAYER_ETHERNET);
    EXPECT_EQ(port.gid_tbl_len, 1);
    EXPECT_EQ(port.lid, 0);
  }
  EXPECT_EQ(bench.driver(0).ibv_query_port(2, &none), EINVAL);
}

TEST(RcVerbs, RdmaWriteMovesEveryByteAndCompletesOnce) {
  RcBench bench;
  bench.run([&] {
    bench.connect();
    const Buffer src = bench.buffer(0, 10000, kAllAccess);
    const Buffer dst = bench.buffer(1, 10000, kAllAccess);
    bench.fill(src, pattern(10000, 3));
    const ibv_sge sge = sge_of(src, 10000);
    ibv_send_wr wr = work_request(IBV_WR_RDMA_WRITE, &sge, 42, &dst);
    ASSERT_EQ(bench.driver(0).ibv_post_send(bench.a.qps[0], &wr, nullptr), 0);
    const ibv_wc wc = bench.next_completion(0, bench.a.send_cq);
    EXPECT_EQ(wc.status, IBV_WC_SUCCESS);
    EXPECT_EQ(wc.opcode, IBV_WC_RDMA_WRITE);
    EXPECT_EQ(wc.wr_id, 42U);
    EXPECT_EQ(wc.qp_num, bench.a.qps[0]->qp_num);
    EXPECT_EQ(bench.contents(dst, 0, 10000), pattern(10000, 3));
    ibv_wc none;
    EXPECT_EQ(bench.driver(0).ibv_poll_cq(bench.a.send_cq, 1, &none), 0);
  });
}

// A CQ for 16384 QPs of 128 entries (64 MiB: 16384 page addresses, 128 KiB)
// goes through a mailbox of contiguous pages; twice that is longer than the
// NIC reads and fails the verb, not the run; commands go on working.
TEST(RcVerbs, ACqForSixteenThousandQpsIsCreatedAndALongerOneRefused) {
  RcBench bench;
  bench.run([&] {
    VerbsDriver& d = bench.driver(0);
    ibv_cq* big = d.ibv_create_cq(16384 * 128);
    ASSERT_NE(big, nullptr) << d.last_error_reason();
    EXPECT_EQ(big->cqe, 1 << 21);
    EXPECT_EQ(big->ring.pages.size(), 16384u);
    EXPECT_EQ(d.ibv_create_cq(1 << 22), nullptr);
    EXPECT_EQ(d.last_error(), EINVAL);
    EXPECT_EQ(d.last_error_reason(),
              "ibv_create_cq: its command (262180 bytes, mostly the ring's page list) is longer "
              "than the NIC reads (131148 bytes)");
    bench.connect();
    const Buffer src = bench.buffer(0, 4096, kAllAccess);
    const Buffer dst = bench.buffer(1, 4096, kAllAccess);
    bench.fill(src, pattern(4096, 9));
    const ibv_sge sge = sge_of(src, 4096);
    ibv_send_wr wr = work_request(IBV_WR_RDMA_WRITE, &sge, 7, &dst);
    ASSERT_EQ(d.ibv_post_send(bench.a.qps[0], &wr, nullptr), 0);
    EXPECT_EQ(bench.next_completion(0, bench.a.send_cq).status, IBV_WC_SUCCESS);
    EXPECT_EQ(bench.contents(dst, 0, 4096), pattern(4096, 9));
  });
}

TEST(RcVerbs, RdmaReadBringsTheRemoteBytesIntoScatteredLocalPages) {
  RcBench bench;
  bench.run([&] {
    bench.connect();
    const Buffer local = bench.buffer(0, 20000, kAllAccess);
    const Buffer remote = bench.buffer(1, 20000, kAllAccess);
    bench.fill(remote, pattern(20000, 9));
    const ibv_sge sge = sge_of(local, 20000);
    ibv_send_wr wr = work_request(IBV_WR_RDMA_READ, &sge, 7, &remote);
    ASSERT_EQ(bench.driver(0).ibv_post_send(bench.a.qps[0], &wr, nullptr), 0);
    const ibv_wc wc = bench.next_completion(0, bench.a.send_cq);
    EXPECT_EQ(wc.status, IBV_WC_SUCCESS);
    EXPECT_EQ(wc.opcode, IBV_WC_RDMA_READ);
    EXPECT_EQ(wc.byte_len, 20000U);
    EXPECT_EQ(bench.contents(local, 0, 20000), pattern(20000, 9));
  });
}

TEST(RcVerbs, SendLandsInThePostedReceiveWithItsLengthAndImmediate) {
  RcBench bench;
  bench.run([&] {
    bench.connect();
    const Buffer src = bench.buffer(0, 5000, kAllAccess);
    const Buffer dst = bench.buffer(1, 8192, kAllAccess);
    bench.fill(src, pattern(5000, 1));
    const ibv_sge recv_sge = sge_of(dst, 8192);
    ibv_recv_wr recv;
    recv.wr_id = 77;
    recv.sg_list = &recv_sge;
    recv.num_sge = 1;
    ASSERT_EQ(bench.driver(1).ibv_post_recv(bench.b.qps[0], &recv, nullptr), 0);
    ASSERT_EQ(bench.driver(1).ibv_post_recv(bench.b.qps[0], &recv, nullptr), 0);
    const ibv_sge sge = sge_of(src, 5000);
    ibv_send_wr send = work_request(IBV_WR_SEND, &sge, 1, nullptr);
    ASSERT_EQ(bench.driver(0).ibv_post_send(bench.a.qps[0], &send, nullptr), 0);
    ibv_send_wr with_imm = work_request(IBV_WR_SEND_WITH_IMM, &sge, 2, nullptr);
    with_imm.imm_data = 0xCAFEF00D;
    ASSERT_EQ(bench.driver(0).ibv_post_send(bench.a.qps[0], &with_imm, nullptr), 0);
    for (std::uint64_t id : {1, 2}) {
      const ibv_wc wc = bench.next_completion(0, bench.a.send_cq);
      EXPECT_EQ(wc.status, IBV_WC_SUCCESS);
      EXPECT_EQ(wc.opcode, IBV_WC_SEND);
      EXPECT_EQ(wc.wr_id, id);
    }
    ibv_wc r = bench.next_completion(1, bench.b.recv_cq);
    EXPECT_EQ(r.status, IBV_WC_SUCCESS);
    EXPECT_EQ(r.opcode, IBV_WC_RECV);
    EXPECT_EQ(r.byte_len, 5000U);
    EXPECT_EQ(r.wr_id, 77U);
    EXPECT_EQ(r.wc_flags & IBV_WC_WITH_IMM, 0U);
    r = bench.next_completion(1, bench.b.recv_cq);
    EXPECT_EQ(r.byte_len, 5000U);
    EXPECT_EQ(r.imm_data, 0xCAFEF00DU);
    EXPECT_EQ(r.wc_flags & IBV_WC_WITH_IMM, IBV_WC_WITH_IMM);
    EXPECT_EQ(bench.contents(dst, 0, 5000), pattern(5000, 1));
  });
}

TEST(RcVerbs, WriteWithImmediateConsumesAReceiveAndReportsTheLength) {
  RcBench bench;
  bench.run([&] {
    bench.connect();
    const Buffer src = bench.buffer(0, 3000, kAllAccess);
    const Buffer dst = bench.buffer(1, 3000, kAllAccess);
    bench.fill(src, pattern(3000, 5));
    ibv_recv_wr recv;
    recv.wr_id = 5;
    ASSERT_EQ(bench.driver(1).ibv_post_recv(bench.b.qps[0], &recv, nullptr), 0);
    const ibv_sge sge = sge_of(src, 3000);
    ibv_send_wr wr = work_request(IBV_WR_RDMA_WRITE_WITH_IMM, &sge, 9, &dst);
    wr.imm_data = 0x12345678;
    ASSERT_EQ(bench.driver(0).ibv_post_send(bench.a.qps[0], &wr, nullptr), 0);
    EXPECT_EQ(bench.next_completion(0, bench.a.send_cq).opcode, IBV_WC_RDMA_WRITE);
    const ibv_wc r = bench.next_completion(1, bench.b.recv_cq);
    EXPECT_EQ(r.opcode, IBV_WC_RECV_RDMA_WITH_IMM);
    EXPECT_EQ(r.byte_len, 3000U);
    EXPECT_EQ(r.imm_data, 0x12345678U);
    EXPECT_EQ(bench.contents(dst, 0, 3000), pattern(3000, 5));
  });
}

std::uint64_t load64(const std::vector<std::uint8_t>& b) {
  std::uint64_t v = 0;
  for (int i = 0; i < 8; ++i) v |= static_cast<std::uint64_t>(b[static_cast<std::size_t>(i)]) << (8 * i);
  return v;
}

std::vector<std::uint8_t> store64(std::uint64_t v) {
  std::vector<std::uint8_t> b(8);
  for (int i = 0; i < 8; ++i) b[static_cast<std::size_t>(i)] = static_cast<std::uint8_t>(v >> (8 * i));
  return b;
}

TEST(RcVerbs, AtomicsReturnTheOriginalAndUpdateTheRemoteWord) {
  RcBench bench;
  bench.run([&] {
    bench.connect();
    const Buffer local = bench.buffer(0, 16, kAllAccess);
    const Buffer remote = bench.buffer(1, 16, kAllAccess);
    bench.fill(remote, store64(100));
    ibv_sge sge = sge_of(local, 8);
    ibv_send_wr add = work_request(IBV_WR_ATOMIC_FETCH_AND_ADD, &sge, 1, &remote);
    add.atomic.compare_add = 5;
    ASSERT_EQ(bench.driver(0).ibv_post_send(bench.a.qps[0], &add, nullptr), 0);
    ibv_wc wc = bench.next_completion(0, bench.a.send_cq);
    EXPECT_EQ(wc.status, IBV_WC_SUCCESS);
    EXPECT_EQ(wc.opcode, IBV_WC_FETCH_ADD);
    EXPECT_EQ(load64(bench.contents(local, 0, 8)), 100U);
    EXPECT_EQ(load64(bench.contents(remote, 0, 8)), 105U);
    sge = sge_of(local, 8, 8);
    ibv_send_wr swap = work_request(IBV_WR_ATOMIC_CMP_AND_SWP, &sge, 2, &remote);
    swap.atomic.compare_add = 105;
    swap.atomic.swap = 7;
    ASSERT_EQ(bench.driver(0).ibv_post_send(bench.a.qps[0], &swap, nullptr), 0);
    ibv_send_wr miss = swap;  // compares against 7 now: no swap
    miss.wr_id = 3;
    miss.atomic.swap = 9;
    ASSERT_EQ(bench.driver(0).ibv_post_send(bench.a.qps[0], &miss, nullptr), 0);
    wc = bench.next_completion(0, bench.a.send_cq);
    EXPECT_EQ(wc.opcode, IBV_WC_COMP_SWAP);
    wc = bench.next_completion(0, bench.a.send_cq);
    EXPECT_EQ(wc.wr_id, 3U);
    EXPECT_EQ(load64(bench.contents(local, 8, 8)), 7U);  // the second one's original
    EXPECT_EQ(load64(bench.contents(remote, 0, 8)), 7U);
  });
}

TEST(RcVerbs, InlineAndUnsignaledWorkCompletesOnlyWhereSignaled) {
  RcBench bench;
  bench.run([&] {
    bench.connect();
    const Buffer src = bench.buffer(0, 200, kAllAccess);
    const Buffer dst = bench.buffer(1, 800, kAllAccess);
    bench.fill(src, pattern(200, 2));
    const ibv_sge sge = sge_of(src, 200);
    for (std::uint64_t i = 0; i < 4; ++i) {
      ibv_send_wr wr = work_request(IBV_WR_RDMA_WRITE, &sge, i, &dst);
      wr.rdma.remote_addr = dst.va + 200 * i;
      wr.send_flags = IBV_SEND_INLINE | (i == 3 ? std::uint32_t{IBV_SEND_SIGNALED} : 0u);
      ASSERT_EQ(bench.driver(0).ibv_post_send(bench.a.qps[0], &wr, nullptr), 0);
    }
    // The source changes after posting: inline data was copied at the post.
    bench.fill(src, pattern(200, 99));
    const ibv_wc wc = bench.next_completion(0, bench.a.send_cq);
    EXPECT_EQ(wc.wr_id, 3U);
    for (std::uint64_t i = 0; i < 4; ++i) EXPECT_EQ(bench.contents(dst, 200 * i, 200), pattern(200, 2));
    ibv_wc none;
    EXPECT_EQ(bench.driver(0).ibv_poll_cq(bench.a.send_cq, 1, &none), 0);
    EXPECT_GT(bench.testbed().node(0).nic.transport.stats().blueflame_writes, 0U);
  });
}

TEST(RcVerbs, ManyQpsInterleaveOnTheWireAndEachCompletes) {
  RcBench bench;
  bench.run([&] {
    RcOptions options;
    options.qps = 16;
    bench.connect(options);
    const Buffer src = bench.buffer(0, 16 * 4096, kAllAccess);
    const Buffer dst = bench.buffer(1, 16 * 4096, kAllAccess);
    bench.fill(src, pattern(16 * 4096, 4));
    std::vector<ibv_sge> sges(16);
    for (std::uint32_t q = 0; q < 16; ++q) {
      sges[q] = sge_of(src, 4096, 4096 * q);
      ibv_send_wr wr = work_request(IBV_WR_RDMA_WRITE, &sges[q], q, &dst);
      wr.rdma.remote_addr = dst.va + 4096 * q;
      ASSERT_EQ(bench.driver(0).ibv_post_send(bench.a.qps[q], &wr, nullptr), 0);
    }
    std::vector<bool> seen(16, false);
    for (int i = 0; i < 16; ++i) {
      const ibv_wc wc = bench.next_completion(0, bench.a.send_cq);
      EXPECT_EQ(wc.status, IBV_WC_SUCCESS);
      ASSERT_LT(wc.wr_id, 16U);
      EXPECT_FALSE(seen[wc.wr_id]);
      seen[wc.wr_id] = true;
      EXPECT_EQ(wc.qp_num, bench.a.qps[wc.wr_id]->qp_num);
    }
    EXPECT_EQ(bench.contents(dst, 0, 16 * 4096), pattern(16 * 4096, 4));
  });
}

TEST(RcVerbs, ABadRkeyIsARemoteAccessErrorAndTheRestIsFlushed) {
  RcBench bench;
  bench.run([&] {
    bench.connect();
    const Buffer src = bench.buffer(0, 100, kAllAccess);
    const Buffer dst = bench.buffer(1, 100, kAllAccess);
    const ibv_sge sge = sge_of(src, 100);
    ibv_send_wr bad = work_request(IBV_WR_RDMA_WRITE, &sge, 1, &dst);
    bad.rdma.rkey ^= 0x100;  // another MPT index: no such region
    ibv_send_wr next = work_request(IBV_WR_RDMA_WRITE, &sge, 2, &dst);
    next.send_flags = 0;  // flushed WQEs complete even unsignaled
    ASSERT_EQ(bench.driver(0).ibv_post_send(bench.a.qps[0], &bad, nullptr), 0);
    ASSERT_EQ(bench.driver(0).ibv_post_send(bench.a.qps[0], &next, nullptr), 0);
    ibv_wc wc = bench.next_completion(0, bench.a.send_cq);
    EXPECT_EQ(wc.wr_id, 1U);
    EXPECT_EQ(wc.status, IBV_WC_REM_ACCESS_ERR);
    wc = bench.next_completion(0, bench.a.send_cq);
    EXPECT_EQ(wc.wr_id, 2U);
    EXPECT_EQ(wc.status, IBV_WC_WR_FLUSH_ERR);
    EXPECT_EQ(bench.contents(dst, 0, 100), std::vector<std::uint8_t>(100, 0));
    EXPECT_EQ(bench.testbed().node(0).nic.transport.contexts().qp(bench.a.qps[0]->qp_num)->state,
              IBV_QPS_ERR);
    EXPECT_EQ(bench.testbed().node(1).nic.transport.contexts().qp(bench.b.qps[0]->qp_num)->state,
              IBV_QPS_ERR);
  });
}

TEST(RcVerbs, AWriteWithoutRemoteWriteRightsIsARemoteAccessError) {
  RcBench bench;
  bench.run([&] {
    bench.connect();
    const Buffer src = bench.buffer(0, 200, kAllAccess);
    const Buffer dst = bench.buffer(1, 100, IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_READ);
    const ibv_sge sge = sge_of(src, 50);
    ibv_send_wr no_right = work_request(IBV_WR_RDMA_WRITE, &sge, 1, &dst);
    ASSERT_EQ(bench.driver(0).ibv_post_send(bench.a.qps[0], &no_right, nullptr), 0);
    EXPECT_EQ(bench.next_completion(0, bench.a.send_cq).status, IBV_WC_REM_ACCESS_ERR);
  });
}

TEST(RcVerbs, ASendLongerThanTheReceiveIsAnInvalidRequestAtBothEnds) {
  RcBench bench;
  bench.run([&] {
    bench.connect();
    const Buffer src = bench.buffer(0, 3000, kAllAccess);
    const Buffer dst = bench.buffer(1, 1000, kAllAccess);
    const ibv_sge recv_sge = sge_of(dst, 1000);
    ibv_recv_wr recv;
    recv.wr_id = 11;
    recv.sg_list = &recv_sge;
    recv.num_sge = 1;
    ASSERT_EQ(bench.driver(1).ibv_post_recv(bench.b.qps[0], &recv, nullptr), 0);
    recv.wr_id = 12;
    ASSERT_EQ(bench.driver(1).ibv_post_recv(bench.b.qps[0], &recv, nullptr), 0);
    const ibv_sge sge = sge_of(src, 3000);
    ibv_send_wr send = work_request(IBV_WR_SEND, &sge, 1, nullptr);
    ASSERT_EQ(bench.driver(0).ibv_post_send(bench.a.qps[0], &send, nullptr), 0);
    EXPECT_EQ(bench.next_completion(0, bench.a.send_cq).status, IBV_WC_REM_INV_REQ_ERR);
    ibv_wc r = bench.next_completion(1, bench.b.recv_cq);
    EXPECT_EQ(r.wr_id, 11U);
    EXPECT_EQ(r.status, IBV_WC_LOC_LEN_ERR);
    r = bench.next_completion(1, bench.b.recv_cq);
    EXPECT_EQ(r.wr_id, 12U);
    EXPECT_EQ(r.status, IBV_WC_WR_FLUSH_ERR);
  });
}

TEST(RcVerbs, ReceiverNotReadyRetriesUntilAReceiveIsPosted) {
  RcBench bench;
  bench.run([&] {
    RcOptions options;
    options.min_rnr_timer = 1;  // 10 us
    options.rnr_retry = 3;
    bench.connect(options);
    const Buffer src = bench.buffer(0, 64, kAllAccess);
    const Buffer dst = bench.buffer(1, 64, kAllAccess);
    bench.fill(src, pattern(64, 8));
    const ibv_sge sge = sge_of(src, 64);
    ibv_send_wr send = work_request(IBV_WR_SEND, &sge, 1, nullptr);
    ASSERT_EQ(bench.driver(0).ibv_post_send(bench.a.qps[0], &send, nullptr), 0);
    sc_core::wait(15, sc_core::SC_US);  // one RNR NAK and one retry go by
    const ibv_sge recv_sge = sge_of(dst, 64);
    ibv_recv_wr recv;
    recv.sg_list = &recv_sge;
    recv.num_sge = 1;
    ASSERT_EQ(bench.driver(1).ibv_post_recv(bench.b.qps[0], &recv, nullptr), 0);
    EXPECT_EQ(bench.next_completion(0, bench.a.send_cq).status, IBV_WC_SUCCESS);
    EXPECT_EQ(bench.contents(dst, 0, 64), pattern(64, 8));
    EXPECT_GE(bench.testbed().node(1).nic.transport.stats().rnr_naks_sent, 2U);
  });
}

TEST(RcVerbs, ReceiverNotReadyEndsInRnrRetryExceeded) {
  RcBench bench;
  bench.run([&] {
    RcOptions options;
    options.min_rnr_timer = 1;
    options.rnr_retry = 2;
    bench.connect(options);
    const Buffer src = bench.buffer(0, 64, kAllAccess);
    const ibv_sge sge = sge_of(src, 64);
    ibv_send_wr send = work_request(IBV_WR_SEND, &sge, 1, nullptr);
    ASSERT_EQ(bench.driver(0).ibv_post_send(bench.a.qps[0], &send, nullptr), 0);
    EXPECT_EQ(bench.next_completion(0, bench.a.send_cq).status, IBV_WC_RNR_RETRY_EXC_ERR);
    EXPECT_EQ(bench.testbed().node(1).nic.transport.stats().rnr_naks_sent, 3U);  // first try + 2 retries
    // The responder has no retry timer: its QP stays in RTS.
    EXPECT_EQ(bench.testbed().node(1).nic.transport.contexts().qp(bench.b.qps[0]->qp_num)->state,
              IBV_QPS_RTS);
  });
}

}  // namespace
}  // namespace rnicsim
