#pragma once
// RNICSIM_COSIM_VCD=<folder>: a VCD of a verilated block for the running
// test, readable in GTKWave, named <suite>.<test>.<n>.vcd (n counts the
// blocks one test traces, from 0). Without the variable nothing is traced.
#include <gtest/gtest.h>
#include <verilated.h>
#include <verilated_vcd_c.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <string>

namespace rnicsim::cosim {

inline int next_vcd_number(const std::string& test) {
  static std::string last_test;
  static int number = 0;
  if (test != last_test) {
    last_test = test;
    number = 0;
  }
  return number++;
}

// nullptr when RNICSIM_COSIM_VCD is not set. Call before the first eval.
template <typename Top>
std::unique_ptr<VerilatedVcdC> open_test_vcd(Top& top) {
  const char* folder = std::getenv("RNICSIM_COSIM_VCD");
  if (folder == nullptr) return nullptr;
  Verilated::traceEverOn(true);
  auto vcd = std::make_unique<VerilatedVcdC>();
  top.trace(vcd.get(), 99);
  const testing::TestInfo* test = testing::UnitTest::GetInstance()->current_test_info();
  const std::string name = std::string(test->test_suite_name()) + "." + test->name();
  std::string file = name + "." + std::to_string(next_vcd_number(name)) + ".vcd";
  std::replace(file.begin(), file.end(), '/', '_');
  vcd->open((std::filesystem::path(folder) / file).c_str());
  return vcd;
}

}  // namespace rnicsim::cosim
