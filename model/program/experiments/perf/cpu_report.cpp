#include "program/experiments/perf/cpu_report.hpp"

#include <cstdio>

#include "common/time_units.hpp"

namespace rnicsim {
namespace {

nlohmann::json core_json(const CpuCore& core, double elapsed_ns) {
  nlohmann::json work = nlohmann::json::object();
  for (std::size_t k = 0; k < kCpuWorkKinds; ++k) {
    const auto kind = static_cast<CpuWork>(k);
    if (core.busy(kind) != sc_core::SC_ZERO_TIME) work[cpu_work_name(kind)] = to_ns(core.busy(kind));
  }
  const double busy = to_ns(core.total_busy());
  return {{"busy_ns", busy},
          {"spinning_ns", to_ns(core.spinning())},
          {"work_ns", work},
          {"utilization", elapsed_ns > 0 ? busy / elapsed_ns : 0.0}};
}

}  // namespace

nlohmann::json cpu_json(const std::vector<NamedCore>& cores, double elapsed_ns,
                        std::uint64_t messages) {
  nlohmann::json cpu = nlohmann::json::object();
  double busy = 0;
  for (const NamedCore& c : cores) {
    cpu[c.name] = core_json(*c.core, elapsed_ns);
    busy += to_ns(c.core->total_busy());
  }
  cpu["work_us_per_message"] = messages > 0 ? busy / 1000.0 / static_cast<double>(messages) : 0.0;
  cpu["cores_busy"] = elapsed_ns > 0 ? busy / elapsed_ns : 0.0;
  return cpu;
}

std::string format_cpu_line(const std::string& node, const nlohmann::json& cpu) {
  double spinning_ns = 0;
  for (const auto& item : cpu.items()) {
    if (item.value().is_object()) spinning_ns += item.value()["spinning_ns"].get<double>();
  }
  char line[200];
  std::snprintf(line, sizeof line,
                " CPU %s: %.3f us of work per message, %.3f cores busy (%.1f us spinning)\n",
                node.c_str(), cpu["work_us_per_message"].get<double>(),
                cpu["cores_busy"].get<double>(), spinning_ns / 1000.0);
  return line;
}

std::string format_cpu_line(const std::string& node, const nlohmann::json& first_thread,
                            const nlohmann::json& all_threads, std::size_t threads) {
  std::string line = format_cpu_line(node, first_thread);
  line.pop_back();
  char total[120];
  std::snprintf(total, sizeof total, " in thread 0; %zu threads: %.3f cores busy\n", threads,
                all_threads["cores_busy"].get<double>());
  return line + total;
}

}  // namespace rnicsim
