#include "experiments/output_files.hpp"

#include <fstream>
#include <stdexcept>

#include <nlohmann/json.hpp>

namespace rnicsim {

std::string number_text(double value) {
  std::string text = nlohmann::json(value).dump();
  if (text.size() > 2 && text.compare(text.size() - 2, 2, ".0") == 0) text.resize(text.size() - 2);
  return text;
}

void write_text(const std::filesystem::path& file, const std::string& text) {
  std::ofstream out(file, std::ios::binary);
  out << text;
  if (!out.flush()) throw std::runtime_error("cannot write " + file.string());
}

}  // namespace rnicsim
