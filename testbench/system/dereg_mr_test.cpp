// ibv_dereg_mr as a driver command over PCIe: the NIC drops its cached
// entries of the MR when it executes DEREG_MR, so the old rkey is refused
// even though the NIC held the entry just before; the command is MMIO and
// DMA on the host's PCIe link and costs the driver verbs.command_ns.
#include "system/rc_bench.hpp"

namespace rnicsim {
namespace {

using testing::Buffer;
using testing::pattern;
using testing::RcBench;

using testing::kAllAccess;

ibv_wc_status write_100_bytes(RcBench& bench, const Buffer& src, std::uint64_t remote_va,
                              std::uint32_t rkey, std::uint64_t wr_id) {
  const ibv_sge sge{src.va, 100, src.mr->lkey};
  ibv_send_wr wr = testing::signaled_write(sge, remote_va, rkey, wr_id);
  if (bench.driver(0).ibv_post_send(bench.a.qps[0], &wr, nullptr) != 0) return IBV_WC_GENERAL_ERR;
  const ibv_wc wc = bench.next_completion(0, bench.a.send_cq);
  EXPECT_EQ(wc.wr_id, wr_id);
  return wc.status;
}

TEST(DeregMr, TheOldRkeyIsRefusedThoughTheNicHadItsEntryCached) {
  RcBench bench;
  bench.run([&] {
    bench.connect();
    const Buffer src = bench.buffer(0, 100, kAllAccess);
    const Buffer dst = bench.buffer(1, 100, kAllAccess);
    bench.fill(src, pattern(100, 6));
    const std::uint32_t rkey = dst.mr->rkey;
    const std::uint32_t index = key_index(rkey);
    const std::uint64_t first_mtt = dst.mr->first_mtt;
    Node& b = bench.testbed().node(1);
    const MemoryTranslation& translation = b.nic.translation;

    // The WRITE's translation leaves the MR's MPT entry and page in b's caches.
    ASSERT_EQ(write_100_bytes(bench, src, dst.va, rkey, 1), IBV_WC_SUCCESS);
    EXPECT_EQ(bench.contents(dst, 0, 100), pattern(100, 6));
    ASSERT_TRUE(translation.mpt_cache().peek(index).has_value());
    ASSERT_TRUE(translation.mtt_cache().peek(first_mtt).has_value());

    const pcie::PcieLinkStats link = b.host.pcie.stats();
    const std::uint64_t commands = b.nic.transport.stats().commands;
    ASSERT_EQ(bench.driver(1).ibv_dereg_mr(dst.mr), 0);
    // Over PCIe: the command doorbell (MMIO), the NIC's reads of the mailbox
    // (header, then body) and its write of the status word.
    const pcie::PcieLinkStats after = b.host.pcie.stats();
    EXPECT_EQ(after.mmio_writes - link.mmio_writes, 1U);
    EXPECT_EQ(after.read_requests - link.read_requests, 2U);
    EXPECT_EQ(after.write_requests - link.write_requests, 1U);
    EXPECT_EQ(b.nic.transport.stats().commands - commands, 1U);
    EXPECT_FALSE(translation.mpt_cache().peek(index).has_value());
    EXPECT_FALSE(translation.mtt_cache().peek(first_mtt).has_value());

    const std::uint64_t naks = b.nic.transport.stats().naks_sent;
    EXPECT_EQ(write_100_bytes(bench, src, dst.va, rkey, 2), IBV_WC_REM_ACCESS_ERR);
    EXPECT_EQ(b.nic.transport.stats().naks_sent - naks, 1U);
  });
}

TEST(DeregMr, TheDriverPaysVerbsCommandNsOfCpuTime) {
  // The same deregistration on two identical nodes whose drivers differ only
  // in verbs.command_ns: it takes exactly the difference longer on b.
  RcBench bench(config::Json{{"nodes",
                              {{"a", {{"verbs", {{"command_ns", 1000}}}}},
                               {"b", {{"verbs", {{"command_ns", 6000}}}}}}}});
  bench.run([&] {
    bench.connect();
    sc_core::sc_time took[2];
    for (std::size_t node = 0; node < 2; ++node) {
      const Buffer buffer = bench.buffer(node, 100, kAllAccess);
      const sc_core::sc_time start = sc_core::sc_time_stamp();
      ASSERT_EQ(bench.driver(node).ibv_dereg_mr(buffer.mr), 0);
      took[node] = sc_core::sc_time_stamp() - start;
    }
    EXPECT_GT(took[0], sc_core::sc_time(1000, sc_core::SC_NS));
    EXPECT_EQ(took[1] - took[0], sc_core::sc_time(5000, sc_core::SC_NS));
  });
}

TEST(DeregMr, AnMrTheDriverDoesNotHoldIsEinvalAndNoCommand) {
  RcBench bench;
  bench.run([&] {
    bench.connect();
    const std::uint64_t commands = bench.testbed().node(0).nic.transport.stats().commands;
    ibv_mr stranger{};
    EXPECT_EQ(bench.driver(0).ibv_dereg_mr(&stranger), EINVAL);
    EXPECT_EQ(bench.testbed().node(0).nic.transport.stats().commands, commands);
  });
}

}  // namespace
}  // namespace rnicsim
