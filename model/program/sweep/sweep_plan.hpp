#pragma once
// A sweep file and the points it names.
//
// A sweep file (JSON) names a base configuration, the keys to vary (axes),
// how to combine them (product or zip), how many seeds per combination, and
// the figures to collect from each run. read_sweep_file checks all of it, and
// plan_points turns it into points: each with its parameters, its seed, the
// folder it runs in (named from its parameters), the rnicsim command line that
// runs it and its effective configuration. A point whose values the
// configuration refuses is planned as invalid (with the reason): it fails
// alone, while a fault of the file itself (unknown key, empty axis, bad range)
// throws before any point runs. Kernel-free: no SystemC here.
#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "config/config.hpp"

namespace rnicsim::sweep {

using config::Json;

// One varied key: a configuration key ("translation.mtt_cache_entries",
// "nodes.a.pcie.lanes") or, for a perf sweep, a perftest option ("--size").
struct Axis {
  std::string key;
  std::string label;  // the shortest dotted suffix of the key no other axis ends with
  std::vector<Json> values;
  bool is_perf_option() const { return key.rfind("--", 0) == 0; }
};

// One collected figure: `pointer` (RFC 6901) into `file` of the run folder.
struct Metric {
  std::string name;
  std::string file;
  std::string pointer;
};

// The two columns (axis keys or metric names) whose Pareto front is drawn.
struct Pareto {
  std::string x;
  bool x_minimize = true;
  std::string y;
  bool y_minimize = true;
};

struct SweepFile {
  std::filesystem::path path;  // the sweep file, absolute
  std::string given_path;      // the sweep file as the command line named it
  std::filesystem::path base;  // the base configuration, absolute
  std::optional<std::string> perf_test;  // set: each point runs `rnicsim perf TEST`
  std::vector<std::string> perf_args;    // perftest options every point takes
  std::vector<std::pair<std::string, Json>> set;  // keys every point overrides
  std::vector<Axis> axes;
  bool zip = false;  // false: every combination; true: the i-th value of each axis
  std::uint32_t repetitions = 1;
  std::vector<Metric> collect;
  std::optional<Pareto> pareto;
  // The file's document as read, copied into the sweep folder for the record.
  Json document;

  // "seed" is an axis: each point's seed is its value there (no repetitions,
  // no seed of its own in the folder name or the table).
  bool seed_is_axis() const {
    return std::any_of(axes.begin(), axes.end(), [](const Axis& axis) { return axis.key == "seed"; });
  }
};

// The most values one axis, and the most points one sweep, may have: more is
// taken for a typo (a step of 1 over a range of 10^9).
constexpr std::size_t kMaxAxisValues = 100000;
constexpr std::size_t kMaxPoints = 1000000;

// Reads and checks a sweep file. Throws config::ConfigError naming the file,
// the member ("axes[1].range.step") and the reason.
SweepFile read_sweep_file(const std::string& path);

struct Point {
  std::size_t index = 0;
  std::vector<Json> values;  // one per axis
  std::uint64_t seed = 0;
  std::string folder;        // the point's folder name under <out>/points
  // rnicsim's arguments that run the point, without --out (which the runner adds).
  std::vector<std::string> arguments;
  // Set by check_point: a hash of what makes two runs the same (the program's
  // build, the effective configuration, and for perf the test and its
  // options); a finished point with another identity is stale.
  std::string identity;
  std::string invalid;  // why the point cannot run (check_point); empty when it can
};

// Every point, in order: axes vary with the last fastest, and a combination's
// repetitions (seeds base + 0, 1, ...) are adjacent. Throws config::ConfigError
// for what only the combination shows (zip axes of different lengths, too many
// points, two points in one folder). The points are not checked yet.
std::vector<Point> plan_points(const SweepFile& sweep);

// Loads the point's configuration as its run will (and parses its perftest
// options): sets point.identity from it and `program` (program_id()), or
// point.invalid to the reason the configuration refuses it. Returns what the
// identity hashes, for the record.
Json check_point(const SweepFile& sweep, Point& point, const std::string& program);

// The point's parameters as an object: axis key -> value, then "seed".
Json point_parameters(const SweepFile& sweep, const Point& point);

}  // namespace rnicsim::sweep
