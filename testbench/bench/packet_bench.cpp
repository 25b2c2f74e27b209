// Packet codec speed: ICRC throughput on 4 KiB frames (the issue asks for at
// least 20 GB/s), the two CRC-32 kernels behind it side by side, and the build
// + parse rate of whole frames.
#include <benchmark/benchmark.h>

#include <systemc>
#include <vector>

#include "formats/crc32.hpp"
#include "formats/frame.hpp"
#include "formats/icrc.hpp"

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

// Google Benchmark's bytes_per_second is binary (GiB/s); the and the
// README's figures are decimal GB/s, which the counter "GB" gives directly.
void count_bytes(benchmark::State& state, std::size_t bytes_per_iteration) {
  const auto bytes =
      static_cast<double>(state.iterations()) * static_cast<double>(bytes_per_iteration);
  state.SetBytesProcessed(static_cast<std::int64_t>(bytes));
  state.counters["GB"] = benchmark::Counter(bytes / 1e9, benchmark::Counter::kIsRate);
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
  count_bytes(state, covered);  // what the ICRC reads: IP header to pad, 4152 B at 4096
  state.SetLabel(crc32_kernel());
}
BENCHMARK(BM_Icrc)->Arg(64)->Arg(1024)->Arg(4096);

// The bare CRC-32 over a buffer, by kernel: where the fold starts to pay and
// what each reaches on long buffers.
template <std::uint32_t (*Kernel)(const std::uint8_t*, std::size_t, std::uint32_t)>
void BM_Crc32(benchmark::State& state) {
  const std::vector<std::uint8_t> buffer(static_cast<std::size_t>(state.range(0)), 0x3C);
  std::uint32_t crc = 0;
  for (auto _ : state) {
    crc = Kernel(buffer.data(), buffer.size(), crc);
    benchmark::DoNotOptimize(crc);
  }
  count_bytes(state, buffer.size());
}
BENCHMARK_TEMPLATE(BM_Crc32, detail::crc32_isal)->RangeMultiplier(2)->Range(128, 4096);

void BM_Crc32Fold(benchmark::State& state) {
  if (!detail::crc32_fold_available()) {
    state.SkipWithError("no AVX2 + VPCLMULQDQ on this processor");
    return;
  }
  BM_Crc32<detail::crc32_fold>(state);
}
BENCHMARK(BM_Crc32Fold)->RangeMultiplier(2)->Range(128, 4096);

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
