#include "cli/cli.hpp"

#include <unistd.h>

#include <algorithm>
#include <exception>
#include <filesystem>
#include <ostream>
#include <system_error>

#include "config/config.hpp"
#include "experiments/experiments.hpp"
#include "experiments/output_files.hpp"
#include "packet/frame_json.hpp"
#include "packet/pcap.hpp"

namespace rnicsim {
namespace {

namespace fs = std::filesystem;

constexpr const char* kUsage =
    "usage: rnicsim run CONFIG.json [--out DIR] [--set key.path=value]...\n"
    "       rnicsim decode FILE.pcap\n"
    "       rnicsim keys\n"
    "       rnicsim --help | --version\n"
    "\n"
    "  run    simulate the experiment CONFIG.json describes and write its results\n"
    "         into DIR (default: rnicsim-out/<config name>); an existing DIR is replaced\n"
    "         only if it is empty or holds an earlier run\n"
    "  --set  override one configuration key; the value is read as JSON when it\n"
    "         parses (50, true, \"text\"), else taken as a string\n"
    "  decode print each frame of a pcap file as one JSON object per line:\n"
    "         RoCEv2 header fields, payload length, icrc_ok, or the error found\n"
    "  keys   print every configuration key with its unit, default and range\n"
    "\n"
    "Exit status: 0 done, 2 bad command line or configuration, 1 simulator failure.\n";

struct UsageError {
  std::string reason;
};

struct RunArguments {
  std::string config;
  std::string out;
  std::vector<std::string> overrides;
};

RunArguments parse_run_arguments(const std::vector<std::string>& args) {
  RunArguments run;
  for (std::size_t i = 1; i < args.size(); ++i) {
    const std::string& arg = args[i];
    if (arg == "--out" || arg == "--set") {
      if (i + 1 >= args.size()) throw UsageError{arg + " needs a value"};
      (arg == "--out" ? run.out : run.overrides.emplace_back()) = args[++i];
    } else if (arg.rfind("--", 0) == 0) {
      throw UsageError{"unknown option " + arg};
    } else if (run.config.empty()) {
      run.config = arg;
    } else {
      throw UsageError{"more than one CONFIG given: " + run.config + ", " + arg};
    }
  }
  if (run.config.empty()) throw UsageError{"run needs a CONFIG.json"};
  if (run.out.empty()) run.out = (fs::path("rnicsim-out") / fs::path(run.config).stem()).string();
  return run;
}

// The output folder, made absolute. Replacing it must never take anything but
// an earlier run's results: refuse the current directory or one containing
// it, and an existing folder that is neither empty nor an rnicsim run.
fs::path checked_destination(const std::string& out) {
  const std::string source = "--out " + out;
  const fs::path destination = fs::weakly_canonical(fs::absolute(out));
  const fs::path cwd = fs::weakly_canonical(fs::current_path());
  const auto [end, unused] = std::mismatch(destination.begin(), destination.end(), cwd.begin(), cwd.end());
  if (!destination.has_filename() || end == destination.end()) {
    throw config::ConfigError(source, "", "is the current directory or contains it");
  }
  if (fs::exists(destination)) {
    if (!fs::is_directory(destination)) {
      throw config::ConfigError(source, "", "exists and is not a directory");
    }
    if (!fs::is_empty(destination) && !fs::exists(destination / "effective_config.json")) {
      throw config::ConfigError(source, "",
                                "exists and is not an rnicsim output folder (it has no "
                                "effective_config.json); not replacing it");
    }
  }
  return destination;
}

// Results are written into a staging folder beside the destination and moved
// into place only when complete, so a failed run leaves nothing half-written.
int run_command(const RunArguments& run, std::ostream& out) {
  const config::Json effective = config::load(run.config, run.overrides, rnicsim_schema());
  const fs::path destination = checked_destination(run.out);
  const fs::path staging = destination.parent_path() /
                           (destination.filename().string() + ".partial-" + std::to_string(getpid()));
  fs::create_directories(destination.parent_path());
  fs::remove_all(staging);
  fs::create_directory(staging);
  try {
    write_text(staging / "effective_config.json", effective.dump(2) + "\n");
    out << "rnicsim " << config::at_path(effective, "experiment").get<std::string>() << ": "
        << run.config << " -> " << run.out << "\n";
    run_experiment(RunRequest{effective, staging}, out);
    fs::remove_all(destination);
    fs::rename(staging, destination);
  } catch (...) {
    std::error_code ignored;
    fs::remove_all(staging, ignored);
    throw;
  }
  return kExitOk;
}

// Reads the whole file before printing, so a file that turns out not to be
// pcap halfway through prints nothing.
int decode_command(const std::string& path, std::ostream& out) {
  std::string lines;
  try {
    packet::PcapReader reader(path);
    if (reader.linktype() != packet::PcapWriter::kLinktypeEthernet) {
      throw packet::PcapError(path + ": link type " + std::to_string(reader.linktype()) +
                              " is not Ethernet (1)");
    }
    packet::PcapRecord record;
    for (std::uint64_t index = 1; reader.next(record); ++index) {
      lines += packet::describe_frame(index, record.time_ns, record.data.data(),
                                      record.data.size())
                   .dump() +
               "\n";
    }
  } catch (const packet::PcapError& e) {
    throw config::ConfigError(e.what(), "", "cannot be read as pcap");
  }
  out << lines;
  return kExitOk;
}

}  // namespace

int run_cli(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
  try {
    if (args.empty()) throw UsageError{"no command given"};
    const std::string& command = args[0];
    if (command == "--help" || command == "-h" || command == "help") {
      out << kUsage;
      return kExitOk;
    }
    if (command == "--version") {
      out << "rnicsim " << RNICSIM_VERSION << " (SystemC " << RNICSIM_SYSTEMC_VERSION << ")\n";
      return kExitOk;
    }
    if (command == "keys") {
      if (args.size() > 1) throw UsageError{"keys takes no arguments"};
      out << config::markdown_table(rnicsim_schema());
      return kExitOk;
    }
    if (command == "run") return run_command(parse_run_arguments(args), out);
    if (command == "decode") {
      if (args.size() != 2) throw UsageError{"decode needs exactly one FILE.pcap"};
      return decode_command(args[1], out);
    }
    throw UsageError{"unknown command " + command};
  } catch (const UsageError& e) {
    err << "rnicsim: error: " << e.reason << "\n\n" << kUsage;
    return kExitBadInput;
  } catch (const config::ConfigError& e) {
    err << "rnicsim: error: " << e.what() << "\n";
    return kExitBadInput;
  } catch (const std::exception& e) {
    err << "rnicsim: internal error: " << e.what() << "\n";
    return kExitInternal;
  }
}

}  // namespace rnicsim
