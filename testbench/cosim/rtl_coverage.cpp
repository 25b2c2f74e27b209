// Line and toggle coverage of the verilated blocks (scripts/rtl_coverage;
// rtl/README.md, "Coverage"), in a build configured with RNICSIM_RTL_COVERAGE;
// in any other build this file is empty.
//
// A model's counters live in its symbol table, and Verilator's coverage list
// keeps pointers to them after the model is gone. So each model's counts are
// taken as it goes, wherever it is owned (a test's driver, or a bridge in the
// model such as wire/pfc_unit_rtl.hpp): the link of cosim_tests wraps the
// destructor of every symbol table's base, VerilatedSyms (ld --wrap,
// testbench/CMakeLists.txt), and the wrapper below adds the counts to the
// program's totals and empties the list before the table's memory is freed.
// After the last test the totals go to the file RNICSIM_RTL_COVERAGE_FILE
// names, in Verilator's coverage format; nothing is written when it is unset.
#ifdef RNICSIM_RTL_COVERAGE
#include <gtest/gtest.h>
#include <verilated.h>
#include <verilated_cov.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <string>

namespace rnicsim::cosim {
namespace {

// Each point's key (file, line, kind, signal...) and its count, summed over
// every model the program built. Models of one source with different
// parameters share the keys of the lines and bits they share.
std::map<std::string, std::uint64_t>& totals() {
  static std::map<std::string, std::uint64_t> points;
  return points;
}

const char* coverage_file() { return std::getenv("RNICSIM_RTL_COVERAGE_FILE"); }

// Verilator's coverage file: this header, then one `C '<key>' <count>` line
// per point (the key's separators are control characters, never "' ").
constexpr const char* kHeader = "# SystemC::Coverage-3";

// VerilatedCovContext gives its points only as a file, so they come back
// through one.
bool add_points_from(const std::string& path) {
  std::ifstream in(path);
  if (!in) return false;
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("C '", 0) != 0) continue;
    const std::size_t end = line.rfind("' ");
    if (end == std::string::npos || end < 3) return false;
    totals()[line.substr(3, end - 3)] += std::stoull(line.substr(end + 2));
  }
  return true;
}

int live_models = 0;
int models_ended_beside_others = 0;

// Adds every point of the context to the totals and empties its list: the
// points of every live model, since the list cannot drop one model's alone.
void collect(VerilatedContext* context) {
  VerilatedCovContext* coverage = context->coveragep();
  if (const char* file = coverage_file()) {
    const std::string part = std::string(file) + ".part";
    coverage->write(part.c_str());
    if (!add_points_from(part)) {
      std::fprintf(stderr, "rtl_coverage: cannot read the coverage back from %s\n", part.c_str());
      std::abort();
    }
    std::remove(part.c_str());
  }
  coverage->clear();
}

// After the last test (gtest tears the environments down then).
class WriteCoverageAtExit : public testing::Environment {
 public:
  void TearDown() override {
    collect(Verilated::threadContextp());  // any model still alive
    const char* file = coverage_file();
    if (file == nullptr) return;
    if (models_ended_beside_others > 0) {
      std::fprintf(stderr,
                   "rtl_coverage: %d models ended while others were alive; the others' later "
                   "counts are missing (give each its own VerilatedContext)\n",
                   models_ended_beside_others);
    }
    std::ofstream out(file);
    out << kHeader << '\n';
    for (const auto& [key, count] : totals()) out << "C '" << key << "' " << count << '\n';
    out.close();
    if (!out) ADD_FAILURE() << "cannot write the RTL coverage to " << file;
  }
};

// gtest owns the environment; registering before main is allowed.
[[maybe_unused]] testing::Environment* const kWriteAtExit =
    testing::AddGlobalTestEnvironment(new WriteCoverageAtExit);

}  // namespace
}  // namespace rnicsim::cosim

// The wrapped constructor and destructor of VerilatedSyms (Itanium ABI names:
// VerilatedSyms::VerilatedSyms(VerilatedContext*) and ~VerilatedSyms(), the
// base-object variants the generated symbol tables call). The destructor runs
// after the derived table's members, whose counters are plain integers with
// nothing to destroy, and before its memory is freed.
extern "C" {
void __real__ZN13VerilatedSymsC2EP16VerilatedContext(VerilatedSyms* self,
                                                     VerilatedContext* context);
void __real__ZN13VerilatedSymsD2Ev(VerilatedSyms* self);

void __wrap__ZN13VerilatedSymsC2EP16VerilatedContext(VerilatedSyms* self,
                                                     VerilatedContext* context) {
  __real__ZN13VerilatedSymsC2EP16VerilatedContext(self, context);
  ++rnicsim::cosim::live_models;
}

void __wrap__ZN13VerilatedSymsD2Ev(VerilatedSyms* self) {
  using namespace rnicsim::cosim;
  if (live_models > 1) ++models_ended_beside_others;
  --live_models;
  collect(self->_vm_contextp__);
  __real__ZN13VerilatedSymsD2Ev(self);
}
}
#endif
