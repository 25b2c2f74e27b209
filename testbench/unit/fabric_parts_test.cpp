// The fabric's kernel-free parts: PFC frames, the forwarding rewrite and CE
// marks, pause timers, the buffer manager's dynamic threshold, DWRR shares,
// the RED line and ECMP hashing.
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <set>

#include "common/time_units.hpp"
#include "formats/frame.hpp"
#include "formats/icrc.hpp"
#include "formats/ip_fields.hpp"
#include "formats/mac_control.hpp"
#include "switch/buffer_manager.hpp"
#include "switch/egress_scheduler.hpp"
#include "switch/red_marker.hpp"
#include "switch/routing.hpp"
#include "wire/pfc.hpp"
#include "wire/pfc_unit.hpp"

namespace rnicsim {
namespace {

TEST(PfcFrame, HasThe8021QbbLayoutAndDecodesBack) {
  packet::PfcPause pause;
  pause.enabled = 0x09;
  pause.quanta[0] = 0xFFFF;
  pause.quanta[3] = 0x0102;
  const std::vector<std::uint8_t> f = encode_pfc({2, 0, 0, 0, 0, 7}, pause);
  ASSERT_EQ(f.size(), 60u);
  EXPECT_EQ(std::vector<std::uint8_t>(f.begin(), f.begin() + 6),
            (std::vector<std::uint8_t>{0x01, 0x80, 0xC2, 0x00, 0x00, 0x01}));
  EXPECT_EQ(f[12], 0x88);
  EXPECT_EQ(f[13], 0x08);
  EXPECT_EQ(f[14], 0x01);  // opcode 0x0101
  EXPECT_EQ(f[15], 0x01);
  EXPECT_EQ(f[16], 0x00);  // class-enable vector 0x0009
  EXPECT_EQ(f[17], 0x09);
  EXPECT_EQ(f[18], 0xFF);  // priority 0's time
  EXPECT_EQ(f[24], 0x01);  // priority 3's time, 0x0102
  EXPECT_EQ(f[25], 0x02);
  const auto back = packet::decode_pfc(f.data(), f.size());
  ASSERT_TRUE(back.has_value());
  EXPECT_EQ(*back, pause);
  std::vector<std::uint8_t> plain_pause = f;
  plain_pause[15] = 0x01;
  plain_pause[14] = 0x00;  // 802.3x PAUSE, opcode 0x0001: not PFC
  EXPECT_FALSE(packet::decode_pfc(plain_pause.data(), plain_pause.size()).has_value());
  EXPECT_TRUE(packet::is_mac_control(plain_pause.data(), plain_pause.size()));
}

TEST(PfcUnit, APauseLastsItsQuantaTimes512BitTimesAndAResumeEndsIt) {
  PfcConfig config;
  config.enabled = true;
  const auto unit = make_model_pfc_unit(config, 100, {2, 0, 0, 0, 0, 9});
  packet::PfcPause pause;
  pause.enabled = 0x08;
  pause.quanta[3] = 1000;  // 512,000 bits at 100 Gbit/s: 5.12 us
  const std::vector<std::uint8_t> pause_frame = packet::encode_pfc({2, 0, 0, 0, 0, 1}, pause);
  const std::uint64_t t0 = 100'000;
  const PfcReceived received = unit->receive(pause_frame.data(), pause_frame.size(), t0);
  EXPECT_TRUE(received.control);
  EXPECT_EQ(received.pauses, 0x08);
  EXPECT_EQ(unit->paused(), 0x08);
  EXPECT_EQ(unit->resume_in_ps(), 5'120'000u);
  unit->advance(t0 + 5'119'999);
  EXPECT_EQ(unit->paused(), 0x08);
  unit->advance(t0 + 5'120'000);
  EXPECT_EQ(unit->paused(), 0);
  unit->receive(pause_frame.data(), pause_frame.size(), t0 + 6'000'000);
  packet::PfcPause resume;
  resume.enabled = 0x08;
  const std::vector<std::uint8_t> resume_frame = packet::encode_pfc({2, 0, 0, 0, 0, 1}, resume);
  EXPECT_EQ(unit->receive(resume_frame.data(), resume_frame.size(), t0 + 7'000'000).resumes, 0x08);
  EXPECT_EQ(unit->paused(), 0);
  EXPECT_EQ(unit->paused_ps(3, t0 + 9'000'000), 5'120'000u + 1'000'000u);
  EXPECT_EQ(pause_ps(65535, 100), 335'539'200u);  // 335.5 us
  EXPECT_EQ(whole_quantum_ps(100), 5120u);
  EXPECT_EQ(whole_quantum_ps(400), 1280u);
  EXPECT_FALSE(whole_quantum_ps(3).has_value());
  // A whole quantum, but 65535 of them round up in the model's pause time.
  EXPECT_FALSE(whole_quantum_ps(512000.0 / 16777215).has_value());
}

std::vector<std::uint8_t> roce_frame(std::uint8_t tos) {
  packet::RocePacket p;
  p.ethernet.destination = {2, 0, 0, 0, 0, 2};
  p.ethernet.source = {2, 0, 0, 0, 0, 1};
  packet::Ipv4Header ip;
  ip.source = 0xC0A80001;
  ip.destination = 0xC0A80002;
  ip.tos = tos;
  p.ip = ip;
  p.udp.source_port = 0xC011;
  p.bth.opcode = 0x0A;  // RC RDMA WRITE ONLY
  p.bth.dest_qp = 0x11;
  p.reth = packet::Reth{};
  const std::vector<std::uint8_t> payload(100, 0x5A);
  return packet::build_frame(p, payload.data(), payload.size());
}

TEST(IpFields, ForwardingAndACeMarkKeepTheChecksumAndTheIcrcGood) {
  std::vector<std::uint8_t> f = roce_frame(0x02);  // DSCP 0, ECT(0)
  const auto ip = packet::ipv4_offset(f.data(), f.size());
  ASSERT_EQ(ip, std::optional<std::size_t>(14));
  EXPECT_EQ(packet::ipv4_ecn(f.data(), *ip), packet::Ecn::kEct0);
  const std::uint8_t ttl = packet::ipv4_ttl(f.data(), *ip);
  packet::forward_ipv4(f.data(), *ip, {2, 0x5e, 0, 0, 0, 1}, {2, 0, 0, 0, 0, 2});
  EXPECT_TRUE(packet::mark_congestion_experienced(f.data(), *ip));
  EXPECT_EQ(packet::ipv4_ttl(f.data(), *ip), ttl - 1);
  EXPECT_EQ(packet::ipv4_ecn(f.data(), *ip), packet::Ecn::kCe);
  EXPECT_EQ(f[6], 2);
  EXPECT_EQ(f[7], 0x5e);
  const packet::ParseResult parsed = packet::parse_frame(f.data(), f.size());
  EXPECT_TRUE(parsed.ok()) << (parsed.error ? packet::to_string(*parsed.error) : "");
  // Not ECN-capable: never marked.
  std::vector<std::uint8_t> plain = roce_frame(0x00);
  EXPECT_FALSE(packet::mark_congestion_experienced(plain.data(), 14));
  EXPECT_EQ(plain, roce_frame(0x00));
}

// Choudhury and Hahne: N queues congested together each settle at
// alpha B / (1 + N alpha); two of them at alpha / (1 + 2 alpha) of the pool.
TEST(BufferManager, TwoCongestedQueuesSettleAtTheDynamicThresholdsFixedPoint) {
  for (const double alpha : {0.5, 1.0, 2.0}) {
    BufferConfig c;
    c.buffer_bytes = 1 << 20;
    c.alpha = alpha;
    BufferManager buffer(c, 4, 4);
    // Both queues offered frames faster than they drain: arrivals alternate,
    // one departure per queue for every three arrivals.
    std::vector<BufferCharge> held[2];
    for (int round = 0; round < 20000; ++round) {
      for (std::uint16_t q = 0; q < 2; ++q) {
        for (int a = 0; a < 3; ++a) {
          const auto admission = buffer.admit(0, 0, q, 0, 256);
          if (admission.drop == DropCause::kNone) held[q].push_back(admission.charge);
        }
        if (!held[q].empty()) {
          buffer.release(held[q].front());
          held[q].erase(held[q].begin());
        }
      }
    }
    const double expected =
        alpha / (1 + 2 * alpha) * static_cast<double>(buffer.shared_pool_bytes());
    for (std::uint16_t q = 0; q < 2; ++q) {
      // Exact to within the frame that would cross the threshold, and the one departure.
      EXPECT_NEAR(static_cast<double>(buffer.queue_bytes(q, 0)), expected, 2 * 256.0)
          << "alpha " << alpha << " queue " << q;
    }
  }
}

TEST(BufferManager, LosslessIngressTakesHeadroomOnlyPastXoffAndAsksForAPause) {
  BufferConfig c;
  c.buffer_bytes = 100000;
  c.headroom_bytes = 3000;
  c.pfc.enabled = true;
  c.pfc.xoff_bytes = 2000;
  c.pfc.xon_bytes = 1000;
  BufferManager buffer(c, 2, 2);
  std::vector<BufferCharge> held;
  for (int i = 0; i < 3; ++i) held.push_back(buffer.admit(0, 3, 1, 3, 1000).charge);
  EXPECT_TRUE(buffer.over_xoff(0, 3));  // 3000 > 2000
  EXPECT_EQ(buffer.pfc_level(0, 3), 3000u);
  for (int i = 0; i < 3; ++i) {
    const auto a = buffer.admit(0, 3, 1, 3, 1000);
    ASSERT_EQ(a.drop, DropCause::kNone);
    EXPECT_EQ(a.charge.headroom, 1000u);
    held.push_back(a.charge);
  }
  EXPECT_EQ(buffer.admit(0, 3, 1, 3, 1000).drop, DropCause::kHeadroom);
  for (std::size_t i = 1; i < 6; ++i) {
    EXPECT_FALSE(buffer.at_xon(0, 3)) << i;
    // While headroom is in use the level stays past any XOFF.
    EXPECT_GT(buffer.pfc_level(0, 3), c.pfc.xoff_bytes) << i;
    buffer.release(held[i]);
  }
  EXPECT_TRUE(buffer.at_xon(0, 3));  // 1000 B left, no headroom
  EXPECT_EQ(buffer.pfc_level(0, 3), 1000u);
}

TEST(EgressScheduler, DwrrWeightsOneToThreeShareTheLinkOneToThree) {
  SchedulerConfig c;
  c.strict = 0;
  c.weights = {1, 3, 1, 1, 1, 1, 1, 1};
  c.quantum_bytes = 1500;
  EgressScheduler scheduler(c);
  // Class 0 sends 1000-byte frames, class 1 1500-byte frames, both backlogged.
  std::array<std::uint32_t, 8> heads{1000, 1500, 0, 0, 0, 0, 0, 0};
  std::uint64_t bytes[2] = {0, 0};
  for (int i = 0; i < 200000; ++i) {
    const int c_picked = scheduler.pick(heads, 0);
    ASSERT_TRUE(c_picked == 0 || c_picked == 1);
    bytes[c_picked] += heads[static_cast<std::size_t>(c_picked)];
  }
  const double ratio = static_cast<double>(bytes[1]) / static_cast<double>(bytes[0]);
  EXPECT_NEAR(ratio, 3.0, 3.0 * 0.02);
  // A paused class is passed over; a strict class goes first.
  EXPECT_EQ(scheduler.pick(heads, 0x02), 0);
  SchedulerConfig strict = c;
  strict.strict = 0x80;
  EgressScheduler with_strict(strict);
  heads[7] = 64;
  EXPECT_EQ(with_strict.pick(heads, 0), 7);
  EXPECT_NE(with_strict.pick(heads, 0x80), 7);
}

// With the queue held at a fixed depth, the marked fraction over 20,000
// frames lies within 3 standard deviations, sqrt(p (1 - p) / n), of the RED
// line, at every depth from below Kmin to above Kmax.
TEST(RedMarker, TheMarkedFractionFollowsTheRedLineAtEveryDepth) {
  RedProfile red;
  red.enabled = true;
  red.kmin_bytes = 10000;
  red.kmax_bytes = 50000;
  red.pmax = 0.5;
  std::mt19937_64 random(12345);
  const int n = 20000;
  for (std::uint64_t depth = 0; depth <= 60000; depth += 5000) {
    const double p = depth < 10000 ? 0 : depth > 50000 ? 1 : 0.5 * (depth - 10000) / 40000.0;
    EXPECT_DOUBLE_EQ(red.probability(depth), p) << depth;
    int marked = 0;
    for (int i = 0; i < n; ++i) marked += red_mark(red, depth, random) ? 1 : 0;
    const double fraction = static_cast<double>(marked) / n;
    const double sigma = std::sqrt(p * (1 - p) / n);
    EXPECT_LE(std::fabs(fraction - p), 3 * sigma + 1e-12) << "depth " << depth;
  }
}

TEST(RouteTable, EcmpKeepsAFlowOnOnePathAndSpreadsSourcePortsOverAll) {
  RouteTable routes(42);
  routes.add(0xC0A80002, {4, 5, 6, 7});
  std::set<int> used;
  for (std::uint16_t qp = 0; qp < 16; ++qp) {
    packet::FiveTuple flow{0xC0A80001, 0xC0A80002, 17, static_cast<std::uint16_t>(0xC000 | qp),
                           4791};
    const int port = routes.select(flow);
    for (int again = 0; again < 10; ++again) EXPECT_EQ(routes.select(flow), port);
    used.insert(port);
  }
  EXPECT_EQ(used, (std::set<int>{4, 5, 6, 7}));
  EXPECT_EQ(routes.select({0xC0A80001, 0xC0A80009, 17, 1, 4791}), -1);
}

}  // namespace
}  // namespace rnicsim
