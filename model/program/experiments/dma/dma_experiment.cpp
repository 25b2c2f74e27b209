#include "program/experiments/dma/dma_experiment.hpp"

#include <algorithm>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "common/memory_budget.hpp"
#include "common/module_macros.hpp"
#include "common/simulation.hpp"
#include "common/time_units.hpp"
#include "common/memory_initiator.hpp"
#include "system/testbed.hpp"

namespace rnicsim {
namespace {

// DMA buffers start at 8 GiB: above 4 GiB, like most of a server's memory, so
// requests carry 64-bit addresses (4 DW headers), as in pcie-bench's model.
constexpr std::uint64_t kBufferBase = 8ULL << 30;
// A posted write TLP occupies its payload plus 24 B (header, framing) on the
// wire. A window of them on its way holds no copy of its payload (that stays
// in the requester's buffer until the write completes) but the engine's window
// record (248 B), the root complex's queue entry (32 B), two pointers and the
// allocator's header: about 310 B; budgeted at 512.
constexpr std::uint64_t kTlpWireOverheadBytes = 24;
constexpr std::uint64_t kPostedWindowBytes = 512;

// Transfers of `size` in one bandwidth run: enough to move bandwidth_bytes,
// and at least one per transfer in flight.
std::uint64_t bandwidth_transfers(std::uint64_t in_flight, std::uint64_t bandwidth_bytes,
                                  std::uint64_t size) {
  return std::max<std::uint64_t>(in_flight, bandwidth_bytes / size);
}

double gbps(std::uint64_t bytes, const sc_core::sc_time& elapsed) {
  return 8.0 * static_cast<double>(bytes) / to_ns(elapsed);
}

// The NIC side of the test: issues DMA requests and times them.
class DmaLoad : public sc_core::sc_module {
 public:
  MemoryInitiator load2dma;
  RNICSIM_PROCESS_MODULE(DmaLoad);

  DmaLoad(const sc_core::sc_module_name& name, const DmaTestConfig& config,
          RunProgress& progress)
      : sc_core::sc_module(name),
        load2dma("load2dma"),
        config_(config),
        progress_(progress),
        random_(config.seed) {
    SC_THREAD(run);
  }

  // Every transfer the run makes: per size, the latency samples, then the
  // bandwidth transfers, read and write.
  static std::uint64_t total_transfers(const DmaTestConfig& config) {
    std::uint64_t total = 0;
    for (const std::uint64_t size : config.sizes_bytes) {
      total += config.latency_samples +
               2 * bandwidth_transfers(config.in_flight, config.bandwidth_bytes, size);
    }
    return total;
  }

  const std::vector<DmaSizeResult>& results() const { return results_; }

 private:
  void run() {
    for (const std::uint64_t size : config_.sizes_bytes) {
      DmaSizeResult result;
      result.size_bytes = size;
      measure_latency(size, result);
      result.read_bw_gbps = measure_bandwidth(size, false);
      result.write_bw_gbps = measure_bandwidth(size, true);
      results_.push_back(result);
    }
    finish_workload();
  }

  // Single reads one after another, each at a random size-aligned offset of
  // the window, as pcie-bench's latency test does.
  void measure_latency(std::uint64_t size, DmaSizeResult& result) {
    std::vector<std::uint8_t> buffer(size);
    std::vector<double> samples;
    const std::uint64_t slots = config_.window_bytes / size;
    for (std::uint32_t i = 0; i < config_.latency_samples; ++i) {
      const std::uint64_t address = kBufferBase + (random_() % slots) * size;
      const sc_core::sc_time start = sim_now();
      load2dma.read(address, buffer.data(), buffer.size());
      samples.push_back(to_ns(sim_now() - start));
      progress_.advance();
    }
    std::sort(samples.begin(), samples.end());
    const std::size_t n = samples.size();
    result.read_latency_ns = n % 2 ? samples[n / 2] : (samples[n / 2 - 1] + samples[n / 2]) / 2;
    result.read_latency_min_ns = samples.front();
    result.read_latency_max_ns = samples.back();
  }

  // `in_flight` workers move bandwidth_bytes in transfers of `size`, walking
  // the window; bandwidth is the bytes over the time until the last is done.
  double measure_bandwidth(std::uint64_t size, bool write) {
    const std::uint64_t transfers =
        bandwidth_transfers(config_.in_flight, config_.bandwidth_bytes, size);
    std::uint64_t next = 0;
    std::uint32_t running = config_.in_flight;
    sc_core::sc_event all_done;
    const sc_core::sc_time start = sim_now();
    for (std::uint32_t w = 0; w < config_.in_flight; ++w) {
      sc_core::sc_spawn([&, size, write] {
        std::vector<std::uint8_t> buffer(size, 0x5A);
        while (next < transfers) {
          const std::uint64_t address =
              kBufferBase + (next++ % (config_.window_bytes / size)) * size;
          if (write) {
            load2dma.write(address, buffer.data(), buffer.size());
          } else {
            load2dma.read(address, buffer.data(), buffer.size());
          }
          progress_.advance();
        }
        if (--running == 0) all_done.notify();
      });
    }
    sc_core::wait(all_done);
    return gbps(transfers * size, sim_now() - start);
  }

  const DmaTestConfig& config_;
  RunProgress& progress_;
  std::mt19937_64 random_;
  std::vector<DmaSizeResult> results_;
};

std::optional<config::Violation> window_holds_transfers(const config::Json& doc) {
  const auto sizes = config::at_path(doc, "dma_test.sizes_bytes").get<std::vector<std::uint64_t>>();
  const auto window = config::at_path(doc, "dma_test.window_bytes").get<std::uint64_t>();
  const std::uint64_t largest = *std::max_element(sizes.begin(), sizes.end());
  if (window >= largest) return std::nullopt;
  return config::Violation{"dma_test.window_bytes",
                           "must hold the largest transfer of dma_test.sizes_bytes (got " +
                               std::to_string(window) + ", the largest is " +
                               std::to_string(largest) + ")"};
}

// Only the dma experiment places its window in host memory.
std::optional<config::Violation> window_fits_memory(const config::Json& doc) {
  if (config::at_path(doc, "experiment") != "dma") return std::nullopt;
  const auto window = config::at_path(doc, "dma_test.window_bytes").get<std::uint64_t>();
  const auto memory = config::at_path(doc, "host.memory_bytes").get<std::uint64_t>();
  if (kBufferBase + window <= memory) return std::nullopt;
  return config::Violation{"dma_test.window_bytes",
                           "the window (from 8 GiB on) does not fit in host.memory_bytes (" +
                               std::to_string(memory) + ")"};
}


// What a dma run holds, from the worst case of its write runs: the part of
// the window the transfers reach (real bytes in host memory; reads of
// never-written memory store nothing), a buffer per transfer in flight, and
// the windows of posted writes on their way through the link. Those leave the
// NIC at the link's rate and are held for a link latency, plus an IOTLB miss
// with the IOMMU on, before the root complex takes them; and since a write
// completes then, no more than the transfers in flight have. Only the dma
// experiment runs them.
std::optional<config::Violation> memory_budget(const config::Json& doc) {
  if (config::at_path(doc, "experiment") != "dma") return std::nullopt;
  const auto sizes = config::at_path(doc, "dma_test.sizes_bytes").get<std::vector<std::uint64_t>>();
  const auto window = config::at_path(doc, "dma_test.window_bytes").get<std::uint64_t>();
  const auto in_flight = config::at_path(doc, "dma_test.in_flight").get<std::uint64_t>();
  const auto bandwidth_bytes = config::at_path(doc, "dma_test.bandwidth_bytes").get<std::uint64_t>();
  const auto write_window = config::at_path(doc, "dma.write_window_tlps").get<std::uint64_t>();
  // The keys alone, not pcie_config(): a rule reads a configuration whose
  // other rules may not hold.
  pcie::PcieConfig pcie;
  pcie.generation = static_cast<std::uint32_t>(config::integer_at(doc, "pcie.generation"));
  pcie.lanes = static_cast<std::uint32_t>(config::integer_at(doc, "pcie.lanes"));
  pcie.mps_bytes = static_cast<std::uint32_t>(config::integer_at(doc, "pcie.mps_bytes"));
  pcie.iommu = config::at_path(doc, "pcie.iommu").get<bool>();
  pcie.link_latency = nanoseconds(config::at_path(doc, "pcie.link_latency_ns").get<double>());
  pcie.iotlb_miss = nanoseconds(config::at_path(doc, "pcie.iotlb_miss_ns").get<double>());
  const double held_ns = to_ns(pcie.link_latency) + (pcie.iommu ? to_ns(pcie.iotlb_miss) : 0.0);
  const long double link_holds_bytes = pcie.link_gbps() / 8 * held_ns;
  std::uint64_t written = 0;
  long double posted = 0;
  for (const std::uint64_t size : sizes) {
    const std::uint64_t transfers = bandwidth_transfers(in_flight, bandwidth_bytes, size);
    written = std::max(written, std::min<std::uint64_t>(window, transfers * size));
    const std::uint64_t payload = std::min<std::uint64_t>(size, pcie.mps_bytes);
    const std::uint64_t tlps = (size + pcie.mps_bytes - 1) / pcie.mps_bytes;
    const std::uint64_t window_tlps = std::min(tlps, write_window);
    const long double windows = static_cast<long double>(std::min(transfers, in_flight)) *
                                ((tlps + window_tlps - 1) / window_tlps);
    const long double held = std::min(
        windows, link_holds_bytes / static_cast<long double>(
                                        window_tlps * (payload + kTlpWireOverheadBytes)) + 1);
    posted = std::max(posted, held * kPostedWindowBytes);
  }
  const std::uint64_t buffers = in_flight * *std::max_element(sizes.begin(), sizes.end());
  const long double total =
      static_cast<long double>(written) + buffers + posted + kSimulatorBaselineBytes;
  if (total <= kRunMemoryBudgetBytes) return std::nullopt;
  const char* key = "dma_test.window_bytes";
  if (posted >= written && posted >= buffers) {
    key = pcie.iommu && pcie.iotlb_miss > pcie.link_latency ? "pcie.iotlb_miss_ns"
                                                            : "pcie.link_latency_ns";
  } else if (buffers >= written) {
    key = "dma_test.in_flight";
  }
  return config::Violation{
      key, "the write runs would fill " + std::to_string(written / kMiB) +
               " MiB of simulated host memory (the part of the window dma_test.bandwidth_bytes "
               "reaches), the transfers in flight need " + std::to_string(buffers / kMiB) +
               " MiB of buffers and the posted writes on the link " +
               std::to_string(static_cast<std::uint64_t>(posted) / kMiB) +
               " MiB; with the simulator's own that is about " +
               std::to_string(static_cast<std::uint64_t>(total) / kMiB) +
               " MiB, and a run holds at most " + std::to_string(kRunMemoryBudgetBytes / kMiB) +
               " MiB: a smaller window, fewer bandwidth bytes, fewer transfers in flight, smaller "
               "sizes, a larger dma.write_window_tlps, or a shorter pcie.link_latency_ns or "
               "pcie.iotlb_miss_ns"};
}

}  // namespace

void declare_dma_test_keys(config::Schema& schema) {
  schema.add(config::integer_list_key(
                 "dma_test.sizes_bytes",
                 {8, 16, 32, 64, 128, 256, 512, 1024, 2048, 4096, 8192, 16384, 65536}, "bytes",
                 "transfer sizes to measure")
                 .at_least(1)
                 .at_most(1 << 20));
  schema.add(config::integer_key("dma_test.latency_samples", 101, "reads",
                                 "single reads per size for the median latency")
                 .at_least(1)
                 .at_most(1000000));
  schema.add(config::integer_key("dma_test.window_bytes", 4 << 20, "bytes",
                                 "size of the host buffer the transfers fall in")
                 .at_least(64)
                 .at_most(1ULL << 34));
  schema.add(config::integer_key("dma_test.in_flight", 64, "transfers",
                                 "concurrent transfers in the bandwidth runs")
                 .at_least(1)
                 .at_most(4096));
  schema.add(config::integer_key("dma_test.bandwidth_bytes", 4 << 20, "bytes",
                                 "bytes moved per size and direction in the bandwidth runs")
                 .at_least(1)
                 .at_most(1ULL << 34));
  schema.add_check({"dma_test.window_bytes", "dma_test.sizes_bytes"}, window_holds_transfers);
  schema.add_check({"dma_test.window_bytes", "host.memory_bytes"}, window_fits_memory);
  schema.add_check({"dma_test.window_bytes", "dma_test.bandwidth_bytes", "dma_test.in_flight",
                    "dma_test.sizes_bytes", "dma.write_window_tlps", "pcie.link_latency_ns",
                    "pcie.generation", "pcie.lanes", "pcie.mps_bytes", "pcie.iommu",
                    "pcie.iotlb_miss_ns"},
                   memory_budget);
}

DmaTestConfig dma_test_config(config::RunConfig& run) {
  const config::Section test = run.section("dma_test");
  DmaTestConfig c;
  c.sizes_bytes = test.integers("sizes_bytes");
  c.latency_samples = static_cast<std::uint32_t>(test.integer("latency_samples"));
  c.window_bytes = test.integer("window_bytes");
  c.in_flight = static_cast<std::uint32_t>(test.integer("in_flight"));
  c.bandwidth_bytes = test.integer("bandwidth_bytes");
  c.seed = test.stream_seed();
  TestbedRequest request;
  request.alone_role = "subject";
  c.testbed = testbed_config(run, request);
  return c;
}

DmaTestResult run_dma_test(const DmaTestConfig& config, RunProgress& progress) {
  require_picosecond_resolution();
  Testbed testbed("testbed", config.testbed);
  Node& node = testbed.node(0);
  // The load stands for the NIC's DMA clients (WQE fetch, payload, CQE).
  DmaLoad load("load", config, progress);
  load.load2dma.socket.bind(node.nic.dma_engine.nic2dma);
  progress.start("transfers", DmaLoad::total_transfers(config));
  simulate_workload(1);
  progress.finish();
  const pcie::PcieLink& link = node.host.pcie;

  DmaTestResult result;
  result.link_gbps = config.testbed.nodes[0].host.pcie.link_gbps();
  result.sizes = load.results();
  result.upstream = link.upstream_stats();
  result.downstream = link.downstream_stats();
  result.link = link.stats();
  result.iotlb_hits = link.iotlb().hits();
  result.iotlb_misses = link.iotlb().misses();
  result.dma_requests =
      node.nic.dma_engine.stats().read_requests + node.nic.dma_engine.stats().write_requests;
  result.statistics = testbed.statistics();
  return result;
}

}  // namespace rnicsim
