#pragma once
// PerfWorkload: perftest's two application threads on a testbed, the client
// on PerfEnds::client's node and the server on PerfEnds::server's. They call
// the nodes' verbs as ib_write_lat and friends do: set-up (PDs, CQs, QPs
// connected at the smaller port MTU, buffers registered and filled), then per
// size the test's loop (ping-pong for the latency tests; tx_depth messages
// outstanding per QP for the bandwidth tests, the server reposting receives),
// the client timestamping its posts and completions in simulated time. After
// each size of a write, read or send test the target buffers are compared
// with the sources; a difference fails the run (fail_run). The rows and the
// banner go to `report` as perftest prints them (perf_report.hpp).
#include <chrono>
#include <cstddef>
#include <iosfwd>
#include <memory>
#include <nlohmann/json.hpp>
#include <vector>

#include "common/run_progress.hpp"
#include "program/experiments/perf/perf_experiment.hpp"
#include "program/experiments/perf/perf_options.hpp"
#include "system/application_api.hpp"
#include "system/testbed.hpp"

namespace rnicsim {

class PerfWorkload {
 public:
  // Elaborates the threads; simulate_workload runs them, and they end the
  // run (finish_workload) after the last size.
  PerfWorkload(const char* name, Testbed& testbed, const PerfEnds& ends,
               const perf::PerfOptions& options, std::ostream& report, RunProgress& progress);
  ~PerfWorkload();

  // The rows so far and, with --breakdown, each latency size's breakdown.
  PerfResult& result();
  // Side 0's (the client's) or side 1's (the server's) application core.
  const CpuCore& core(std::size_t side) const;
  // Each of a side's application threads' cores, thread 0's first (one per
  // --threads on the client, and on the server in send_bw; else one).
  std::vector<const CpuCore*> cores(std::size_t side) const;
  // When set-up ended and the first size started: the CPU's figures are over
  // the measured part of the run.
  const sc_core::sc_time& measured_from() const;
  // With --warmup: the statistics (Testbed::statistics's counts and times)
  // the warm-up passes added, to leave out of the run's; else null.
  const nlohmann::json& warmup_statistics() const;
  // The wall-clock moment set-up (QPs, CQs, MRs, connections) ended.
  std::chrono::steady_clock::time_point set_up_done_wall() const;

 private:
  class Threads;  // the SystemC module (perf_workload.cpp)
  std::unique_ptr<Threads> threads_;
};

}  // namespace rnicsim
