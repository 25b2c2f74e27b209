// libsystemc owns main() and calls sc_main; benchmark programs run Google
// Benchmark here.
#include <benchmark/benchmark.h>

#include <systemc>

#include "common/systemc_banner.hpp"

int sc_main(int argc, char* argv[]) {
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 2;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
