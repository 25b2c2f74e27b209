#pragma once
// Helpers every experiment's writers share.
#include <filesystem>
#include <string>

namespace rnicsim {

// Shortest text that reads back as the same double ("4", "1.25").
std::string number_text(double value);
// Writes a whole file; throws std::runtime_error naming it if that fails.
void write_text(const std::filesystem::path& file, const std::string& text);

}  // namespace rnicsim
