#include "program/experiments/pipeline/data_source.hpp"

#include <memory>

#include "common/time_units.hpp"
#include "program/experiments/pipeline/data_pattern.hpp"

namespace rnicsim {

DataSource::DataSource(const char* name, const PipelineWorkload& workload)
    : sc_core::sc_prim_channel(name), workload_(workload) {}

Transfer DataSource::pop() {
  if (next_ == workload_.count) {
    for (;;) sc_core::wait(never_);
  }
  const std::uint64_t index = next_++;
  // i x interval fits: the run stops at kMaxSimulatedTime (2^63 ps), and
  // interval (<= 10^12 ps) x count (<= 10^7) stays below 2^64.
  const sc_core::sc_time due =
      sc_core::sc_time::from_value(to_ps(workload_.interval) * index);
  if (due > sim_now()) sc_core::wait(due - sim_now());
  return Transfer(index, workload_.data_bits, due,
                  std::make_shared<const Bytes>(
                      data_pattern(workload_.pattern_seed, index, workload_.data_bits)));
}

}  // namespace rnicsim
