#pragma once
// The fabric experiment: the traffic section's flows (traffic.hpp) on any
// topology, each a real QP pair with real bytes (fabric_workload.hpp), and
// what an architect reads of a fabric afterwards, written into the run
// folder (the README of this folder lists the files):
//
//   flows.csv        per flow: completion time, goodput, retransmissions, CE marks
//   throughput.csv   per flow and traffic.sample_ns bin: in-order goodput
//   queues.csv       per switch egress queue that held bytes: its bytes each bin
//   ports.csv        per port: frames, pauses, paused time, marks, drops
//   summary.json     totals, the flows' shares, each receiving port's goodput
//                    against the line-rate rule, the PFC headroom used
//   statistics.json  every block's statistics; speed.json the simulator's speed
//   capture.pcap     with output.pcap_port: the frames that port sends
#include <filesystem>
#include <functional>
#include <iosfwd>

#include "config/config.hpp"
#include "config/run_config.hpp"
#include "program/experiments/fabric/traffic.hpp"

namespace rnicsim {

void declare_fabric_keys(config::Schema& schema);

// Reads the configuration (testbed, traffic, output.pcap_port), calls
// `configured`, simulates, writes the files above into `folder` and a short
// report to `report`. Throws config::ConfigError before simulating for a bad
// traffic section, RunFailed (simulation.hpp) when the simulated system fails.
void run_fabric(config::RunConfig& run, const std::function<void()>& configured,
                const std::filesystem::path& folder, std::ostream& report, std::ostream* terminal);

}  // namespace rnicsim
