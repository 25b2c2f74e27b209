#pragma once
// FabricWorkload: the traffic section's flows as verbs applications on a
// testbed. One set-up thread creates every flow's QPs (PD, CQs, QPs
// connected at the smaller of the two ports' active MTU), registers and fills
// their buffers, then starts one thread per flow: it waits for the flow's
// start, posts its messages on its QPs in turn (traffic.depth outstanding per
// QP; a send's receives posted and reposted at the destination), and polls
// its completions. Every flow's received bytes are compared with the sent
// ones at the end; a difference or a completion in error fails the run.
//
// A sampler reads, every traffic.sample_ns from the start, how far each flow
// has got: the payload bytes that reached its data receiver in order (the
// responder's expected PSN for a write or send, the requester's acknowledged
// PSN for a read), and hands the time to an observer, which reads the
// testbed's queues too. Nothing is kept per sample.
#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

#include "common/run_progress.hpp"
#include "program/experiments/fabric/traffic.hpp"
#include "system/testbed.hpp"

namespace rnicsim {

struct FlowOutcome {
  std::uint64_t start_ns = 0;   // since the flows' time zero (set-up's end)
  std::uint64_t finish_ns = 0;  // its last completion
  std::uint64_t messages_completed = 0;
  std::uint64_t delivered_bytes = 0;  // in order at the data receiver
  std::uint64_t retransmitted_packets = 0;
  std::uint64_t ce_marked_packets = 0;  // data frames that arrived marked CE
  std::uint32_t mtu = 0;
  bool finished = false;
};

class FabricWorkload {
 public:
  // Called every traffic.sample_ns with the time since the flows' time zero,
  // once more at the end.
  using Observer = std::function<void(std::uint64_t time_ns)>;
  // `traffic_classes[i]` is flow i's QPs' traffic class (DSCP << 2).
  FabricWorkload(const char* name, Testbed& testbed, const TrafficConfig& traffic,
                 const std::vector<std::uint8_t>& traffic_classes, RunProgress& progress,
                 Observer observer);
  ~FabricWorkload();

  std::size_t flow_count() const;
  // Flow i as far as it has got (delivered bytes as of the last sample).
  const FlowOutcome& flow(std::size_t i) const;
  // The simulated time at the flows' time zero.
  std::uint64_t time_zero_ps() const;

 private:
  class Threads;  // the SystemC module (fabric_workload.cpp)
  std::unique_ptr<Threads> threads_;
};

}  // namespace rnicsim
