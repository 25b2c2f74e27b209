#include "program/cli/cli.hpp"

#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <cstring>
#include <exception>
#include <filesystem>
#include <optional>
#include <ostream>
#include <sstream>
#include <string>
#include <system_error>
#include <vector>

#include "common/simulation.hpp"
#include "config/config.hpp"
#include "formats/frame_json.hpp"
#include "formats/pcap.hpp"
#include "program/exec/exec_command.hpp"
#include "program/experiments/collectives/coll_options.hpp"
#include "program/experiments/experiments.hpp"
#include "program/experiments/output_files.hpp"
#include "program/experiments/perf/perf_options.hpp"
#include "program/sweep/sweep_command.hpp"
#include "system/statistics_catalog.hpp"

namespace rnicsim {
namespace {

namespace fs = std::filesystem;

constexpr const char* kUsage =
    "usage: rnicsim run CONFIG.json [--out DIR] [--set key.path=value]...\n"
    "       rnicsim perf TEST [CONFIG.json] [perftest options] (rnicsim perf --help)\n"
    "       rnicsim coll TEST [CONFIG.json] [OSU options] (rnicsim coll --help)\n"
    "       rnicsim exec [CONFIG.json] -- SERVER-COMMAND [::: CLIENT-COMMAND] (--help)\n"
    "       rnicsim sweep SWEEP.json --out DIR [-j N | --slurm ... | --collect]\n"
    "       rnicsim decode FILE.pcap\n"
    "       rnicsim keys\n"
    "       rnicsim statistics\n"
    "       rnicsim --help | --version\n"
    "\n"
    "  run    simulate the experiment CONFIG.json describes and write its results\n"
    "         into DIR (default: rnicsim-out/<config name>); an existing DIR is replaced\n"
    "         only if it is empty or holds an earlier run\n"
    "  --set  override one configuration key; the value is read as JSON when it\n"
    "         parses (50, true, \"text\"), else taken as a string\n"
    "  perf   run a perftest workload (write_lat, write_bw, read_lat, read_bw,\n"
    "         send_lat, send_bw, atomic_lat, atomic_bw) between two simulated nodes;\n"
    "         CONFIG defaults to configs/cx5_100g.json\n"
    "  coll   run an OSU-style collective (allreduce, allgather, reduce_scatter, bcast,\n"
    "         alltoall) or point-to-point test on N nodes over RDMA or kernel TCP\n"
    "  exec   run unmodified verbs programs (ibv_rc_pingpong, perftest, rdma_cm\n"
    "         programs) on two simulated nodes: the simulator's libibverbs and\n"
    "         librdmacm, simulated time\n"
    "  sweep  run many points of a configuration, here or on a Slurm cluster, into\n"
    "         one table (rnicsim sweep --help)\n"
    "  decode print each frame of a pcap file as one JSON object per line:\n"
    "         RoCEv2 header fields, payload length, icrc_ok, or the error found\n"
    "  keys   print every configuration key with its unit, default and range\n"
    "  statistics\n"
    "         print every block's statistics with its unit and meaning, as the\n"
    "         block READMEs hold them\n"
    "\n"
    "Exit status: 0 done, 2 bad command line, configuration or --out, 1 the run\n"
    "failed (its results could not be written, or a simulator failure). A run\n"
    "stopped by SIGINT or SIGTERM removes its partial results and ends by that\n"
    "signal (a shell shows 130 or 143).\n"
    "Progress (simulated time, items done, rate) shows while stdout is a terminal\n"
    "(perf: while stderr is).\n";

struct UsageError {
  std::string reason;
};

// A run that could not finish for a reason outside the simulator (its
// results could not be written): exit 1, but no "internal error".
struct RunFailure {
  std::string message;
};

struct RunArguments {
  std::string config;
  std::string out;
  std::vector<std::string> overrides;
  const perf::PerfOptions* perf = nullptr;
  // `rnicsim coll`: its table is the report, so progress goes to stderr and no banner.
  bool table_report = false;
};

RunArguments parse_run_arguments(const std::vector<std::string>& args) {
  RunArguments run;
  std::optional<std::string> out;
  for (std::size_t i = 1; i < args.size(); ++i) {
    const std::string& arg = args[i];
    if (arg == "--out" || arg == "--set") {
      if (i + 1 >= args.size()) throw UsageError{arg + " needs a value"};
      (arg == "--out" ? out.emplace() : run.overrides.emplace_back()) = args[++i];
    } else if (arg.rfind("--", 0) == 0) {
      throw UsageError{"unknown option " + arg};
    } else if (run.config.empty()) {
      run.config = arg;
    } else {
      throw UsageError{"more than one CONFIG given: " + run.config + ", " + arg};
    }
  }
  if (run.config.empty()) throw UsageError{"run needs a CONFIG.json"};
  // An empty --out (an unset shell variable) must not mean the default folder.
  if (out && out->empty()) {
    throw config::ConfigError("--out \"\"", "", "is empty: give the folder to write results into");
  }
  run.out = out ? *out : (fs::path("rnicsim-out") / fs::path(run.config).stem()).string();
  return run;
}

// The folders this run created, removed again (deepest first, and only while
// empty) if it fails, so that a failed run leaves nothing behind.
class CreatedFolders {
 public:
  void add(const fs::path& folder) { folders_.push_back(folder); }
  void remove_all() noexcept {
    for (auto it = folders_.rbegin(); it != folders_.rend(); ++it) {
      std::error_code ignored;
      fs::remove(*it, ignored);
    }
    folders_.clear();
  }

 private:
  std::vector<fs::path> folders_;
};

// Creates the missing folders above `destination`, outermost first.
void create_parents(const fs::path& destination, const std::string& source,
                    CreatedFolders& created) {
  std::vector<fs::path> missing;
  for (fs::path folder = destination.parent_path();; folder = folder.parent_path()) {
    std::error_code error;
    const fs::file_status status = fs::status(folder, error);
    if (status.type() == fs::file_type::not_found && folder.has_relative_path()) {
      missing.push_back(folder);
      continue;
    }
    if (error) {
      throw config::ConfigError(source, "", "cannot reach " + folder.string() + ": " +
                                                error.message());
    }
    if (!fs::is_directory(status)) {
      throw config::ConfigError(source, "", folder.string() + " is not a directory");
    }
    break;
  }
  for (auto it = missing.rbegin(); it != missing.rend(); ++it) {
    std::error_code error;
    if (!fs::create_directory(*it, error) && error) {
      throw config::ConfigError(source, "", "cannot create " + it->string() + ": " +
                                                error.message());
    }
    created.add(*it);
  }
}

// The suffixes of the folders a run keeps beside DIR while it works: its
// staging folder, and the earlier results it moves aside to replace them.
constexpr const char* kStagingSuffix = ".partial-";
constexpr const char* kPreviousSuffix = ".previous-";

fs::path beside(const fs::path& destination, const char* suffix) {
  return destination.parent_path() /
         (destination.filename().string() + suffix + std::to_string(getpid()));
}

// The PID in "<prefix><pid>" as a run writes it (digits, no leading zero), or 0.
pid_t pid_after(const std::string& name, const std::string& prefix) {
  if (name.size() <= prefix.size() || name.compare(0, prefix.size(), prefix) != 0) return 0;
  const std::string digits = name.substr(prefix.size());
  if (digits.size() > 9 || digits[0] == '0' ||
      !std::all_of(digits.begin(), digits.end(), [](char c) { return c >= '0' && c <= '9'; })) {
    return 0;
  }
  return static_cast<pid_t>(std::stol(digits));
}

// The folders of runs killed before they finished ("run.partial-4242" or
// "run.previous-4242" whose process 4242 is gone). Nothing else is touched:
// not another name, not a symbolic link, not a live process's folder.
void remove_stale_staging(const fs::path& destination) {
  const std::string name_of_destination = destination.filename().string();
  std::error_code error;
  for (fs::directory_iterator it(destination.parent_path(), error), end; !error && it != end;
       it.increment(error)) {
    const std::string name = it->path().filename().string();
    pid_t pid = pid_after(name, name_of_destination + kStagingSuffix);
    if (pid == 0) pid = pid_after(name, name_of_destination + kPreviousSuffix);
    std::error_code ignored;
    if (pid <= 0 || pid == getpid() || !it->is_directory(ignored) || it->is_symlink(ignored)) {
      continue;
    }
    if (kill(pid, 0) == -1 && errno == ESRCH) fs::remove_all(it->path(), ignored);
  }
}

// The new results take the place of DIR. Earlier results give way only to
// complete new ones: they are moved aside, the new ones moved in, and only
// then removed, so whatever fails, one whole set of results is at DIR.
void move_into_place(const fs::path& staging, const fs::path& destination,
                     const std::string& source, std::ostream& report) {
  const fs::path previous = beside(destination, kPreviousSuffix);
  std::error_code error;
  const bool replacing = fs::exists(destination, error);
  if (replacing) {
    fs::rename(destination, previous, error);
    if (error) {
      throw config::ConfigError(source, "", "cannot move the earlier results aside: " +
                                                error.message());
    }
  }
  fs::rename(staging, destination, error);
  if (error) {
    std::error_code ignored;
    if (replacing) fs::rename(previous, destination, ignored);
    throw config::ConfigError(source, "", "cannot move the results into place: " + error.message());
  }
  if (replacing && (fs::remove_all(previous, error), error)) {
    report << "note: the earlier results, moved to " << previous.string()
           << ", could not all be removed: " << error.message() << "\n";
  }
}

// SIGINT and SIGTERM ask the run to stop (simulation.hpp); it then removes
// its staging folder and exits. A second signal ends the process at once.
void on_stop_signal(int signal_number) { request_stop(signal_number); }

void install_stop_handlers() {
  struct sigaction action {};
  action.sa_handler = on_stop_signal;
  sigemptyset(&action.sa_mask);
  action.sa_flags = SA_RESETHAND;
  sigaction(SIGINT, &action, nullptr);
  sigaction(SIGTERM, &action, nullptr);
}

// Results are written into a staging folder beside the destination and moved
// into place only when complete, so a failed or interrupted run leaves nothing
// half-written, nor any folder it created.
int run_command(const RunArguments& run, std::ostream& out, std::ostream& err) {
  install_stop_handlers();
  config::LoadedConfig loaded = config::load_config(run.config, run.overrides, rnicsim_schema());
  const std::string experiment = config::at_path(loaded.effective, "experiment").get<std::string>();
  const std::string source = "--out " + run.out;
  CreatedFolders created;
  fs::path destination;
  fs::path staging;
  try {
    destination = checked_output_folder(run.out, source, "effective_config.json",
                                        "an rnicsim output folder", "replacing it");
    create_parents(destination, source, created);
    remove_stale_staging(destination);
    staging = beside(destination, kStagingSuffix);
    std::error_code error;
    fs::remove_all(staging, error);
    if (!fs::create_directory(staging, error)) {
      throw config::ConfigError(source, "",
                                "cannot create a folder in " + staging.parent_path().string() +
                                    ": " + (error ? error.message() : "a staging folder exists"));
    }
  } catch (const fs::filesystem_error& e) {
    created.remove_all();
    throw config::ConfigError(source, "", e.code().message() + ": " + e.path1().string());
  } catch (...) {
    created.remove_all();
    throw;
  }
  // What a run that ends without its results in place leaves behind: nothing.
  const auto discard_staging = [&] {
    std::error_code ignored;
    fs::remove_all(staging, ignored);
    created.remove_all();
  };
  try {
    std::ostringstream banner;
    banner << "rnicsim " << experiment << ": "
        << run.config << " -> " << run.out << "\n";
    // Progress goes to a terminal only, so a piped or redirected report stays
    // clean: run's to stdout; perf's to stderr, because perftest's table on
    // stdout is what users redirect while they watch a long sweep.
    const bool table = run.perf != nullptr || run.table_report;
    std::ostream* terminal =
        table ? (isatty(STDERR_FILENO) ? &err : nullptr) : (isatty(STDOUT_FILENO) ? &out : nullptr);
    run_experiment(RunRequest{std::move(loaded), staging, terminal,
                              table ? std::string() : banner.str(), run.perf},
                   out);
    throw_if_stop_requested();
    move_into_place(staging, destination, source, out);
  } catch (const SimulatedTimeExceeded& e) {
    discard_staging();
    throw config::ConfigError(run.config, "", e.what());
  } catch (const RunFailedWithResults& e) {
    // The simulated system failed, and what it did up to then (counters, a
    // capture) is the evidence of why: kept in place, and the run fails.
    try {
      move_into_place(staging, destination, source, out);
    } catch (...) {
      discard_staging();
      throw;
    }
    throw RunFailure{run.config + ": the run failed: " + e.what() + " (its results are in " +
                     run.out + ")"};
  } catch (const RunFailed& e) {
    // The simulated system hit a fault the model cannot yet recover from.
    discard_staging();
    throw RunFailure{run.config + ": the run failed: " + e.what()};
  } catch (const OutputError& e) {
    discard_staging();
    // A file the run writes outside its folder (perf's --json and --pcap) is
    // named as given, not by a path relative to the staging folder.
    const fs::path inside = e.file().lexically_relative(staging);
    if (inside.empty() || *inside.begin() == "..") throw RunFailure{e.what()};
    throw RunFailure{source + ": cannot write " + inside.string() + ": " + e.reason()};
  } catch (...) {
    discard_staging();
    throw;
  }
  return kExitOk;
}

// Prints each frame's line as its record is read, so memory stays one record
// whatever the capture's size. A file that is not pcap (global header, link
// type) prints nothing; a capture cut short prints every whole frame, then
// the error naming the record.
int decode_command(const std::string& path, std::ostream& out) {
  std::optional<packet::PcapReader> reader;
  try {
    reader.emplace(path);
    if (reader->linktype() != packet::PcapWriter::kLinktypeEthernet) {
      throw packet::PcapError(
          path, "link type " + std::to_string(reader->linktype()) + " is not Ethernet (1)");
    }
  } catch (const packet::PcapError& e) {
    throw config::ConfigError(e.what(), "", "cannot be read as pcap");
  }
  packet::PcapRecord record;
  try {
    for (std::uint64_t index = 1; reader->next(record); ++index) {
      out << packet::describe_frame(index, record.time_ns, record.data.data(), record.data.size())
                 .dump()
          << '\n';
    }
  } catch (const packet::PcapError& e) {
    out.flush();  // the whole frames reach the user before the error does
    throw config::ConfigError(e.path(), "", e.reason());
  }
  if (!out.flush()) {
    throw RunFailure{"decode: cannot write the frames to standard output: " +
                     std::string(std::strerror(errno))};
  }
  return kExitOk;
}

// `rnicsim coll`: a collectives run whose options are --sets; an error about
// an option's value names the option as given.
int coll_command(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
  const coll::CollOptions options =
      coll::parse_coll_options(std::vector<std::string>(args.begin() + 1, args.end()));
  if (options.help) {
    out << coll::coll_usage();
    return kExitOk;
  }
  RunArguments run;
  run.config = options.config_path.value_or(RNICSIM_DEFAULT_PRESET);
  run.overrides.push_back("experiment=collectives");
  run.overrides.insert(run.overrides.end(), options.sets.begin(), options.sets.end());
  run.out = options.out_dir.value_or((fs::path("rnicsim-out") / ("coll_" + options.test)).string());
  run.table_report = true;
  try {
    run_command(run, out, err);
  } catch (const config::ConfigError& e) {
    const std::string set = "--set ";
    if (e.source().rfind(set, 0) == 0) {
      const auto it = options.option_of.find(e.source().substr(set.size()));
      if (it != options.option_of.end()) throw config::ConfigError(it->second, e.key(), e.reason());
    }
    throw;
  }
  if (options.json_path) {
    std::error_code error;
    fs::copy_file(fs::path(run.out) / "results.json", *options.json_path,
                  fs::copy_options::overwrite_existing, error);
    if (error) {
      throw RunFailure{"--json " + *options.json_path + ": cannot write it: " + error.message()};
    }
  }
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
    if (command == "statistics") {
      if (args.size() > 1) throw UsageError{"statistics takes no arguments"};
      for (const DocumentedStatistics& entry : statistics_catalog()) {
        out << "<!-- " << entry.readme << " -->\n" << statistics_readme_text(entry) << "\n";
      }
      return kExitOk;
    }
    if (command == "run") return run_command(parse_run_arguments(args), out, err);
    if (command == "perf") {
      const perf::PerfOptions options =
          perf::parse_perf_options(std::vector<std::string>(args.begin() + 1, args.end()));
      if (options.help) {
        out << perf::perf_usage();
        return kExitOk;
      }
      RunArguments run;
      run.config = options.config_path.value_or(RNICSIM_DEFAULT_PRESET);
      run.overrides.push_back("experiment=perf");
      run.overrides.insert(run.overrides.end(), options.sets.begin(), options.sets.end());
      run.out = options.out_dir.value_or(
          (fs::path("rnicsim-out") / ("perf_" + perf::test_name(options.test))).string());
      run.perf = &options;
      return run_command(run, out, err);
    }
    if (command == "coll") return coll_command(args, out, err);
    if (command == "exec") {
      exec::ExecOptions options;
      try {
        options = exec::parse_exec_options(std::vector<std::string>(args.begin() + 1, args.end()));
      } catch (const std::invalid_argument& e) {
        throw UsageError{e.what()};
      }
      if (options.help) {
        out << exec::exec_usage();
        return kExitOk;
      }
      if (options.config.empty()) options.config = RNICSIM_DEFAULT_PRESET;
      return exec::exec_command(options, err);
    }
    if (command == "sweep") {
      const sweep::SweepOptions options =
          sweep::parse_sweep_options(std::vector<std::string>(args.begin() + 1, args.end()));
      if (options.help) {
        out << sweep::sweep_usage();
        return kExitOk;
      }
      return sweep::sweep_command(options, out, err);
    }
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
  } catch (const RunFailure& e) {
    err << "rnicsim: error: " << config::printable(e.message) << "\n";
    return kExitInternal;
  } catch (const Interrupted& e) {
    err << "rnicsim: " << e.what() << "; the run's partial results were removed\n";
    return 128 + e.signal_number();
  } catch (const std::exception& e) {
    err << "rnicsim: internal error: " << e.what() << "\n";
    return kExitInternal;
  }
}

}  // namespace rnicsim
