#include "experiments/output_files.hpp"

#include <cerrno>
#include <cstring>
#include <fstream>
#include <utility>

#include <nlohmann/json.hpp>

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

}  // namespace rnicsim
