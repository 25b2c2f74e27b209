// The requester's QP scheduler (transport.qp_scheduler), seen on the wire:
// two QPs each post a list of WRITEs at once; round robin sends their packets
// alternately, strict priority every packet of the lower QP number first.
#include <algorithm>
#include <string>
#include <vector>

#include "formats/frame.hpp"
#include "system/rc_bench.hpp"

namespace rnicsim {
namespace {

using testing::Buffer;
using testing::pattern;
using testing::RcBench;

using testing::kAllAccess;
constexpr std::uint32_t kWrites = 6;          // per QP, posted as one list
constexpr std::uint32_t kWriteBytes = 8192;   // 8 packets at PMTU 1024
constexpr std::uint32_t kPacketsPerQp = kWrites * kWriteBytes / 1024;

// Node a's request packets as they go on the wire, by the index (0 or 1) of
// the QP that sent them, and whether node b's buffer holds every byte after.
struct WireOrder {
  std::vector<int> qp;
  bool data_arrived = false;
};

// `scheduler` empty: the default configuration.
WireOrder run_two_qps(const std::string& scheduler) {
  RcBench bench(scheduler.empty()
                    ? config::Json::object()
                    : config::Json{{"transport", {{"qp_scheduler", scheduler}}}});
  WireOrder order;
  std::vector<std::uint32_t> peer_qpn;
  bench.testbed().wire_to(1).set_tap([&](const Transfer& frame, const sc_core::sc_time&) {
    const packet::ParseResult parsed =
        packet::parse_frame(frame.bytes()->data(), frame.bytes()->size());
    ASSERT_TRUE(parsed.ok());
    const auto q = std::find(peer_qpn.begin(), peer_qpn.end(), parsed.packet.bth.dest_qp);
    ASSERT_NE(q, peer_qpn.end()) << "a frame for QP " << parsed.packet.bth.dest_qp;
    order.qp.push_back(static_cast<int>(q - peer_qpn.begin()));
  });
  bench.run([&] {
    RcOptions options;
    options.qps = 2;
    bench.connect(options);
    peer_qpn = {bench.b.qps[0]->qp_num, bench.b.qps[1]->qp_num};
    const std::uint64_t bytes = std::uint64_t{2} * kWrites * kWriteBytes;
    const Buffer src = bench.buffer(0, bytes, kAllAccess);
    const Buffer dst = bench.buffer(1, bytes, kAllAccess);
    bench.fill(src, pattern(bytes, 8));
    std::vector<ibv_sge> sges(2 * kWrites);
    std::vector<ibv_send_wr> wrs(2 * kWrites);
    for (std::uint32_t i = 0; i < 2 * kWrites; ++i) {
      sges[i] = ibv_sge{src.va + std::uint64_t{i} * kWriteBytes, kWriteBytes, src.mr->lkey};
      ibv_send_wr& wr = wrs[i];
      wr.wr_id = i;
      wr.opcode = IBV_WR_RDMA_WRITE;
      wr.sg_list = &sges[i];
      wr.num_sge = 1;
      wr.send_flags = IBV_SEND_SIGNALED;
      wr.rdma.remote_addr = dst.va + std::uint64_t{i} * kWriteBytes;
      wr.rdma.rkey = dst.mr->rkey;
      if (i % kWrites + 1 < kWrites) wr.next = &wrs[i + 1];
    }
    // One list per QP, each rung with one doorbell, back to back.
    for (std::uint32_t q = 0; q < 2; ++q)
      ASSERT_EQ(bench.driver(0).ibv_post_send(bench.a.qps[q], &wrs[q * kWrites], nullptr), 0);
    for (std::uint32_t i = 0; i < 2 * kWrites; ++i)
      EXPECT_EQ(bench.next_completion(0, bench.a.send_cq).status, IBV_WC_SUCCESS);
    order.data_arrived = bench.contents(dst, 0, bytes) == pattern(bytes, 8);
  });
  return order;
}

std::string text(const std::vector<int>& order) {
  std::string s;
  for (int q : order) s += static_cast<char>('0' + q);
  return s;
}

// Round robin: QP 0's list is posted first, so it may send a packet or two
// before QP 1's WQEs are fetched; from QP 1's first packet the two take
// turns, one packet each, until QP 0 is done, and QP 1 sends what is left.
void expect_round_robin(const WireOrder& order) {
  EXPECT_TRUE(order.data_arrived);
  const std::string got = text(order.qp);
  const std::size_t head_start = got.find('1');
  ASSERT_NE(head_start, std::string::npos) << got;
  EXPECT_GE(head_start, 1U) << got;
  EXPECT_LE(head_start, 3U) << got;
  std::string expected(head_start, '0');
  for (std::size_t i = head_start; i < kPacketsPerQp; ++i) expected += "10";
  expected += std::string(head_start, '1');
  EXPECT_EQ(got, expected);
}

TEST(QpScheduler, RoundRobinAlternatesTheTwoQpsPacketByPacket) {
  expect_round_robin(run_two_qps("round_robin"));
}

TEST(QpScheduler, RoundRobinIsTheDefault) { expect_round_robin(run_two_qps("")); }

TEST(QpScheduler, StrictPrioritySendsEveryPacketOfTheLowerQpFirst) {
  const WireOrder order = run_two_qps("strict_priority");
  EXPECT_TRUE(order.data_arrived);
  EXPECT_EQ(text(order.qp),
            std::string(kPacketsPerQp, '0') + std::string(kPacketsPerQp, '1'));
}

}  // namespace
}  // namespace rnicsim
