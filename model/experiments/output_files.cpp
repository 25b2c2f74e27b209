#include "experiments/output_files.hpp"

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <utility>

#include <nlohmann/json.hpp>

#include "config/config.hpp"

namespace rnicsim {

std::string number_text(double value) {
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

std::filesystem::path checked_output_folder(const std::string& out, const std::string& source,
                                            const std::string& marker, const std::string& kind,
                                            const std::string& refusal) {
  namespace fs = std::filesystem;
  fs::path folder = fs::weakly_canonical(fs::absolute(out));
  if (!folder.has_filename() && folder.has_relative_path()) folder = folder.parent_path();
  const fs::path cwd = fs::weakly_canonical(fs::current_path());
  const auto [end, unused] = std::mismatch(folder.begin(), folder.end(), cwd.begin(), cwd.end());
  if (!folder.has_filename() || end == folder.end()) {
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
