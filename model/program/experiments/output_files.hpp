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

// Replaces `file` with `text` whole: written beside it under a name of this
// process's, then renamed into place, so a reader (or another process doing
// the same) never sees half a file. Throws OutputError if that fails.
void replace_text(const std::filesystem::path& file, const std::string& text);

// The folder `out` names, made absolute ("DIR/" names DIR), checked before
// anything is written into it: never the current directory or one holding
// it, and an existing one only if it is a directory that is empty or holds
// `marker` (an earlier result of the same kind). Throws config::ConfigError
// (source `source`), e.g. "exists and is not an rnicsim output folder (it has
// no effective_config.json); not replacing it" for kind "an rnicsim output
// folder" and refusal "replacing it".
std::filesystem::path checked_output_folder(const std::string& out, const std::string& source,
                                            const std::string& marker, const std::string& kind,
                                            const std::string& refusal);

}  // namespace rnicsim
