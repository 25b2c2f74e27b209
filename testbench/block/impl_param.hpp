#pragma once
// Block tests that run once with each implementation of a block (the model
// and its verilated RTL twin): the test's name ends in /model or /rtl.
#include <gtest/gtest.h>

#include <string>

#include "common/block_impl.hpp"

namespace rnicsim {

inline std::string impl_param_name(const ::testing::TestParamInfo<BlockImpl>& point) {
  return point.param == BlockImpl::kRtl ? "rtl" : "model";
}

inline auto every_impl() { return ::testing::Values(BlockImpl::kModel, BlockImpl::kRtl); }

}  // namespace rnicsim
