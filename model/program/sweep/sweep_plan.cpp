#include "program/sweep/sweep_plan.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <set>

#include "config/run_config.hpp"
#include "program/experiments/experiments.hpp"
#include "program/experiments/perf/perf_options.hpp"

namespace rnicsim::sweep {
namespace {

namespace fs = std::filesystem;
using config::ConfigError;

// Errors name the sweep file and the member, as config errors do.
class Reader {
 public:
  explicit Reader(std::string file) : file_(std::move(file)) {}

  [[noreturn]] void fail(const std::string& member, const std::string& reason) const {
    throw ConfigError(file_, member, reason);
  }

  // Refuses a member `object` has beyond `allowed`, so a typo is not ignored.
  void only(const Json& object, const std::string& where,
            const std::vector<std::string>& allowed) const {
    for (const auto& member : object.items()) {
      if (std::find(allowed.begin(), allowed.end(), member.key()) != allowed.end()) continue;
      std::string list;
      for (const std::string& name : allowed) list += (list.empty() ? "" : ", ") + name;
      fail(join(where, member.key()), "unknown member (expected " + list + ")");
    }
  }

  const Json& object(const Json& value, const std::string& where) const {
    if (!value.is_object()) fail(where, "expected an object, got " + value.dump());
    return value;
  }

  std::string text(const Json& value, const std::string& where) const {
    if (!value.is_string() || value.get<std::string>().empty()) {
      fail(where, "expected a non-empty string, got " + value.dump());
    }
    return value.get<std::string>();
  }

  double number(const Json& value, const std::string& where) const {
    if (!value.is_number()) fail(where, "expected a number, got " + value.dump());
    return value.get<double>();
  }

  static std::string join(const std::string& where, const std::string& name) {
    return where.empty() ? name : where + "." + name;
  }

  const std::string& file() const { return file_; }

 private:
  std::string file_;
};

// Integer ranges count exactly; past 2^63 they are refused, not wrapped.
std::vector<Json> integer_range(std::int64_t from, std::int64_t to, std::int64_t by, bool log,
                                const std::string& where, const Reader& r) {
  std::vector<Json> values;
  for (std::int64_t value = from; value <= to;) {
    if (values.size() == kMaxAxisValues) {
      r.fail(where, "gives more than " + std::to_string(kMaxAxisValues) + " values");
    }
    values.emplace_back(value);
    std::int64_t next = 0;
    const bool overflow = log ? __builtin_mul_overflow(value, by, &next)
                              : __builtin_add_overflow(value, by, &next);
    if (overflow) break;  // the next value would pass any `to`
    value = next;
  }
  return values;
}

// A decimal value as the step makes it, without the float's last-digit noise
// (0.1 + 2 x 0.1 is 0.30000000000000004): 12 significant digits.
double tidy(double value) {
  char text[32];
  std::snprintf(text, sizeof text, "%.12g", value);
  return std::strtod(text, nullptr);
}

// A range's values: from, from + step, ... up to `to`; or from, from x
// factor, ... (a log scale). Integer from, to and step (or factor) give
// integers, counted exactly; decimal ones stop at `to` within a millionth of
// a step (or of the factor's growth).
std::vector<Json> range_values(const Json& range, const std::string& where, const Reader& r) {
  r.object(range, where);
  r.only(range, where, {"from", "to", "step", "factor"});
  for (const char* needed : {"from", "to"}) {
    if (!range.contains(needed)) r.fail(Reader::join(where, needed), "is missing");
  }
  const bool has_step = range.contains("step");
  if (has_step == range.contains("factor")) {
    r.fail(where, "needs exactly one of step (a linear range) and factor (a log scale)");
  }
  const Json& from_json = range["from"];
  const Json& to_json = range["to"];
  const Json& by_json = has_step ? range["step"] : range["factor"];
  const std::string by_name = Reader::join(where, has_step ? "step" : "factor");
  const double from = r.number(from_json, Reader::join(where, "from"));
  const double to = r.number(to_json, Reader::join(where, "to"));
  const double by = r.number(by_json, by_name);
  if (to < from) {
    r.fail(Reader::join(where, "to"), "is below from (" + from_json.dump() + " > " +
                                          to_json.dump() + ")");
  }
  if (has_step && !(by > 0)) r.fail(by_name, "must be > 0, got " + by_json.dump());
  if (!has_step && !(by > 1)) r.fail(by_name, "must be > 1, got " + by_json.dump());
  if (!has_step && !(from > 0)) {
    r.fail(Reader::join(where, "from"), "must be > 0 on a log scale, got " + from_json.dump());
  }
  const bool integers = from_json.is_number_integer() && to_json.is_number_integer() && by_json.is_number_integer();
  if (integers) {
    for (const auto& [json, name] : {std::pair{&from_json, "from"}, {&to_json, "to"}, {&by_json, has_step ? "step" : "factor"}}) {
      if (json->is_number_unsigned() && json->get<std::uint64_t>() > static_cast<std::uint64_t>(INT64_MAX)) {
        r.fail(Reader::join(where, name), "is beyond 2^63");
      }
    }
    return integer_range(from_json.get<std::int64_t>(), to_json.get<std::int64_t>(),
                         by_json.get<std::int64_t>(), !has_step, where, r);
  }
  // Doubles hold integers exactly only up to 2^53.
  if (std::max(std::fabs(from), std::fabs(to)) > 9007199254740992.0) {
    r.fail(where, "a decimal range must stay within 2^53 (give integers for larger values)");
  }
  std::vector<Json> values;
  for (std::size_t i = 0;; ++i) {
    const double value = has_step ? from + static_cast<double>(i) * by : from * std::pow(by, i);
    const double slack = has_step ? 1e-6 * by : 1e-6 * value * (by - 1);
    if (value > to + slack) break;
    if (values.size() == kMaxAxisValues) {
      r.fail(where, "gives more than " + std::to_string(kMaxAxisValues) + " values");
    }
    values.emplace_back(tidy(value));
  }
  return values;
}

Axis read_axis(const Json& entry, const std::string& where, const Reader& r,
               bool perf_sweep) {
  r.object(entry, where);
  r.only(entry, where, {"key", "values", "range"});
  if (!entry.contains("key")) r.fail(Reader::join(where, "key"), "is missing");
  Axis axis;
  axis.key = r.text(entry["key"], Reader::join(where, "key"));
  const std::string key_where = Reader::join(where, "key");
  if (axis.is_perf_option()) {
    if (!perf_sweep) r.fail(key_where, axis.key + ": a perftest option needs a perf sweep (\"perf\")");
    if (!perf::is_workload_option(axis.key.substr(2))) {
      r.fail(key_where, axis.key + ": not a perftest option taking a value (see rnicsim perf --help; "
                                   "give long names, e.g. --size)");
    }
  } else {
    try {
      config::find_key(axis.key, rnicsim_schema(), r.file());
    } catch (const ConfigError& e) {
      r.fail(key_where, axis.key + ": " + e.reason());
    }
    if (axis.key == "experiment") r.fail(key_where, "a sweep varies keys of one experiment");
  }
  const bool has_values = entry.contains("values");
  if (has_values == entry.contains("range")) {
    r.fail(where, "needs exactly one of values (a list) and range ({from, to, step | factor})");
  }
  if (has_values) {
    const Json& values = entry["values"];
    if (!values.is_array()) r.fail(Reader::join(where, "values"), "expected a list");
    if (values.size() > kMaxAxisValues) {
      r.fail(Reader::join(where, "values"), "has more than " + std::to_string(kMaxAxisValues));
    }
    for (std::size_t i = 0; i < values.size(); ++i) {
      const Json& value = values[i];
      if (value.is_object() || value.is_null()) {
        r.fail(Reader::join(where, "values") + "[" + std::to_string(i) + "]",
               "expected a number, string, boolean or list, got " + value.dump());
      }
      axis.values.push_back(value);
    }
  } else {
    axis.values = range_values(entry["range"], Reader::join(where, "range"), r);
  }
  if (axis.values.empty()) r.fail(where, axis.key + ": the axis has no values");
  return axis;
}

// The key's last `parts` dotted parts: ("nodes.a.pcie.lanes", 2) -> "pcie.lanes".
std::string key_suffix(const std::string& key, std::size_t parts) {
  std::size_t start = key.size();
  for (std::size_t i = 0; i < parts; ++i) {
    const std::size_t dot = start == 0 ? std::string::npos : key.rfind('.', start - 1);
    if (dot == std::string::npos) return key;
    start = dot;
  }
  return key.substr(start + 1);
}

// Each axis's label: its key's last part ("mtt_cache_entries"), or as many
// more parts as make it differ from every other axis's label of that length
// ("a.pcie.lanes" and "b.pcie.lanes"). A perftest option's is its long name.
void label_axes(std::vector<Axis>& axes) {
  auto name = [](const Axis& axis) { return axis.is_perf_option() ? axis.key.substr(2) : axis.key; };
  for (Axis& axis : axes) {
    for (std::size_t parts = 1;; ++parts) {
      axis.label = key_suffix(name(axis), parts);
      const bool shared = std::any_of(axes.begin(), axes.end(), [&](const Axis& other) {
        return &other != &axis && key_suffix(name(other), parts) == axis.label;
      });
      if (!shared || axis.label == name(axis)) break;
    }
  }
}

std::vector<Metric> read_collect(const Json& collect, const Reader& r, bool perf_sweep) {
  r.object(collect, "collect");
  std::vector<Metric> metrics;
  for (const auto& member : collect.items()) {
    const std::string where = "collect." + member.key();
    if (member.key().empty() ||
        member.key().find_first_of(",\"\n\r") != std::string::npos) {
      r.fail(where, "a metric name must be non-empty, without commas, quotes or line breaks");
    }
    std::string text = r.text(member.value(), where);
    Metric metric{member.key(), perf_sweep ? "perf.json" : "summary.json", text};
    // "stats.json:/a/b" reads another JSON file of the run folder.
    if (const std::size_t colon = text.find(':'); colon != std::string::npos && text[0] != '/') {
      metric.file = text.substr(0, colon);
      metric.pointer = text.substr(colon + 1);
      if (metric.file.empty() || metric.file == "." || metric.file == ".." ||
          metric.file.find('/') != std::string::npos) {
        r.fail(where, "\"" + metric.file + "\" is not the name of a file in the run folder");
      }
    }
    try {
      (void)Json::json_pointer(metric.pointer);
    } catch (const Json::exception&) {
      r.fail(where, "\"" + metric.pointer + "\" is not a JSON pointer (e.g. /points/0/hit_rate)");
    }
    if (metric.pointer.empty()) r.fail(where, "the pointer is empty (e.g. /points/0/hit_rate)");
    metrics.push_back(std::move(metric));
  }
  if (metrics.empty()) r.fail("collect", "names no metric");
  return metrics;
}

bool read_goal(const Json& pareto, const std::string& member, const Reader& r) {
  if (!pareto.contains(member)) return true;
  const std::string goal = r.text(pareto[member], "pareto." + member);
  if (goal != "min" && goal != "max") r.fail("pareto." + member, "expected \"min\" or \"max\"");
  return goal == "min";
}

Pareto read_pareto(const Json& pareto, const SweepFile& sweep, const Reader& r) {
  r.object(pareto, "pareto");
  r.only(pareto, "pareto", {"x", "y", "x_goal", "y_goal"});
  Pareto front;
  for (const char* member : {"x", "y"}) {
    if (!pareto.contains(member)) r.fail(std::string("pareto.") + member, "is missing");
    const std::string column = r.text(pareto[member], std::string("pareto.") + member);
    const bool known =
        std::any_of(sweep.axes.begin(), sweep.axes.end(), [&](const Axis& a) { return a.key == column; }) ||
        std::any_of(sweep.collect.begin(), sweep.collect.end(),
                    [&](const Metric& m) { return m.name == column; });
    if (!known) r.fail(std::string("pareto.") + member, column + ": neither an axis key nor a collected metric");
    (std::string(member) == "x" ? front.x : front.y) = column;
  }
  front.x_minimize = read_goal(pareto, "x_goal", r);
  front.y_minimize = read_goal(pareto, "y_goal", r);
  return front;
}

// A value as a folder name shows it: 4096, lru, 0.5, true; a list 1-2-3.
std::string folder_text(const Json& value) {
  std::string text;
  if (value.is_string()) {
    text = value.get<std::string>();
  } else if (value.is_array()) {
    for (const Json& element : value) text += (text.empty() ? "" : "-") + folder_text(element);
  } else {
    text = value.dump();
  }
  for (char& c : text) {
    const bool plain = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                       c == '.' || c == '_' || c == '+' || c == '-';
    if (!plain) c = '_';
  }
  return text.empty() ? "_" : text;
}

// A 64-bit hash of `text` in 16 hex digits.
std::string hash_text(const std::string& text) {
  char hex[17];
  std::snprintf(hex, sizeof hex, "%016llx",
                static_cast<unsigned long long>(config::stream_seed(0, text)));
  return hex;
}

// Folder names stay well under the 255 bytes a file name may have.
constexpr std::size_t kMaxFolderName = 200;

std::string folder_name(const SweepFile& sweep, const std::vector<Json>& values,
                        std::uint64_t seed) {
  std::string name;
  for (std::size_t i = 0; i < sweep.axes.size(); ++i) {
    name += (i == 0 ? "" : ",") + sweep.axes[i].label + "=" + folder_text(values[i]);
  }
  if (!sweep.seed_is_axis()) name += ",seed=" + std::to_string(seed);
  if (name.size() > kMaxFolderName) name = name.substr(0, kMaxFolderName - 17) + "~" + hash_text(name);
  return name;
}

// The value as `--set` reads it back: JSON text, and a scalar given for a
// list key (translation_test.cache_entries) as a one-element list.
std::string set_text(const std::string& key, const Json& value) {
  const config::KeySpec& spec = config::find_key(key, rnicsim_schema(), key);
  const bool integer_key =
      spec.kind == config::ValueKind::kInteger || spec.kind == config::ValueKind::kIntegerList;
  Json given = value;
  // A whole number written as a decimal (a range from 1.0) is that integer.
  if (integer_key && given.is_number_float() && std::fabs(given.get<double>()) < 9007199254740992.0 &&
      std::floor(given.get<double>()) == given.get<double>()) {
    given = static_cast<std::int64_t>(given.get<double>());
  }
  if (spec.kind == config::ValueKind::kIntegerList && !given.is_array()) {
    return Json::array({given}).dump();
  }
  return given.dump();
}

}  // namespace

SweepFile read_sweep_file(const std::string& path) {
  SweepFile sweep;
  sweep.document = config::read_json_file(path);
  const Json& doc = sweep.document;
  const Reader r(path);
  r.object(doc, "");
  r.only(doc, "", {"description", "base", "perf", "set", "axes", "combine", "repetitions",
                   "collect", "pareto"});
  sweep.path = fs::absolute(path).lexically_normal();
  sweep.given_path = path;
  if (!doc.contains("base")) r.fail("base", "is missing: the configuration every point starts from");
  sweep.base = (sweep.path.parent_path() / r.text(doc["base"], "base")).lexically_normal();
  if (!fs::is_regular_file(sweep.base)) {
    r.fail("base", sweep.base.string() + " is not a file");
  }
  if (doc.contains("description")) r.text(doc["description"], "description");
  if (doc.contains("perf")) {
    const Json& perf = r.object(doc["perf"], "perf");
    r.only(perf, "perf", {"test", "args"});
    if (!perf.contains("test")) r.fail("perf.test", "is missing (write_bw, read_lat, ...)");
    sweep.perf_test = r.text(perf["test"], "perf.test");
    if (perf.contains("args")) {
      if (!perf["args"].is_array()) r.fail("perf.args", "expected a list of strings");
      for (const Json& arg : perf["args"]) {
        const std::string word = r.text(arg, "perf.args");
        for (const char* own : {"--out", "--json", "--pcap", "--set", "-h", "--help"}) {
          if (word.rfind(own, 0) == 0) {
            r.fail("perf.args", word + ": the sweep gives each point its own " +
                                    "folder and settings (use \"set\" for keys)");
          }
        }
        sweep.perf_args.push_back(word);
      }
    }
  }
  if (doc.contains("set")) {
    for (const auto& member : r.object(doc["set"], "set").items()) {
      if (member.key() == "experiment") r.fail("set.experiment", "a sweep runs its base's experiment");
      try {
        Json scratch = Json::object();
        config::apply_override(scratch, member.key() + "=" + set_text(member.key(), member.value()),
                               rnicsim_schema());
      } catch (const ConfigError& e) {
        r.fail("set." + member.key(), e.reason());
      }
      sweep.set.emplace_back(member.key(), member.value());
    }
  }
  if (!doc.contains("axes")) r.fail("axes", "is missing: the keys to vary");
  if (!doc["axes"].is_array() || doc["axes"].empty()) r.fail("axes", "expected a non-empty list");
  for (std::size_t i = 0; i < doc["axes"].size(); ++i) {
    Axis axis = read_axis(doc["axes"][i], "axes[" + std::to_string(i) + "]", r,
                          sweep.perf_test.has_value());
    for (const Axis& other : sweep.axes) {
      if (other.key == axis.key) r.fail("axes[" + std::to_string(i) + "].key", axis.key + " is varied twice");
    }
    for (const auto& [key, value] : sweep.set) {
      if (key == axis.key) r.fail("set." + key, "is also an axis");
    }
    sweep.axes.push_back(std::move(axis));
  }
  label_axes(sweep.axes);
  if (doc.contains("combine")) {
    const std::string combine = r.text(doc["combine"], "combine");
    if (combine != "product" && combine != "zip") {
      r.fail("combine", "expected \"product\" (every combination) or \"zip\" (the i-th values together)");
    }
    sweep.zip = combine == "zip";
  }
  // In a product a value given twice runs its points twice; zip pairs values
  // up, and the same pair twice shares a folder (plan_points refuses that).
  for (std::size_t a = 0; a < sweep.axes.size() && !sweep.zip; ++a) {
    std::set<Json> seen;
    for (const Json& value : sweep.axes[a].values) {
      if (!seen.insert(value).second) {
        r.fail("axes[" + std::to_string(a) + "]",
               sweep.axes[a].key + ": the value " + value.dump() + " appears twice");
      }
    }
  }
  if (doc.contains("repetitions")) {
    const Json& repetitions = doc["repetitions"];
    if (!repetitions.is_number_integer() || repetitions.get<std::int64_t>() < 1 ||
        repetitions.get<std::int64_t>() > 10000) {
      r.fail("repetitions", "expected an integer from 1 to 10000, got " + repetitions.dump());
    }
    sweep.repetitions = repetitions.get<std::uint32_t>();
  }
  if (sweep.seed_is_axis() && sweep.repetitions > 1) {
    r.fail("repetitions", "the seed is an axis already: repetitions must be 1");
  }
  if (!doc.contains("collect")) r.fail("collect", "is missing: the figures to collect from each run");
  sweep.collect = read_collect(doc["collect"], r, sweep.perf_test.has_value());
  for (const Metric& metric : sweep.collect) {
    for (const Axis& axis : sweep.axes) {
      if (metric.name == axis.key) r.fail("collect." + metric.name, "is also an axis key");
    }
  }
  if (doc.contains("pareto")) sweep.pareto = read_pareto(doc["pareto"], sweep, r);
  return sweep;
}

std::vector<Point> plan_points(const SweepFile& sweep) {
  const Reader r(sweep.given_path);
  std::size_t combinations = 1;
  if (sweep.zip) {
    combinations = sweep.axes.front().values.size();
    for (std::size_t i = 0; i < sweep.axes.size(); ++i) {
      if (sweep.axes[i].values.size() != combinations) {
        r.fail("axes[" + std::to_string(i) + "]",
               sweep.axes[i].key + ": zip needs axes of one length (" +
                   std::to_string(sweep.axes[i].values.size()) + " values, axes[0] has " +
                   std::to_string(combinations) + ")");
      }
    }
  } else {
    for (const Axis& axis : sweep.axes) {
      if (combinations > kMaxPoints / axis.values.size()) {
        r.fail("axes", "the product has more than " + std::to_string(kMaxPoints) + " points");
      }
      combinations *= axis.values.size();
    }
  }
  if (combinations > kMaxPoints / sweep.repetitions) {
    r.fail("repetitions", "the sweep has more than " + std::to_string(kMaxPoints) + " points");
  }

  // The keys every point sets: the file's, then the axes', then the seed.
  std::vector<std::string> fixed;
  const bool perf = sweep.perf_test.has_value();
  if (perf) fixed.push_back("experiment=perf");
  bool plot_given = false;
  for (const auto& [key, value] : sweep.set) {
    fixed.push_back(key + "=" + set_text(key, value));
    plot_given = plot_given || key == "output.plot";
  }
  // The sweep draws its own plots; a point's would cost a Python start each.
  if (!perf && !plot_given) fixed.push_back("output.plot=false");
  const std::uint64_t base_seed = [&] {
    try {
      return config::integer_at(config::load(sweep.base.string(), fixed, rnicsim_schema()), "seed");
    } catch (const ConfigError& e) {
      r.fail("", "the base with the sweep's set is refused: " + std::string(e.what()));
    }
  }();

  std::vector<Point> points;
  points.reserve(combinations * sweep.repetitions);
  std::map<std::string, std::size_t> folders;
  for (std::size_t c = 0; c < combinations; ++c) {
    std::vector<Json> values(sweep.axes.size());
    std::size_t rest = c;
    for (std::size_t i = sweep.axes.size(); i-- > 0;) {
      const std::size_t count = sweep.axes[i].values.size();
      values[i] = sweep.axes[i].values[sweep.zip ? c : rest % count];
      rest /= count;
    }
    for (std::uint32_t repetition = 0; repetition < sweep.repetitions; ++repetition) {
      Point point;
      point.index = points.size();
      point.values = values;
      point.seed = base_seed + repetition;
      std::vector<std::string> overrides = fixed;
      std::vector<std::string> options;
      for (std::size_t i = 0; i < sweep.axes.size(); ++i) {
        const Axis& axis = sweep.axes[i];
        if (axis.is_perf_option()) {
          options.push_back(axis.key + "=" + (values[i].is_string() ? values[i].get<std::string>()
                                                                    : values[i].dump()));
        } else {
          if (axis.key == "seed" && values[i].is_number_integer() && values[i].get<std::int64_t>() >= 0) {
            point.seed = values[i].get<std::uint64_t>();
          }
          overrides.push_back(axis.key + "=" + set_text(axis.key, values[i]));
        }
      }
      if (!sweep.seed_is_axis()) overrides.push_back("seed=" + std::to_string(point.seed));
      point.folder = folder_name(sweep, values, point.seed);
      if (const auto [it, fresh] = folders.emplace(point.folder, point.index); !fresh) {
        r.fail("axes", "points " + std::to_string(it->second) + " and " +
                           std::to_string(point.index) + " would share the folder " + point.folder +
                           " (the same values twice, or values that differ only in characters a "
                           "folder name cannot hold)");
      }
      // The command line: perf TEST BASE OPTIONS... or run BASE, then the keys.
      if (perf) {
        point.arguments = {"perf", *sweep.perf_test, sweep.base.string()};
        point.arguments.insert(point.arguments.end(), sweep.perf_args.begin(), sweep.perf_args.end());
        point.arguments.insert(point.arguments.end(), options.begin(), options.end());
      } else {
        point.arguments = {"run", sweep.base.string()};
      }
      // "experiment=perf" is what `rnicsim perf` adds itself.
      for (std::size_t i = perf ? 1 : 0; i < overrides.size(); ++i) {
        point.arguments.push_back("--set");
        point.arguments.push_back(overrides[i]);
      }
      points.push_back(std::move(point));
    }
  }
  return points;
}

Json check_point(const SweepFile& sweep, Point& point, const std::string& program) {
  const bool perf = sweep.perf_test.has_value();
  std::vector<std::string> overrides;
  if (perf) overrides.push_back("experiment=perf");
  // The perftest words without the base's path and the keys: "write_bw -n 100 --size=64".
  Json perf_words = Json::array();
  for (std::size_t i = 1; i < point.arguments.size(); ++i) {
    if (point.arguments[i] == "--set") {
      overrides.push_back(point.arguments[++i]);
    } else if (perf && i != 2) {
      perf_words.push_back(point.arguments[i]);
    }
  }
  Json identity{{"program", program}};
  point.invalid.clear();
  point.identity.clear();
  try {
    identity["config"] = config::load(sweep.base.string(), overrides, rnicsim_schema());
    if (perf) {
      perf::parse_perf_options(std::vector<std::string>(point.arguments.begin() + 1, point.arguments.end()));
      identity["perf"] = perf_words;
    }
  } catch (const ConfigError& e) {
    point.invalid = config::printable(e.what());
    return identity;
  }
  point.identity = hash_text(identity.dump());
  return identity;
}

Json point_parameters(const SweepFile& sweep, const Point& point) {
  Json parameters = Json::object();
  for (std::size_t i = 0; i < sweep.axes.size(); ++i) parameters[sweep.axes[i].key] = point.values[i];
  parameters["seed"] = point.seed;
  return parameters;
}

}  // namespace rnicsim::sweep
