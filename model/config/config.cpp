#include "config/config.hpp"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <map>
#include <memory>
#include <numeric>
#include <utility>

namespace rnicsim::config {
namespace {

// Typos further than this from every known name get no suggestion: a distant
// guess misleads more than it helps.
constexpr std::size_t kMaxSuggestionDistance = 2;

std::string compose_message(const std::string& source, const std::string& key,
                            const std::string& reason) {
  if (key.empty()) {
    return printable(source) + ": " + printable(reason);
  }
  return printable(source) + ": " + printable(key) + ": " + printable(reason);
}

std::vector<std::string> split_path(std::string_view path) {
  std::vector<std::string> parts;
  std::size_t start = 0;
  for (;;) {
    const std::size_t dot = path.find('.', start);
    parts.emplace_back(path.substr(start, dot == std::string_view::npos ? dot : dot - start));
    if (dot == std::string_view::npos) {
      return parts;
    }
    start = dot + 1;
  }
}

// True when `path` lies inside the section `section` ("a.b" inside "a"), so
// "ab" is not inside "a".
bool is_inside(std::string_view path, std::string_view section) {
  return path.size() > section.size() && path[section.size()] == '.' &&
         path.compare(0, section.size(), section) == 0;
}

// Strings reaching an error message may come raw from the command line, so
// invalid UTF-8 is replaced rather than allowed to throw from dump().
std::string compact(const Json& value) {
  return value.dump(-1, ' ', false, Json::error_handler_t::replace);
}

std::string quote(const std::string& text) { return compact(Json(text)); }

// Integral values print without decimals (1000000, not 1e+06) because a
// rounded bound would misstate the limit; others get 6 significant digits,
// more only when 6 would not read back as the same value.
std::string format_number(double value) {
  char buffer[32];
  if (std::nearbyint(value) == value && std::fabs(value) < 1e15) {
    std::snprintf(buffer, sizeof buffer, "%.0f", value);
    return buffer;
  }
  for (int precision = 6; precision < 17; ++precision) {
    std::snprintf(buffer, sizeof buffer, "%.*g", precision, value);
    if (std::strtod(buffer, nullptr) == value) {
      return buffer;
    }
  }
  std::snprintf(buffer, sizeof buffer, "%.17g", value);
  return buffer;
}

// What an error message says was found. Numbers appear as written in JSON
// (2.0 stays 2.0, so "expected an integer, got 2.0" makes sense).
std::string describe(const Json& value) {
  if (value.is_null()) {
    return "null";
  }
  if (value.is_boolean()) {
    return "a boolean (" + compact(value) + ")";
  }
  if (value.is_number()) {
    return compact(value);
  }
  if (value.is_string()) {
    return "a string (" + compact(value) + ")";
  }
  if (value.is_array()) {
    return "an array";
  }
  if (value.is_object()) {
    return "an object";
  }
  return "an unsupported value";
}

const char* kind_name(ValueKind kind) {
  switch (kind) {
    case ValueKind::kBoolean:
      return "boolean";
    case ValueKind::kInteger:
      return "integer";
    case ValueKind::kNumber:
      return "number";
    case ValueKind::kString:
      return "string";
    case ValueKind::kIntegerList:
      return "integer list";
    case ValueKind::kStringList:
      return "string list";
  }
  return "unknown";
}

std::string kind_with_article(ValueKind kind) {
  if (kind == ValueKind::kIntegerList) return "a non-empty list of integers";
  if (kind == ValueKind::kStringList) return "a list of strings";
  return std::string(kind == ValueKind::kInteger ? "an " : "a ") + kind_name(kind);
}

bool is_numeric(ValueKind kind) {
  return kind == ValueKind::kInteger || kind == ValueKind::kNumber ||
         kind == ValueKind::kIntegerList;
}

bool has_kind(const Json& value, ValueKind kind) {
  switch (kind) {
    case ValueKind::kBoolean:
      return value.is_boolean();
    case ValueKind::kInteger:
      return value.is_number_integer();
    case ValueKind::kNumber:
      return value.is_number();
    case ValueKind::kString:
      return value.is_string();
    case ValueKind::kIntegerList:
      return value.is_array() && !value.empty() &&
             std::all_of(value.begin(), value.end(),
                         [](const Json& element) { return element.is_number_integer(); });
    case ValueKind::kStringList:
      return value.is_array() &&
             std::all_of(value.begin(), value.end(),
                         [](const Json& element) { return element.is_string(); });
  }
  return false;
}

// The range check of one number; `where` names a list element (" at index 2").
std::optional<std::string> check_range(const KeySpec& spec, const Json& value,
                                       const std::string& where) {
  const double number = value.get<double>();
  if (spec.min) {
    const bool ok = spec.min_exclusive ? number > *spec.min : number >= *spec.min;
    if (!ok) {
      return std::string("must be ") + (spec.min_exclusive ? "> " : ">= ") +
             format_number(*spec.min) + " (got " + compact(value) + where + ")";
    }
  }
  if (spec.max && !(number <= *spec.max)) {
    return "must be <= " + format_number(*spec.max) + " (got " + compact(value) + where + ")";
  }
  return std::nullopt;
}

std::string integer_choices_text(const KeySpec& spec) {
  std::string text;
  for (const std::int64_t choice : spec.integer_choices) {
    text += (text.empty() ? "" : ", ") + std::to_string(choice);
  }
  return text;
}

bool is_power_of_two(const Json& value) {
  if (value.is_number_unsigned()) {
    const auto v = value.get<std::uint64_t>();
    return v != 0 && (v & (v - 1)) == 0;
  }
  const auto v = value.get<std::int64_t>();
  return v > 0 && (v & (v - 1)) == 0;
}

// The rules an integer (or a list element) obeys beyond its range.
std::optional<std::string> check_integer_rules(const KeySpec& spec, const Json& value,
                                               const std::string& where) {
  if (!spec.integer_choices.empty()) {
    // Negative values do not fit an unsigned JSON integer's comparison, so
    // compare through the signed value where it has one.
    const bool allowed =
        !(value.is_number_unsigned() &&
          value.get<std::uint64_t>() >
              static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max())) &&
        std::find(spec.integer_choices.begin(), spec.integer_choices.end(),
                  value.get<std::int64_t>()) != spec.integer_choices.end();
    if (!allowed) {
      return "must be one of " + integer_choices_text(spec) + " (got " + compact(value) + where +
             ")";
    }
  }
  if (spec.must_be_power_of_two && !is_power_of_two(value)) {
    return "must be a power of two (got " + compact(value) + where + ")";
  }
  return std::nullopt;
}

// A string (or a list element) among the key's choices, if it has any.
std::optional<std::string> check_choice(const KeySpec& spec, const Json& value,
                                        const std::string& where) {
  if (spec.choices.empty()) return std::nullopt;
  const auto& text = value.get_ref<const std::string&>();
  if (std::find(spec.choices.begin(), spec.choices.end(), text) != spec.choices.end()) {
    return std::nullopt;
  }
  std::string allowed;
  for (const auto& choice : spec.choices) allowed += (allowed.empty() ? "" : ", ") + quote(choice);
  return "must be one of " + allowed + " (got " + quote(text) + where + ")";
}

// The one check shared by validate() and Schema::add(), so a default can never
// be something a user could not write. Returns the reason, or nothing if valid.
std::optional<std::string> check_value(const KeySpec& spec, const Json& value) {
  if (!has_kind(value, spec.kind)) {
    return "expected " + kind_with_article(spec.kind) + ", got " + describe(value);
  }
  if (spec.kind == ValueKind::kIntegerList) {
    for (std::size_t i = 0; i < value.size(); ++i) {
      const std::string where = " at index " + std::to_string(i);
      if (auto reason = check_range(spec, value[i], where)) return reason;
      if (auto reason = check_integer_rules(spec, value[i], where)) return reason;
    }
  } else if (is_numeric(spec.kind)) {
    if (auto reason = check_range(spec, value, "")) return reason;
    if (spec.kind == ValueKind::kInteger) {
      if (auto reason = check_integer_rules(spec, value, "")) return reason;
    }
  }
  if (spec.kind == ValueKind::kString) return check_choice(spec, value, "");
  if (spec.kind == ValueKind::kStringList) {
    for (std::size_t i = 0; i < value.size(); ++i) {
      if (auto reason = check_choice(spec, value[i], " at index " + std::to_string(i))) {
        return reason;
      }
    }
  }
  return std::nullopt;
}

std::size_t edit_distance(std::string_view a, std::string_view b) {
  std::vector<std::size_t> previous(b.size() + 1);
  std::vector<std::size_t> current(b.size() + 1);
  std::iota(previous.begin(), previous.end(), std::size_t{0});
  for (std::size_t i = 1; i <= a.size(); ++i) {
    current[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t substitution = previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1);
      current[j] = std::min({previous[j] + 1, current[j - 1] + 1, substitution});
    }
    std::swap(previous, current);
  }
  return previous[b.size()];
}

// " (did you mean 'x'?)" for the nearest candidate, or "" when none is close.
// Ties go to the earliest candidate, i.e. declaration order.
std::string suggestion(std::string_view path, const std::vector<std::string>& candidates) {
  const std::string* best = nullptr;
  std::size_t best_distance = kMaxSuggestionDistance + 1;
  for (const auto& candidate : candidates) {
    const std::size_t distance = edit_distance(path, candidate);
    if (distance < best_distance) {
      best = &candidate;
      best_distance = distance;
    }
  }
  return best ? " (did you mean '" + *best + "'?)" : "";
}

// " (did you mean 'pcie.lanes'?)" inside a node: " (did you mean 'nodes.b.pcie.lanes'?)".
std::string with_prefix(const std::string& prefix, const std::string& suggestion_text) {
  const std::string opening = " (did you mean '";
  if (prefix.empty() || suggestion_text.compare(0, opening.size(), opening) != 0) {
    return suggestion_text;
  }
  return opening + prefix + suggestion_text.substr(opening.size());
}

std::vector<std::string> key_paths(const Schema& schema) {
  std::vector<std::string> paths;
  for (const auto& spec : schema.keys()) {
    paths.push_back(spec.path);
  }
  return paths;
}

// A mistyped section name ("lnk") deserves a suggestion too, so documents are
// matched against sections as well as keys.
std::vector<std::string> key_and_section_paths(const Schema& schema) {
  std::vector<std::string> paths;
  for (const auto& spec : schema.keys()) {
    for (std::size_t dot = spec.path.find('.'); dot != std::string::npos;
         dot = spec.path.find('.', dot + 1)) {
      paths.push_back(spec.path.substr(0, dot));
    }
    paths.push_back(spec.path);
  }
  return paths;
}

bool is_section(const Schema& schema, std::string_view path) {
  const auto& keys = schema.keys();
  return std::any_of(keys.begin(), keys.end(),
                     [&](const KeySpec& spec) { return is_inside(spec.path, path); });
}

// Why `path` is unknown, with a suggestion: the new name when it was renamed
// (" (did you mean 'translation.hit_cycles'? renamed from 'mtt.hit_cycles')"),
// else the nearest of `candidates`. A renamed path is checked as its new name:
// a typo under an old section ("mtt.hit_cycle") gets the nearest key to
// "translation.hit_cycle", and a renamed key that may not be given per node
// says so rather than suggest a name that would be refused too.
std::string unknown_key(std::string_view path, const Schema& schema,
                        const std::vector<std::string>& candidates, const std::string& prefix) {
  const std::optional<std::string> now = schema.renamed(path);
  if (!now) return "unknown key" + with_prefix(prefix, suggestion(path, candidates));
  const std::string renamed_from =
      "renamed from '" + prefix + std::string(path) + "'; configs/README.md lists the renames)";
  if (!schema.find(*now) && !is_section(schema, *now)) {
    return "unknown key" + with_prefix(prefix, suggestion(*now, candidates));
  }
  if (!prefix.empty() && !schema.is_node_section(now->substr(0, now->find('.')))) {
    return "unknown key (now '" + *now + "', which is not given per node; " + renamed_from;
  }
  return "unknown key (did you mean '" + prefix + *now + "'? " + renamed_from;
}

// "gbps, propagation_ns, framing": the keys inside a section, relative to it.
std::string section_keys(const Schema& schema, std::string_view section) {
  std::string names;
  for (const auto& spec : schema.keys()) {
    if (is_inside(spec.path, section)) {
      names += (names.empty() ? "" : ", ") + spec.path.substr(section.size() + 1);
    }
  }
  return names;
}

const KeySpec& first_key_of(const Schema& schema, std::string_view section) {
  return *std::find_if(schema.keys().begin(), schema.keys().end(),
                       [&](const KeySpec& spec) { return is_inside(spec.path, section); });
}

void require_object_top_level(const Json& doc, const std::string& source) {
  if (!doc.is_object()) {
    throw ConfigError(source, "", "expected an object at the top level, got " + describe(doc));
  }
}

std::string node_section_list(const Schema& schema) {
  std::string names;
  for (const auto& section : schema.node_sections()) {
    names += (names.empty() ? "" : ", ") + section;
  }
  return names;
}

void require_node_name(const std::string& node, const std::string& shown,
                       const std::string& source) {
  if (!is_node_name(node)) {
    throw ConfigError(source, shown,
                      "a node name is a lower-case letter followed by lower-case letters, digits "
                      "or '_' (got " + quote(node) + ")");
  }
}

// `key` ("pcie.lanes", or a section alone) given per node under `node_prefix`
// ("nodes.b."): its section must be a node section, and not an old name.
void require_node_section(const std::string& node_prefix, const std::string& key,
                          const Schema& schema, const std::string& source) {
  const std::string shown = node_prefix + key;
  if (schema.renamed(key)) {
    throw ConfigError(source, shown, unknown_key(key, schema, key_paths(schema), node_prefix));
  }
  if (!schema.is_node_section(key.substr(0, key.find('.')))) {
    throw ConfigError(source, shown,
                      "only node sections can be given per node (" + node_section_list(schema) +
                          ")");
  }
}

// "nodes.b.pcie.lanes" -> node "b", key "pcie.lanes". Throws ConfigError for
// a bad node name or a section that is not a node section; nullopt for a
// path outside "nodes".
struct NodeKeyPath {
  std::string node;
  std::string key;
};
std::optional<NodeKeyPath> split_node_key(const std::string& path, const Schema& schema,
                                          const std::string& source) {
  const std::string prefix = std::string(kNodesSection) + ".";
  if (path.compare(0, prefix.size(), prefix) != 0) return std::nullopt;
  const std::string rest = path.substr(prefix.size());
  const std::size_t dot = rest.find('.');
  const std::string node = rest.substr(0, dot);
  require_node_name(node, path, source);
  const std::string key = dot == std::string::npos ? "" : rest.substr(dot + 1);
  require_node_section(prefix + node + ".", key, schema, source);
  return NodeKeyPath{node, key};
}

// `display` is what error messages put before a member's path ("nodes.b."
// inside a node).
void check_members(const Json& object, const std::string& prefix, const Schema& schema,
                   const std::string& source, const std::string& display = "") {
  for (const auto& member : object.items()) {
    const std::string& name = member.key();
    const std::string path = prefix.empty() ? name : prefix + "." + name;
    const std::string shown = display + path;
    // A member named "link.gbps" would pass as the key yet be invisible to
    // at_path(), silently leaving the default in force.
    if (name.empty() || name.find('.') != std::string::npos) {
      throw ConfigError(source, shown, "a key name must be non-empty and contain no '.'");
    }
    if (prefix.empty() && display.empty() && name == kNodesSection) {
      if (!member.value().is_object()) {
        throw ConfigError(source, shown,
                          "is a section, not a value: expected an object holding one object per "
                          "node, got " + describe(member.value()));
      }
      for (const auto& node : member.value().items()) {
        const std::string node_path = shown + "." + node.key();
        require_node_name(node.key(), node_path, source);
        if (!node.value().is_object()) {
          throw ConfigError(source, node_path,
                            "is a node, not a value: expected an object holding node sections (" +
                                node_section_list(schema) + "), got " + describe(node.value()));
        }
        for (const auto& section : node.value().items()) {
          require_node_section(node_path + ".", section.key(), schema, source);
        }
        check_members(node.value(), "", schema, source, node_path + ".");
      }
    } else if (const KeySpec* spec = schema.find(path)) {
      if (auto reason = check_value(*spec, member.value())) {
        throw ConfigError(source, shown, *reason);
      }
    } else if (is_section(schema, path)) {
      if (!member.value().is_object()) {
        throw ConfigError(source, shown,
                          "is a section, not a value: expected an object holding its keys (" +
                              section_keys(schema, path) + "), got " + describe(member.value()));
      }
      check_members(member.value(), path, schema, source, display);
    } else {
      throw ConfigError(source, shown,
                        unknown_key(path, schema, key_and_section_paths(schema), display));
    }
  }
}

// The nodes `doc` gives overrides for.
std::vector<std::string> given_nodes(const Json& doc) {
  std::vector<std::string> nodes;
  const auto it = doc.find(kNodesSection);
  if (it == doc.end()) return nodes;
  for (const auto& node : it->items()) nodes.push_back(node.key());
  return nodes;
}

// Runs every rule between keys on `effective`, then on each node's view of
// it (a violation there names the node's key); `blame(check, violation,
// node)` turns the first violation into the ConfigError to throw.
template <typename Blame>
void run_checks(const Json& effective, const Schema& schema, Blame&& blame) {
  for (const KeyCheck& check : schema.checks()) {
    for (const auto& key : check.keys) {
      if (!schema.find(key)) {
        throw std::logic_error("a rule between keys names '" + key + "', which is not a key");
      }
    }
  }
  std::vector<std::string> views{""};
  for (const auto& node : given_nodes(effective)) views.push_back(node);
  for (const std::string& node : views) {
    const Json view = node.empty() ? effective : node_view(effective, node);
    for (const KeyCheck& check : schema.checks()) {
      std::optional<Violation> violation = check.check(view);
      if (!violation) continue;
      if (std::find(check.keys.begin(), check.keys.end(), violation->key) == check.keys.end()) {
        throw std::logic_error("a rule between keys reports '" + violation->key +
                               "', which it does not list");
      }
      const std::string section = violation->key.substr(0, violation->key.find('.'));
      if (!node.empty() && schema.is_node_section(section)) {
        violation->key = std::string(kNodesSection) + "." + node + "." + violation->key;
      }
      throw blame(check, *violation, node);
    }
  }
}

Json with_defaults(const Json& doc, const Schema& schema) {
  Json effective = schema.defaults();
  // A checked document holds no nulls, and without nulls a merge patch is
  // exactly a deep merge in which the document wins.
  effective.merge_patch(doc);
  return effective;
}

std::string table_cell(const std::string& text) {
  std::string cell;
  for (const char c : text) {
    if (c == '|') {
      cell += '\\';
    }
    cell += c;
  }
  return cell;
}

std::string range_text(const KeySpec& spec) {
  std::string range;
  if (spec.min) {
    range += (spec.min_exclusive ? "> " : ">= ") + format_number(*spec.min);
  }
  if (spec.max) {
    range += (range.empty() ? "<= " : ", <= ") + format_number(*spec.max);
  }
  if (!spec.choices.empty()) {
    range = "one of ";
    for (std::size_t i = 0; i < spec.choices.size(); ++i) {
      range += (i == 0 ? "" : ", ") + spec.choices[i];
    }
  }
  if (!spec.integer_choices.empty()) {
    range = "one of " + integer_choices_text(spec);
  }
  if (spec.must_be_power_of_two) {
    range += range.empty() ? "power of two" : ", power of two";
  }
  return range;
}

}  // namespace

ConfigError::ConfigError(std::string source, std::string key, std::string reason)
    : std::runtime_error(compose_message(source, key, reason)),
      source_(std::move(source)),
      key_(std::move(key)),
      reason_(std::move(reason)) {}

void Schema::add(KeySpec spec) {
  const std::string& path = spec.path;
  for (const auto& part : split_path(path)) {
    if (part.empty()) {
      throw std::logic_error("config key '" + path + "': empty path segment");
    }
  }
  for (const auto& existing : keys_) {
    if (existing.path == path) {
      throw std::logic_error("config key '" + path + "' declared twice");
    }
    if (is_inside(existing.path, path) || is_inside(path, existing.path)) {
      throw std::logic_error("config key '" + path + "' clashes with '" + existing.path +
                             "': a key cannot also be a section");
    }
  }
  if ((spec.min || spec.max) && !is_numeric(spec.kind)) {
    throw std::logic_error("config key '" + path + "': min/max need an integer or number key");
  }
  if (!spec.choices.empty() && spec.kind != ValueKind::kString &&
      spec.kind != ValueKind::kStringList) {
    throw std::logic_error("config key '" + path + "': choices need a string key");
  }
  const bool integral = spec.kind == ValueKind::kInteger || spec.kind == ValueKind::kIntegerList;
  if ((!spec.integer_choices.empty() || spec.must_be_power_of_two) && !integral) {
    throw std::logic_error("config key '" + path +
                           "': integer choices and powers of two need an integer key");
  }
  if (!spec.integer_choices.empty() && (spec.min || spec.max)) {
    throw std::logic_error("config key '" + path +
                           "': integer choices replace min/max; give one or the other");
  }
  if (auto reason = check_value(spec, spec.default_value)) {
    throw std::logic_error("config key '" + path + "': bad default: " + *reason);
  }
  keys_.push_back(std::move(spec));
}

void Schema::add_check(std::vector<std::string> keys,
                       std::function<std::optional<Violation>(const Json& effective)> check) {
  if (keys.empty() || !check) {
    throw std::logic_error("a rule between keys needs its keys and its check");
  }
  checks_.push_back(KeyCheck{std::move(keys), std::move(check)});
}

void Schema::add_node_section(std::string section) {
  if (section.empty() || section.find('.') != std::string::npos ||
      section == kNodesSection || is_node_section(section)) {
    throw std::logic_error("node section '" + section + "': a new top-level section name");
  }
  node_sections_.push_back(std::move(section));
}

void Schema::add_rename(std::string old_path, std::string new_path) {
  if (find(old_path) || renamed(old_path)) {
    throw std::logic_error("config: rename of '" + old_path + "': the name is in use");
  }
  renames_.emplace_back(std::move(old_path), std::move(new_path));
}

std::optional<std::string> Schema::renamed(std::string_view path) const {
  for (const auto& [old_path, new_path] : renames_) {
    if (path == old_path) return new_path;
    if (path.size() > old_path.size() && path.compare(0, old_path.size(), old_path) == 0 &&
        path[old_path.size()] == '.') {
      return new_path + std::string(path.substr(old_path.size()));
    }
  }
  return std::nullopt;
}

bool Schema::is_node_section(std::string_view section) const {
  return std::find(node_sections_.begin(), node_sections_.end(), section) !=
         node_sections_.end();
}

Json node_view(const Json& doc, const std::string& node) {
  Json view = doc;
  view.erase(std::string(kNodesSection));
  const auto nodes = doc.find(kNodesSection);
  if (nodes == doc.end()) return view;
  const auto own = nodes->find(node);
  if (own == nodes->end()) return view;
  view.merge_patch(*own);
  return view;
}

std::string LoadedConfig::source_of(const std::string& path) const {
  const auto it = set_by.find(path);
  return it == set_by.end() ? file : "--set " + it->second;
}

const KeySpec* Schema::find(std::string_view path) const {
  const auto it = std::find_if(keys_.begin(), keys_.end(),
                               [&](const KeySpec& spec) { return spec.path == path; });
  return it == keys_.end() ? nullptr : &*it;
}

Json Schema::defaults() const {
  Json doc = Json::object();
  for (const auto& spec : keys_) {
    const auto parts = split_path(spec.path);
    Json* node = &doc;
    // add() rules out a key that is also a section, so every intermediate is
    // absent (null, becoming an object on first use) or already an object.
    for (std::size_t i = 0; i + 1 < parts.size(); ++i) {
      node = &(*node)[parts[i]];
    }
    (*node)[parts.back()] = spec.default_value;
  }
  return doc;
}

const KeySpec& find_key(const std::string& path, const Schema& schema, const std::string& source) {
  // A node's key ("nodes.b.pcie.lanes") has the rules of its section's key.
  const std::optional<NodeKeyPath> node_key = split_node_key(path, schema, source);
  const std::string key = node_key ? node_key->key : path;
  const std::string node_prefix = node_key ? path.substr(0, path.size() - key.size()) : "";
  const KeySpec* spec = schema.find(key);
  if (!spec && is_section(schema, key)) {
    const KeySpec& example = first_key_of(schema, key);
    throw ConfigError(source, path,
                      "is a section, not a value: set one of its keys (" +
                          section_keys(schema, key) + "), e.g. --set " + node_prefix +
                          example.path + "=" + compact(example.default_value));
  }
  if (!spec) {
    throw ConfigError(source, path, unknown_key(key, schema, key_paths(schema), node_prefix));
  }
  return *spec;
}

void apply_override(Json& doc, const std::string& assignment, const Schema& schema) {
  const std::string source = "--set " + assignment;
  const std::size_t equals = assignment.find('=');
  if (equals == std::string::npos || equals == 0) {
    throw ConfigError(source, "", "expected key.path=value");
  }
  const std::string path = assignment.substr(0, equals);
  const std::string text = assignment.substr(equals + 1);
  const KeySpec* spec = &find_key(path, schema, source);
  // Bare words are strings so that "--set link.framing=ethernet" needs no
  // shell-escaped quotes; but a number that does not fit is an error, not
  // the string "1e400".
  const Json value = parse_json_value(text, source, path).value_or(Json(text));
  if (auto reason = check_value(*spec, value)) {
    throw ConfigError(source, path, *reason);
  }
  if (!doc.is_null() && !doc.is_object()) {
    throw ConfigError(source, path, "expected an object at the top level");
  }
  const auto parts = split_path(path);
  Json* node = &doc;
  std::string prefix;
  for (std::size_t i = 0; i + 1 < parts.size(); ++i) {
    prefix += (i == 0 ? "" : ".") + parts[i];
    const auto it = node->find(parts[i]);
    if (it == node->end()) {
      node = &(*node)[parts[i]];
      *node = Json::object();
    } else if (it->is_object()) {
      node = &*it;
    } else {
      throw ConfigError(source, path, "expected an object at " + prefix);
    }
  }
  (*node)[parts.back()] = std::move(value);
}

Json validate(const Json& doc, const Schema& schema, const std::string& source) {
  require_object_top_level(doc, source);
  check_members(doc, "", schema, source);
  Json effective = with_defaults(doc, schema);
  run_checks(effective, schema,
             [&source](const KeyCheck&, const Violation& violation, const std::string&) {
               return ConfigError(source, violation.key, violation.reason);
             });
  return effective;
}

LoadedConfig load_config(const std::string& path, const std::vector<std::string>& overrides,
                         const Schema& schema) {
  LoadedConfig loaded;
  loaded.file = path;
  Json doc = read_json_file(path);
  // The file is checked on its own first, so that its errors are blamed on
  // it and each --set's on that --set.
  require_object_top_level(doc, path);
  check_members(doc, "", schema, path);
  const Json file_alone = with_defaults(doc, schema);
  std::map<std::string, std::size_t> set_by;  // key -> the last --set giving it
  for (std::size_t i = 0; i < overrides.size(); ++i) {
    apply_override(doc, overrides[i], schema);
    const std::string key = overrides[i].substr(0, overrides[i].find('='));
    set_by[key] = i;
    loaded.set_by[key] = overrides[i];
  }
  Json effective = with_defaults(doc, schema);
  run_checks(effective, schema, [&](const KeyCheck& check, const Violation& violation,
                                    const std::string& node) {
    // A rule the file breaks on its own is the file's, whatever --set touched
    // its keys without mending it.
    const Json file_view = node.empty() ? file_alone : node_view(file_alone, node);
    if (check.check(file_view)) return ConfigError(path, violation.key, violation.reason);
    std::optional<std::size_t> last;
    const auto consider = [&](const std::string& key) {
      if (const auto it = set_by.find(key); it != set_by.end() && (!last || it->second > *last)) {
        last = it->second;
      }
    };
    for (const auto& key : check.keys) {
      // The node sees its own value where it gives one, else the shared one.
      const std::string own = std::string(kNodesSection) + "." + node + "." + key;
      consider(!node.empty() && set_by.count(own) != 0 ? own : key);
    }
    return ConfigError(last ? "--set " + overrides[*last] : path, violation.key,
                       violation.reason);
  });
  loaded.given = std::move(doc);
  loaded.effective = std::move(effective);
  return loaded;
}

Json load(const std::string& path, const std::vector<std::string>& overrides,
          const Schema& schema) {
  return load_config(path, overrides, schema).effective;
}

std::uint64_t integer_at(const Json& doc, std::string_view path) {
  return at_path(doc, path).get<std::uint64_t>();
}

const Json& at_path(const Json& doc, std::string_view path) {
  const Json* node = &doc;
  for (const auto& part : split_path(path)) {
    if (!node->is_object()) {
      throw std::out_of_range("no key " + std::string(path));
    }
    const auto it = node->find(part);
    if (it == node->end()) {
      throw std::out_of_range("no key " + std::string(path));
    }
    node = &*it;
  }
  return *node;
}

std::string markdown_table(const Schema& schema) {
  std::string table =
      "| key | type | unit | default | range | meaning |\n"
      "| --- | --- | --- | --- | --- | --- |\n";
  for (const auto& spec : schema.keys()) {
    table += "| " + table_cell(spec.path) + " | " + kind_name(spec.kind) + " | " +
             table_cell(spec.unit) + " | " + table_cell(compact(spec.default_value)) + " | " +
             table_cell(range_text(spec)) + " | " + table_cell(spec.doc) + " |\n";
  }
  return table;
}

void require_checked(const std::optional<Violation>& violation, std::string_view reader) {
  if (violation) {
    throw std::logic_error(std::string(reader) + ": unchecked configuration: " + violation->key +
                           ": " + violation->reason);
  }
}

std::string printable(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (const char c : text) {
    const auto byte = static_cast<unsigned char>(c);
    if (c == '\n') {
      out += "\\n";
    } else if (c == '\t') {
      out += "\\t";
    } else if (c == '\r') {
      out += "\\r";
    } else if (byte < 0x20 || byte == 0x7f) {
      char escape[8];
      std::snprintf(escape, sizeof escape, "\\u%04x", byte);
      out += escape;
    } else {
      out += c;
    }
  }
  return out;
}

bool is_node_name(std::string_view name) {
  if (name.empty() || !std::islower(static_cast<unsigned char>(name.front()))) return false;
  return std::all_of(name.begin(), name.end(), [](char c) {
    return std::islower(static_cast<unsigned char>(c)) ||
           std::isdigit(static_cast<unsigned char>(c)) || c == '_';
  });
}

}  // namespace rnicsim::config
