// The wire on its own: framing overhead, serialization at line rate,
// propagation delay, and a receive buffer that drops rather than hold the
// sender back.
#include <gtest/gtest.h>

#include <systemc>
#include <utility>
#include <vector>

#include "block/stream_harness.hpp"
#include "block/transfer_bench.hpp"
#include "common/time_units.hpp"
#include "wire/wire_link.hpp"

namespace rnicsim {
namespace {

using testbench::make_transfer;
using testbench::PacedSource;
using testbench::RecordingSink;

TEST(WireFraming, NoneCarriesThePayloadBitsOnly) {
  const WireFraming none(WireFraming::Kind::kNone, roce_v2_write_only_ipv4());
  EXPECT_EQ(none.wire_bits(100), 100u);
}

TEST(WireFraming, RoceV2AddsHeadersPadIcrcFcsPreambleAndGap) {
  const WireFraming ethernet(WireFraming::Kind::kEthernet, roce_v2_write_only_ipv4());
  // 13 B payload padded to 16; 14 Eth + 20 IPv4 + 8 UDP + 12 BTH + 16 RETH + 16
  // + 4 ICRC + 4 FCS = 94 B frame; + 8 preamble/SFD + 12 IFG = 114 B.
  EXPECT_EQ(ethernet.wire_bits(100), 114u * 8);
  // 4096 B: the RoCEv2 goodput rule, PMTU + 82 + 16 (RETH) bytes on the wire.
  EXPECT_EQ(ethernet.wire_bits(4096 * 8), (4096u + 98u) * 8);
}

TEST(WireFraming, TcpFramesArePaddedToTheEthernetMinimum) {
  const WireFraming ethernet(WireFraming::Kind::kEthernet, tcp_ipv4());
  // 13 B: 14 + 40 + 13 + 4 = 71 B frame, + 20 = 91 B.
  EXPECT_EQ(ethernet.wire_bits(100), 91u * 8);
  // 1 B: 59 B frame padded to 64, + 20 = 84 B.
  EXPECT_EQ(ethernet.wire_bits(8), 84u * 8);
}

TEST(WireFraming, AFrameGetsFcsPaddingPreambleAndGap) {
  const WireFraming frame(WireFraming::Kind::kFrame, tcp_ipv4());
  EXPECT_EQ(frame.wire_bits(62 * 8), 86u * 8);      // a 62 B RoCEv2 ACK: 66 B with FCS, + 20
  EXPECT_EQ(frame.wire_bits(1000 * 8), 1024u * 8);  // 1000 + 4 + 20
  EXPECT_EQ(frame.wire_bits(40 * 8), 84u * 8);      // padded to 64 with FCS
}

TEST(WireFraming, RoceNamesTheWholeFrameKind) {
  EXPECT_EQ(parse_framing_kind("roce"), WireFraming::Kind::kFrame);
  EXPECT_STREQ(framing_name(WireFraming::Kind::kFrame), "roce");
  EXPECT_STREQ(framing_name(parse_framing_kind("none")), "none");
  EXPECT_STREQ(framing_name(parse_framing_kind("ethernet")), "ethernet");
  // A 4096 B RDMA WRITE ONLY frame as the builder makes it (14 + 20 + 8 + 12 +
  // 16 + 4096 + 4 ICRC = 4170 B) takes the same 4194 B as the ethernet framing
  // of its payload: + 4 FCS + 8 preamble/SFD + 12 IFG.
  const WireFraming roce(parse_framing_kind("roce"), roce_v2_write_only_ipv4());
  EXPECT_EQ(roce.wire_bits(4170 * 8), 4194u * 8);
}

// source -> wire -> (its receive buffer) -> sink, the sink taking item i no
// earlier than take_not_before[i].
struct WireBench {
  WireBench(std::vector<std::pair<sc_core::sc_time, Transfer>> items, const WireLinkConfig& config,
            WireFraming framing, std::vector<sc_core::sc_time> take_not_before = {})
      : in("in", Channel<Transfer>::kUnbounded),
        source("source", std::move(items)),
        wire("wire", config, std::move(framing)),
        sink("sink", std::move(take_not_before)) {
    source.out(in);
    wire.in(in);
    sink.in(wire.rx);
  }
  Channel<Transfer> in;
  PacedSource<Transfer> source;
  WireLink wire;
  RecordingSink<Transfer> sink;
};

TEST(WireLink, FramesSerializeBackToBackAndArriveAfterPropagation) {
  // 1000 bits at 100 Gbit/s = 10 ns on the wire, 25 ns of cable.
  std::vector<std::pair<sc_core::sc_time, Transfer>> items;
  items.emplace_back(sc_core::SC_ZERO_TIME, make_transfer(0, 1000));
  items.emplace_back(sc_core::SC_ZERO_TIME, make_transfer(1, 1000));
  items.emplace_back(nanoseconds(100), make_transfer(2, 1000));
  WireBench bench(std::move(items), WireLinkConfig{100, nanoseconds(25), 1 << 20},
                  WireFraming(WireFraming::Kind::kNone, tcp_ipv4()));
  std::vector<std::uint64_t> tapped;  // when each frame's first bit left
  bench.wire.set_tap([&](const Transfer&, const sc_core::sc_time& at) { tapped.push_back(to_ps(at)); });
  sc_core::sc_start();
  const auto& got = bench.sink.received();
  ASSERT_EQ(got.size(), 3u);
  EXPECT_EQ(to_ps(got[0].first), 35000u);
  EXPECT_EQ(to_ps(got[1].first), 45000u);
  EXPECT_EQ(to_ps(got[2].first), 135000u);
  EXPECT_EQ(bench.wire.stats().bits, 3000u);
  EXPECT_EQ(tapped, (std::vector<std::uint64_t>{0, 10000, 100000}));
  EXPECT_EQ(bench.wire.rx.stats().frames, 3u);
  EXPECT_EQ(bench.wire.rx.stats().dropped, 0u);
}

TEST(WireLink, EthernetFramingSlowsTheWireByItsOverhead) {
  // A 4096 B RoCEv2 payload occupies 4194 B on the wire: 335.52 ns at 100G.
  std::vector<std::pair<sc_core::sc_time, Transfer>> items;
  items.emplace_back(sc_core::SC_ZERO_TIME, make_transfer(0, 4096 * 8));
  items.emplace_back(sc_core::SC_ZERO_TIME, make_transfer(1, 4096 * 8));
  WireBench bench(std::move(items), WireLinkConfig{100, sc_core::SC_ZERO_TIME, 1 << 20},
                  WireFraming(WireFraming::Kind::kEthernet, roce_v2_write_only_ipv4()));
  sc_core::sc_start();
  const auto& got = bench.sink.received();
  ASSERT_EQ(got.size(), 2u);
  EXPECT_EQ(to_ps(got[0].first), 335520u);
  EXPECT_EQ(to_ps(got[1].first), 671040u);
}

TEST(WireLink, AFullReceiveBufferDropsFramesAndNeverStallsTheSender) {
  // 1000 B frames at 100 Gbit/s: 80 ns each on the wire, 10 ns of cable, so
  // frames 0-3 sent at 0 arrive at 90, 170, 250, 330 ns. The buffer holds
  // 2500 B and the receiver takes nothing before 1000 ns: frames 0 and 1 fit,
  // 2 and 3 are dropped. Frame 4, sent at 1500 ns, finds room again.
  std::vector<std::pair<sc_core::sc_time, Transfer>> items;
  for (std::uint64_t i = 0; i < 4; ++i) {
    items.emplace_back(sc_core::SC_ZERO_TIME, make_transfer(i, 8000));
  }
  items.emplace_back(nanoseconds(1500), make_transfer(4, 8000));
  WireBench bench(std::move(items), WireLinkConfig{100, nanoseconds(10), 2500},
                  WireFraming(WireFraming::Kind::kNone, tcp_ipv4()),
                  {nanoseconds(1000), nanoseconds(1000)});
  std::vector<std::uint64_t> tapped;
  bench.wire.set_tap([&](const Transfer&, const sc_core::sc_time& at) { tapped.push_back(to_ps(at)); });
  std::vector<std::pair<std::uint64_t, std::uint64_t>> drops;  // (frame, arrival ps)
  bench.wire.set_drop_handler([&](const Transfer& frame, const sc_core::sc_time& arrived) {
    drops.emplace_back(frame.index(), to_ps(arrived));
  });
  sc_core::sc_start();

  // The sender went on at line rate whatever the receiver did.
  EXPECT_EQ(tapped, (std::vector<std::uint64_t>{0, 80000, 160000, 240000, 1500000}));
  EXPECT_EQ(bench.wire.stats().blocked, sc_core::SC_ZERO_TIME);
  const auto& got = bench.sink.received();
  ASSERT_EQ(got.size(), 3u);
  EXPECT_EQ(got[0].second.index(), 0u);
  EXPECT_EQ(to_ps(got[0].first), 1000000u);
  EXPECT_EQ(got[1].second.index(), 1u);
  EXPECT_EQ(to_ps(got[1].first), 1000000u);
  EXPECT_EQ(got[2].second.index(), 4u);
  EXPECT_EQ(to_ps(got[2].first), 1590000u);
  EXPECT_EQ(drops, (std::vector<std::pair<std::uint64_t, std::uint64_t>>{{2, 250000}, {3, 330000}}));
  const ReceiveBufferStats& rx = bench.wire.rx.stats();
  EXPECT_EQ(rx.frames, 3u);
  EXPECT_EQ(rx.dropped, 2u);
  EXPECT_EQ(rx.dropped_bytes, 2000u);
  EXPECT_EQ(rx.peak_bytes, 2000u);
}

TEST(WireLink, AFrameFillingTheBufferExactlyIsKept) {
  // 2500 B buffer: a 1500 B frame and a 1000 B frame arriving while the first
  // is held fill it exactly; both are kept.
  std::vector<std::pair<sc_core::sc_time, Transfer>> items;
  items.emplace_back(sc_core::SC_ZERO_TIME, make_transfer(0, 1500 * 8));
  items.emplace_back(sc_core::SC_ZERO_TIME, make_transfer(1, 1000 * 8));
  WireBench bench(std::move(items), WireLinkConfig{100, sc_core::SC_ZERO_TIME, 2500},
                  WireFraming(WireFraming::Kind::kNone, tcp_ipv4()), {nanoseconds(1000)});
  sc_core::sc_start();
  ASSERT_EQ(bench.sink.received().size(), 2u);
  EXPECT_EQ(bench.wire.rx.stats().dropped, 0u);
  EXPECT_EQ(bench.wire.rx.stats().peak_bytes, 2500u);
}

}  // namespace
}  // namespace rnicsim
