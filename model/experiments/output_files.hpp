#pragma once
// Helpers every experiment's writers share.
#include <filesystem>
#include <stdexcept>
#include <string>

namespace rnicsim {

// Shortest text that reads back as the same double ("4", "1.25").
std::string number_text(double value);
// An output file that could not be written: what() reads "cannot write
// <file>: <reason>" (reason as strerror gives it).
class OutputError : public std::runtime_error {
 public:
  OutputError(std::filesystem::path file, std::string reason);
  const std::filesystem::path& file() const { return file_; }
  const std::string& reason() const { return reason_; }

 private:
  std::filesystem::path file_;
  std::string reason_;
};

// Writes a whole file; throws OutputError if that fails.
void write_text(const std::filesystem::path& file, const std::string& text);

}  // namespace rnicsim
