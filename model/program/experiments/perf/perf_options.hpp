#pragma once
// The command line of `rnicsim perf`, read the way perftest reads its own:
//   rnicsim perf TEST [CONFIG] [-s SIZE | -a] [-n ITERS] [-q QPS] [-t TX_DEPTH]
//                [-r RX_DEPTH] [-m MTU] [-I INLINE] [-Q CQ_MOD] [-A ATOMIC_TYPE]
//                [--report_gbits] [--json FILE] [--pcap FILE] [--breakdown]
//                [--out DIR] [--set key.path=value]... [--threads N] [--warmup N]
// parse_perf_options turns it into a test plan with perftest's defaults and
// dependencies resolved (linux-rdma/perftest src/perftest_parameters.c:
// init_perftest_params, parser, force_dependecies, ctx_set_max_inline), so the
// runner reads every figure it needs from PerfOptions and decides nothing.
// Kernel-free: no SystemC here.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace rnicsim::perf {

enum class PerfTest {
  kWriteLat,
  kWriteBw,
  kReadLat,
  kReadBw,
  kSendLat,
  kSendBw,
  kAtomicLat,
  kAtomicBw,
  // The kernel TCP baseline (netperf TCP_RR and TCP_STREAM semantics): one
  // connection over the NICs' Ethernet ports and the hosts' kernel stacks.
  kTcpLat,
  kTcpBw
};
enum class AtomicType { kFetchAndAdd, kCmpAndSwap };

// perftest's limits and defaults (perftest_parameters.h).
constexpr std::uint64_t kMinIterations = 5;                // MIN_ITER
constexpr std::uint64_t kMaxIterations = 4294967296;       // MAX_ITER
constexpr std::uint64_t kMaxMessageSize = 2147483647;      // UINT_MAX / 2, the -s bound
constexpr std::uint64_t kAllSizesMax = 8388608;            // MAX_SIZE: -a runs 2^1 .. 2^23
constexpr std::uint64_t kAtomicSize = 8;                   // DEF_SIZE_ATOMIC
constexpr std::uint64_t kPeakIterationLimit = 20000;       // above it the BW peak is not measured
constexpr std::uint64_t kCqModerationSizeLimit = 8192;     // MSG_SIZE_CQ_MOD_LIMIT
constexpr std::uint64_t kDynamicPollMinIterations = 3000;  // fewer: fixed CQE poll batch
constexpr std::uint32_t kCqePollBatch = 16;                // CTX_POLL_BATCH
constexpr std::uint32_t kMaxThreads = 64;                  // --threads, rnicsim's own
// -q's bound: a NIC's QP numbers run below 2^18 (interface/queue_formats.hpp),
// so 131072 QPs per side leave room for the set-up's own; perftest has none.
constexpr std::uint32_t kMaxQpsPerTest = 131072;

struct PerfOptions {
  PerfTest test = PerfTest::kWriteLat;
  // -h/--help: print perf_usage() and exit 0; nothing else below is resolved.
  bool help = false;
  std::optional<std::string> config_path;
  // The message sizes to run, in order: the one -s size (or the default), or
  // 2, 4, ..., 8388608 with -a.
  std::vector<std::uint64_t> sizes;
  bool all_sizes = false;  // -a
  // Per QP, as perftest counts them: a BW test posts iterations x qps messages.
  std::uint64_t iterations = 0;
  std::uint32_t qps = 1;
  std::uint32_t tx_depth = 0;  // at most iterations
  // Receive queue depth: the send tests' (default 512, at most iterations,
  // made even as perftest does); 1 for the RDMA verbs, which post no receives.
  std::uint32_t rx_depth = 0;
  std::uint32_t mtu = 0;  // 0 = the port's active MTU (effective_mtu resolves it)
  // A message of at most inline_size bytes is posted inline (sends_inline):
  // 220 (write_lat), 236 (send_lat), 0 for the BW tests unless -I, always 0
  // for read and atomic.
  std::uint32_t inline_size = 0;
  // A signaled send every cq_moderation sends (BW tests): 100 by default, 1
  // above 8 KiB unless -Q or -a, never more than tx_depth; 1 (every send
  // signaled) in latency tests.
  std::uint32_t cq_moderation = 1;
  std::uint32_t cq_moderation_given = 0;  // -Q's value (0: no -Q), for perftest's warning
  AtomicType atomic_type = AtomicType::kFetchAndAdd;
  std::uint8_t qp_timeout = 14;  // -u: the QP's timeout attribute, perftest's default
  bool report_gbits = false;
  bool no_peak = false;  // -N: the BW peak is not measured
  std::optional<std::string> json_path;
  std::optional<std::string> pcap_path;
  std::optional<std::string> out_dir;
  bool breakdown = false;
  std::vector<std::string> sets;  // --set key.path=value, in order, for config loading
  // --threads (rnicsim's own; BW tests): client application threads, each on
  // its own core with its own send CQ (and, in send_bw, as many server
  // threads with their own receive CQs); QP q belongs to thread q % threads.
  std::uint32_t threads = 1;
  // --warmup (rnicsim's own; BW tests): messages per QP run, completed and
  // discarded before each size's measured iterations, so the NIC's context
  // and translation caches start warm (perftest's -D margin does this by time).
  std::uint64_t warmup = 0;

  bool is_latency() const;
  bool is_bw() const { return !is_latency(); }
  bool is_write() const;
  bool is_read() const;
  bool is_send() const;
  bool is_atomic() const;
  bool is_tcp() const { return test == PerfTest::kTcpLat || test == PerfTest::kTcpBw; }
  // perftest keeps every post and completion time and reports a peak only in
  // BW tests of at most 20000 iterations; otherwise it keeps the first post
  // and the last completion and prints a peak of 0.
  bool measures_peak() const { return is_bw() && !no_peak && iterations <= kPeakIterationLimit; }
  // perftest polls a dynamic CQE batch in BW tests of 3000 iterations or more,
  // else a fixed batch (16, or 64 with over 2048 QPs of messages above 8 KiB).
  bool dynamic_cqe_poll() const { return is_bw() && iterations >= kDynamicPollMinIterations; }
  std::uint32_t cqe_poll_batch() const;
  bool sends_inline(std::uint64_t bytes) const { return bytes <= inline_size; }
  // Messages one run of a size posts in total: iterations x qps.
  std::uint64_t total_messages() const { return iterations * qps; }
};

// Write, send and TCP latency is one way (RTT/2); read and atomic report the RTT.
std::uint32_t rtt_factor(PerfTest test);
// "write_lat", "atomic_bw", ...
std::string test_name(PerfTest test);
// perftest's title words: "RDMA_Write", "RDMA_Read", "Send", "Atomic".
std::string verb_title(PerfTest test);
std::string atomic_type_name(AtomicType type);  // "FETCH_AND_ADD", "CMP_AND_SWAP"

// `args` are the words after "perf". A bad command line throws
// config::ConfigError naming the option as given and the reason, e.g.
// "-m 300: must be one of 256, 512, 1024, 2048, 4096".
PerfOptions parse_perf_options(const std::vector<std::string>& args);
std::string perf_usage();
// A perftest option taking a value that shapes the workload ("size", "iters",
// "qp", ...; not rnicsim's "json", "pcap", "out", "set"), by its long name.
bool is_workload_option(std::string_view long_name);

// The MTU the QPs use: -m, or the port's active MTU when -m is absent or
// higher (perftest's set_mtu: "Requested mtu is higher than active mtu").
std::uint32_t effective_mtu(const PerfOptions& options, std::uint32_t active_mtu);

}  // namespace rnicsim::perf
