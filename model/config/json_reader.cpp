#include "config/json_reader.hpp"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "config/config.hpp"

namespace rnicsim::config {
namespace {

// A configuration is a few KiB; larger files are refused before they fill memory.
constexpr std::size_t kMaxConfigFileBytes = 16 << 20;

// nlohmann reports a parse error as "[json.exception.parse_error.101] parse
// error at line 1, column 5: syntax error while parsing value - unexpected
// ','; ...". The position is recomputed by the caller, so only the parser's
// own reason is kept.
std::string short_parse_reason(const std::string& what) {
  std::string reason = what;
  if (const std::size_t colon = reason.find(": "); colon != std::string::npos) {
    reason.erase(0, colon + 2);
  }
  const std::string syntax_prefix = "syntax error while parsing ";
  if (reason.compare(0, syntax_prefix.size(), syntax_prefix) == 0) {
    if (const std::size_t dash = reason.find(" - "); dash != std::string::npos) {
      reason.erase(0, dash + 3);
    }
  }
  return reason;
}

// "line 3, column 13" for a 0-based byte offset; columns count bytes.
std::string line_column(const std::string& text, std::size_t offset) {
  offset = std::min(offset, text.size());
  std::size_t line = 1;
  std::size_t line_start = 0;
  for (std::size_t i = 0; i < offset; ++i) {
    if (text[i] == '\n') {
      ++line;
      line_start = i + 1;
    }
  }
  return "line " + std::to_string(line) + ", column " + std::to_string(offset - line_start + 1);
}

// Where each key and each number starts, in document order. nlohmann's SAX
// events carry no position, but they arrive in document order and only for
// text that lexed correctly, so the n-th key event is the n-th key here.
struct TokenOffsets {
  std::vector<std::size_t> keys;
  std::vector<std::size_t> numbers;
};

bool is_json_space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

TokenOffsets token_offsets(const std::string& text) {
  TokenOffsets offsets;
  std::size_t i = 0;
  while (i < text.size()) {
    const char c = text[i];
    if (c == '"') {
      const std::size_t start = i++;
      while (i < text.size() && text[i] != '"') i += text[i] == '\\' ? 2 : 1;
      ++i;  // the closing quote
      std::size_t next = i;
      while (next < text.size() && is_json_space(text[next])) ++next;
      if (next < text.size() && text[next] == ':') offsets.keys.push_back(start);
    } else if (c == '-' || (c >= '0' && c <= '9')) {
      offsets.numbers.push_back(i);
      while (i < text.size() && std::strchr("0123456789+-.eE", text[i]) != nullptr &&
             text[i] != '\0') {
        ++i;
      }
    } else {
      ++i;
    }
  }
  return offsets;
}

bool has_control_character(std::string_view text) {
  return std::any_of(text.begin(), text.end(), [](char c) {
    return static_cast<unsigned char>(c) < 0x20 || c == 0x7f;
  });
}

// What went wrong while parsing: a syntax error (reported as malformed JSON)
// or a well-formed document nlohmann would still get wrong (with a key path).
struct ParseProblem {
  bool syntax = false;
  std::string key;         // path of the offending member ("" at the top level)
  std::string reason;      // without the position
  std::size_t offset = 0;  // 0-based byte offset
  std::optional<std::size_t> first_offset;  // a duplicate key: where the first one is
};

// Builds the document from nlohmann's SAX events, checking on the way what
// nlohmann itself lets through.
class StrictBuilder : public nlohmann::json_sax<Json> {
 public:
  explicit StrictBuilder(const std::string& text) : offsets_(token_offsets(text)) {}

  Json& result() { return root_; }
  const std::optional<ParseProblem>& problem() const { return problem_; }

  bool null() override { return add(Json(nullptr)); }
  bool boolean(bool value) override { return add(Json(value)); }
  bool number_integer(number_integer_t value) override {
    ++numbers_seen_;
    return add(Json(value));
  }
  bool number_unsigned(number_unsigned_t value) override {
    ++numbers_seen_;
    return add(Json(value));
  }
  bool number_float(number_float_t value, const string_t& text) override {
    const std::size_t offset = number_offset();
    ++numbers_seen_;
    // nlohmann reads an integer too long for 64 bits as a double, and a
    // number too small for a double as 0: both silently change the value.
    const bool integer_text = text.find_first_of(".eE") == std::string::npos;
    const bool nonzero_text = text.find_first_of("123456789") < text.find_first_of("eE");
    if (integer_text || (value == 0 && nonzero_text)) {
      return fail(false, value_path(), out_of_range_reason(text, integer_text), offset);
    }
    return add(Json(value));
  }
  bool string(string_t& value) override { return add(Json(std::move(value))); }
  bool binary(binary_t& /*value*/) override { return false; }  // JSON text has none

  bool start_object(std::size_t /*elements*/) override {
    return open(Json::object());
  }
  bool key(string_t& name) override {
    Frame& frame = frames_.back();
    const std::size_t offset = key_count_ < offsets_.keys.size() ? offsets_.keys[key_count_] : 0;
    ++key_count_;
    frame.key = name;
    if (has_control_character(name)) {
      return fail(false, value_path(), "a key name must not contain control characters", offset);
    }
    const auto [first, inserted] = frame.key_offsets.emplace(name, offset);
    if (!inserted) {
      fail(false, value_path(), "duplicate key", offset);
      problem_->first_offset = first->second;
      return false;
    }
    return true;
  }
  bool end_object() override {
    frames_.pop_back();
    return true;
  }
  bool start_array(std::size_t /*elements*/) override { return open(Json::array()); }
  bool end_array() override {
    frames_.pop_back();
    return true;
  }

  bool parse_error(std::size_t position, const std::string& token,
                   const Json::exception& error) override {
    if (error.id == 406) {  // a number beyond a double: 1e400
      return fail(false, value_path(), out_of_range_reason(token, false), number_offset());
    }
    // `position` counts the offending character itself, 1-based; at end of
    // input it is one past the last byte.
    return fail(true, "", short_parse_reason(error.what()), position > 0 ? position - 1 : 0);
  }

 private:
  struct Frame {
    Json* container = nullptr;
    std::string key;                                   // objects: the member being read
    std::map<std::string, std::size_t> key_offsets;    // objects: names seen so far
  };

  static std::string out_of_range_reason(const std::string& text, bool integer) {
    return "number " + text + " is out of range for " +
           (integer ? "a 64-bit integer" : "a double");
  }

  std::size_t number_offset() const {
    return numbers_seen_ < offsets_.numbers.size() ? offsets_.numbers[numbers_seen_] : 0;
  }

  // "link.gbps", "sizes[2]": where the next value goes. An outer list's
  // element being read is its last; the innermost list's is the next.
  std::string value_path() const {
    std::string path;
    for (std::size_t i = 0; i < frames_.size(); ++i) {
      const Json& container = *frames_[i].container;
      if (container.is_object()) {
        path += (path.empty() ? "" : ".") + frames_[i].key;
      } else {
        const bool innermost = i + 1 == frames_.size();
        path += "[" + std::to_string(container.size() - (innermost ? 0 : 1)) + "]";
      }
    }
    return path;
  }

  // Places a value; returns where it now lives.
  Json* place(Json value) {
    if (frames_.empty()) {
      root_ = std::move(value);
      return &root_;
    }
    Frame& frame = frames_.back();
    if (frame.container->is_object()) {
      return &((*frame.container)[frame.key] = std::move(value));
    }
    frame.container->push_back(std::move(value));
    return &frame.container->back();
  }

  bool add(Json value) {
    place(std::move(value));
    return true;
  }

  bool open(Json container) {
    // Only the innermost container grows while it is open, so the pointers
    // held by the frames stay valid.
    frames_.push_back(Frame{place(std::move(container)), {}, {}});
    return true;
  }

  bool fail(bool syntax, std::string key, std::string reason, std::size_t offset) {
    problem_ = ParseProblem{syntax, std::move(key), std::move(reason), offset, std::nullopt};
    return false;
  }

  TokenOffsets offsets_;
  std::size_t key_count_ = 0;
  std::size_t numbers_seen_ = 0;
  Json root_;
  std::vector<Frame> frames_;
  std::optional<ParseProblem> problem_;
};

// Parses `text` into `value`, or returns what is wrong with it.
std::optional<ParseProblem> parse_into(const std::string& text, Json& value) {
  // nlohmann ends the input at a NUL byte, so "{}\0garbage" would pass; JSON
  // text has no place for one (inside a string it must be written \u0000).
  if (const std::size_t nul = text.find('\0'); nul != std::string::npos) {
    return ParseProblem{true, "", "NUL byte (JSON text cannot contain one)", nul, std::nullopt};
  }
  StrictBuilder builder(text);
  if (Json::sax_parse(text, &builder, Json::input_format_t::json, true, false)) {
    value = std::move(builder.result());
    return std::nullopt;
  }
  return builder.problem().value_or(
      ParseProblem{true, "", "unexpected end of input", text.size(), std::nullopt});
}

// The problem's reason with where it is in `text`.
std::string reason_with_position(const std::string& text, const ParseProblem& problem) {
  if (problem.syntax) {
    return "malformed JSON at " + line_column(text, problem.offset) + ": " + problem.reason;
  }
  std::string where = line_column(text, problem.offset);
  if (problem.first_offset) where += "; first at " + line_column(text, *problem.first_offset);
  return problem.reason + " (" + where + ")";
}

struct FileCloser {
  void operator()(std::FILE* file) const { std::fclose(file); }
};

}  // namespace

Json parse_json_text(const std::string& text, const std::string& source) {
  Json value;
  if (const std::optional<ParseProblem> problem = parse_into(text, value)) {
    throw ConfigError(source, problem->key, reason_with_position(text, *problem));
  }
  return value;
}

std::optional<Json> parse_json_value(const std::string& text, const std::string& source,
                                     const std::string& key) {
  Json value;
  if (const std::optional<ParseProblem> problem = parse_into(text, value)) {
    if (!problem->syntax) throw ConfigError(source, key, problem->reason);
    return std::nullopt;
  }
  return value;
}

Json read_json_file(const std::string& path) {
  std::unique_ptr<std::FILE, FileCloser> file(std::fopen(path.c_str(), "rb"));
  if (!file) {
    throw ConfigError(path, "", std::string("cannot open file: ") + std::strerror(errno));
  }
  std::string text;
  char buffer[4096];
  std::size_t count = 0;
  while ((count = std::fread(buffer, 1, sizeof buffer, file.get())) > 0) {
    text.append(buffer, count);
    if (text.size() > kMaxConfigFileBytes) {
      throw ConfigError(path, "", "larger than " + std::to_string(kMaxConfigFileBytes >> 20) +
                                      " MiB: not a configuration file");
    }
  }
  // fopen() succeeds on a directory; the failure only shows on reading.
  if (std::ferror(file.get())) {
    throw ConfigError(path, "", std::string("cannot open file: ") + std::strerror(errno));
  }
  return parse_json_text(text, path);
}

}  // namespace rnicsim::config
