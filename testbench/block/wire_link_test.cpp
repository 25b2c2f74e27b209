// The wire on its own: framing overhead, serialization at line rate and
// propagation delay.
#include <gtest/gtest.h>

#include <systemc>
#include <vector>

#include "block/transfer_bench.hpp"
#include "common/time_units.hpp"
#include "link/wire_link.hpp"

namespace rnicsim {
namespace {

using testbench::make_transfer;
using testbench::small_memory;
using testbench::TransferBench;

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

TEST(WireLink, FramesSerializeBackToBackAndArriveAfterPropagation) {
  // 1000 bits at 100 Gbit/s = 10 ns on the wire, 25 ns of cable.
  std::vector<std::pair<sc_core::sc_time, Transfer>> items;
  items.emplace_back(sc_core::SC_ZERO_TIME, make_transfer(0, 1000));
  items.emplace_back(sc_core::SC_ZERO_TIME, make_transfer(1, 1000));
  items.emplace_back(nanoseconds(100), make_transfer(2, 1000));
  TransferBench<WireLink> bench(small_memory(), std::move(items),
                                WireLinkConfig{100, nanoseconds(25)},
                                WireFraming(WireFraming::Kind::kNone, tcp_ipv4()));
  std::vector<std::uint64_t> tapped;  // when each frame's first bit left
  bench.stage.set_tap([&](const Transfer&, const sc_core::sc_time& at) { tapped.push_back(to_ps(at)); });
  sc_core::sc_start();
  const auto& got = bench.sink.received();
  ASSERT_EQ(got.size(), 3u);
  EXPECT_EQ(to_ps(got[0].first), 35000u);
  EXPECT_EQ(to_ps(got[1].first), 45000u);
  EXPECT_EQ(to_ps(got[2].first), 135000u);
  EXPECT_EQ(bench.stage.stats().bits, 3000u);
  EXPECT_EQ(tapped, (std::vector<std::uint64_t>{0, 10000, 100000}));
}

TEST(WireLink, EthernetFramingSlowsTheWireByItsOverhead) {
  // A 4096 B RoCEv2 payload occupies 4194 B on the wire: 335.52 ns at 100G.
  std::vector<std::pair<sc_core::sc_time, Transfer>> items;
  items.emplace_back(sc_core::SC_ZERO_TIME, make_transfer(0, 4096 * 8));
  items.emplace_back(sc_core::SC_ZERO_TIME, make_transfer(1, 4096 * 8));
  TransferBench<WireLink> bench(small_memory(), std::move(items),
                                WireLinkConfig{100, sc_core::SC_ZERO_TIME},
                                WireFraming(WireFraming::Kind::kEthernet, roce_v2_write_only_ipv4()));
  sc_core::sc_start();
  const auto& got = bench.sink.received();
  ASSERT_EQ(got.size(), 2u);
  EXPECT_EQ(to_ps(got[0].first), 335520u);
  EXPECT_EQ(to_ps(got[1].first), 671040u);
}

}  // namespace
}  // namespace rnicsim
