#pragma once
// The command line of `rnicsim coll`, read as OSU's benchmarks read theirs:
//   rnicsim coll TEST [CONFIG] [-np N] [-m [MIN:]MAX] [-i ITERS] [-x WARMUP]
//                [-W WINDOW] [--algorithm A] [--transport rdma|tcp]
//                [--segment BYTES] [--nccl] [--breakdown] [--json FILE]
//                [--out DIR] [--set key.path=value]...
// Each option is a key of the collectives section (`rnicsim keys`), given as
// a --set; the option stays the name in any error about its value. Kernel-free.
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace rnicsim::coll {

struct CollOptions {
  bool help = false;
  std::optional<std::string> config_path;
  std::optional<std::string> out_dir;
  std::optional<std::string> json_path;
  std::string test;
  // The --set assignments, the options' first (collectives.test=allreduce, ...).
  std::vector<std::string> sets;
  // An assignment an option made, and the option as the user wrote it ("-np 9").
  std::map<std::string, std::string> option_of;
};

// `args` are the words after "coll". A bad command line throws
// config::ConfigError naming the option and the reason.
CollOptions parse_coll_options(const std::vector<std::string>& args);
std::string coll_usage();

}  // namespace rnicsim::coll
