#pragma once
// The strict JSON reader every configuration, sweep file and test vector
// goes through: what nlohmann parses, less what it would get wrong. Apart
// from the schema, the defaults and the overrides (config.hpp), which work on
// the document this gives.
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

namespace rnicsim::config {

using Json = nlohmann::json;

// Parses JSON text strictly. Throws ConfigError naming `source` for malformed
// JSON (with line and column) and, with the key's path, line and column, for
// what nlohmann would accept or turn into an internal error: a NUL byte
// anywhere (nlohmann stops reading at one), a duplicate key in an object, a
// key holding a control character, and a number a double or 64-bit integer
// cannot hold (1e400, 1e-400, an integer of 20 digits).
Json parse_json_text(const std::string& text, const std::string& source);

// A command-line value (--set k=v): the JSON `text` holds, or nullopt when it
// is no JSON at all (a bare word, which the caller takes as a string).
// Throws ConfigError(source, key, reason) for JSON nlohmann would get wrong
// (a number no double holds, 1e400), which is an error, not the string "1e400".
std::optional<Json> parse_json_value(const std::string& text, const std::string& source,
                                     const std::string& key);

// Reads and parses a JSON file as parse_json_text does. Throws ConfigError
// naming the file for a missing or unreadable file and for bad JSON.
Json read_json_file(const std::string& path);

}  // namespace rnicsim::config
