#include "program/experiments/output_files.hpp"

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <fstream>
#include <nlohmann/json.hpp>
#include <utility>

#include "config/config.hpp"

namespace rnicsim {

std::string number_text(double value) {
  // A whole value of magnitude below 10^15 is its integer's digits in
  // nlohmann's dump ("<digits>.0", the ".0" dropped below): up to 15 digits
  // (its kMaxExp, digits10) it writes no exponent; 1e15 is "1e+15". Written
  // straight, as the time series' bins (times in us, many a goodput of 0)
  // are written per flow and microsecond. Negative zero keeps its sign
  // through the dump.
  if (value > -1e15 && value < 1e15 && value == std::trunc(value) &&
      !(value == 0 && std::signbit(value))) {
    return std::to_string(static_cast<long long>(value));
  }
  std::string text = nlohmann::json(value).dump();
  if (text.size() > 2 && text.compare(text.size() - 2, 2, ".0") == 0) text.resize(text.size() - 2);
  return text;
}

OutputError::OutputError(std::filesystem::path file, std::string reason)
    : std::runtime_error("cannot write " + file.string() + ": " + reason),
      file_(std::move(file)),
      reason_(std::move(reason)) {}

void write_text(const std::filesystem::path& file, const std::string& text) {
  errno = 0;
  std::ofstream out(file, std::ios::binary);
  out << text;
  out.close();
  if (!out) throw OutputError(file, errno != 0 ? std::strerror(errno) : "write failed");
}

void replace_text(const std::filesystem::path& file, const std::string& text) {
  const std::filesystem::path staging = file.string() + ".tmp-" + std::to_string(getpid());
  write_text(staging, text);
  std::error_code error;
  std::filesystem::rename(staging, file, error);
  if (error) {
    std::filesystem::remove(staging, error);
    throw OutputError(file, "cannot move it into place: " + error.message());
  }
}

namespace {

// Whether `folder` is the working folder or holds it: walks up from "."
// through ".." and compares each folder on the way with `folder` (same file,
// fs::equivalent), so it needs no getcwd(), which fails when a parent of the
// working folder cannot be read. A parent this user cannot reach ends the
// walk: the folders above it are not ones this run could be asked to replace
// by a path through it.
bool holds_working_folder(const std::filesystem::path& folder) {
  namespace fs = std::filesystem;
  std::error_code error;
  if (!fs::is_directory(folder, error)) return false;  // not there yet: holds nothing
  fs::path up = ".";
  for (;;) {
    if (fs::equivalent(up, folder, error)) return true;
    if (error) return false;
    const fs::path parent = up / "..";
    if (fs::equivalent(parent, up, error) || error) return false;  // the root, or unreachable
    up = parent;
  }
}

}  // namespace

std::filesystem::path checked_output_folder(const std::string& out, const std::string& source,
                                            const std::string& marker, const std::string& kind,
                                            const std::string& refusal) {
  namespace fs = std::filesystem;
  fs::path folder = fs::weakly_canonical(fs::absolute(out));
  if (!folder.has_filename() && folder.has_relative_path()) folder = folder.parent_path();
  if (!folder.has_filename() || holds_working_folder(folder)) {
    throw config::ConfigError(source, "", "is the current directory or contains it");
  }
  if (fs::exists(folder)) {
    if (!fs::is_directory(folder)) throw config::ConfigError(source, "", "exists and is not a directory");
    if (!fs::is_empty(folder) && !fs::exists(folder / marker)) {
      throw config::ConfigError(source, "",
                                "exists and is not " + kind + " (it has no " + marker + "); not " +
                                    refusal);
    }
  }
  return folder;
}

}  // namespace rnicsim
