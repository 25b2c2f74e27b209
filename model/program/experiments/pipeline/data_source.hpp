#pragma once
// DataSource: the application's production of Data, as the first stage's input.
//
// Data `i` is produced at i x interval and waits, in the application's own
// backlog, until the first stage takes it. The backlog is unbounded in
// effect (a slow first stage shows up as queueing delay, never as a slower
// producer), yet nothing is held for it: Data `i` is made when the stage asks
// for it, stamped with the time it was produced. Memory stays constant however
// many Data the run produces.
#include <cstdint>
#include <systemc>

#include "common/channel.hpp"
#include "common/transfer.hpp"
#include "program/experiments/pipeline/pipeline_config.hpp"

namespace rnicsim {

class DataSource : public sc_core::sc_prim_channel, public PopIf<Transfer> {
 public:
  DataSource(const char* name, const PipelineWorkload& workload);

  // Blocks until the next Data is due; after the last, blocks forever.
  Transfer pop() override;
  const char* kind() const override { return "rnicsim_data_source"; }

 private:
  PipelineWorkload workload_;
  std::uint64_t next_ = 0;
  sc_core::sc_event never_;  // nothing notifies it: the workload has ended
};

}  // namespace rnicsim
