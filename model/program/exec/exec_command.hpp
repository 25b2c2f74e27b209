#pragma once
// rnicsim exec: unmodified verbs programs on the simulated testbed.
//
//   rnicsim exec [CONFIG.json] [--set key=value]... [--pcap FILE] -- SERVER-COMMAND
//                [::: CLIENT-COMMAND]
//
// One simulator process runs the testbed; each program runs as a process of
// its own, attached to a node (the server command to roles.server's, the
// client command to roles.client's) through a socket, with the simulator's
// libibverbs.so.1 and librdmacm.so.1 first on its library path and librnicsim_app.so preloaded
// (simulated time, the socket notices). "{port}" in either command becomes a
// free loopback TCP port the launcher picked, "{server}" the loopback
// address: the programs' own out-of-band exchange runs there (simulated
// node addresses have no real sockets). The client starts once the server
// listens on a socket or an rdma_cm id (or has ended). The programs' output passes through;
// the exit status is the server's if it failed, else the client's.
// host/app_library/README.md tells the whole story.
#include <iosfwd>
#include <optional>
#include <string>
#include <vector>

namespace rnicsim::exec {

struct ExecOptions {
  std::string config;
  std::vector<std::string> sets;
  std::vector<std::string> server;
  std::vector<std::string> client;  // empty: the server command alone
  std::optional<std::string> pcap_path;  // every frame of the wires, as perf's --pcap
  bool help = false;
};

// Throws UsageError-style std::invalid_argument naming what is wrong.
ExecOptions parse_exec_options(const std::vector<std::string>& args);
std::string exec_usage();
// The programs' exit status (0 when both succeeded); 2 for bad input, 1
// for a failure of the simulator itself.
int exec_command(const ExecOptions& options, std::ostream& err);

}  // namespace rnicsim::exec
