// A faulty wire: source -> wire (with faults) -> its receive buffer -> a
// reader that takes frames early when it may -> sink. Scripted faults make
// the outcome exact: a delayed frame is overtaken, a duplicate arrives twice,
// a lost frame never arrives, and the tap still sees every frame once, as
// its sender put it on the wire.
#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <systemc>
#include <utility>
#include <vector>

#include "block/stream_harness.hpp"
#include "common/time_units.hpp"
#include "wire/fault_script.hpp"
#include "wire/wire_link.hpp"
#include "formats/frame.hpp"

namespace rnicsim {
namespace {

using testbench::PacedSource;
using testbench::RecordingSink;

// An RC SEND ONLY with 1000 payload bytes: 1058 B, 1082 B on the wire with
// FCS, preamble and gap, 86.56 ns at 100 Gbit/s.
Transfer send_frame(std::uint32_t psn) {
  packet::RocePacket headers;
  headers.bth.opcode = 0x04;
  headers.bth.dest_qp = 7;
  headers.bth.psn = psn;
  const std::vector<std::uint8_t> payload(1000, static_cast<std::uint8_t>(psn));
  auto bytes =
      std::make_shared<const Bytes>(packet::build_frame(headers, payload.data(), payload.size()));
  return Transfer(psn, bytes->size() * 8, sc_core::SC_ZERO_TIME, bytes);
}
constexpr std::uint64_t kFramePs = 86560;
constexpr std::uint64_t kPropagationPs = 10000;
// When frame i's last bit reaches the peer, untouched (all sent at 0).
constexpr std::uint64_t arrival_ps(std::uint64_t i) { return (i + 1) * kFramePs + kPropagationPs; }

// A method stage with one input and one output: the receive buffer's early reader.
class Reader : public PipelineStage<Transfer> {
 public:
  explicit Reader(const sc_core::sc_module_name& name)
      : PipelineStage<Transfer>(name, StageTiming(), StageProcess::kMethod) {}

 protected:
  sc_core::sc_time serve(Transfer& /*frame*/) override { return sc_core::SC_ZERO_TIME; }
};

struct FaultyWireBench {
  FaultyWireBench(int frames, const std::string& script)
      : in("in", Channel<Transfer>::kUnbounded),
        out("out", Channel<Transfer>::kUnbounded),
        source("source", sent(frames)),
        wire("wire", WireLinkConfig{100, picoseconds(kPropagationPs), 1 << 20},
             WireFraming(WireFraming::Kind::kFrame, roce_v2_write_only_ipv4()), faults(script)),
        reader("reader"),
        sink("sink") {
    source.out(in);
    wire.in(in);
    reader.in(wire.rx);
    reader.out(out);
    sink.in(out);
    wire.set_tap([this](const Transfer& frame, const sc_core::sc_time&) {
      tapped.push_back(frame.index());
      tapped_bytes.push_back(*frame.bytes());
    });
  }

  static std::vector<std::pair<sc_core::sc_time, Transfer>> sent(int frames) {
    std::vector<std::pair<sc_core::sc_time, Transfer>> items;
    for (int i = 0; i < frames; ++i) items.emplace_back(sc_core::SC_ZERO_TIME, send_frame(i));
    return items;
  }
  static FaultConfig faults(const std::string& script) {
    FaultConfig c;
    c.script = parse_fault_script(script);
    return c;
  }

  // (psn, ps at which the sink got it), in the order it got them.
  std::vector<std::pair<std::uint64_t, std::uint64_t>> received() const {
    std::vector<std::pair<std::uint64_t, std::uint64_t>> got;
    for (const auto& [at, frame] : sink.received()) got.emplace_back(frame.index(), to_ps(at));
    return got;
  }

  Channel<Transfer> in, out;
  PacedSource<Transfer> source;
  WireLink wire;
  Reader reader;
  RecordingSink<Transfer> sink;
  std::vector<std::uint64_t> tapped;
  std::vector<Bytes> tapped_bytes;
};

using Arrivals = std::vector<std::pair<std::uint64_t, std::uint64_t>>;

TEST(WireFaults, ADelayedFrameIsOvertakenByTheFramesAfterIt) {
  FaultyWireBench bench(4, "delay:psn=1,ns=200");
  sc_core::sc_start();
  EXPECT_EQ(bench.received(), (Arrivals{{0, arrival_ps(0)},
                                        {2, arrival_ps(2)},
                                        {3, arrival_ps(3)},
                                        {1, arrival_ps(1) + 200000}}));
  EXPECT_EQ(bench.tapped, (std::vector<std::uint64_t>{0, 1, 2, 3}));
  EXPECT_EQ(bench.wire.faults()->stats().reordered, 1u);
  EXPECT_EQ(bench.wire.rx.stats().frames, 4u);
}

TEST(WireFaults, AFrameDelayedLessThanTheNextFrameKeepsItsPlace) {
  // 50 ns later still lands before frame 2 (86.56 ns after frame 1).
  FaultyWireBench bench(3, "delay:psn=1,ns=50");
  sc_core::sc_start();
  EXPECT_EQ(bench.received(),
            (Arrivals{{0, arrival_ps(0)}, {1, arrival_ps(1) + 50000}, {2, arrival_ps(2)}}));
}

TEST(WireFaults, ADuplicateArrivesTwiceOneFrameTimeApart) {
  FaultyWireBench bench(3, "duplicate:psn=0");
  sc_core::sc_start();
  // The copy lands when frame 1 does (same size): it was pushed first.
  EXPECT_EQ(bench.received(), (Arrivals{{0, arrival_ps(0)},
                                        {0, arrival_ps(0) + kFramePs},
                                        {1, arrival_ps(1)},
                                        {2, arrival_ps(2)}}));
  EXPECT_EQ(bench.tapped, (std::vector<std::uint64_t>{0, 1, 2}));
  EXPECT_EQ(bench.wire.rx.stats().frames, 4u);
  EXPECT_EQ(bench.wire.faults()->stats().duplicated, 1u);
}

TEST(WireFaults, ALostFrameNeverArrives) {
  FaultyWireBench bench(3, "drop:psn=1");
  sc_core::sc_start();
  EXPECT_EQ(bench.received(), (Arrivals{{0, arrival_ps(0)}, {2, arrival_ps(2)}}));
  EXPECT_EQ(bench.tapped, (std::vector<std::uint64_t>{0, 1, 2}));
  EXPECT_EQ(bench.wire.faults()->stats().lost, 1u);
  EXPECT_EQ(bench.wire.rx.stats().frames, 2u);
}

TEST(WireFaults, ACorruptedFrameArrivesChangedWhileTheTapSawItWhole) {
  FaultyWireBench bench(2, "corrupt:psn=1");
  sc_core::sc_start();
  // before_fcs (the default): the receiver's MAC drops it.
  EXPECT_EQ(bench.received(), (Arrivals{{0, arrival_ps(0)}}));
  EXPECT_EQ(bench.wire.faults()->stats().fcs_errors, 1u);
  EXPECT_EQ(bench.tapped_bytes[1], *send_frame(1).bytes());
}

TEST(WireFaults, TheTraceNamesTheWireTheFaultAndTheFrame) {
  FaultyWireBench bench(3, "drop:psn=2;delay:psn=0,ns=5");
  std::vector<std::string> lines;
  bench.wire.set_fault_trace([&](const FaultEvent& e) {
    lines.push_back(std::to_string(e.time_ps) + " " + *e.wire + " " + to_string(e.kind) + " " +
                    std::to_string(e.frame->psn) + " " + std::to_string(e.delay_ps));
  });
  sc_core::sc_start();
  EXPECT_EQ(lines, (std::vector<std::string>{std::to_string(arrival_ps(0)) + " wire delayed 0 5000",
                                             std::to_string(arrival_ps(2)) + " wire lost 2 0"}));
}

TEST(WireFaults, AWireWithoutFaultsHasNoInjector) {
  WireLink wire("wire", WireLinkConfig{100, sc_core::SC_ZERO_TIME, 1 << 20},
                WireFraming(WireFraming::Kind::kFrame, roce_v2_write_only_ipv4()));
  EXPECT_EQ(wire.faults(), nullptr);
}

}  // namespace
}  // namespace rnicsim
