// Simulator speed of the packet path, block by block: a 4 KiB RDMA WRITE ONLY
// per message through builder -> ICRC insert -> wire (100 Gbit/s, RoCEv2
// frames) -> ICRC check -> parser, real bytes and ICRC at both ends, offered
// as fast as the path takes them. Reports packets per wall second, simulated
// Gbit/s per wall second and kernel activations per packet (activity.hpp).
// SystemC allows one elaboration per process, so the benchmark elaborates once
// and each iteration simulates a fixed number of packets' worth of time.
#include <benchmark/benchmark.h>

#include <memory>
#include <systemc>

#include "common/activity.hpp"
#include "common/channel.hpp"
#include "common/module_macros.hpp"
#include "common/time_units.hpp"
#include "wire/wire_link.hpp"
#include "nic/packet/icrc_blocks.hpp"
#include "nic/packet/packet_blocks.hpp"

namespace rnicsim::packet {
namespace {

constexpr std::size_t kPayloadBytes = 4096;
constexpr std::uint64_t kPacketsPerIteration = 1000;
constexpr std::uint64_t kIterations = 100;

RocePacket write_template() {
  RocePacket t;
  Ipv4Header ip;
  ip.source = 0xC0A80001;
  ip.destination = 0xC0A80002;
  t.ip = ip;
  t.bth.dest_qp = 0x11;
  return t;
}

// Offers one WRITE ONLY request whenever the builder's input has room, and
// counts the packets the parser hands on.
class Endpoints : public sc_core::sc_module {
 public:
  sc_core::sc_port<PushIf<TransmitRequest>> requests;
  sc_core::sc_port<PopIf<ReceivedPacket>> packets;
  RNICSIM_PROCESS_MODULE(Endpoints);

  explicit Endpoints(const sc_core::sc_module_name& name)
      : sc_core::sc_module(name), requests("requests"), packets("packets") {
    request_.kind = MessageKind::kRdmaWrite;
    request_.pmtu = 4096;
    request_.header_template = write_template();
    request_.reth.virtual_address = 0x7F0000001000;
    request_.reth.rkey = 0x1234;
    request_.payload = std::make_shared<const Bytes>(kPayloadBytes, 0x5A);
    SC_THREAD(offer);
    SC_THREAD(receive);
  }

  std::uint64_t received() const { return received_; }

 private:
  void offer() {
    for (std::uint32_t psn = 0;; psn = (psn + 1) & 0xFFFFFF) {
      request_.first_psn = psn;
      requests->push(request_, sc_core::SC_ZERO_TIME);
    }
  }
  void receive() {
    for (;;) {
      packets->pop();
      ++received_;
    }
  }

  TransmitRequest request_;
  std::uint64_t received_ = 0;
};

void BM_PacketPath4KiB(benchmark::State& state) {
  const StageTiming block = StageTiming::clocked(ClockDomain(250), 8, 64, 1);
  const StageTiming icrc = StageTiming::clocked(ClockDomain(250), 2, 64, 1);
  Channel<TransmitRequest> requests("requests", 2);
  Channel<OutgoingFrame> builder2icrc("builder2icrc", 4);
  Channel<Transfer> icrc2wire("icrc2wire", 4);
  Channel<Transfer> icrc2parser("icrc2parser", 4);
  Channel<ReceivedPacket> parser2host("parser2host", 4);
  Endpoints endpoints("endpoints");
  PacketBuilder builder("builder", block);
  IcrcInserter icrc_insert("icrc_insert", icrc);
  WireLink wire("wire", WireLinkConfig{100, nanoseconds(10), 1 << 20},
                WireFraming(WireFraming::Kind::kFrame, roce_v2_write_only_ipv4()));
  IcrcChecker icrc_check("icrc_check", icrc);
  PacketParser parser("parser", block);
  endpoints.requests(requests);
  builder.in(requests);
  builder.out(builder2icrc);
  icrc_insert.in(builder2icrc);
  icrc_insert.out(icrc2wire);
  wire.in(icrc2wire);
  icrc_check.in(wire.rx);
  icrc_check.out(icrc2parser);
  parser.in(icrc2parser);
  parser.out(parser2host);
  endpoints.packets(parser2host);
  sc_core::sc_start(sc_core::SC_ZERO_TIME);

  // The wire is the bottleneck: 4170 B frames take 4194 B = 335.52 ns at 100G.
  const sc_core::sc_time step = nanoseconds(335.52 * kPacketsPerIteration);
  const std::uint64_t before = endpoints.received();
  reset_activity();
  for (auto _ : state) sc_core::sc_start(step);
  const std::uint64_t packets = endpoints.received() - before;
  state.SetItemsProcessed(static_cast<std::int64_t>(packets));
  state.counters["activations_per_packet"] =
      static_cast<double>(activity().total()) / static_cast<double>(packets);
  state.counters["simulated_gbit"] = benchmark::Counter(
      static_cast<double>(packets) * kPayloadBytes * 8 / 1e9, benchmark::Counter::kIsRate);
  if (icrc_check.check_stats().bad != 0 || wire.rx.stats().dropped != 0) {
    state.SkipWithError("frames were dropped on a path that must not drop");
  }
}
BENCHMARK(BM_PacketPath4KiB)->Iterations(kIterations)->Unit(benchmark::kMicrosecond);

}  // namespace
}  // namespace rnicsim::packet
