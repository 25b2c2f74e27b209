#pragma once
// Which implementation of a block runs where it is instanced: its C++ model
// or, from issue 11 on, its verilated RTL twin. Each such block's config
// section has an `impl` key naming one.
#include <stdexcept>
#include <string>

namespace rnicsim {

enum class BlockImpl { kModel };

// "model"; throws std::invalid_argument otherwise (the schema's choices
// reject anything else first).
inline BlockImpl parse_block_impl(const std::string& text) {
  if (text == "model") return BlockImpl::kModel;
  throw std::invalid_argument("unknown block implementation '" + text + "'");
}

}  // namespace rnicsim
