#pragma once
// Configuration: a JSON document checked against a schema of known keys.
//
// Every key rnicsim accepts is declared once, by the block that reads it,
// with its type, unit, default, range and a one-line doc. Loading a file
// merges the defaults in, applies command-line overrides, and rejects
// anything else with one message that names the file, the JSON path and the
// reason. The result is the effective configuration, written beside every run.
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "config/json_reader.hpp"

namespace rnicsim::config {

using Json = nlohmann::json;

// One bad input: what() reads "<source>: <key>: <reason>" (or
// "<source>: <reason>" when no key is involved).
class ConfigError : public std::runtime_error {
 public:
  ConfigError(std::string source, std::string key, std::string reason);
  const std::string& source() const { return source_; }
  const std::string& key() const { return key_; }
  const std::string& reason() const { return reason_; }

 private:
  std::string source_;
  std::string key_;
  std::string reason_;
};

// kIntegerList: a non-empty JSON array of integers; min and max bound each element.
// kStringList: a JSON array of strings (empty allowed); choices bound each element.
enum class ValueKind { kBoolean, kInteger, kNumber, kString, kIntegerList, kStringList };

struct KeySpec {
  std::string path;            // dotted JSON path, e.g. "link.gbps"
  ValueKind kind = ValueKind::kNumber;
  Json default_value;          // must itself pass the checks below
  std::string unit;            // "ns", "Gbit/s", "bits", ... or "" for none
  std::string doc;             // one line: what the key means
  std::optional<double> min;   // numeric lower bound
  bool min_exclusive = false;  // true: value must be > min, else >= min
  std::optional<double> max;   // numeric upper bound, inclusive
  std::vector<std::string> choices;  // strings: the allowed values (empty = any)
  // Integers and integer lists: the allowed values (empty = any; excludes min/max).
  std::vector<std::int64_t> integer_choices;
  bool must_be_power_of_two = false;  // integers and integer lists

  KeySpec& at_least(double bound) { min = bound; min_exclusive = false; return *this; }
  KeySpec& greater_than(double bound) { min = bound; min_exclusive = true; return *this; }
  KeySpec& at_most(double bound) { max = bound; return *this; }
  KeySpec& one_of(std::vector<std::string> allowed) { choices = std::move(allowed); return *this; }
  KeySpec& one_of_integers(std::vector<std::int64_t> allowed) {
    integer_choices = std::move(allowed);
    return *this;
  }
  KeySpec& power_of_two() { must_be_power_of_two = true; return *this; }
};

// What a rule between keys found wrong: the key it is about and why, e.g.
// {"pcie.completion_bytes", "must not exceed pcie.mps_bytes (got 512, pcie.mps_bytes is 256)"}.
struct Violation {
  std::string key;
  std::string reason;
};

// A rule between keys ("the cache ways divide the cache entries"), declared
// by the block that declares the keys and checked on every loaded
// configuration, whatever the experiment. `keys` lists every key the rule
// reads (the error is blamed on whichever of them a --set gave last); the
// rule itself reads them from the effective configuration.
struct KeyCheck {
  std::vector<std::string> keys;
  std::function<std::optional<Violation>(const Json& effective)> check;
};

// Key declarations read as one line each:
//   schema.add(number_key("link.gbps", 100, "Gbit/s", "line rate").greater_than(0));
inline KeySpec make_key(ValueKind kind, std::string path, Json default_value, std::string unit,
                        std::string doc) {
  KeySpec spec;
  spec.path = std::move(path);
  spec.kind = kind;
  spec.default_value = std::move(default_value);
  spec.unit = std::move(unit);
  spec.doc = std::move(doc);
  return spec;
}
inline KeySpec boolean_key(std::string path, bool default_value, std::string doc) {
  return make_key(ValueKind::kBoolean, std::move(path), default_value, "", std::move(doc));
}
inline KeySpec integer_key(std::string path, Json default_value, std::string unit,
                           std::string doc) {
  return make_key(ValueKind::kInteger, std::move(path), std::move(default_value), std::move(unit),
                  std::move(doc));
}
inline KeySpec integer_list_key(std::string path, Json default_value, std::string unit,
                                std::string doc) {
  return make_key(ValueKind::kIntegerList, std::move(path), std::move(default_value),
                  std::move(unit), std::move(doc));
}
inline KeySpec string_list_key(std::string path, Json default_value, std::string doc) {
  return make_key(ValueKind::kStringList, std::move(path), std::move(default_value), "",
                  std::move(doc));
}
inline KeySpec number_key(std::string path, double default_value, std::string unit,
                          std::string doc) {
  return make_key(ValueKind::kNumber, std::move(path), default_value, std::move(unit),
                  std::move(doc));
}
inline KeySpec string_key(std::string path, std::string default_value, std::string doc) {
  return make_key(ValueKind::kString, std::move(path), std::move(default_value), "",
                  std::move(doc));
}

class Schema {
 public:
  // Throws std::logic_error on a duplicate path, a path that is a prefix of
  // another key's path, or a default that fails the key's own checks.
  void add(KeySpec spec);
  // Adds a rule between keys. Its keys may be declared later (blocks declare
  // theirs in any order); validate() throws std::logic_error for a rule that
  // names a key the schema does not hold.
  void add_check(std::vector<std::string> keys,
                 std::function<std::optional<Violation>(const Json& effective)> check);
  const KeySpec* find(std::string_view path) const;
  // Marks `section` (for example "pcie") as a node section: every node of a
  // testbed reads its own copy, which `nodes.<node>.<section>.<key>` may
  // override for that node alone; the section itself gives every node's value.
  void add_node_section(std::string section);
  bool is_node_section(std::string_view section) const;
  const std::vector<std::string>& node_sections() const { return node_sections_; }
  // Records that key or section `old_path` is now `new_path` (a block took
  // one name): a config giving the old name is refused as an unknown key that
  // names the new one, whatever the edit distance. Old names hold no value.
  void add_rename(std::string old_path, std::string new_path);
  // The new name of `path` when it, or a section holding it, was renamed.
  std::optional<std::string> renamed(std::string_view path) const;
  const std::vector<std::pair<std::string, std::string>>& renames() const { return renames_; }
  const std::vector<KeySpec>& keys() const { return keys_; }
  const std::vector<KeyCheck>& checks() const { return checks_; }
  // The document holding every key at its default.
  Json defaults() const;

 private:
  std::vector<KeySpec> keys_;
  std::vector<KeyCheck> checks_;
  std::vector<std::string> node_sections_;
  std::vector<std::pair<std::string, std::string>> renames_;  // old, new
};

// The top-level section that holds per-node overrides.
inline constexpr std::string_view kNodesSection = "nodes";

// A node's name: a lower-case letter, then lower-case letters, digits or '_'
// ("a", "client", "host_2").
bool is_node_name(std::string_view name);

// `doc` as node `node` sees it: every node section replaced by its merge
// with `nodes.<node>.<section>`, and no "nodes" member. Rules between keys
// run on every node's view.
Json node_view(const Json& doc, const std::string& node);

// The spec of key `path`, or of the key a node's copy names ("nodes.b.pcie.lanes"
// -> "pcie.lanes"). Throws ConfigError (source `source`) for a section, an
// unknown key (suggesting the nearest one) or a bad node name.
const KeySpec& find_key(const std::string& path, const Schema& schema, const std::string& source);

// Applies one "a.b.c=value" override to `doc`. The value is parsed as JSON when
// it parses, else taken as a string. Throws ConfigError (source "--set <arg>")
// when the text has no '=', the path is not a key of the schema (a section gets
// its own message), the value is a number out of range, or the value fails the
// key's own checks (type, range, choices).
void apply_override(Json& doc, const std::string& assignment, const Schema& schema);

// Checks `doc` against the schema and returns it with every missing key at its
// default. Throws ConfigError (source = `source`) for: a top level that is not
// an object, an unknown key (with its full path), an object where a value is
// expected or the reverse, a wrong type, a number out of range, a value not
// among the choices, or a broken rule between keys (Schema::add_check).
Json validate(const Json& doc, const Schema& schema, const std::string& source);

// A loaded configuration: what the user gave and the result with defaults.
struct LoadedConfig {
  Json given;      // the file with every --set applied, no defaults
  Json effective;  // `given` with every missing key at its default
  std::string file;
  std::map<std::string, std::string> set_by;  // key path -> the last "--set k=v" giving it
  // Who gave `path`: its last --set ("--set k=v"), else the file.
  std::string source_of(const std::string& path) const;
};

// read_json_file, then the file's own checks (blamed on the file), then each
// override in order (blamed on its --set), then the rules between keys on the
// result and on every node's view of it: a broken rule is blamed on the last
// --set that gave one of its keys, else on the file.
LoadedConfig load_config(const std::string& path, const std::vector<std::string>& overrides,
                         const Schema& schema);
// load_config(...).effective.
Json load(const std::string& path, const std::vector<std::string>& overrides,
          const Schema& schema);

// For readers of a loaded configuration: throws std::logic_error when a rule
// between keys that config::load checks is broken, a programming error by then.
void require_checked(const std::optional<Violation>& violation, std::string_view reader);

// Looks up a dotted path in a validated document. Throws std::out_of_range if
// absent (a programming error once the document is validated).
const Json& at_path(const Json& doc, std::string_view path);
// at_path() of an integer key (the schema has checked it is one, >= 0).
std::uint64_t integer_at(const Json& doc, std::string_view path);

// A Markdown table of every key: key, type, unit, default, range, meaning.
std::string markdown_table(const Schema& schema);

// Text for an error message: control characters (and DEL) escaped as JSON
// escapes (\n, \u0000), so a message stays on one line and shows what it names.
std::string printable(std::string_view text);

}  // namespace rnicsim::config
