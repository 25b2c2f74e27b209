// The NIC's plain Ethernet port between two nodes, driven by the kernel's
// Ethernet driver: frames cross byte for byte and in order, interrupts
// follow the moderation settings, a frame with no posted buffer is dropped
// and counted, and RoCE frames keep to the RDMA side of the shared MAC.
#include <gtest/gtest.h>

#include <cstdint>
#include <memory>
#include <systemc>
#include <vector>

#include "common/simulation.hpp"
#include "common/time_units.hpp"
#include "host/kernel/ethernet_driver.hpp"
#include "host/kernel/kernel_memory.hpp"
#include "formats/tcp_header.hpp"
#include "nic/packet/tso.hpp"
#include "system/rc_bench.hpp"
#include "system/testbed.hpp"

namespace rnicsim {
namespace {

// A frame that is neither RoCE nor IP: EtherType 0x88B5 (IEEE local
// experimental), `length` bytes in all, from node a to node b.
Bytes experimental_frame(std::size_t length, std::uint8_t salt) {
  Bytes f(length);
  const std::uint8_t header[14] = {0x02, 0, 0, 0, 0, 2, 0x02, 0, 0, 0, 0, 1, 0x88, 0xB5};
  for (std::size_t i = 0; i < length; ++i) {
    f[i] = i < 14 ? header[i] : static_cast<std::uint8_t>(i * 13 + salt);
  }
  return f;
}

// Two nodes with Ethernet ports, a driver on each, and a thread per node.
class EthernetBench : public sc_core::sc_module {
 public:
  RNICSIM_PROCESS_MODULE(EthernetBench);

  EthernetBench(const sc_core::sc_module_name& name, const config::Json& given,
                const EthernetDriverConfig& receiver)
      : sc_core::sc_module(name),
        run_(testing::loaded_config(given)),
        testbed_("testbed", config_with_ports(run_)),
        sender_(testbed_.node(0).host, sender_memory_, sender_config()),
        receiver_(testbed_.node(1).host, receiver_memory_, receiver) {
    SC_THREAD(send);
    SC_THREAD(receive);
    SC_METHOD(note_writeback);
    sensitive << host(1).memory.watch(receiver_.rx_ring(), ethernet::kDescriptorBytes);
    dont_initialize();
  }

  // What the sender sends: frames, each sent once in order, with their
  // descriptors' offload flags and mss.
  std::vector<Bytes> frames;
  std::vector<std::uint8_t> frame_flags;  // none when shorter than `frames`
  std::vector<std::uint16_t> frame_mss;
  // The sender's: with `sender_waits_for_interrupts`, a full ring makes it
  // sleep until its own interrupt, then reclaim and re-arm (as a driver
  // that cleans its ring in NAPI); else it watches the head write-back.
  bool sender_waits_for_interrupts = false;
  std::uint64_t sender_interrupts = 0;
  // The receiver's behaviour: NAPI (poll on each interrupt, re-arm when
  // done) or passive (never polls: the test looks at the port only).
  bool napi = true;
  std::vector<Bytes> received;
  std::vector<std::uint8_t> received_flags;
  std::vector<sc_core::sc_time> interrupt_times;
  std::uint64_t empty_interrupts = 0;
  sc_core::sc_time first_writeback;  // when the port first wrote back a receive descriptor

  EthernetPort& port(std::size_t node) { return *testbed_.node(node).nic.ethernet_port(); }
  Host& host(std::size_t node) { return testbed_.node(node).host; }

 private:
  static EthernetDriverConfig sender_config() {
    EthernetDriverConfig c;
    c.tx_copy_area_bytes = 1 << 20;  // room for TSO frames
    return c;
  }

  static TestbedConfig config_with_ports(config::RunConfig& run) {
    TestbedRequest request;
    request.kernel_stack = true;
    return testbed_config(run, request);
  }

  void send() {
    sender_.open();
    for (std::size_t i = 0; i < frames.size(); ++i) {
      while (!sender_.can_transmit_copy(frames[i].size())) {
        if (sender_waits_for_interrupts) {
          wait(sender_.interrupt());
          ++sender_interrupts;
          sender_.arm_interrupt();
        } else {
          wait(sender_.transmit_done());
        }
      }
      sender_.transmit_copy(frames[i], i < frame_flags.size() ? frame_flags[i] : 0,
                            i < frame_mss.size() ? frame_mss[i] : 0);
    }
  }

  void note_writeback() {
    if (first_writeback == sc_core::SC_ZERO_TIME) first_writeback = sim_now();
  }

  void receive() {
    receiver_.open();
    for (;;) {
      wait(receiver_.interrupt());
      interrupt_times.push_back(sim_now());
      if (!napi) continue;
      const std::size_t budget = 16;
      auto take = [this](ReceivedFrame&& f) {
        received.push_back(std::move(f.bytes));
        received_flags.push_back(f.flags);
      };
      std::size_t taken = receiver_.poll(budget, take);
      if (taken == 0) ++empty_interrupts;  // an interrupt that announced nothing
      while (taken == budget) taken = receiver_.poll(budget, take);
      receiver_.arm_interrupt();
    }
  }

  config::RunConfig run_;
  Testbed testbed_;
  KernelMemory sender_memory_;
  KernelMemory receiver_memory_;
  EthernetDriver sender_;
  EthernetDriver receiver_;
};

TEST(EthernetPort, FramesCrossByteForByteAndInOrder) {
  EthernetBench bench("bench", config::Json::object(), EthernetDriverConfig{});
  for (std::size_t i = 0; i < 300; ++i) {
    bench.frames.push_back(experimental_frame(60 + (i * 97) % 1455, static_cast<std::uint8_t>(i)));
  }
  simulate();
  ASSERT_EQ(bench.received.size(), bench.frames.size());
  for (std::size_t i = 0; i < bench.frames.size(); ++i) {
    ASSERT_EQ(bench.received[i], bench.frames[i]) << "frame " << i;
  }
  EXPECT_EQ(bench.port(0).stats().tx_frames, 300u);
  EXPECT_EQ(bench.port(0).stats().tx_descriptors, 300u);
  EXPECT_EQ(bench.port(1).stats().rx_frames, 300u);
  EXPECT_EQ(bench.port(1).stats().rx_no_buffer, 0u);
  // More frames than the 256-entry rings: both wrapped, and the interrupts
  // the receiver saw are the ones the port sent.
  EXPECT_EQ(bench.interrupt_times.size(), bench.port(1).stats().interrupts);
  EXPECT_GE(bench.interrupt_times.size(), 1u);
  // Each interrupt came after the frames it announced were in memory.
  EXPECT_EQ(bench.empty_interrupts, 0u);
}

packet::TcpFrame tcp_headers(std::uint32_t seq) {
  packet::TcpFrame h;
  h.ethernet.destination = {0x02, 0, 0, 0, 0, 2};
  h.ethernet.source = {0x02, 0, 0, 0, 0, 1};
  h.ip.source = 0xC0A80001;
  h.ip.destination = 0xC0A80002;
  h.ip.identification = 100;
  h.tcp.source_port = 40000;
  h.tcp.destination_port = 5001;
  h.tcp.sequence = seq;
  h.tcp.psh = true;
  h.tcp.timestamps = true;
  return h;
}

// The offloads end to end: a 10000-byte TSO frame leaves as 7 segments of
// at most 1448 bytes, a frame with checksum offload gets its checksum, and
// the receiver's checksum offload flags every one good but the frame sent
// with a wrong checksum and no offload.
TEST(EthernetPort, TsoAndChecksumOffloadMakeFramesTheReceiverFindsGood) {
  EthernetBench bench("bench", config::Json::object(), EthernetDriverConfig{});
  Bytes payload(10000);
  for (std::size_t i = 0; i < payload.size(); ++i) payload[i] = static_cast<std::uint8_t>(i * 31);
  bench.frames.push_back(packet::build_tcp_frame(tcp_headers(1000), payload.data(), payload.size(),
                                                 /*checksum_offload=*/true));
  bench.frame_flags.push_back(ethernet::kTxTso);
  bench.frame_mss.push_back(1448);
  bench.frames.push_back(packet::build_tcp_frame(tcp_headers(11000), payload.data(), 500, true));
  bench.frame_flags.push_back(ethernet::kTxChecksumOffload);
  bench.frame_mss.push_back(0);
  Bytes wrong = packet::build_tcp_frame(tcp_headers(11500), payload.data(), 200);
  wrong[14 + 20 + packet::TcpHeader::kChecksumOffset] ^= 0xFF;
  bench.frames.push_back(wrong);
  simulate();

  ASSERT_EQ(bench.received.size(), 9u);
  Bytes joined;
  for (std::size_t i = 0; i < 7; ++i) {
    SCOPED_TRACE("segment " + std::to_string(i));
    const auto frame = packet::parse_tcp_frame(bench.received[i].data(), bench.received[i].size());
    ASSERT_TRUE(frame);
    EXPECT_EQ(frame->tcp.sequence, 1000u + 1448u * i);
    EXPECT_EQ(frame->ip.identification, 100u + i);
    EXPECT_EQ(frame->payload_length, i < 6 ? 1448u : 10000u - 6 * 1448u);
    EXPECT_EQ(frame->tcp.psh, i == 6);
    EXPECT_EQ(bench.received_flags[i], ethernet::kRxChecksumGood);
    joined.insert(joined.end(), bench.received[i].begin() + frame->payload_offset,
                  bench.received[i].begin() + frame->payload_offset + frame->payload_length);
  }
  EXPECT_EQ(joined, payload);
  EXPECT_EQ(bench.received_flags[7], ethernet::kRxChecksumGood);
  EXPECT_TRUE(packet::tcp_frame_checksum_ok(bench.received[7].data(), bench.received[7].size()));
  EXPECT_EQ(bench.received_flags[8], ethernet::kRxChecksumBad);
  EXPECT_EQ(bench.received[8], wrong);
  EXPECT_EQ(bench.port(0).stats().tx_descriptors, 3u);
  EXPECT_EQ(bench.port(0).stats().tso_segments, 7u);
  EXPECT_EQ(bench.port(0).stats().tx_frames, 9u);
  EXPECT_EQ(bench.port(1).stats().rx_checksum_bad, 1u);
}

// Transmit completions are announced: a sender that reclaims its ring only
// when interrupted never finds it full for good, as each interrupt comes
// after the head write-back of every descriptor it counts.
TEST(EthernetPort, ASenderThatReclaimsOnInterruptsNeverStalls) {
  EthernetBench bench("bench", config::Json::object(), EthernetDriverConfig{});
  bench.sender_waits_for_interrupts = true;
  for (std::size_t i = 0; i < 1000; ++i) bench.frames.push_back(experimental_frame(200, 5));
  simulate();
  EXPECT_EQ(bench.received.size(), 1000u);
  EXPECT_GE(bench.sender_interrupts, 3u);  // 1000 frames through a 256-entry ring
}

TEST(EthernetPort, AFrameWithNoPostedBufferIsDroppedAndCounted) {
  EthernetDriverConfig small;
  small.rx_entries = 4;
  EthernetBench bench("bench", config::Json::object(), small);
  bench.napi = false;  // the receiver never takes a frame, so never re-posts
  for (std::size_t i = 0; i < 10; ++i) bench.frames.push_back(experimental_frame(100, 1));
  simulate();
  EXPECT_EQ(bench.port(1).stats().rx_frames, 4u);
  EXPECT_EQ(bench.port(1).stats().rx_no_buffer, 6u);
}

// Moderation by count: with 4 events to fire and a delay no run reaches,
// 10 frames to a receiver that never re-arms raise exactly one interrupt.
TEST(EthernetPort, AnArmedInterruptFiresOnceAtItsEventCount) {
  EthernetBench bench("bench", {{"ethernet",
                        {{"interrupt_events", 4}, {"interrupt_delay_ns", 1e9}}}},
                      EthernetDriverConfig{});
  bench.napi = false;
  for (std::size_t i = 0; i < 10; ++i) bench.frames.push_back(experimental_frame(100, 2));
  simulate();
  EXPECT_EQ(bench.port(1).stats().rx_frames, 10u);
  EXPECT_EQ(bench.interrupt_times.size(), 1u);
}

// Moderation by time: one frame, 100 events to fire, 5 us of delay: the
// interrupt lands 5 us after the frame's write-back was issued. The
// write-back may land later than it would alone, as it follows the frame's
// data on the PCIe link, and the interrupt does not: the window is one
// 100-byte TLP's time on the link and the root complex's answer, 100 ns.
TEST(EthernetPort, AnArmedInterruptWaitsItsDelayAfterTheFirstEvent) {
  EthernetBench bench("bench", {{"ethernet",
                        {{"interrupt_events", 100}, {"interrupt_delay_ns", 5000}}}},
                      EthernetDriverConfig{});
  bench.frames.push_back(experimental_frame(100, 3));
  simulate();
  ASSERT_EQ(bench.received.size(), 1u);
  ASSERT_EQ(bench.interrupt_times.size(), 1u);
  ASSERT_NE(bench.first_writeback, sc_core::SC_ZERO_TIME);
  const double after_ns = to_ns(bench.interrupt_times[0] - bench.first_writeback);
  EXPECT_LE(after_ns, 5000.0);
  EXPECT_GE(after_ns, 4900.0);
}

}  // namespace
}  // namespace rnicsim
