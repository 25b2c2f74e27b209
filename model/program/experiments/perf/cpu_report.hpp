#pragma once
// The CPU figures of a perf run, one shape for the RDMA and the kernel TCP
// tests so that the two compare field for field: perf.json's
// counters.<node>.cpu and the line per node printed below the table.
#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>
#include "system/application_api.hpp"


namespace rnicsim {

struct NamedCore {
  const char* name;  // its key in the JSON: "app_core", "softirq_core"
  const CpuCore* core;
};

// {<name>: {busy_ns, spinning_ns, work_ns: {kind: ns}, utilization}...,
//  work_us_per_message, cores_busy}: each core's time by kind of work (kinds
// never done left out), its spinning apart, and the node's work per message
// and cores kept busy over `elapsed_ns`.
nlohmann::json cpu_json(const std::vector<NamedCore>& cores, double elapsed_ns,
                        std::uint64_t messages);

// " CPU a: 1.234 us of work per message, 0.567 cores busy (8.9 us spinning)\n",
// the spinning summed over the node's cores.
std::string format_cpu_line(const std::string& node, const nlohmann::json& cpu);
// The same for a node of several application threads (--threads), one core
// each: the line of `first_thread` (thread 0's core and messages), then the
// cores all `threads` keep busy, from `all_threads`:
// " CPU a: 0.110 us of work per message, 0.950 cores busy (1.2 us spinning)
//  in thread 0; 8 threads: 7.412 cores busy\n" on one line.
std::string format_cpu_line(const std::string& node, const nlohmann::json& first_thread,
                            const nlohmann::json& all_threads, std::size_t threads);

}  // namespace rnicsim
