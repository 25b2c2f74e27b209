#include "experiments/pipeline/pipeline_config.hpp"

#include <optional>
#include <string>

#include "common/time_units.hpp"
#include "dma/dma_config.hpp"
#include "host_memory/host_memory_config.hpp"
#include "link/link_config.hpp"

namespace rnicsim {
namespace {

// The user buffer fills the lower half of host memory, the kernel buffer the
// upper; only the pipeline experiment places them.
std::optional<config::Violation> buffers_violation(const config::Json& doc) {
  if (config::at_path(doc, "experiment") != "pipeline") return std::nullopt;
  const auto count = config::at_path(doc, "workload.count").get<std::uint64_t>();
  const auto data_bits = config::at_path(doc, "workload.data_bits").get<std::uint64_t>();
  const auto memory = config::at_path(doc, "host.memory_bytes").get<std::uint64_t>();
  const std::uint64_t buffer_bytes = count * ((data_bits + 7) / 8);
  if (buffer_bytes <= memory / 2) return std::nullopt;
  return config::Violation{"workload.count",
                           "count x Data size (" + std::to_string(buffer_bytes) +
                               " bytes) does not fit in half of host.memory_bytes (" +
                               std::to_string(memory) + ")"};
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
                 .at_most(1000000));
  schema.add_check({"workload.count", "workload.data_bits", "host.memory_bytes"},
                   buffers_violation);
}

PipelineConfig pipeline_config(const config::Json& doc) {
  const auto at = [&doc](const char* key) -> const config::Json& {
    return config::at_path(doc, key);
  };
  PipelineConfig c{};
  c.workload.data_bits = at("workload.data_bits").get<std::uint64_t>();
  c.workload.interval = nanoseconds(at("workload.interval_ns").get<double>());
  c.workload.count = at("workload.count").get<std::uint64_t>();
  c.workload.seed = at("seed").get<std::uint64_t>();
  c.queue_items = at("pipeline.queue_items").get<std::size_t>();
  c.memory = host_memory_config(doc);
  c.cpu = host_cpu_config(doc);
  c.dma = dma_timing(doc);
  c.link = wire_link_config(doc);
  c.framing = framing_kind(doc);

  config::require_checked(buffers_violation(doc), "pipeline_config");
  return c;
}

}  // namespace rnicsim
