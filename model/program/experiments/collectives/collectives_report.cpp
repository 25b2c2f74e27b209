#include "program/experiments/collectives/collectives_report.hpp"

#include <algorithm>
#include <cstdarg>
#include <cstdio>
#include <numeric>
#include <ostream>

namespace rnicsim {
namespace {

double mean(const std::vector<double>& values) {
  if (values.empty()) return 0;
  return std::accumulate(values.begin(), values.end(), 0.0) / static_cast<double>(values.size());
}

// osu_util.h's column widths (FIELD_WIDTH 18, the size column 10).
constexpr int kSizeWidth = 10;
constexpr int kFieldWidth = 18;

const char* osu_title(CollectiveTest test) {
  switch (test) {
    case CollectiveTest::kAllreduce:
      return "Allreduce Latency Test";
    case CollectiveTest::kAllgather:
      return "Allgather Latency Test";
    case CollectiveTest::kReduceScatter:
      return "Reduce_scatter Latency Test";
    case CollectiveTest::kBcast:
      return "Broadcast Latency Test";
    case CollectiveTest::kAlltoall:
      return "All-to-All Personalized Exchange Latency Test";
    case CollectiveTest::kLatency:
      return "Latency Test";
    case CollectiveTest::kBw:
      return "Bandwidth Test";
    case CollectiveTest::kBibw:
      return "Bi-Directional Bandwidth Test";
    case CollectiveTest::kMbwMr:
      return "Multiple Bandwidth / Message Rate Test";
  }
  return "?";
}

std::string format(const char* pattern, ...) __attribute__((format(printf, 1, 2)));
std::string format(const char* pattern, ...) {
  char text[512];
  va_list args;
  va_start(args, pattern);
  std::vsnprintf(text, sizeof text, pattern, args);
  va_end(args);
  return text;
}

}  // namespace

CollectivesReport::CollectivesReport(const CollectivesConfig& config, std::ostream& out)
    : config_(config), out_(out) {}

std::uint64_t CollectivesReport::nccl_bytes(std::uint64_t bytes) const {
  const bool gathers =
      config_.test == CollectiveTest::kAllgather || config_.test == CollectiveTest::kAlltoall;
  return gathers ? bytes * config_.ranks : bytes;
}

double CollectivesReport::bus_factor() const {
  const double n = static_cast<double>(config_.ranks);
  switch (config_.test) {
    case CollectiveTest::kAllreduce:
      return 2 * (n - 1) / n;
    case CollectiveTest::kBcast:
      return 1;
    default:
      return (n - 1) / n;
  }
}

double CollectivesReport::osu_ns(const CollectivesRow& row) const {
  return mean(config_.is_point_to_point() ? row.rank0_ns : row.mean_ns);
}

double CollectivesReport::completion_ns(const CollectivesRow& row) const {
  return mean(row.most_ns);
}

double CollectivesReport::osu_figure(const CollectivesRow& row) const {
  const double ns = osu_ns(row);
  const double window_bytes = static_cast<double>(row.bytes * config_.window);
  switch (config_.test) {
    case CollectiveTest::kLatency:
      return ns / 2 / 1000;  // one way: half the round trip
    case CollectiveTest::kBw:
      return window_bytes / ns * 1000;  // bytes per ns x 1000 = MB/s
    case CollectiveTest::kBibw:
      return 2 * window_bytes / ns * 1000;
    case CollectiveTest::kMbwMr:
      return static_cast<double>(config_.ranks / 2) * window_bytes / ns * 1000;
    default:
      return ns / 1000;
  }
}

double CollectivesReport::messages_per_second(const CollectivesRow& row) const {
  return static_cast<double>(config_.ranks / 2 * config_.window) / osu_ns(row) * 1e9;
}

void CollectivesReport::print_header() {
  if (config_.nccl_format) {
    out_ << format("# rnicsim collectives: %s over %s, %zu ranks, %s sums\n",
                   to_string(config_.test), to_string(config_.transport), config_.ranks,
                   kElementType)
         << "#\n"
         << format("# %10s  %12s  %8s  %6s  %6s  %7s  %6s  %6s  %6s\n", "size", "count", "type",
                   "redop", "root", "time", "algbw", "busbw", "#wrong")
         << format("# %10s  %12s  %8s  %6s  %6s  %7s  %6s  %6s  %6s\n", "(B)", "(elements)", "", "",
                   "", "(us)", "(GB/s)", "(GB/s)", "")
         << std::flush;
    return;
  }
  out_ << "# OSU MPI " << osu_title(config_.test) << " v7.4\n";
  switch (config_.test) {
    case CollectiveTest::kLatency:
      out_ << format("%-*s%*s\n", kSizeWidth, "# Size", kFieldWidth, "Latency (us)");
      break;
    case CollectiveTest::kBw:
    case CollectiveTest::kBibw:
      out_ << format("%-*s%*s\n", kSizeWidth, "# Size", kFieldWidth, "Bandwidth (MB/s)");
      break;
    case CollectiveTest::kMbwMr:
      out_ << format("# [ pairs: %zu ] [ window size: %llu ]\n", config_.ranks / 2,
                     static_cast<unsigned long long>(config_.window))
           << format("%-*s%*s%*s\n", kSizeWidth, "# Size", kFieldWidth, "MB/s", kFieldWidth,
                     "Messages/s");
      break;
    default:
      out_ << format("%-*s%*s\n", kSizeWidth, "# Size", kFieldWidth, "Avg Latency(us)");
      break;
  }
  out_.flush();
}

void CollectivesReport::add(const CollectivesRow& row) {
  rows_.push_back(row);
  if (config_.nccl_format) {
    const std::uint64_t size = nccl_bytes(row.bytes);
    const double us = completion_ns(row) / 1000;
    const double algbw = static_cast<double>(size) / (us * 1000);  // GB/s
    out_ << format("  %10llu  %12llu  %8s  %6s  %6d  %7.2f  %6.2f  %6.2f  %6d\n",
                   static_cast<unsigned long long>(size),
                   static_cast<unsigned long long>(size / kElementBytes), kElementType,
                   config_.reduces() ? "sum" : "none",
                   config_.test == CollectiveTest::kBcast ? 0 : -1, us, algbw, algbw * bus_factor(),
                   0)
         << std::flush;
    return;
  }
  if (config_.test == CollectiveTest::kMbwMr) {
    out_ << format("%-*llu%*.2f%*.2f\n", kSizeWidth, static_cast<unsigned long long>(row.bytes),
                   kFieldWidth, osu_figure(row), kFieldWidth, messages_per_second(row));
  } else {
    out_ << format("%-*llu%*.2f\n", kSizeWidth, static_cast<unsigned long long>(row.bytes),
                   kFieldWidth, osu_figure(row));
  }
  out_.flush();
}

void CollectivesReport::print_footer() {
  for (const CollectivesRow& row : rows_) {
    if (row.cpu_ns_per_operation.empty()) continue;
    const auto most =
        std::max_element(row.cpu_ns_per_operation.begin(), row.cpu_ns_per_operation.end());
    const double mean =
        std::accumulate(row.cpu_ns_per_operation.begin(), row.cpu_ns_per_operation.end(), 0.0) /
        static_cast<double>(row.cpu_ns_per_operation.size());
    out_ << format(
        "# CPU %llu B (%s): %.2f us of work per operation per rank, most %.2f "
        "(rank %zu)\n",
        static_cast<unsigned long long>(row.bytes), to_string(row.algorithm), mean / 1000,
        *most / 1000, static_cast<std::size_t>(most - row.cpu_ns_per_operation.begin()));
  }
  if (!config_.breakdown) return;
  for (const CollectivesRow& row : rows_) {
    out_ << format("# steps %llu B (%s), rank 0, us after the start:",
                   static_cast<unsigned long long>(row.bytes), to_string(row.algorithm));
    for (const double ns : row.step_end_ns) out_ << format(" %.2f", ns / 1000);
    out_ << "\n";
  }
}

nlohmann::json CollectivesReport::json(const std::vector<std::string>& rank_nodes) const {
  nlohmann::json rows = nlohmann::json::array();
  for (const CollectivesRow& row : rows_) {
    const std::vector<double>& times = config_.is_point_to_point() ? row.rank0_ns : row.mean_ns;
    // osu_latency's figure is one way: half of rank 0's round trip.
    const double scale = config_.test == CollectiveTest::kLatency ? 0.5 / 1000 : 1.0 / 1000;
    nlohmann::json r = {
        {"bytes", row.bytes},
        {"algorithm", to_string(row.algorithm)},
        {"iterations", times.size()},
        {"avg_latency_us", osu_ns(row) * scale},
        {"min_latency_us",
         times.empty() ? 0.0 : *std::min_element(times.begin(), times.end()) * scale},
        {"max_latency_us",
         times.empty() ? 0.0 : *std::max_element(times.begin(), times.end()) * scale},
        {"completion_us", completion_ns(row) / 1000}};
    if (config_.is_point_to_point()) {
      r["osu_figure"] = osu_figure(row);
      if (config_.test == CollectiveTest::kMbwMr)
        r["messages_per_second"] = messages_per_second(row);
    } else {
      const double algbw = static_cast<double>(nccl_bytes(row.bytes)) / completion_ns(row);
      r["algbw_gbytes_per_s"] = algbw;
      r["busbw_gbytes_per_s"] = algbw * bus_factor();
    }
    nlohmann::json cpu = nlohmann::json::object();
    for (std::size_t k = 0; k < row.cpu_ns_per_operation.size(); ++k) {
      cpu[rank_nodes[k]] = row.cpu_ns_per_operation[k] / 1000;
    }
    r["cpu_us_per_operation"] = cpu;
    nlohmann::json steps = nlohmann::json::array();
    for (const double s : row.step_end_ns) steps.push_back(s / 1000);
    r["rank0_step_end_us"] = steps;
    rows.push_back(r);
  }
  return {{"test", to_string(config_.test)},
          {"transport", to_string(config_.transport)},
          {"ranks", config_.ranks},
          {"element", kElementType},
          {"segment_bytes", config_.segment_bytes},
          {"window", config_.window},
          {"bus_factor", config_.is_point_to_point() ? 0.0 : bus_factor()},
          {"rows", rows}};
}

}  // namespace rnicsim
