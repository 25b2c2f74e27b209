// The packet builder, the wire and the packet parser together: real frames
// cross, are captured to pcap, parsed back byte for byte; a corrupted frame is
// rejected and counted.
#include <gtest/gtest.h>

#include <filesystem>
#include <memory>
#include <systemc>
#include <vector>

#include "block/stream_harness.hpp"
#include "common/time_units.hpp"
#include "link/wire_link.hpp"
#include "packet/frame_json.hpp"
#include "packet/packet_blocks.hpp"
#include "packet/pcap.hpp"

namespace rnicsim::packet {
namespace {

using testbench::PacedSource;
using testbench::RecordingSink;

RocePacket rc_template() {
  RocePacket t;
  t.ethernet.destination = {0x02, 0, 0, 0, 0, 2};
  t.ethernet.source = {0x02, 0, 0, 0, 0, 1};
  Ipv4Header ip;
  ip.source = 0xC0A80001;
  ip.destination = 0xC0A80002;
  t.ip = ip;
  t.udp.source_port = 0xC011;
  t.bth.dest_qp = 0x11;
  return t;
}

Bytes message(std::size_t n) {
  Bytes b(n);
  for (std::size_t i = 0; i < n; ++i) b[i] = static_cast<std::uint8_t>(i * 7 + 1);
  return b;
}

// builder -> wire (100 Gbit/s, 10 ns, Ethernet L1 overhead) -> [corrupter] -> parser -> sink
struct Bench {
  explicit Bench(std::vector<std::pair<sc_core::sc_time, TransmitRequest>> requests,
                 std::uint64_t corrupt_frame = ~0ULL)
      : requests2builder("requests2builder", Channel<TransmitRequest>::kUnbounded),
        builder2wire("builder2wire", 4),
        wire2corrupter("wire2corrupter", Channel<Transfer>::kUnbounded),
        corrupter2parser("corrupter2parser", Channel<Transfer>::kUnbounded),
        parser2sink("parser2sink", Channel<ReceivedPacket>::kUnbounded),
        source("source", std::move(requests)),
        builder("builder", StageTiming::clocked(ClockDomain(250), 8, 64, 1)),
        wire("wire", WireLinkConfig{100, nanoseconds(10)},
             WireFraming(WireFraming::Kind::kFrame, tcp_ipv4())),
        parser("parser", StageTiming::clocked(ClockDomain(250), 8, 64, 1)),
        sink("sink"),
        corrupt_frame_(corrupt_frame) {
    source.out(requests2builder);
    builder.in(requests2builder);
    builder.out(builder2wire);
    wire.in(builder2wire);
    wire.out(wire2corrupter);
    parser.in(corrupter2parser);
    parser.out(parser2sink);
    sink.in(parser2sink);
    sc_core::sc_spawn([this] {
      for (;;) {
        Transfer frame = wire2corrupter.pop();
        if (frame.index() == corrupt_frame_) {
          auto bad = std::make_shared<Bytes>(*frame.bytes());
          (*bad)[bad->size() - 10] ^= 0x01;  // one payload bit
          frame.set_bytes(std::move(bad));
        }
        corrupter2parser.push(std::move(frame), sc_core::SC_ZERO_TIME);
      }
    });
  }
  Channel<TransmitRequest> requests2builder;
  Channel<Transfer> builder2wire;
  Channel<Transfer> wire2corrupter;
  Channel<Transfer> corrupter2parser;
  Channel<ReceivedPacket> parser2sink;
  PacedSource<TransmitRequest> source;
  PacketBuilder builder;
  WireLink wire;
  PacketParser parser;
  RecordingSink<ReceivedPacket> sink;
  std::uint64_t corrupt_frame_;
};

TransmitRequest write_request(std::size_t length) {
  TransmitRequest r;
  r.kind = MessageKind::kRdmaWrite;
  r.pmtu = 1024;
  r.first_psn = 0xFFFFFE;  // wraps inside the message
  r.header_template = rc_template();
  r.reth.virtual_address = 0x7F0000001000;
  r.reth.rkey = 0x1234;
  r.payload = std::make_shared<const Bytes>(message(length));
  return r;
}

TEST(PacketBlocks, AWriteIsSegmentedCarriedAndParsedBackByteForByte) {
  std::vector<std::pair<sc_core::sc_time, TransmitRequest>> requests;
  requests.emplace_back(sc_core::SC_ZERO_TIME, write_request(3000));
  Bench bench(std::move(requests));
  const std::string pcap_path =
      (std::filesystem::temp_directory_path() / "rnicsim_packet_blocks.pcap").string();
  auto writer = std::make_shared<PcapWriter>(pcap_path);
  bench.wire.set_tap([writer](const Transfer& frame, const sc_core::sc_time& at) {
    writer->write(to_ps(at) / 1000, frame.bytes()->data(), frame.bytes()->size());
  });
  sc_core::sc_start();

  const auto& got = bench.sink.received();
  ASSERT_EQ(got.size(), 3u);
  const std::vector<std::uint8_t> opcodes{0x06, 0x07, 0x08};  // WRITE FIRST, MIDDLE, LAST
  const std::vector<std::uint32_t> psns{0xFFFFFE, 0xFFFFFF, 0};
  const Bytes sent = message(3000);
  Bytes received;
  for (std::size_t i = 0; i < 3; ++i) {
    const RocePacket& p = got[i].second.packet;
    EXPECT_EQ(p.bth.opcode, opcodes[i]);
    EXPECT_EQ(p.bth.psn, psns[i]);
    EXPECT_EQ(p.bth.dest_qp, 0x11u);
    EXPECT_EQ(p.bth.ack_req, i == 2);
    EXPECT_EQ(p.reth.has_value(), i == 0);
    const Bytes& frame = *got[i].second.frame;
    received.insert(received.end(), frame.begin() + static_cast<std::ptrdiff_t>(p.payload_offset),
                    frame.begin() + static_cast<std::ptrdiff_t>(p.payload_offset + p.payload_length));
  }
  EXPECT_EQ(received, sent);
  ASSERT_TRUE(got[0].second.packet.reth);
  EXPECT_EQ(got[0].second.packet.reth->dma_length, 3000u);
  EXPECT_EQ(got[0].second.packet.reth->rkey, 0x1234u);

  // Timing of the first frame: 14+20+8+12+16 headers + 1024 + 4 ICRC = 1098 B:
  // 18 beats of 64 B at 4 ns = 72 ns in the builder + 32 ns latency; on the
  // wire 1098 + 4 FCS + 20 = 1122 B = 89.76 ns, + 10 ns; in the parser 72 ns + 32 ns.
  EXPECT_EQ(to_ps(got[0].first), 72000u + 32000u + 89760u + 10000u + 72000u + 32000u);
  EXPECT_EQ(bench.builder.stats().frames, 3u);
  EXPECT_EQ(bench.parser.stats().accepted, 3u);

  // The capture reads back, and each frame decodes with a good ICRC.
  PcapReader reader(pcap_path);
  PcapRecord record;
  std::size_t frames = 0;
  while (reader.next(record)) {
    const auto decoded = describe_frame(frames + 1, record.time_ns, record.data.data(), record.data.size());
    EXPECT_EQ(decoded.at("icrc_ok"), true);
    EXPECT_EQ(decoded.at("opcode"), opcodes[frames]);
    ++frames;
  }
  EXPECT_EQ(frames, 3u);
  std::filesystem::remove(pcap_path);
}

TEST(PacketBlocks, ACorruptedFrameIsRejectedAndCountedUnderItsReason) {
  std::vector<std::pair<sc_core::sc_time, TransmitRequest>> requests;
  requests.emplace_back(sc_core::SC_ZERO_TIME, write_request(3000));
  Bench bench(std::move(requests), 1);  // the MIDDLE frame
  sc_core::sc_start();
  EXPECT_EQ(bench.sink.received().size(), 2u);
  EXPECT_EQ(bench.parser.stats().accepted, 2u);
  EXPECT_EQ(bench.parser.stats().rejected[static_cast<std::size_t>(ParseError::kIcrcMismatch)], 1u);
  EXPECT_EQ(bench.parser.stats().rejected_total(), 1u);
}

}  // namespace
}  // namespace rnicsim::packet
