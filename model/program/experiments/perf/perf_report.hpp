#pragma once
// perftest's statistics and output for `rnicsim perf`: raw timestamps from a
// run become perftest's rows (print_report_lat, print_report_bw), printed in
// its formats (perftest_parameters.h: RESULT_FMT*, REPORT_FMT*; banner of
// ctx_print_test_info and ctx_print_pingpong_data), and the --json document.
// Timestamps are simulated picoseconds where perftest has CPU cycles: the same
// integer arithmetic, at 1e12 "cycles" per second. Kernel-free: no SystemC.
//
// What a run prints, in order:
//   format_banner        notices perftest prints first, its test banner, the QP addresses
//   format_table_header  a line of dashes and the column titles
//   format_latency_row / format_bw_row, one per message size
//   format_table_footer  a line of dashes
#include <array>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "program/experiments/perf/perf_options.hpp"

namespace rnicsim::perf {

struct LatencyRow {
  std::uint64_t bytes = 0;
  std::uint64_t iterations = 0;
  double t_min_usec = 0;
  double t_max_usec = 0;
  double t_typical_usec = 0;  // the median
  double t_avg_usec = 0;
  double t_stdev_usec = 0;
  double p99_usec = 0;
  double p99_9_usec = 0;
};

// A ping-pong run's post times (one per iteration, picoseconds, in order), as
// perftest's print_report_lat reads them: the iterations - 1 gaps between
// consecutive posts, sorted, the two largest dropped (m = iterations - 3 kept),
// each divided by the test's rtt_factor (2: write and send, one way; 1: read
// and atomic, the round trip).
//   t_min = d[0], t_max = d[m] (the largest one kept out), t_typical = the
//   median of d[0..m-1] (mean of the middle two, in whole picoseconds, when m
//   is even), t_avg and t_stdev over d[0..m-1], p99 = d[ceil(0.99 m)],
//   p99.9 = d[ceil(0.999 m)].
// t_stdev is the true population deviation. perftest since 6234a09 (2022, a
// cppcheck clean-up) truncates each deviation to a whole microsecond in an
// int, so it prints 0.00 for any jitter below 1 us on real hardware too; the
// figure it meant, and printed before, is this one.
// std::invalid_argument for fewer than 5 posts (perftest's minimum) or posts
// out of order.
LatencyRow latency_row(std::uint64_t bytes, const std::vector<std::uint64_t>& post_times_ps,
                       PerfTest test);

struct BwRow {
  std::uint64_t bytes = 0;
  std::uint64_t iterations = 0;  // messages over all QPs: iterations x qps
  double bw_peak_gbps = 0;       // 0 when perftest does not measure it
  double bw_avg_gbps = 0;
  double msg_rate_mpps = 0;
  double bw_peak_mib = 0;  // MiB/s, perftest's default unit
  double bw_avg_mib = 0;
};

// A BW run's timestamps in post order over all QPs (options.total_messages()
// of each, picoseconds): posted_ps[k] when message k was posted,
// completed_ps[k] when the completion covering it was polled. As perftest's
// print_report_bw computes:
//   average = bytes x messages / (completed[last] - posted[0]); message rate
//   likewise; peak = bytes / the shortest per-message time over every window
//   from a post i to a signaled completion j (j = i rounded up to the next
//   multiple of cq_moderation, minus 1, then every cq_moderation after it, and
//   the last message), (completed[j] - posted[i]) / (j - i + 1) in whole ps.
// Only those completions are read: the signaled ones, as perftest records.
// Without a peak (options.measures_peak() false) perftest keeps only the
// first post and the last completion; vectors of one element each (those
// two) are accepted then, and full ones too. Gb/s is 10^9 bit/s, MiB/s 2^20
// byte/s. std::invalid_argument for vectors of another length or a
// completion before its post.
BwRow bw_row(std::uint64_t bytes, const std::vector<std::uint64_t>& posted_ps,
             const std::vector<std::uint64_t>& completed_ps, const PerfOptions& options);

// One QP's connection data as perftest exchanges and prints it.
struct QpAddress {
  std::uint16_t lid = 0;  // 0 on RoCE
  std::uint32_t qpn = 0;
  std::uint32_t psn = 0;        // 24 bits
  std::uint32_t out_reads = 0;  // printed for read tests
  std::uint32_t rkey = 0;       // printed for write and read tests
  std::uint64_t vaddr = 0;
  std::array<std::uint8_t, 16> gid{};
};

struct BannerInfo {
  std::string device = "rnicsim0";
  std::string link_type = "Ethernet";
  std::uint32_t active_mtu = 1024;  // the port's; the banner shows effective_mtu()
  int gid_index = 0;                // perftest's default on Ethernet; -1: line omitted
  std::uint32_t out_reads = 16;     // "Outstand reads" of read and atomic tests
  std::vector<QpAddress> local;     // one per QP
  std::vector<QpAddress> remote;
};

// Everything perftest prints before the table, as the client sees it:
//  * the notices perftest prints while reading its options, in its order:
//    CQ moderation asked for above 8 KiB, a BW peak not measured, the fixed
//    CQE poll batch ("Disabling dynamic polling", every latency test) and its
//    intense size, an -m above the port's active MTU (perftest prints the
//    ibv_mtu enum value there, 3 for 1024, and so does this);
//  * ctx_print_test_info for an RC connection, in a build with relaxed
//    ordering and thread domains (the "PCIe relax order" and "Lock-free"
//    line), no SRQ, no rdma_cm; RX depth is the server's line, not shown;
//  * a line of dashes, then each local QP's address and GID, then each
//    remote one's (GID bytes in decimal, as perftest prints them).
std::string format_banner(const PerfOptions& options, const BannerInfo& info);
std::string format_table_header(const PerfOptions& options);
// One line each, with its newline. A BW row switches to six decimals when
// reporting Gb/s below 0.1 (perftest's REPORT_FMT_EXT).
std::string format_latency_row(const LatencyRow& row);
std::string format_bw_row(const BwRow& row, bool report_gbits);
std::string format_table_footer();

// The --json document: {"test", "options", "config", "results"}. "options" is
// the resolved test plan (mtu 0: the port's active MTU); latency rows carry
// bytes, iterations, t_min_usec, t_max_usec, t_typical_usec, t_avg_usec,
// t_stdev_usec, p99_usec, p99_9_usec; BW rows bytes, iterations,
// bw_peak_gbps, bw_avg_gbps, msg_rate_mpps. Figures unrounded.
nlohmann::json perf_options_json(const PerfOptions& options);
nlohmann::json latency_row_json(const LatencyRow& row);
nlohmann::json bw_row_json(const BwRow& row);
nlohmann::json perf_json(const PerfOptions& options, const nlohmann::json& config,
                         const std::vector<LatencyRow>& rows);
nlohmann::json perf_json(const PerfOptions& options, const nlohmann::json& config,
                         const std::vector<BwRow>& rows);

}  // namespace rnicsim::perf
