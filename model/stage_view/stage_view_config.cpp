#include "stage_view/stage_view_config.hpp"

#include "common/time_units.hpp"

namespace rnicsim {

void declare_stage_view_keys(config::Schema& schema) {
  schema.add(config::number_key("dma.gbps", 100, "Gbit/s",
                                "rate at which the DMA engine reads host memory")
                 .at_least(0.001)     // 1 Mbit/s
                 .at_most(1000000));  // 1 Pbit/s
  schema.add(config::number_key("dma.latency_ns", 0, "ns",
                                "fixed latency of one DMA read, on top of its size over the rate")
                 .at_least(0)
                 .at_most(1e9));  // 1 s
  schema.add(config::number_key("host.app_write_gbps", 100, "Gbit/s",
                                "rate at which the application writes its data into the user buffer")
                 .at_least(0.001)     // 1 Mbit/s
                 .at_most(1000000));  // 1 Pbit/s
  schema.add(config::number_key("host.app_write_latency_ns", 0, "ns",
                                "fixed latency of one application write, on top of size over rate")
                 .at_least(0)
                 .at_most(1e9));  // 1 s
  schema.add(config::number_key("host.kernel_copy_gbps", 100, "Gbit/s",
                                "rate of the kernel's user-to-kernel copy (Ethernet path only)")
                 .at_least(0.001)     // 1 Mbit/s
                 .at_most(1000000));  // 1 Pbit/s
  schema.add(config::number_key("host.kernel_copy_latency_ns", 0, "ns",
                                "fixed latency of one kernel copy (syscall, protocol work), on top "
                                "of size over rate")
                 .at_least(0)
                 .at_most(1e9));  // 1 s
}

CpuStagesConfig cpu_stages_config(const config::Section& host) {
  const auto number = [&host](const char* key) { return host.number(key); };
  return CpuStagesConfig{
      StageTiming::rate(nanoseconds(number("app_write_latency_ns")),
                        number("app_write_gbps")),
      StageTiming::rate(nanoseconds(number("kernel_copy_latency_ns")),
                        number("kernel_copy_gbps")),
  };
}

StageTiming dma_stage_timing(const config::Section& dma) {
  return StageTiming::rate(nanoseconds(dma.number("latency_ns")), dma.number("gbps"));
}

}  // namespace rnicsim
