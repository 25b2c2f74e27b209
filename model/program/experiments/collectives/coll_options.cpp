#include "program/experiments/collectives/coll_options.hpp"

#include <charconv>

#include "config/config.hpp"

namespace rnicsim::coll {
namespace {

constexpr const char* kTests[] = {"allreduce", "allgather", "reduce_scatter", "bcast", "alltoall",
                                  "latency",   "bw",        "bibw",           "mbw_mr"};

// A byte count: digits, optionally K, M or G (binary multiples).
std::optional<unsigned long long> byte_count(const std::string& text) {
  unsigned long long value = 0;
  const char* first = text.data();
  const char* last = first + text.size();
  const auto [end, error] = std::from_chars(first, last, value);
  if (error != std::errc() || end == first) return std::nullopt;
  unsigned long long scale = 1;
  const std::string unit(end, last);
  if (unit == "K" || unit == "k")
    scale = 1ULL << 10;
  else if (unit == "M" || unit == "m")
    scale = 1ULL << 20;
  else if (unit == "G" || unit == "g")
    scale = 1ULL << 30;
  else if (!unit.empty())
    return std::nullopt;
  if (value > (~0ULL) / scale) return std::nullopt;
  return value * scale;
}

}  // namespace

CollOptions parse_coll_options(const std::vector<std::string>& args) {
  CollOptions o;
  const auto bad = [](const std::string& option, const std::string& reason) {
    return config::ConfigError(option, "", reason);
  };
  const auto set = [&o](const std::string& option, const std::string& key,
                        const std::string& value) {
    const std::string assignment = "collectives." + key + "=" + value;
    o.sets.push_back(assignment);
    o.option_of[assignment] = option;
  };
  std::vector<std::string> words;
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    if (a == "-h" || a == "--help") {
      o.help = true;
      return o;
    }
    const bool takes_value = a == "-np" || a == "-m" || a == "-i" || a == "-x" || a == "-W" ||
                             a == "--algorithm" || a == "--transport" || a == "--segment" ||
                             a == "--json" || a == "--out" || a == "--set";
    if (takes_value) {
      if (i + 1 >= args.size()) throw bad(a, "needs a value");
      const std::string& v = args[++i];
      const std::string option = a + " " + v;
      if (a == "-np") {
        set(option, "ranks", v);
      } else if (a == "-m") {
        const std::size_t colon = v.find(':');
        const std::string min = colon == std::string::npos ? "" : v.substr(0, colon);
        const std::string max = colon == std::string::npos ? v : v.substr(colon + 1);
        for (const std::string* part : {&min, &max}) {
          if (part->empty()) continue;
          if (!byte_count(*part)) {
            throw bad(option, "\"" + *part + "\" is not a byte count (digits, K, M or G)");
          }
        }
        if (!min.empty()) set(option, "min_bytes", std::to_string(*byte_count(min)));
        if (!max.empty()) set(option, "max_bytes", std::to_string(*byte_count(max)));
      } else if (a == "-i") {
        set(option, "iterations", v);
      } else if (a == "-x") {
        set(option, "warmup", v);
        set(option, "warmup_large", v);
      } else if (a == "-W") {
        set(option, "window", v);
      } else if (a == "--algorithm") {
        set(option, "algorithm", v);
      } else if (a == "--transport") {
        set(option, "transport", v);
      } else if (a == "--segment") {
        if (!byte_count(v)) throw bad(option, "\"" + v + "\" is not a byte count");
        set(option, "segment_bytes", std::to_string(*byte_count(v)));
      } else if (a == "--json") {
        o.json_path = v;
      } else if (a == "--out") {
        o.out_dir = v;
      } else {
        o.sets.push_back(v);
      }
    } else if (a == "--nccl") {
      set(a, "format", "nccl");
    } else if (a == "--breakdown") {
      set(a, "breakdown", "true");
    } else if (a.size() > 1 && a[0] == '-') {
      throw bad(a, "unknown option (rnicsim coll --help)");
    } else {
      words.push_back(a);
    }
  }
  if (words.empty()) throw bad("TEST", "rnicsim coll needs a test (rnicsim coll --help)");
  o.test = words[0];
  bool known = false;
  for (const char* t : kTests) known = known || o.test == t;
  if (!known) {
    throw bad(o.test,
              "unknown test: allreduce, allgather, reduce_scatter, bcast, alltoall, "
              "latency, bw, bibw, mbw_mr");
  }
  if (words.size() > 2) throw bad(words[2], "more than one CONFIG given");
  if (words.size() == 2) o.config_path = words[1];
  o.sets.insert(o.sets.begin(), "collectives.test=" + o.test);
  return o;
}

std::string coll_usage() {
  return "usage: rnicsim coll TEST [CONFIG.json] [options]\n"
         "\n"
         "OSU-style collective and point-to-point tests on the topology's nodes, one rank\n"
         "a node, over RDMA (RC QPs, SEND/RECV) or the kernel TCP path; every rank's\n"
         "result is checked byte for byte. CONFIG defaults to configs/cx5_100g.json.\n"
         "\n"
         "TEST: allreduce, allgather, reduce_scatter, bcast, alltoall (collectives),\n"
         "      latency, bw, bibw, mbw_mr (OSU's point-to-point tests)\n"
         "  -np N            ranks: the topology's first N nodes (default: every node)\n"
         "  -m [MIN:]MAX     message sizes, doubling from MIN to MAX (K, M, G allowed)\n"
         "  -i ITERS         timed operations per size (default 100)\n"
         "  -x WARMUP        untimed operations before them (default 100, 10 above 8K)\n"
         "  -W WINDOW        bw, bibw, mbw_mr: messages per window (default 64)\n"
         "  --algorithm A    allreduce: ring, recursive_doubling; bcast: binomial, chain;\n"
         "                   auto (default) picks by collectives.short_bytes\n"
         "  --transport T    rdma (default) or tcp\n"
         "  --segment BYTES  the ring's and chain's pipelining unit (default 64K)\n"
         "  --nccl           nccl-tests' columns (size, count, type, time, algbw, busbw)\n"
         "  --breakdown      when each step of rank 0's operation ended\n"
         "  --json FILE      results.json also to FILE\n"
         "  --out DIR        the results folder (default rnicsim-out/coll_TEST)\n"
         "  --set key=value  any configuration key (rnicsim keys)\n";
}

}  // namespace rnicsim::coll
