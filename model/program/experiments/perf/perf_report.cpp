#include "program/experiments/perf/perf_report.hpp"

#include <algorithm>
#include <cinttypes>
#include <cmath>
#include <cstdarg>
#include <cstdio>
#include <stdexcept>

namespace rnicsim::perf {
namespace {

// Timestamps are picoseconds: perftest's cycles at 10^12 per second.
constexpr double kPsPerSecond = 1e12;
constexpr double kPsPerUsec = 1e6;
constexpr double kMiB = 1048576.0;       // perftest's MBS format factor (0x100000)
constexpr double kGbitBytes = 125e6;     // its GBS factor: bytes per second in 1 Gb/s
constexpr std::size_t kLatencyTail = 2;  // LAT_MEASURE_TAIL: the largest samples dropped

constexpr const char* kResultLine =
    "---------------------------------------------------------------------------------------\n";

// perftest's column titles (RESULT_FMT, RESULT_FMT_G, RESULT_FMT_LAT).
constexpr const char* kBwHeaderMib =
    " #bytes     #iterations    BW peak[MiB/sec]    BW average[MiB/sec]   MsgRate[Mpps]";
constexpr const char* kBwHeaderGbit =
    " #bytes     #iterations    BW peak[Gb/sec]    BW average[Gb/sec]   MsgRate[Mpps]";
constexpr const char* kLatHeader =
    " #bytes #iterations    t_min[usec]    t_max[usec]  t_typical[usec]    t_avg[usec]    "
    "t_stdev[usec]   99% percentile[usec]   99.9% percentile[usec] ";

__attribute__((format(printf, 1, 2))) std::string format(const char* pattern, ...) {
  std::va_list args;
  va_start(args, pattern);
  std::va_list again;
  va_copy(again, args);
  const int length = std::vsnprintf(nullptr, 0, pattern, args);
  va_end(args);
  std::string text(static_cast<std::size_t>(std::max(length, 0)) + 1, '\0');
  std::vsnprintf(text.data(), text.size(), pattern, again);
  va_end(again);
  text.pop_back();
  return text;
}

std::uint64_t round_up(std::uint64_t value, std::uint64_t alignment) {
  return value % alignment == 0 ? value : alignment * (value / alignment + 1);
}

// ctx_print_pingpong_data: the address line, then the GID line when a GID
// index is in use (always on RoCE).
std::string format_address(const char* side, const QpAddress& qp, const PerfOptions& options,
                           int gid_index) {
  std::string text = format(" %s address: LID %#04x QPN %#06x PSN %#06x", side,
                            static_cast<unsigned>(qp.lid), qp.qpn, qp.psn);
  if (options.is_read()) text += format(" OUT %#04x", qp.out_reads);
  if (options.is_read() || options.is_write()) {
    text += format(" RKey %#08x VAddr %#016" PRIx64, qp.rkey, qp.vaddr);
  }
  text += '\n';
  if (gid_index > -1) {
    const auto& g = qp.gid;
    text += format(
        " GID: %02d:%02d:%02d:%02d:%02d:%02d:%02d:%02d:%02d:%02d:%02d:%02d:%02d:%02d:%02d:%02d\n",
        g[0], g[1], g[2], g[3], g[4], g[5], g[6], g[7], g[8], g[9], g[10], g[11], g[12], g[13],
        g[14], g[15]);
  }
  return text;
}

// ibv_mtu's enum value (IBV_MTU_256 = 1 .. IBV_MTU_4096 = 5), which perftest
// prints in its MTU notice.
int mtu_enum(std::uint32_t mtu) {
  int value = 1;
  for (std::uint32_t m = 256; m < mtu; m *= 2) ++value;
  return value;
}

}  // namespace

LatencyRow latency_row(std::uint64_t bytes, const std::vector<std::uint64_t>& post_times_ps,
                       PerfTest test) {
  if (post_times_ps.size() < kMinIterations) {
    throw std::invalid_argument("latency_row: " + std::to_string(post_times_ps.size()) +
                                " post times; perftest needs at least " +
                                std::to_string(kMinIterations));
  }
  std::vector<std::uint64_t> delta(post_times_ps.size() - 1);
  for (std::size_t i = 0; i < delta.size(); ++i) {
    if (post_times_ps[i + 1] < post_times_ps[i]) {
      throw std::invalid_argument("latency_row: post " + std::to_string(i + 1) +
                                  " is earlier than the one before it");
    }
    delta[i] = post_times_ps[i + 1] - post_times_ps[i];
  }
  std::sort(delta.begin(), delta.end());
  const std::size_t m = delta.size() - kLatencyTail;
  const double quotient = kPsPerUsec * rtt_factor(test);

  // perftest's get_median, in whole units of time as it has them.
  const std::uint64_t median =
      (m - 1) % 2 != 0 ? (delta[m / 2] + delta[m / 2 - 1]) / 2 : delta[m / 2];
  double average_sum = 0;
  for (std::size_t i = 0; i < m; ++i) average_sum += delta[i] / quotient;
  const double average = average_sum / static_cast<double>(m);
  double deviation_sum = 0;
  for (std::size_t i = 0; i < m; ++i) {
    const double deviation = average - delta[i] / quotient;
    deviation_sum += deviation * deviation;
  }
  const auto p99 = static_cast<std::size_t>(std::ceil(static_cast<double>(m) * 0.99));
  const auto p99_9 = static_cast<std::size_t>(std::ceil(static_cast<double>(m) * 0.999));

  LatencyRow row;
  row.bytes = bytes;
  row.iterations = post_times_ps.size();
  row.t_min_usec = delta[0] / quotient;
  row.t_max_usec = delta[m] / quotient;
  row.t_typical_usec = median / quotient;
  row.t_avg_usec = average;
  row.t_stdev_usec = std::sqrt(deviation_sum / static_cast<double>(m));
  row.p99_usec = delta[p99] / quotient;
  row.p99_9_usec = delta[p99_9] / quotient;
  return row;
}

BwRow bw_row(std::uint64_t bytes, const std::vector<std::uint64_t>& posted_ps,
             const std::vector<std::uint64_t>& completed_ps, const PerfOptions& options) {
  const std::uint64_t messages = options.total_messages();
  const bool full = posted_ps.size() == messages && completed_ps.size() == messages;
  const bool ends_only = posted_ps.size() == 1 && completed_ps.size() == 1;
  if (messages == 0 || !(full || (ends_only && !options.measures_peak()))) {
    throw std::invalid_argument(
        "bw_row: " + std::to_string(posted_ps.size()) + " post and " +
        std::to_string(completed_ps.size()) + " completion times for " + std::to_string(messages) +
        " messages" +
        (options.measures_peak() ? "" : " (or one of each: first post, last completion)"));
  }
  const std::uint64_t first_post = posted_ps.front();
  // With several threads the last message posted need not complete last.
  const std::uint64_t last_completion =
      options.threads > 1 ? *std::max_element(completed_ps.begin(), completed_ps.end())
                          : completed_ps.back();
  if (last_completion <= first_post) {
    throw std::invalid_argument("bw_row: the last completion is not after the first post");
  }

  BwRow row;
  row.bytes = bytes;
  row.iterations = messages;
  const double elapsed = static_cast<double>(last_completion - first_post);
  const double volume = static_cast<double>(bytes) * static_cast<double>(messages) * kPsPerSecond;
  row.bw_avg_mib = volume / (elapsed * kMiB);
  row.bw_avg_gbps = volume / (elapsed * kGbitBytes);
  row.msg_rate_mpps = static_cast<double>(messages) * kPsPerSecond / (elapsed * 1e6);

  if (options.measures_peak()) {
    // perftest's search, from the first message's own time: every window from
    // a post to a signaled completion, per message.
    const std::uint64_t moderation = options.cq_moderation;
    auto per_message = [&](std::uint64_t i, std::uint64_t j) {
      if (completed_ps[j] <= posted_ps[i]) {
        throw std::invalid_argument("bw_row: completion " + std::to_string(j) +
                                    " is not after post " + std::to_string(i));
      }
      return (completed_ps[j] - posted_ps[i]) / (j - i + 1);
    };
    std::uint64_t best = per_message(0, 0);
    for (std::uint64_t i = 0; i < messages; ++i) {
      for (std::uint64_t j = round_up(i + 1, moderation) - 1; j < messages; j += moderation) {
        best = std::min(best, per_message(i, j));
      }
      if (messages % moderation != 0) best = std::min(best, per_message(i, messages - 1));
    }
    if (best == 0) {
      throw std::invalid_argument("bw_row: messages completed in under a picosecond each");
    }
    const double peak = static_cast<double>(bytes) * kPsPerSecond / static_cast<double>(best);
    row.bw_peak_mib = peak / kMiB;
    row.bw_peak_gbps = peak / kGbitBytes;
  }
  return row;
}

std::string format_banner(const PerfOptions& options, const BannerInfo& info) {
  const std::uint64_t size = options.all_sizes ? kAllSizesMax : options.sizes.front();
  std::string text;
  if (options.is_bw() && options.cq_moderation_given > 1 && size > kCqModerationSizeLimit &&
      !options.all_sizes) {
    text += kResultLine;
    text += "Warning: Large message requested and CQ moderation enabled\n";
    text += "Warning: It can lead to inaccurate results\n";
  }
  if (options.is_bw() && !options.measures_peak()) {
    text += " WARNING: BW peak won't be measured in this run.\n";
  }
  if (!options.dynamic_cqe_poll()) {
    text += "Disabling dynamic polling\n";
    if (options.cqe_poll_batch() != kCqePollBatch) {
      text += format("Increasing CQE polling batch to %u\n", options.cqe_poll_batch());
    }
  }
  if (options.mtu > info.active_mtu) {
    text += "Requested mtu is higher than active mtu \n";
    text += format("Changing to active mtu - %d\n", mtu_enum(info.active_mtu));
  }

  text += kResultLine;
  text += "                    " + verb_title(options.test) + " ";
  if (options.is_atomic()) text += atomic_type_name(options.atomic_type) + " ";
  text += options.is_bw() ? "BW Test\n" : "Latency Test\n";
  text += format(" Dual-port       : OFF\t\tDevice         : %s\n", info.device.c_str());
  text += format(" Number of qps   : %u\t\tTransport type : IB\n", options.qps);
  text += " Connection type : RC\t\tUsing SRQ      : OFF\n";
  text += " PCIe relax order: ON\t\tLock-free      : OFF\n";
  text += " ibv_wr* API     : ON\t\tUsing Enhanced Reorder      : OFF\n";
  text += format(" TX depth        : %u\n", options.tx_depth);
  if (options.is_bw()) {
    text += format(" CQ Moderation   : %u\n", options.cq_moderation);
    text += options.dynamic_cqe_poll()
                ? std::string(" CQE Poll Batch  : Dynamic\n")
                : format(" CQE Poll Batch  : %u\n", options.cqe_poll_batch());
  }
  text += format(" Mtu             : %u[B]\n", effective_mtu(options, info.active_mtu));
  text += " Link type       : " + info.link_type + "\n";
  if (info.gid_index != -1) text += format(" GID index       : %d\n", info.gid_index);
  if (options.is_read() || options.is_atomic()) {
    text += format(" Outstand reads  : %u\n", info.out_reads);
  } else {
    text += format(" Max inline data : %u[B]\n", options.inline_size);
  }
  text += " rdma_cm QPs\t : OFF\n";
  text += " Data ex. method : Ethernet\n";
  text += kResultLine;
  for (const QpAddress& qp : info.local)
    text += format_address("local", qp, options, info.gid_index);
  for (const QpAddress& qp : info.remote) {
    text += format_address("remote", qp, options, info.gid_index);
  }
  return text;
}

std::string format_table_header(const PerfOptions& options) {
  const char* titles = options.is_latency()   ? kLatHeader
                       : options.report_gbits ? kBwHeaderGbit
                                              : kBwHeaderMib;
  return std::string(kResultLine) + titles + "\n";
}

std::string format_latency_row(const LatencyRow& row) {
  return format(
      " %-7" PRIu64 " %" PRIu64
      "          %-7.2f        %-7.2f      %-7.2f  \t       %-7.2f     \t%-7.2f\t\t%-7.2f "
      "\t\t%-7.2f\n",
      row.bytes, row.iterations, row.t_min_usec, row.t_max_usec, row.t_typical_usec, row.t_avg_usec,
      row.t_stdev_usec, row.p99_usec, row.p99_9_usec);
}

std::string format_bw_row(const BwRow& row, bool report_gbits) {
  const double peak = report_gbits ? row.bw_peak_gbps : row.bw_peak_mib;
  const double average = report_gbits ? row.bw_avg_gbps : row.bw_avg_mib;
  if (report_gbits && row.bw_avg_gbps < 0.1) {
    return format(" %-7" PRIu64 "    %" PRIu64
                  "           %-7.6f            %-7.6f            %-7.6f\n",
                  row.bytes, row.iterations, peak, average, row.msg_rate_mpps);
  }
  return format(" %-7" PRIu64 "    %-10" PRIu64 "       %-7.2f            %-7.2f\t\t     %-7.6f\n",
                row.bytes, row.iterations, peak, average, row.msg_rate_mpps);
}

std::string format_table_footer() { return kResultLine; }

nlohmann::json perf_options_json(const PerfOptions& options) {
  nlohmann::json json = {
      {"iterations", options.iterations},
      {"qps", options.qps},
      {"tx_depth", options.tx_depth},
      {"rx_depth", options.rx_depth},
      {"mtu", options.mtu},
      {"inline_size", options.inline_size},
      {"cq_moderation", options.cq_moderation},
      {"qp_timeout", options.qp_timeout},
      {"report_gbits", options.report_gbits},
  };
  if (options.is_atomic()) json["atomic_type"] = atomic_type_name(options.atomic_type);
  if (options.threads > 1) json["threads"] = options.threads;  // rnicsim's own
  return json;
}

nlohmann::json latency_row_json(const LatencyRow& row) {
  return {{"bytes", row.bytes},
          {"iterations", row.iterations},
          {"t_min_usec", row.t_min_usec},
          {"t_max_usec", row.t_max_usec},
          {"t_typical_usec", row.t_typical_usec},
          {"t_avg_usec", row.t_avg_usec},
          {"t_stdev_usec", row.t_stdev_usec},
          {"p99_usec", row.p99_usec},
          {"p99_9_usec", row.p99_9_usec}};
}

nlohmann::json bw_row_json(const BwRow& row) {
  return {{"bytes", row.bytes},
          {"iterations", row.iterations},
          {"bw_peak_gbps", row.bw_peak_gbps},
          {"bw_avg_gbps", row.bw_avg_gbps},
          {"msg_rate_mpps", row.msg_rate_mpps}};
}

namespace {

template <typename Row, typename ToJson>
nlohmann::json document(const PerfOptions& options, const nlohmann::json& config,
                        const std::vector<Row>& rows, ToJson to_json) {
  nlohmann::json results = nlohmann::json::array();
  for (const Row& row : rows) results.push_back(to_json(row));
  return {{"test", test_name(options.test)},
          {"options", perf_options_json(options)},
          {"config", config},
          {"results", std::move(results)}};
}

}  // namespace

nlohmann::json perf_json(const PerfOptions& options, const nlohmann::json& config,
                         const std::vector<LatencyRow>& rows) {
  return document(options, config, rows, latency_row_json);
}

nlohmann::json perf_json(const PerfOptions& options, const nlohmann::json& config,
                         const std::vector<BwRow>& rows) {
  return document(options, config, rows, bw_row_json);
}

}  // namespace rnicsim::perf
