#include "program/experiments/perf/perf_options.hpp"

#include <algorithm>
#include <array>
#include <stdexcept>
#include <string_view>

#include "config/config.hpp"

namespace rnicsim::perf {
namespace {

using config::ConfigError;

struct TestName {
  const char* name;
  PerfTest test;
};

constexpr std::array<TestName, 10> kTests{{
    {"write_lat", PerfTest::kWriteLat},
    {"write_bw", PerfTest::kWriteBw},
    {"read_lat", PerfTest::kReadLat},
    {"read_bw", PerfTest::kReadBw},
    {"send_lat", PerfTest::kSendLat},
    {"send_bw", PerfTest::kSendBw},
    {"atomic_lat", PerfTest::kAtomicLat},
    {"atomic_bw", PerfTest::kAtomicBw},
    {"tcp_lat", PerfTest::kTcpLat},
    {"tcp_bw", PerfTest::kTcpBw},
}};

constexpr const char* kTestList =
    "write_lat, write_bw, read_lat, read_bw, send_lat, send_bw, atomic_lat, atomic_bw, "
    "tcp_lat, tcp_bw";

// perftest's defaults (perftest_parameters.h).
constexpr std::uint64_t kDefaultSizeBw = 65536;
constexpr std::uint64_t kDefaultSizeLat = 2;
constexpr std::uint64_t kDefaultIterations = 1000;
constexpr std::uint64_t kDefaultIterationsWriteBw = 5000;
constexpr std::uint32_t kDefaultTxDepthBw = 128;
constexpr std::uint32_t kDefaultTxDepthLat = 1;
constexpr std::uint32_t kDefaultRxDepthSend = 512;
constexpr std::uint32_t kDefaultCqModeration = 100;
constexpr std::uint32_t kDefaultInlineWrite = 220;
constexpr std::uint32_t kDefaultInlineSend = 236;  // RC
constexpr std::uint32_t kCqePollBatchIntense = 64;
constexpr std::uint32_t kIntensePollQps = 2048;

enum class Opt {
  kSize,
  kAll,
  kIters,
  kQps,
  kTxDepth,
  kRxDepth,
  kMtu,
  kInline,
  kCqMod,
  kAtomicType,
  kQpTimeout,
  kReportGbits,
  kNoPeak,
  kHelp,
  kJson,
  kPcap,
  kBreakdown,
  kOut,
  kSet,
  kThreads,
  kWarmup,
};

struct OptionSpec {
  char short_name;  // 0: long only
  const char* long_name;
  bool takes_value;
  Opt id;
};

// perftest's spellings (its getopt_long table), then rnicsim's own options.
constexpr std::array<OptionSpec, 21> kOptions{{
    {'s', "size", true, Opt::kSize},
    {'a', "all", false, Opt::kAll},
    {'n', "iters", true, Opt::kIters},
    {'q', "qp", true, Opt::kQps},
    {'t', "tx-depth", true, Opt::kTxDepth},
    {'r', "rx-depth", true, Opt::kRxDepth},
    {'m', "mtu", true, Opt::kMtu},
    {'I', "inline_size", true, Opt::kInline},
    {'Q', "cq-mod", true, Opt::kCqMod},
    {'A', "atomic_type", true, Opt::kAtomicType},
    {'u', "qp-timeout", true, Opt::kQpTimeout},
    {0, "report_gbits", false, Opt::kReportGbits},
    {'N', "noPeak", false, Opt::kNoPeak},
    {'h', "help", false, Opt::kHelp},
    {0, "json", true, Opt::kJson},
    {0, "pcap", true, Opt::kPcap},
    {0, "breakdown", false, Opt::kBreakdown},
    {0, "out", true, Opt::kOut},
    {0, "set", true, Opt::kSet},
    {0, "threads", true, Opt::kThreads},
    {0, "warmup", true, Opt::kWarmup},
}};

// perftest options this front end does not model: named as such rather than
// as unknown, so a perftest command line pasted in says what is missing.
constexpr std::string_view kPerftestOnlyShort = "bBcCdDeEfFgHiJjKklLMoOpRSTUVwWxXyYz";

// One option as the user wrote it, before its value is checked.
struct Given {
  const OptionSpec* spec;
  std::string value;
  std::string source;  // "-s 64", "-s64", "--size=64": what an error names
};

const OptionSpec* find_short(char c) {
  for (const auto& spec : kOptions) {
    if (spec.short_name == c) return &spec;
  }
  return nullptr;
}

const OptionSpec* find_long(std::string_view name) {
  for (const auto& spec : kOptions) {
    if (name == spec.long_name) return &spec;
  }
  return nullptr;
}

std::string display_name(const OptionSpec& spec) {
  return spec.short_name != 0 ? std::string("-") + spec.short_name
                              : std::string("--") + spec.long_name;
}

// A word that is an option rather than a value: "-x" or "--x...", but not "-"
// alone nor a negative number (an out-of-range value, reported as such).
bool looks_like_option(const std::string& word) {
  if (word.size() < 2 || word[0] != '-') return false;
  return !(word[1] >= '0' && word[1] <= '9');
}

[[noreturn]] void unknown_option(const std::string& word) {
  const bool perftest_short = word.size() >= 2 && word[0] == '-' && word[1] != '-' &&
                              kPerftestOnlyShort.find(word[1]) != std::string_view::npos;
  if (perftest_short) {
    throw ConfigError(word, "",
                      "a perftest option rnicsim perf does not support (see rnicsim perf --help)");
  }
  throw ConfigError(word, "", "unknown option (see rnicsim perf --help)");
}

// Splits the words into options (values not yet checked) and positionals.
// Returns false when -h/--help was met: perftest prints its help on the spot.
bool collect(const std::vector<std::string>& args, std::vector<Given>& given,
             std::vector<std::string>& positionals) {
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string& word = args[i];
    if (!looks_like_option(word)) {
      positionals.push_back(word);
      continue;
    }
    const OptionSpec* spec = nullptr;
    std::optional<std::string> attached;
    if (word[1] == '-') {
      const std::size_t equals = word.find('=');
      spec = find_long(std::string_view(word).substr(
          2, equals == std::string::npos ? std::string::npos : equals - 2));
      if (spec != nullptr && equals != std::string::npos) attached = word.substr(equals + 1);
    } else {
      spec = find_short(word[1]);
      if (spec != nullptr && word.size() > 2) {
        if (!spec->takes_value) unknown_option(word);
        attached = word.substr(2);
      }
    }
    if (spec == nullptr) unknown_option(word);
    if (spec->id == Opt::kHelp) return false;
    if (!spec->takes_value) {
      if (attached) throw ConfigError(word, "", "takes no value");
      given.push_back({spec, "", word});
      continue;
    }
    if (attached) {
      given.push_back({spec, *attached, word});
      continue;
    }
    if (i + 1 >= args.size() || looks_like_option(args[i + 1])) {
      throw ConfigError(word, "", "needs a value");
    }
    given.push_back({spec, args[i + 1], word + " " + args[i + 1]});
    ++i;
  }
  return true;
}

// A non-negative integer in decimal or 0x hex, as perftest's strtol(.., 0)
// reads it, except that a leading 0 is refused rather than read as octal.
std::optional<std::uint64_t> parse_unsigned(std::string_view text) {
  int base = 10;
  if (text.size() > 2 && text[0] == '0' && (text[1] == 'x' || text[1] == 'X')) {
    base = 16;
    text.remove_prefix(2);
  } else if (text.size() > 1 && text[0] == '0') {
    return std::nullopt;
  }
  if (text.empty() || text.size() > 16) return std::nullopt;
  std::uint64_t value = 0;
  for (char c : text) {
    int digit = 0;
    if (c >= '0' && c <= '9') {
      digit = c - '0';
    } else if (base == 16 && c >= 'a' && c <= 'f') {
      digit = c - 'a' + 10;
    } else if (base == 16 && c >= 'A' && c <= 'F') {
      digit = c - 'A' + 10;
    } else {
      return std::nullopt;
    }
    value = value * static_cast<std::uint64_t>(base) + static_cast<std::uint64_t>(digit);
  }
  return value;
}

std::uint64_t integer_in(const Given& option, std::uint64_t min, std::uint64_t max) {
  const std::optional<std::uint64_t> value = parse_unsigned(option.value);
  if (!value || *value < min || *value > max) {
    throw ConfigError(
        option.source, "",
        "must be a whole number from " + std::to_string(min) + " to " + std::to_string(max));
  }
  return *value;
}

// -s: bytes, with perftest's K (x1024) and M (x1048576) suffixes.
std::uint64_t message_size(const Given& option) {
  std::string_view text = option.value;
  std::uint64_t factor = 1;
  if (!text.empty() && (text.back() == 'K' || text.back() == 'M')) {
    factor = text.back() == 'K' ? 1024 : 1024 * 1024;
    text.remove_suffix(1);
  }
  const std::optional<std::uint64_t> value = parse_unsigned(text);
  if (!value || *value == 0 || *value > kMaxMessageSize / factor) {
    throw ConfigError(option.source, "",
                      "must be a message size from 1 to " + std::to_string(kMaxMessageSize) +
                          " bytes (K and M suffixes allowed)");
  }
  return *value * factor;
}

PerfTest test_of(const std::string& word) {
  const std::string_view name =
      word.rfind("ib_", 0) == 0 ? std::string_view(word).substr(3) : std::string_view(word);
  for (const auto& entry : kTests) {
    if (name == entry.name) return entry.test;
  }
  throw ConfigError(word, "",
                    std::string("unknown test (one of ") + kTestList + "; ib_ prefix accepted)");
}

std::string non_empty_path(const Given& option, const char* what) {
  if (option.value.empty()) {
    // An empty value (an unset shell variable) must not mean a default.
    throw ConfigError(display_name(*option.spec) + " \"\"", "",
                      std::string("is empty: give ") + what);
  }
  return option.value;
}

}  // namespace

bool PerfOptions::is_latency() const {
  switch (test) {
    case PerfTest::kWriteLat:
    case PerfTest::kReadLat:
    case PerfTest::kSendLat:
    case PerfTest::kAtomicLat:
    case PerfTest::kTcpLat:
      return true;
    default:
      return false;
  }
}

bool PerfOptions::is_write() const {
  return test == PerfTest::kWriteLat || test == PerfTest::kWriteBw;
}
bool PerfOptions::is_read() const {
  return test == PerfTest::kReadLat || test == PerfTest::kReadBw;
}
bool PerfOptions::is_send() const {
  return test == PerfTest::kSendLat || test == PerfTest::kSendBw;
}
bool PerfOptions::is_atomic() const {
  return test == PerfTest::kAtomicLat || test == PerfTest::kAtomicBw;
}

std::uint32_t PerfOptions::cqe_poll_batch() const {
  // perftest checks the one size, or 8 MiB under -a (force_dependecies sets
  // the size to MAX_SIZE before its intense-polling check).
  const std::uint64_t size = all_sizes || sizes.empty() ? kAllSizesMax : sizes.front();
  return qps > kIntensePollQps && size > kCqModerationSizeLimit ? kCqePollBatchIntense
                                                                : kCqePollBatch;
}

std::uint32_t rtt_factor(PerfTest test) {
  switch (test) {
    case PerfTest::kWriteLat:
    case PerfTest::kWriteBw:
    case PerfTest::kSendLat:
    case PerfTest::kSendBw:
    case PerfTest::kTcpLat:
      return 2;
    default:
      return 1;
  }
}

std::string test_name(PerfTest test) {
  for (const auto& entry : kTests) {
    if (entry.test == test) return entry.name;
  }
  throw std::logic_error("test_name: unknown PerfTest");
}

std::string verb_title(PerfTest test) {
  switch (test) {
    case PerfTest::kWriteLat:
    case PerfTest::kWriteBw:
      return "RDMA_Write";
    case PerfTest::kReadLat:
    case PerfTest::kReadBw:
      return "RDMA_Read";
    case PerfTest::kSendLat:
    case PerfTest::kSendBw:
      return "Send";
    case PerfTest::kAtomicLat:
    case PerfTest::kAtomicBw:
      return "Atomic";
    case PerfTest::kTcpLat:
      return "TCP_RR";
    case PerfTest::kTcpBw:
      return "TCP_STREAM";
  }
  throw std::logic_error("verb_title: unknown PerfTest");
}

std::string atomic_type_name(AtomicType type) {
  return type == AtomicType::kCmpAndSwap ? "CMP_AND_SWAP" : "FETCH_AND_ADD";
}

PerfOptions parse_perf_options(const std::vector<std::string>& args) {
  PerfOptions options;
  std::vector<Given> given;
  std::vector<std::string> positionals;
  if (!collect(args, given, positionals)) {
    options.help = true;
    return options;
  }
  if (positionals.empty()) {
    throw ConfigError("perf", "", std::string("needs a TEST (one of ") + kTestList + ")");
  }
  options.test = test_of(positionals[0]);
  if (positionals.size() > 2) {
    throw ConfigError(positionals[2], "",
                      "more than one CONFIG given (" + positionals[1] + " before it)");
  }
  if (positionals.size() == 2) options.config_path = positionals[1];

  // perftest refuses an option given twice; --set is rnicsim's and repeats.
  for (std::size_t i = 0; i < given.size(); ++i) {
    if (given[i].spec->id == Opt::kSet) continue;
    for (std::size_t j = 0; j < i; ++j) {
      if (given[j].spec == given[i].spec) {
        throw ConfigError(given[i].source, "", "given twice (first as " + given[j].source + ")");
      }
    }
  }

  // The TCP tests run one kernel connection: the verbs' options mean nothing there.
  if (options.is_tcp()) {
    for (const Given& option : given) {
      switch (option.spec->id) {
        case Opt::kQps:
        case Opt::kQpTimeout:
        case Opt::kTxDepth:
        case Opt::kRxDepth:
        case Opt::kMtu:
        case Opt::kInline:
        case Opt::kCqMod:
        case Opt::kAtomicType:
          throw ConfigError(option.source, "",
                            "an RDMA option: the tcp tests run one kernel TCP connection (its "
                            "settings are the config's kernel.* keys)");
        default:
          break;
      }
    }
  }

  const Given* size_option = nullptr;
  const Given* all_option = nullptr;
  std::optional<std::uint64_t> size;
  std::optional<std::uint64_t> iterations;
  std::optional<std::uint32_t> tx_depth;
  std::optional<std::uint32_t> rx_depth;
  std::optional<std::uint32_t> inline_size;
  std::optional<std::uint32_t> cq_moderation;
  const Given* threads_option = nullptr;
  for (const Given& option : given) {
    switch (option.spec->id) {
      case Opt::kSize:
        size = message_size(option);
        size_option = &option;
        break;
      case Opt::kAll:
        all_option = &option;
        break;
      case Opt::kIters:
        iterations = integer_in(option, kMinIterations, kMaxIterations);
        break;
      case Opt::kQps:
        options.qps = static_cast<std::uint32_t>(integer_in(option, 1, kMaxQpsPerTest));
        if (options.qps > 1 && options.is_latency()) {
          throw ConfigError(option.source, "", "more than one QP runs only in the bandwidth tests");
        }
        break;
      case Opt::kQpTimeout:
        options.qp_timeout = static_cast<std::uint8_t>(integer_in(option, 0, 31));
        break;
      case Opt::kTxDepth:
        tx_depth = static_cast<std::uint32_t>(integer_in(option, 1, 15000));
        break;
      case Opt::kRxDepth:
        rx_depth = static_cast<std::uint32_t>(integer_in(option, 1, 16384));
        if (*rx_depth > 1 && !options.is_send()) {
          throw ConfigError(option.source, "",
                            "only the send tests post receives; RDMA verbs take an rx depth of 1");
        }
        break;
      case Opt::kMtu: {
        const std::optional<std::uint64_t> mtu = parse_unsigned(option.value);
        if (!mtu || (*mtu != 256 && *mtu != 512 && *mtu != 1024 && *mtu != 2048 && *mtu != 4096)) {
          throw ConfigError(option.source, "", "must be one of 256, 512, 1024, 2048, 4096");
        }
        options.mtu = static_cast<std::uint32_t>(*mtu);
        break;
      }
      case Opt::kInline:
        if (options.is_read() || options.is_atomic()) {
          throw ConfigError(option.source, "",
                            "inline data is not available on READ and atomic verbs");
        }
        inline_size = static_cast<std::uint32_t>(integer_in(option, 0, 1024));
        break;
      case Opt::kCqMod:
        if (options.is_latency()) {
          throw ConfigError(option.source, "", "CQ moderation applies to the bandwidth tests only");
        }
        cq_moderation = static_cast<std::uint32_t>(integer_in(option, 1, 1024));
        break;
      case Opt::kAtomicType:
        if (!options.is_atomic()) {
          throw ConfigError(option.source, "", "only the atomic tests take an atomic type");
        }
        if (option.value == "CMP_AND_SWAP") {
          options.atomic_type = AtomicType::kCmpAndSwap;
        } else if (option.value == "FETCH_AND_ADD") {
          options.atomic_type = AtomicType::kFetchAndAdd;
        } else {
          throw ConfigError(option.source, "", "must be CMP_AND_SWAP or FETCH_AND_ADD");
        }
        break;
      case Opt::kReportGbits:
        options.report_gbits = true;
        break;
      case Opt::kNoPeak:
        options.no_peak = true;
        break;
      case Opt::kJson:
        options.json_path = non_empty_path(option, "the file to write the results into");
        break;
      case Opt::kPcap:
        options.pcap_path = non_empty_path(option, "the file to write the capture into");
        break;
      case Opt::kBreakdown:
        options.breakdown = true;
        break;
      case Opt::kOut:
        options.out_dir = non_empty_path(option, "the folder to write results into");
        break;
      case Opt::kSet:
        options.sets.push_back(option.value);
        break;
      case Opt::kThreads:
        if (options.is_latency() || options.is_tcp()) {
          throw ConfigError(option.source, "",
                            "application threads run only in the RDMA bandwidth tests (write_bw, "
                            "read_bw, send_bw, atomic_bw)");
        }
        options.threads = static_cast<std::uint32_t>(integer_in(option, 1, kMaxThreads));
        threads_option = &option;
        break;
      case Opt::kWarmup:
        if (options.is_latency() || options.is_tcp()) {
          throw ConfigError(option.source, "",
                            "a warm-up runs only in the RDMA bandwidth tests (write_bw, "
                            "read_bw, send_bw, atomic_bw)");
        }
        options.warmup = integer_in(option, 0, kMaxIterations);
        break;
      case Opt::kHelp:
        break;
    }
  }
  // Each thread drives QPs of its own.
  if (threads_option != nullptr && options.threads > options.qps) {
    throw ConfigError(threads_option->source, "",
                      "more threads than QPs (" + std::to_string(options.qps) +
                          "): each thread drives QPs of its own; raise -q");
  }

  // Message sizes. Atomics move 8 bytes: perftest refuses any other -s, and
  // -a (which sets the size to 8 MiB) with the same words.
  if (options.is_atomic()) {
    if (all_option != nullptr) {
      throw ConfigError(all_option->source, "", "atomic tests run 8-byte messages only");
    }
    if (size && *size != kAtomicSize) {
      throw ConfigError(size_option->source, "", "atomic tests run 8-byte messages only");
    }
  }
  if (all_option != nullptr && size_option != nullptr) {
    // perftest lets -a override -s silently; here neither wins unsaid.
    throw ConfigError(all_option->source, "",
                      "runs every size from 2 to 8388608 bytes; give -s or -a, not both");
  }
  options.all_sizes = all_option != nullptr;
  if (options.all_sizes) {
    for (std::uint64_t s = 2; s <= kAllSizesMax; s *= 2) options.sizes.push_back(s);
  } else if (size) {
    options.sizes.push_back(*size);
  } else {
    options.sizes.push_back(options.is_atomic()    ? kAtomicSize
                            : options.is_latency() ? kDefaultSizeLat
                                                   : kDefaultSizeBw);
  }

  options.iterations = iterations.value_or(
      options.test == PerfTest::kWriteBw ? kDefaultIterationsWriteBw : kDefaultIterations);

  // force_dependecies, in its order: depths no deeper than the run.
  options.tx_depth =
      tx_depth.value_or(options.is_latency() ? kDefaultTxDepthLat : kDefaultTxDepthBw);
  if (options.tx_depth > options.iterations) {
    options.tx_depth = static_cast<std::uint32_t>(options.iterations);
  }
  if (options.is_send()) {
    options.rx_depth = rx_depth.value_or(kDefaultRxDepthSend);
    if (options.rx_depth > options.iterations) {
      options.rx_depth = static_cast<std::uint32_t>(options.iterations);
    }
    // perftest's workaround for an odd receive depth in send tests (not under -a).
    if (options.rx_depth % 2 == 1 && !options.all_sizes) ++options.rx_depth;
  } else {
    options.rx_depth = 1;
  }

  // CQ moderation: large messages need none (unless asked for, or under -a,
  // whose sizes share one setting); never more than the send queue holds.
  options.cq_moderation_given = cq_moderation.value_or(0);
  options.cq_moderation = cq_moderation.value_or(kDefaultCqModeration);
  if (options.sizes.front() > kCqModerationSizeLimit && !options.all_sizes && !cq_moderation) {
    options.cq_moderation = 1;
  }
  if (options.cq_moderation > options.tx_depth) options.cq_moderation = options.tx_depth;
  // The latency tests signal every send; the TCP tests time every message.
  if (options.is_latency() || options.is_tcp()) options.cq_moderation = 1;

  // ctx_set_max_inline for a device that takes perftest's defaults (mlx5):
  // inline only in the write and send latency tests unless -I.
  if (options.is_read() || options.is_atomic()) {
    options.inline_size = 0;
  } else if (inline_size) {
    options.inline_size = *inline_size;
  } else if (options.test == PerfTest::kWriteLat) {
    options.inline_size = kDefaultInlineWrite;
  } else if (options.test == PerfTest::kSendLat) {
    options.inline_size = kDefaultInlineSend;
  } else {
    options.inline_size = 0;
  }
  return options;
}

bool is_workload_option(std::string_view long_name) {
  const OptionSpec* spec = find_long(long_name);
  return spec != nullptr && spec->takes_value && spec->id != Opt::kJson &&
         spec->id != Opt::kPcap && spec->id != Opt::kOut && spec->id != Opt::kSet;
}

std::string perf_usage() {
  return "usage: rnicsim perf TEST [CONFIG] [options]\n"
         "\n"
         "Runs a perftest benchmark between the two simulated nodes and prints what\n"
         "perftest prints: its banner, then one row per message size.\n"
         "  TEST    write_lat write_bw read_lat read_bw send_lat send_bw atomic_lat atomic_bw\n"
         "          (ib_write_lat and the like are accepted too), or the kernel TCP\n"
         "          baseline: tcp_lat (netperf TCP_RR: one-way time, RTT/2) and tcp_bw\n"
         "          (TCP_STREAM: each message timed from send() to the peer's recv())\n"
         "  CONFIG  the hardware preset (default: the default preset)\n"
         "\n"
         "perftest's options, with its defaults and rules:\n"
         "  -s, --size=SIZE         message size in bytes, K and M suffixes allowed\n"
         "                          (default 65536 in BW tests, 2 in latency tests;\n"
         "                          atomic tests: 8 only)\n"
         "  -a, --all               every size from 2 to 8388608 bytes (not atomic tests)\n"
         "  -n, --iters=N           exchanges, at least 5 (default 5000 for write_bw, else 1000)\n"
         "  -q, --qp=N              QPs, 1 to 131072, BW tests only (default 1)\n"
         "  -t, --tx-depth=N        send queue depth (default 128 in BW, 1 in latency tests)\n"
         "  -r, --rx-depth=N        receive queue depth of the send tests (default 512)\n"
         "  -m, --mtu=MTU           256, 512, 1024, 2048 or 4096 (default: the port's\n"
         "                          active MTU, from the preset's Ethernet MTU)\n"
         "  -I, --inline_size=N     largest message posted inline, 0 to 1024 (default 220\n"
         "                          in write_lat, 236 in send_lat, else 0; not read, atomic)\n"
         "  -Q, --cq-mod=N          one completion every N sends, BW tests (default 100,\n"
         "                          1 for messages above 8192 bytes)\n"
         "  -A, --atomic_type=TYPE  CMP_AND_SWAP or FETCH_AND_ADD (default), atomic tests\n"
         "  -u, --qp-timeout=T      QP timeout: 4.096 us x 2^T with no response before a\n"
         "                          retransmission, 0 to 31, 0 never (default 14)\n"
         "      --report_gbits      bandwidth in Gb/s instead of MiB/s\n"
         "  -N, --noPeak            no peak bandwidth (0.00), BW tests; its search over every\n"
         "                          window is quadratic in the messages\n"
         "  -h, --help              this text\n"
         "\n"
         "rnicsim's options:\n"
         "  --json FILE             write {\"test\", \"options\", \"config\", \"results\"} to "
         "FILE\n"
         "  --pcap FILE             write every frame of both wires to FILE (pcap, ns)\n"
         "  --breakdown             show where each message's time goes\n"
         "  --out DIR               write the run's result files into DIR\n"
         "  --set key.path=value    override one configuration key (repeatable)\n"
         "  --threads=N             application threads on the client, each on its own core\n"
         "                          with its own CQ, QP q on thread q % N; 1 to 64, at most\n"
         "                          -q, BW tests only (default 1; perftest has no such option)\n"
         "  --warmup=N              N messages per QP, completed and not measured, before\n"
         "                          each size, BW tests only (default 0; perftest warms up\n"
         "                          only by time, with -D and --margin)\n"
         "\n"
         "Latency: write and send report one way (RTT/2), read and atomic the round trip;\n"
         "the two largest samples are dropped, as perftest does. Progress (iterations\n"
         "done, and which size with -a) shows on stderr while stderr is a terminal.\n";
}

std::uint32_t effective_mtu(const PerfOptions& options, std::uint32_t active_mtu) {
  return options.mtu == 0 ? active_mtu : std::min(options.mtu, active_mtu);
}

}  // namespace rnicsim::perf
