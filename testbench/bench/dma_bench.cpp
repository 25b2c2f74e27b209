// DMA speed: 4 KiB reads and writes through the blocking nic2dma adapter, the
// DMA engine, the PCIe link and host memory, with 64 transfers in flight on
// the Gen3 x16 preset (the dma experiment's bandwidth runs). Reports
// transfers per second, simulated Gbit/s, delta cycles and kernel activations
// per transfer.
// SystemC allows one elaboration per process, so both benchmarks share one
// testbed; each iteration simulates one more slice of time.
#include <benchmark/benchmark.h>

#include <memory>
#include <string>
#include <systemc>
#include <vector>

#include "common/module_macros.hpp"
#include "common/time_units.hpp"
#include "program/experiments/dma/dma_experiment.hpp"
#include "program/experiments/experiments.hpp"
#include "common/memory_initiator.hpp"
#include "system/testbed.hpp"

namespace rnicsim {
namespace {

constexpr std::uint64_t kTransferBytes = 4096;
constexpr std::uint32_t kInFlight = 64;
constexpr std::uint64_t kBufferBase = 8ULL << 30;    // as the dma experiment
constexpr std::uint64_t kWindowBytes = 4ULL << 20;  // transfers walk 4 MiB
constexpr std::int64_t kIterations = 100;
const sc_core::sc_time kSlice = sc_core::sc_time(100, sc_core::SC_US);

// kInFlight workers, each moving kTransferBytes at a time, reads or writes.
class Load : public sc_core::sc_module {
 public:
  MemoryInitiator load2dma;
  bool write = false;
  std::uint64_t transfers = 0;

  explicit Load(const sc_core::sc_module_name& name)
      : sc_core::sc_module(name), load2dma("load2dma") {
    for (std::uint32_t w = 0; w < kInFlight; ++w) {
      sc_core::sc_spawn([this] {
        std::vector<std::uint8_t> buffer(kTransferBytes, 0x5A);
        for (;;) {
          const std::uint64_t address =
              kBufferBase + (next_++ % (kWindowBytes / kTransferBytes)) * kTransferBytes;
          if (write) {
            load2dma.write(address, buffer.data(), buffer.size());
          } else {
            load2dma.read(address, buffer.data(), buffer.size());
          }
          ++transfers;
        }
      });
    }
  }

 private:
  std::uint64_t next_ = 0;
};

struct Bed {
  explicit Bed(const DmaTestConfig& config)
      : testbed("testbed", config.testbed), node(testbed.node(0)), load("load") {
    load.load2dma.socket.bind(node.nic.dma_engine.nic2dma);
    sc_core::sc_start(sc_core::SC_ZERO_TIME);
  }
  Testbed testbed;
  Node& node;
  Load load;
};

Bed& shared_bed() {
  static std::unique_ptr<Bed> bed;
  if (!bed) {
    const std::string preset = std::string(RNICSIM_SOURCE_DIR) + "/configs/pcie_gen3x16.json";
    config::RunConfig run(config::load_config(preset, {}, rnicsim_schema()));
    require_picosecond_resolution();
    bed = std::make_unique<Bed>(dma_test_config(run));
  }
  return *bed;
}

void BM_Dma4KiB(benchmark::State& state, bool write) {
  Bed& bed = shared_bed();
  bed.load.write = write;
  const std::uint64_t transfers_before = bed.load.transfers;
  const std::uint64_t deltas_before = sc_core::sc_delta_count();
  const std::uint64_t activations_before =
      bed.node.nic.dma_engine.stats().activations + bed.node.host.pcie.stats().activations;
  const sc_core::sc_time start = sc_core::sc_time_stamp();
  for (auto _ : state) sc_core::sc_start(kSlice);
  const auto transfers = static_cast<double>(bed.load.transfers - transfers_before);
  state.SetItemsProcessed(static_cast<std::int64_t>(transfers));
  state.counters["simulated_gbps"] =
      8.0 * kTransferBytes * transfers / to_ns(sc_core::sc_time_stamp() - start);
  state.counters["delta_cycles_per_transfer"] =
      static_cast<double>(sc_core::sc_delta_count() - deltas_before) / transfers;
  // SystemC counts no process activations: the engine's scheduling process
  // and the root complex's count their own runs, and the caller's thread
  // resumes once per transfer (the blocking adapter's wait).
  const std::uint64_t activations =
      bed.node.nic.dma_engine.stats().activations + bed.node.host.pcie.stats().activations;
  state.counters["activations_per_transfer"] =
      static_cast<double>(activations - activations_before) / transfers + 1;
}
BENCHMARK_CAPTURE(BM_Dma4KiB, read, false)->Iterations(kIterations)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_Dma4KiB, write, true)->Iterations(kIterations)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace rnicsim
