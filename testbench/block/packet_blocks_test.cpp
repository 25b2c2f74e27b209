// The packet builder, the ICRC blocks, the wire and the packet parser
// together: real frames cross, are captured to pcap, parsed back byte for
// byte and equal build_frame's; a corrupted frame is dropped and counted by
// the receive ICRC block, so the parser sees only good frames.
#include <gtest/gtest.h>

#include <filesystem>
#include <memory>
#include <systemc>
#include <vector>

#include "block/stream_harness.hpp"
#include "common/time_units.hpp"
#include "wire/wire_link.hpp"
#include "formats/frame_json.hpp"
#include "nic/packet/icrc_blocks.hpp"
#include "nic/packet/packet_blocks.hpp"
#include "formats/pcap.hpp"

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

// Every block at 250 MHz, 64 B per cycle; builder and parser 8 cycles of
// latency, the ICRC blocks 2.
StageTiming block_timing(std::uint64_t latency_cycles) {
  return StageTiming::clocked(ClockDomain(250), latency_cycles, 64, 1);
}

// builder -> icrc_insert -> wire (100 Gbit/s, 10 ns, RoCEv2 frames) -> [corrupter]
//   -> icrc_check -> parser -> sink
struct Bench {
  explicit Bench(std::vector<std::pair<sc_core::sc_time, TransmitRequest>> requests,
                 std::uint64_t corrupt_frame = ~0ULL)
      : requests2builder("requests2builder", Channel<TransmitRequest>::kUnbounded),
        builder2icrc("builder2icrc", 4),
        icrc2wire("icrc2wire", 4),
        corrupter2icrc("corrupter2icrc", Channel<Transfer>::kUnbounded),
        icrc2parser("icrc2parser", Channel<Transfer>::kUnbounded),
        parser2sink("parser2sink", Channel<ReceivedPacket>::kUnbounded),
        source("source", std::move(requests)),
        builder("builder", block_timing(8)),
        icrc_insert("icrc_insert", block_timing(2)),
        wire("wire", WireLinkConfig{100, nanoseconds(10), 1 << 20},
             WireFraming(WireFraming::Kind::kFrame, tcp_ipv4())),
        icrc_check("icrc_check", block_timing(2)),
        parser("parser", block_timing(8)),
        sink("sink"),
        corrupt_frame_(corrupt_frame) {
    source.out(requests2builder);
    builder.in(requests2builder);
    builder.out(builder2icrc);
    icrc_insert.in(builder2icrc);
    icrc_insert.out(icrc2wire);
    wire.in(icrc2wire);
    icrc_check.in(corrupter2icrc);
    icrc_check.out(icrc2parser);
    parser.in(icrc2parser);
    parser.out(parser2sink);
    sink.in(parser2sink);
    sc_core::sc_spawn([this] {
      for (;;) {
        Transfer frame = wire.rx.pop();
        if (frame.index() == corrupt_frame_) {
          auto bad = std::make_shared<Bytes>(*frame.bytes());
          (*bad)[bad->size() - 10] ^= 0x01;  // one payload bit
          frame.set_bytes(std::move(bad));
        }
        corrupter2icrc.push(std::move(frame), sc_core::SC_ZERO_TIME);
      }
    });
  }
  Channel<TransmitRequest> requests2builder;
  Channel<OutgoingFrame> builder2icrc;
  Channel<Transfer> icrc2wire;
  Channel<Transfer> corrupter2icrc;
  Channel<Transfer> icrc2parser;
  Channel<ReceivedPacket> parser2sink;
  PacedSource<TransmitRequest> source;
  PacketBuilder builder;
  IcrcInserter icrc_insert;
  WireLink wire;
  IcrcChecker icrc_check;
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

// What build_frame, the reference, makes of write_request(length): the
// segments' opcodes, PSNs and AckReq, RETH (with the message length) on the
// first.
std::vector<Bytes> reference_frames(std::size_t length) {
  const TransmitRequest request = write_request(length);
  std::vector<Bytes> frames;
  for (const SegmentedPacket& segment : segment_message(request.kind, request.transport,
                                                        request.pmtu, request.first_psn, length)) {
    RocePacket headers = request.header_template;
    headers.bth.opcode = segment.opcode;
    headers.bth.psn = segment.psn;
    headers.bth.ack_req = segment.ack_req;
    if (segment.has_reth) {
      headers.reth = request.reth;
      headers.reth->dma_length = static_cast<std::uint32_t>(length);
    }
    frames.push_back(build_frame(headers, request.payload->data() + segment.payload_offset,
                                 segment.payload_length));
  }
  return frames;
}

TEST(PacketBlocks, AWriteIsSegmentedCarriedAndParsedBackByteForByte) {
  std::vector<std::pair<sc_core::sc_time, TransmitRequest>> requests;
  requests.emplace_back(sc_core::SC_ZERO_TIME, write_request(3000));
  Bench bench(std::move(requests));
  const std::string pcap_path =
      (std::filesystem::temp_directory_path() / "rnicsim_packet_blocks.pcap").string();
  auto writer = std::make_shared<PcapWriter>(pcap_path);
  std::vector<Bytes> on_the_wire;
  bench.wire.set_tap([writer, &on_the_wire](const Transfer& frame, const sc_core::sc_time& at) {
    writer->write(to_ps(at) / 1000, frame.bytes()->data(), frame.bytes()->size());
    on_the_wire.push_back(*frame.bytes());
  });
  sc_core::sc_start();

  // Builder then ICRC insert make exactly build_frame's frames.
  EXPECT_EQ(on_the_wire, reference_frames(3000));

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
  // 18 beats of 64 B at 4 ns = 72 ns in each block, + 32 ns latency in the
  // builder and the parser, + 8 ns in each ICRC block; on the wire
  // 1098 + 4 FCS + 20 = 1122 B = 89.76 ns, + 10 ns.
  EXPECT_EQ(to_ps(got[0].first),
            (72000u + 32000u) + (72000u + 8000u) + (89760u + 10000u) + (72000u + 8000u) +
                (72000u + 32000u));
  EXPECT_EQ(bench.builder.stats().items, 1u);
  EXPECT_EQ(bench.builder.stats().items_out, 3u);
  EXPECT_EQ(bench.icrc_check.check_stats().good, 3u);
  EXPECT_EQ(bench.parser.stats().items_out, 3u);

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

TEST(PacketBlocks, AFrameWithOneFlippedBitIsDroppedByTheIcrcCheckBeforeTheParser) {
  std::vector<std::pair<sc_core::sc_time, TransmitRequest>> requests;
  requests.emplace_back(sc_core::SC_ZERO_TIME, write_request(3000));
  Bench bench(std::move(requests), 1);  // the MIDDLE frame
  sc_core::sc_start();
  ASSERT_EQ(bench.sink.received().size(), 2u);
  EXPECT_EQ(bench.sink.received()[0].second.packet.bth.psn, 0xFFFFFEu);
  EXPECT_EQ(bench.sink.received()[1].second.packet.bth.psn, 0u);
  EXPECT_EQ(bench.icrc_check.check_stats().bad, 1u);
  EXPECT_EQ(bench.icrc_check.check_stats().good, 2u);
  EXPECT_EQ(bench.icrc_check.stats().dropped, 1u);
  EXPECT_EQ(bench.parser.stats().items, 2u);  // the parser saw only the good frames
  EXPECT_EQ(bench.parser.rejected_total(), 0u);
}

TEST(PacketBlocks, AFrameWithoutARoceIcrcPassesTheCheckForTheParserToReject) {
  // A UDP datagram to another port: no RoCEv2 ICRC to locate, so the ICRC
  // block passes it on unchecked and the parser names the reason.
  Bytes frame = reference_frames(100)[0];
  frame[14 + 20 + 2] = 0x13;  // UDP destination port 0x13B7 instead of 0x12B7 (4791)
  std::vector<std::pair<sc_core::sc_time, Transfer>> frames;
  frames.emplace_back(sc_core::SC_ZERO_TIME,
                      Transfer(0, 8 * frame.size(), sc_core::SC_ZERO_TIME,
                               std::make_shared<const Bytes>(frame)));
  Channel<Transfer> source2icrc("source2icrc", Channel<Transfer>::kUnbounded);
  Channel<Transfer> icrc2parser("icrc2parser", Channel<Transfer>::kUnbounded);
  Channel<ReceivedPacket> parser2sink("parser2sink", Channel<ReceivedPacket>::kUnbounded);
  PacedSource<Transfer> source("source", std::move(frames));
  IcrcChecker icrc_check("icrc_check", block_timing(2));
  PacketParser parser("parser", block_timing(8));
  RecordingSink<ReceivedPacket> sink("sink");
  source.out(source2icrc);
  icrc_check.in(source2icrc);
  icrc_check.out(icrc2parser);
  parser.in(icrc2parser);
  parser.out(parser2sink);
  sink.in(parser2sink);
  sc_core::sc_start();
  EXPECT_EQ(icrc_check.check_stats().unchecked, 1u);
  EXPECT_EQ(parser.rejected()[static_cast<std::size_t>(ParseError::kUdpPort)], 1u);
  EXPECT_EQ(parser.stats().dropped, 1u);
  EXPECT_TRUE(sink.received().empty());
}

}  // namespace
}  // namespace rnicsim::packet
