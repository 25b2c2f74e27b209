// Packet codec speed: ICRC throughput on 4 KiB frames (the issue asks for at
// least 20 GB/s) and build + parse rate of whole frames.
#include <benchmark/benchmark.h>

#include <systemc>
#include <vector>

#include "packet/frame.hpp"
#include "packet/icrc.hpp"

namespace rnicsim::packet {
namespace {

RocePacket write_only_headers() {
  RocePacket h;
  Ipv4Header ip;
  ip.source = 0xC0A80001;
  ip.destination = 0xC0A80002;
  h.ip = ip;
  h.bth.opcode = 0x0A;  // RC RDMA WRITE ONLY
  h.bth.dest_qp = 0x11;
  h.reth = Reth{0x7F0000001000, 0x1234, 0};
  return h;
}

void BM_Icrc(benchmark::State& state) {
  const std::vector<std::uint8_t> payload(static_cast<std::size_t>(state.range(0)), 0xA5);
  RocePacket h = write_only_headers();
  h.reth->dma_length = static_cast<std::uint32_t>(payload.size());
  const std::vector<std::uint8_t> frame = build_frame(h, payload.data(), payload.size());
  const std::size_t ip_offset = 14;
  const std::size_t covered = frame.size() - ip_offset - 4;
  for (auto _ : state) {
    benchmark::DoNotOptimize(compute_icrc(frame.data() + ip_offset, covered));
  }
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * frame.size()));
}
BENCHMARK(BM_Icrc)->Arg(64)->Arg(1024)->Arg(4096);

void BM_BuildAndParse(benchmark::State& state) {
  const std::vector<std::uint8_t> payload(static_cast<std::size_t>(state.range(0)), 0x5A);
  RocePacket h = write_only_headers();
  h.reth->dma_length = static_cast<std::uint32_t>(payload.size());
  for (auto _ : state) {
    const std::vector<std::uint8_t> frame = build_frame(h, payload.data(), payload.size());
    benchmark::DoNotOptimize(parse_frame(frame.data(), frame.size()).icrc_ok);
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations()));
}
BENCHMARK(BM_BuildAndParse)->Arg(64)->Arg(4096);

}  // namespace
}  // namespace rnicsim::packet
