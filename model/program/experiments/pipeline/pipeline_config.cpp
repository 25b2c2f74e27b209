#include "program/experiments/pipeline/pipeline_config.hpp"

#include <algorithm>
#include <optional>
#include <string>

#include "common/memory_budget.hpp"
#include "common/time_units.hpp"
#include "system/topology.hpp"
#include "system/testbed.hpp"

namespace rnicsim {
namespace {

std::uint64_t round_up(std::uint64_t value, std::uint64_t multiple) {
  return (value + multiple - 1) / multiple * multiple;
}

// A writer can be at most queue_items Data ahead of the stage that reads its
// buffer (the queue between them holds them), so with one more slot than that
// no slot is rewritten before it has been read. On the testbed the DMA step
// also holds Data whose reads are in flight (up to `reads_in_flight`, one
// more waiting for a tag): the link reads memory when a read completes.
std::uint64_t buffer_slots(std::uint64_t queue_items, std::uint64_t reads_in_flight) {
  return queue_items + 1 + (reads_in_flight > 0 ? reads_in_flight + 1 : 0);
}

bool testbed_composition(const config::Json& doc) {
  return config::at_path(doc, "pipeline.composition") == "testbed";
}

std::uint64_t buffer_slots(const config::Json& doc) {
  return buffer_slots(config::integer_at(doc, "pipeline.queue_items"),
                      // Rules between keys also run on each node's view, so node
                      // a's own read tags are checked there.
                      testbed_composition(doc) ? config::integer_at(doc, "dma.read_tags") : 0);
}

std::uint64_t data_bytes(const config::Json& doc) {
  return (config::integer_at(doc, "workload.data_bits") + 7) / 8;
}

// The user buffer ring sits in the lower half of host memory, the kernel
// buffer ring in the upper; only the pipeline experiment places them.
std::optional<config::Violation> rings_violation(const config::Json& doc) {
  if (config::at_path(doc, "experiment") != "pipeline") return std::nullopt;
  const std::uint64_t ring_bytes = buffer_slots(doc) * data_bytes(doc);
  const std::uint64_t memory = config::integer_at(doc, "host.memory_bytes");
  if (ring_bytes <= memory / 2) return std::nullopt;
  return config::Violation{"pipeline.queue_items",
                           "a buffer ring of queue_items + 1 Data (" + std::to_string(ring_bytes) +
                               " bytes) does not fit in half of host.memory_bytes (" +
                               std::to_string(memory) + ")"};
}

// The most memory the two paths can hold at once, counted from the worst
// case: every queue full, and the wire carrying as many Data as fit in its
// propagation delay at one per serialization time (at least 1 ps, without
// framing: a lower bound, so more Data). Items carry their bytes from the DMA
// stage on; before it they carry an address. The Ethernet path has three
// queues and two buffer rings, the RDMA path two and one.
std::optional<config::Violation> memory_budget_violation(const config::Json& doc) {
  if (config::at_path(doc, "experiment") != "pipeline") return std::nullopt;
  const std::uint64_t bytes = data_bytes(doc);
  const std::uint64_t ring_bytes = round_up(buffer_slots(doc) * bytes, 4096);
  const std::uint64_t queue = config::integer_at(doc, "pipeline.queue_items");
  WireLinkConfig link;
  link.gbps = config::at_path(doc, "link.gbps").get<double>();
  link.propagation = nanoseconds(config::at_path(doc, "link.propagation_ns").get<double>());
  const std::uint64_t wire_spacing_ps = std::max<std::uint64_t>(
      1, to_ps(serialization_time(config::integer_at(doc, "workload.data_bits"), link.gbps)));
  const std::uint64_t on_wire = std::min<std::uint64_t>(
      config::integer_at(doc, "workload.count"), to_ps(link.propagation) / wire_spacing_ps + 1);
  struct Path {
    std::uint64_t queues, stages, rings;
  };
  const Path paths[] = {{3, 4, 2}, {2, 3, 1}};
  std::uint64_t items = 0;
  std::uint64_t carrying_bytes = 0;
  std::uint64_t rings = 0;
  for (const Path& path : paths) {
    items += path.queues * queue + path.stages + on_wire;
    carrying_bytes += queue + 2 + on_wire;  // dma2wire, the wire stage, app_write, in flight
    rings += path.rings * ring_bytes;
  }
  // In long double: at the keys' bounds the products pass 2^64.
  const long double total = static_cast<long double>(items) * kInFlightDataOverheadBytes +
                            static_cast<long double>(carrying_bytes) * bytes + rings +
                            kSimulatorBaselineBytes;
  if (total <= kRunMemoryBudgetBytes) return std::nullopt;
  return config::Violation{
      on_wire > queue ? "link.propagation_ns" : "pipeline.queue_items",
      "up to " + std::to_string(items) + " Data could be in flight at once (" +
          std::to_string(queue) + " per queue, " + std::to_string(on_wire) +
          " on each wire), which with " + std::to_string(bytes) +
          "-byte Data and the buffer rings needs about " +
          std::to_string(static_cast<std::uint64_t>(total / kMiB)) +
          " MiB with the simulator's own; a run holds at most " +
          std::to_string(kRunMemoryBudgetBytes / kMiB) +
          " MiB: lower pipeline.queue_items, link.propagation_ns or workload.data_bits"};
}

}  // namespace

void declare_pipeline_keys(config::Schema& schema) {
  schema.add(config::integer_key("workload.data_bits", 100, "bits",
                                 "size of one Data the application produces")
                 .at_least(1)
                 .at_most(8388608));  // 1 MiB
  schema.add(config::number_key("workload.interval_ns", 1, "ns",
                                "time between two Data the application produces")
                 .at_least(0.001)  // 1 ps, the simulator's resolution
                 .at_most(1e9));   // 1 s
  schema.add(config::integer_key("workload.count", 64, "Data",
                                 "how many Data the application produces (steady bandwidth needs 2)")
                 .at_least(2)
                 .at_most(10000000));
  schema.add(config::integer_key("pipeline.queue_items", 64, "items",
                                 "capacity of the queue in front of each stage after the first, "
                                 "counting items still in the previous stage's latency (like "
                                 "credits); a full queue stalls the stage before it")
                 .at_least(1)
                 .at_most(131072));  // five full queues of Data in flight stay within the budget
  schema.add(config::string_key("pipeline.composition", "stages",
                                "stages: the seed's stage blocks alone, each timed by its own "
                                "keys (dma.gbps, dma.latency_ns); testbed: the CPU stages on a "
                                "two-node testbed whose NIC DMA engine, PCIe link (pcie.*) and "
                                "wire do the rest (configs/seed_nic.json)")
                 .one_of({"stages", "testbed"}));
  schema.add_check({"pipeline.queue_items", "workload.data_bits", "workload.count", "link.gbps",
                    "link.propagation_ns", "pipeline.composition", "dma.read_tags"},
                   memory_budget_violation);  // before the rings: no host.memory_bytes lifts it
  schema.add_check({"link.framing"}, [](const config::Json& doc) -> std::optional<config::Violation> {
    if (config::at_path(doc, "experiment") != "pipeline" ||
        config::at_path(doc, "link.framing") != "roce") {
      return std::nullopt;
    }
    return config::Violation{"link.framing",
                             "roce is for wires carrying the NIC's real RoCEv2 frames; the "
                             "pipeline's Data are bare payload: none or ethernet"};
  });
  schema.add_check({"pipeline.queue_items", "workload.data_bits", "host.memory_bytes",
                    "pipeline.composition", "dma.read_tags"},
                   rings_violation);
}

PipelineConfig pipeline_config(config::RunConfig& run) {
  const config::Section workload = run.section("workload");
  const Topology topology = topology_config(run);
  const std::string subject = topology.nodes[role_node(run, topology, "subject")];
  const config::Section host = run.node_section(subject, "host");
  PipelineConfig c{};
  c.workload.data_bits = workload.integer("data_bits");
  c.workload.interval = nanoseconds(workload.number("interval_ns"));
  c.workload.count = workload.integer("count");
  c.workload.seed = run.at("seed").get<std::uint64_t>();
  c.workload.pattern_seed = workload.stream_seed();
  c.queue_items = run.section("pipeline").integer("queue_items");
  const StageViewBlocks blocks = stage_view_blocks_config(run, subject);
  c.memory = blocks.memory;
  c.cpu = cpu_stages_config(host);
  c.link = blocks.link;
  c.framing = blocks.framing;
  if (run.section("pipeline").text("composition") == "testbed") {
    // The DMA step is the NIC's engine and the host's PCIe link: dma.gbps
    // and dma.latency_ns are not read, so setting them is refused.
    TestbedRequest request;
    request.faults = false;
    c.testbed = testbed_config(run, request);
    c.subject = c.testbed->topology.index_of(subject);
    c.dma_reads_in_flight = c.testbed->nodes[c.subject].nic.dma.read_tags;
  } else {
    c.dma = dma_stage_timing(run.node_section(subject, "dma"));
  }
  c.buffer_slots = buffer_slots(c.queue_items, c.dma_reads_in_flight);
  return c;
}

}  // namespace rnicsim
