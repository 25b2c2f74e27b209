// The Ethernet port's kernel-free parts: its descriptor and register
// formats, its interrupt moderation, and the MAC's steering rule.
#include <gtest/gtest.h>

#include <systemc>
#include <vector>

#include "interface/ethernet_formats.hpp"
#include "nic/ethernet/interrupt_moderation.hpp"
#include "nic/ethernet/port_switch.hpp"
#include "formats/frame.hpp"

namespace rnicsim::ethernet {
namespace {

sc_core::sc_time ns(double n) { return sc_core::sc_time(n, sc_core::SC_NS); }

TEST(EthernetFormats, ATransmitDescriptorIsSixteenLittleEndianBytes) {
  TxDescriptor d;
  d.buffer_address = 0x0102030405060708;
  d.length = 0x1234;
  d.mss = 1448;
  d.flags = kTxTso | kTxChecksumOffload;
  const auto bytes = encode_tx_descriptor(d);
  const std::array<std::uint8_t, 16> expected = {8, 7, 6, 5, 4, 3, 2, 1, 0x34, 0x12, 0, 0,
                                                 0xA8, 0x05, 3, 0};
  EXPECT_EQ(bytes, expected);
  const TxDescriptor back = decode_tx_descriptor(bytes.data());
  EXPECT_EQ(back.buffer_address, d.buffer_address);
  EXPECT_EQ(back.length, d.length);
  EXPECT_EQ(back.mss, d.mss);
  EXPECT_EQ(back.flags, d.flags);
}

TEST(EthernetFormats, TheReceiveWritebackFillsTheDescriptorsLastFourBytes) {
  RxDescriptor d;
  d.buffer_address = 0x400000;
  d.buffer_bytes = 2048;
  auto bytes = encode_rx_descriptor(d);
  EXPECT_EQ(decode_rx_descriptor(bytes.data()).status, 0);
  const auto writeback = encode_rx_writeback(1514, kRxChecksumGood);
  std::copy(writeback.begin(), writeback.end(), bytes.begin() + kRxWritebackOffset);
  const RxDescriptor done = decode_rx_descriptor(bytes.data());
  EXPECT_EQ(done.buffer_address, 0x400000u);
  EXPECT_EQ(done.buffer_bytes, 2048u);
  EXPECT_EQ(done.frame_bytes, 1514);
  EXPECT_EQ(done.flags, kRxChecksumGood);
  EXPECT_EQ(done.status, kRxDone);
}

TEST(EthernetFormats, OnlyTheRegistersOffsetsDecode) {
  EXPECT_EQ(decode_ethernet_register(kBarEthernet), EthernetRegister::kTxRingBase);
  EXPECT_EQ(decode_ethernet_register(kBarEthernet + 0x48), EthernetRegister::kInterruptArm);
  EXPECT_FALSE(decode_ethernet_register(kBarEthernet + 0x50));
  EXPECT_FALSE(decode_ethernet_register(kBarEthernet + 0x04));
  EXPECT_FALSE(decode_ethernet_register(kBarEthernet - 8));
}

TEST(InterruptModeration, FiresAtItsEventCountOncePerArming) {
  InterruptModeration m(ns(1000), 3);
  EXPECT_FALSE(m.arm(0, ns(0)));
  EXPECT_FALSE(m.on_event(ns(10)));
  EXPECT_EQ(m.deadline(), ns(1010));
  EXPECT_FALSE(m.on_event(ns(20)));
  EXPECT_TRUE(m.on_event(ns(30)));
  EXPECT_FALSE(m.deadline());
  // Disarmed: events wait for the next arming.
  EXPECT_FALSE(m.on_event(ns(40)));
  EXPECT_FALSE(m.on_timer(ns(5000)));
}

TEST(InterruptModeration, FiresAtItsDelayAfterTheFirstEvent) {
  InterruptModeration m(ns(1000), 100);
  m.arm(0, ns(0));
  m.on_event(ns(10));
  m.on_event(ns(500));  // the deadline stays the first event's
  EXPECT_FALSE(m.on_timer(ns(1009)));
  EXPECT_TRUE(m.on_timer(ns(1010)));
  EXPECT_FALSE(m.on_timer(ns(3000)));  // fired once
}

TEST(InterruptModeration, ArmingWithUnconsumedEventsCountsThem) {
  InterruptModeration m(ns(1000), 4);
  EXPECT_TRUE(m.arm(5, ns(0)));   // 5 >= 4: at once
  EXPECT_FALSE(m.arm(1, ns(0)));  // 1 waits its delay
  EXPECT_EQ(m.deadline(), ns(1000));
  InterruptModeration immediate(sc_core::SC_ZERO_TIME, 64);
  EXPECT_FALSE(immediate.arm(0, ns(0)));
  EXPECT_TRUE(immediate.on_event(ns(1)));  // no delay: every armed event fires
}

TEST(PortSwitch, SteersUdpToPort4791ToRoceAndTheRestToTheEthernetPort) {
  packet::RocePacket headers;
  packet::Ipv4Header ip;
  ip.source = 0xC0A80001;
  ip.destination = 0xC0A80002;
  headers.ip = ip;
  headers.bth.opcode = 0x04;  // RC SEND Only
  const std::vector<std::uint8_t> payload(64, 0xAB);
  std::vector<std::uint8_t> roce = packet::build_frame(headers, payload.data(), payload.size());
  EXPECT_TRUE(is_roce_v2_frame(roce.data(), roce.size()));
  // Every prefix too short to show the UDP port is not RoCE.
  for (std::size_t n = 0; n < 14 + 20 + 4; ++n) {
    EXPECT_FALSE(is_roce_v2_frame(roce.data(), n)) << n;
  }
  std::vector<std::uint8_t> other_port = roce;
  other_port[14 + 20 + 3] ^= 1;  // UDP destination port 4790
  EXPECT_FALSE(is_roce_v2_frame(other_port.data(), other_port.size()));
  std::vector<std::uint8_t> tcp = roce;
  tcp[14 + 9] = 6;  // IPv4 protocol TCP
  EXPECT_FALSE(is_roce_v2_frame(tcp.data(), tcp.size()));
}

}  // namespace
}  // namespace rnicsim::ethernet
