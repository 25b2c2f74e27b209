// The requester's engines (transport.requester_engines,
// transport.engine_assignment), seen on the wire and in their occupancy:
// several QPs post small WRITEs at once; each QP's packets still leave in
// PSN order, every byte lands, and the engines share the work as assigned.
#include <map>
#include <string>
#include <vector>

#include "formats/frame.hpp"
#include "system/rc_bench.hpp"

namespace rnicsim {
namespace {

using testing::Buffer;
using testing::kAllAccess;
using testing::pattern;
using testing::RcBench;

constexpr std::uint32_t kQps = 6;
constexpr std::uint32_t kWrites = 40;  // per QP, posted as one list
constexpr std::uint32_t kWriteBytes = 256;

struct EnginesRun {
  bool in_psn_order = true;   // each QP's request PSNs rise by one on the wire
  std::uint64_t packets = 0;  // request packets on the wire
  bool data_arrived = false;  // node b's buffer holds every byte
  std::vector<sc_core::sc_time> engine_busy;
  sc_core::sc_time requester_busy;
  std::vector<std::uint32_t> qpns;  // node a's QP numbers
  sc_core::sc_time started;         // when the first WRITE was posted
  sc_core::sc_time finished;        // when the last completion was polled
};

EnginesRun run(std::uint32_t engines, const std::string& assignment) {
  RcBench bench(config::Json{
      {"transport", {{"requester_engines", engines}, {"engine_assignment", assignment}}},
      // The host's CPU costs nothing: the NIC binds.
      {"verbs",
       {{"blueflame_bytes", 0}, {"post_send_ns", 0}, {"poll_cq_ns", 0}, {"mmio_write_ns", 0}}}});
  EnginesRun out;
  std::map<std::uint32_t, std::uint32_t> last_psn;  // by destination QP
  bench.testbed().wire_to(1).set_tap([&](const Transfer& frame, const sc_core::sc_time&) {
    const packet::ParseResult parsed =
        packet::parse_frame(frame.bytes()->data(), frame.bytes()->size());
    ASSERT_TRUE(parsed.ok());
    const packet::Bth& bth = parsed.packet.bth;
    const auto seen = last_psn.find(bth.dest_qp);
    if (seen != last_psn.end() && bth.psn != ((seen->second + 1) & 0xFFFFFF))
      out.in_psn_order = false;
    last_psn[bth.dest_qp] = bth.psn;
    ++out.packets;
  });
  bench.run([&] {
    RcOptions options;
    options.qps = kQps;
    options.cap.max_send_wr = kWrites;
    options.cq_entries = kQps * kWrites;
    bench.connect(options);
    const std::uint64_t bytes = std::uint64_t{kQps} * kWrites * kWriteBytes;
    const Buffer src = bench.buffer(0, bytes, kAllAccess);
    const Buffer dst = bench.buffer(1, bytes, kAllAccess);
    bench.fill(src, pattern(bytes, 5));
    // One list per QP, each with one doorbell, so that every QP has its
    // WQEs to fetch at once.
    std::vector<ibv_sge> sges(std::size_t{kQps} * kWrites);
    std::vector<ibv_send_wr> wrs(sges.size());
    for (std::uint32_t i = 0; i < kQps * kWrites; ++i) {
      const std::uint64_t at = std::uint64_t{i} * kWriteBytes;
      sges[i] = ibv_sge{src.va + at, kWriteBytes, src.mr->lkey};
      ibv_send_wr& wr = wrs[i];
      wr.wr_id = at;
      wr.opcode = IBV_WR_RDMA_WRITE;
      wr.sg_list = &sges[i];
      wr.num_sge = 1;
      wr.send_flags = IBV_SEND_SIGNALED;
      wr.rdma.remote_addr = dst.va + at;
      wr.rdma.rkey = dst.mr->rkey;
      if ((i + 1) % kWrites != 0) wr.next = &wrs[i + 1];
    }
    out.started = sc_core::sc_time_stamp();
    for (std::uint32_t q = 0; q < kQps; ++q)
      ASSERT_EQ(bench.driver(0).ibv_post_send(bench.a.qps[q], &wrs[q * kWrites], nullptr), 0);
    for (std::uint32_t i = 0; i < kQps * kWrites; ++i)
      ASSERT_EQ(bench.next_completion(0, bench.a.send_cq).status, IBV_WC_SUCCESS);
    out.finished = sc_core::sc_time_stamp();
    out.data_arrived = bench.contents(dst, 0, bytes) == pattern(bytes, 5);
    for (std::uint32_t q = 0; q < kQps; ++q) out.qpns.push_back(bench.a.qps[q]->qp_num);
  });
  Nic& nic = bench.testbed().node(0).nic;
  out.engine_busy = nic.requester.engine_busy();
  out.requester_busy = nic.transport.stats().requester_busy;
  return out;
}

void expect_correct(const EnginesRun& r) {
  EXPECT_TRUE(r.data_arrived);
  EXPECT_TRUE(r.in_psn_order);
  EXPECT_EQ(r.packets, std::uint64_t{kQps} * kWrites);  // one packet per WRITE, none resent
  sc_core::sc_time sum;
  for (const sc_core::sc_time& busy : r.engine_busy) sum += busy;
  EXPECT_EQ(sum, r.requester_busy);
}

TEST(RequesterEngines, OneEngineIsTheDefaultAndDoesEveryTurn) {
  const EnginesRun r = run(1, "static");
  expect_correct(r);
  ASSERT_EQ(r.engine_busy.size(), 1U);
  EXPECT_GT(r.engine_busy[0], sc_core::SC_ZERO_TIME);
}

TEST(RequesterEngines, StaticAssignmentKeepsEachQpOnEngineQpnModuloEngines) {
  constexpr std::uint32_t kEngines = 8;  // more engines than QPs: some get none
  const EnginesRun r = run(kEngines, "static");
  expect_correct(r);
  ASSERT_EQ(r.engine_busy.size(), kEngines);
  std::vector<bool> has_qp(kEngines, false);
  for (std::uint32_t qpn : r.qpns) has_qp[qpn % kEngines] = true;
  for (std::uint32_t e = 0; e < kEngines; ++e) {
    if (has_qp[e]) {
      EXPECT_GT(r.engine_busy[e], sc_core::SC_ZERO_TIME) << "engine " << e;
    } else {
      EXPECT_EQ(r.engine_busy[e], sc_core::SC_ZERO_TIME) << "engine " << e;
    }
  }
}

TEST(RequesterEngines, DynamicAssignmentUsesFreeEnginesAndKeepsEachQpInOrder) {
  const EnginesRun r = run(3, "dynamic");
  expect_correct(r);
  for (const sc_core::sc_time& busy : r.engine_busy) EXPECT_GT(busy, sc_core::SC_ZERO_TIME);
}

TEST(RequesterEngines, FourEnginesWorkAtTheSameTime) {
  // Six QPs' WQEs, fetched by DMA: the engines' turns overlap, so their busy
  // time summed exceeds the time the WRITEs took. One engine's cannot.
  const EnginesRun r = run(4, "dynamic");
  expect_correct(r);
  EXPECT_GT(r.requester_busy, r.finished - r.started);
}

TEST(RequesterEngines, OneEngineIsNeverBusyLongerThanTheRun) {
  const EnginesRun r = run(1, "static");
  EXPECT_LT(r.requester_busy, r.finished - r.started);
}

}  // namespace
}  // namespace rnicsim
