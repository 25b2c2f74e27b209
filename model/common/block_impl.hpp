#pragma once
// Which implementation of a block runs where it is instanced: its C++ model
// or its verilated RTL twin (rtl/). Each such block's config section has an
// `impl` key naming one; a block without an RTL twin yet accepts only
// "model".
#include <stdexcept>
#include <string>

namespace rnicsim {

enum class BlockImpl { kModel, kRtl };

// "model" or "rtl"; throws std::invalid_argument otherwise (the schema's
// choices reject anything else first).
inline BlockImpl parse_block_impl(const std::string& text) {
  if (text == "model") return BlockImpl::kModel;
  if (text == "rtl") return BlockImpl::kRtl;
  throw std::invalid_argument("unknown block implementation '" + text + "'");
}

}  // namespace rnicsim
