// The kernel TCP tests of `rnicsim perf`: tcp_lat (netperf TCP_RR) and
// tcp_bw (TCP_STREAM) over the NICs' Ethernet ports and the hosts' kernel
// stacks (kernel/), reported in perftest's tables and JSON rows like the
// RDMA tests, with each host's CPU time in perf.json's counters.
#include <chrono>
#include <cstdio>
#include <memory>
#include <ostream>
#include <string>
#include <vector>

#include "common/run_progress.hpp"
#include "common/simulation.hpp"
#include "common/time_units.hpp"
#include "program/experiments/perf/cpu_report.hpp"
#include "program/experiments/perf/perf_experiment.hpp"
#include "system/testbed.hpp"
#include "system/application_api.hpp"

namespace rnicsim {
namespace {

using perf::PerfOptions;

constexpr std::uint16_t kClientPort = 40000;
constexpr std::uint16_t kServerPort = 12865;  // netperf's control port, as a familiar number

std::uint64_t now_ps() { return to_ps(sim_now()); }

// Message `index` of a size: bytes that differ from one message to the next.
std::vector<std::uint8_t> message_bytes(std::uint64_t bytes, std::uint64_t index) {
  std::vector<std::uint8_t> m(bytes);
  for (std::uint64_t i = 0; i < bytes; ++i) {
    m[i] = static_cast<std::uint8_t>(i * 13 + index * 7 + (i >> 8));
  }
  return m;
}

// A host's kernel stack and one of its connections.
struct TcpSocket {
  KernelStack& stack;
  std::size_t connection = 0;
  void send(std::uint64_t va, std::uint64_t length) { stack.send(connection, va, length); }
  void recv(std::uint64_t va, std::uint64_t length) { stack.recv(connection, va, length); }
};

// The client and server applications, on the nodes roles.client and roles.server name.
class TcpPerfWorkload : public sc_core::sc_module {
 public:
  RNICSIM_PROCESS_MODULE(TcpPerfWorkload);

  TcpPerfWorkload(const sc_core::sc_module_name& name, Testbed& testbed, const PerfEnds& ends,
                  TcpSocket client, TcpSocket server, const PerfOptions& options,
                  std::ostream& report, RunProgress& progress)
      : sc_core::sc_module(name),
        testbed_(testbed),
        node_{ends.client, ends.server},
        names_{ends.client_name, ends.server_name},
        client_(client),
        server_(server),
        options_(options),
        report_(report),
        progress_(progress) {
    SC_THREAD(run_client);
    SC_THREAD(run_server);
  }

  PerfResult result;

 private:
  // Side 0 is the client, side 1 the server.
  Host& host(std::size_t side) { return testbed_.node(node_[side]).host; }

  void run_client() {
    AddressSpace& process = host(0).software().process;
    const std::uint64_t largest = options_.sizes.back();
    request_ = process.allocate(largest);
    response_ = process.allocate(largest);
    for (const std::uint64_t bytes : options_.sizes) {
      size_ = bytes;
      ++sizes_started_;
      size_start_.notify(sc_core::SC_ZERO_TIME);
      std::vector<std::uint64_t> posts, completed;
      for (std::uint64_t k = 0; k < options_.iterations; ++k) {
        const std::vector<std::uint8_t> out = message_bytes(bytes, k);
        process.write(host(0).memory, request_, out.data(), bytes);
        posts.push_back(now_ps());
        // --breakdown follows the request from send() to the server's recv().
        if (options_.is_latency()) MessageBreakdown::instance().begin(names_[0] + ".cpu");
        client_.send(request_, bytes);
        if (options_.is_latency()) {
          client_.recv(response_, bytes);
          expect(0, response_, bytes, k + 1000000);
        }
        progress_.advance();
      }
      while (!server_done_) sc_core::wait(server_finished_);
      server_done_ = false;
      progress_.finish();
      if (options_.is_latency()) {
        result.latency.push_back(perf::latency_row(bytes, posts, options_.test));
        report_ << perf::format_latency_row(result.latency.back());
        if (options_.breakdown) {
          result.breakdowns.push_back({bytes, MessageBreakdown::instance().take()});
        }
      } else {
        result.bandwidth.push_back(perf::bw_row(bytes, posts, received_at_, options_));
        report_ << perf::format_bw_row(result.bandwidth.back(), options_.report_gbits);
      }
      report_.flush();
    }
    report_ << perf::format_table_footer();
    finish_workload();
  }

  void run_server() {
    AddressSpace& process = host(1).software().process;
    std::uint64_t buffer = 0;
    for (std::uint64_t served = 0;; ++served) {
      while (sizes_started_ == served) sc_core::wait(size_start_);
      const std::uint64_t bytes = size_;
      if (buffer == 0) buffer = process.allocate(options_.sizes.back());
      received_at_.clear();
      for (std::uint64_t k = 0; k < options_.iterations; ++k) {
        server_.recv(buffer, bytes);
        MessageBreakdown::instance().end(names_[1] + ".cpu", "copied to user, recv returned");
        received_at_.push_back(now_ps());
        expect(1, buffer, bytes, k);
        if (options_.is_latency()) {
          const std::vector<std::uint8_t> out = message_bytes(bytes, k + 1000000);
          process.write(host(1).memory, buffer, out.data(), bytes);
          server_.send(buffer, bytes);
        }
      }
      server_done_ = true;
      server_finished_.notify(sc_core::SC_ZERO_TIME);
    }
  }

  // The message a side received is the one sent, byte for byte.
  void expect(std::size_t node, std::uint64_t va, std::uint64_t bytes, std::uint64_t index) {
    std::vector<std::uint8_t> got(bytes);
    host(node).software().process.read(host(node).memory, va, got.data(), bytes);
    if (got != message_bytes(bytes, index)) {
      fail_run("tcp perf: message " + std::to_string(index) + " of " + std::to_string(bytes) +
               " bytes arrived at node " + names_[node] + " with other bytes");
    }
  }

  Testbed& testbed_;
  const std::size_t node_[2];     // each side's testbed node
  const std::string names_[2];    // and its name
  TcpSocket client_;
  TcpSocket server_;
  const PerfOptions& options_;
  std::ostream& report_;
  RunProgress& progress_;
  std::uint64_t request_ = 0;
  std::uint64_t response_ = 0;
  std::vector<std::uint64_t> received_at_;
  sc_core::sc_event size_start_, server_finished_;
  std::uint64_t size_ = 0;
  std::uint64_t sizes_started_ = 0;
  bool server_done_ = false;
};

std::string moderation_text(const EthernetPortConfig& port) {
  char text[96];
  std::snprintf(text, sizeof text, "moderated, %g us / %u frames",
                to_ns(port.interrupt_delay) / 1000.0, port.interrupt_events);
  return text;
}

std::string banner(const PerfOptions& options, const KernelConfig& kernel,
                   const EthernetPortConfig& port) {
  const char* line =
      "---------------------------------------------------------------------------------------\n";
  char text[1024];
  std::snprintf(text, sizeof text,
                "%s                    %s %s Test\n"
                " Connection type : TCP\t\tDevice         : rnicsim0 (Ethernet port)\n"
                " MSS             : %u[B]\t\tTimestamps     : %s\n"
                " TSO             : %s\t\tChecksum offload: %s\n"
                " Interrupts      : %s\n"
                " Socket buffers  : send %u[B], receive %u[B]\n%s",
                line, perf::verb_title(options.test).c_str(),
                options.is_bw() ? "BW" : "Latency", kernel.tcp.mss,
                kernel.tcp.timestamps ? "ON" : "OFF", kernel.tso ? "ON" : "OFF",
                kernel.checksum_offload ? "ON" : "OFF",
                kernel.busy_poll
                    ? "busy polling"
                    : moderation_text(port).c_str(),
                kernel.tcp.send_buffer_bytes, kernel.tcp.receive_buffer_bytes, line);
  return text;
}

// A node's kernel stack statistics: its TCP connections' (summed) and the stack's own.
nlohmann::json kernel_statistics(KernelStack& stack) {
  return {{kernel::tcp_statistics().block(), kernel::tcp_statistics().values(stack.tcp_counters())},
          {kernel_stack_statistics().block(), kernel_stack_statistics().values(stack.stats())}};
}

// perf.json's counters of a node: its CPU, kernel stack and Ethernet port.
nlohmann::json node_json(KernelStack& stack, const nlohmann::json& node_statistics,
                         double elapsed_ns, std::uint64_t messages) {
  nlohmann::json out = kernel_statistics(stack);
  out["cpu"] = cpu_json({{"app_core", &stack.app_core()}, {"softirq_core", &stack.softirq_core()}},
                        elapsed_ns, messages);
  out["ethernet_port"] = node_statistics["ethernet_port"];
  return out;
}

}  // namespace

PerfResult run_tcp_perf(config::RunConfig& run, const PerfOptions& options,
                        const std::function<void()>& configured, std::ostream& report,
                        std::ostream* terminal) {
  TestbedRequest request;
  request.host_software = true;
  // The NIC runs RoCE beside the port: its verbs driver is configured as for
  // the RDMA tests, though this test posts no work.
  request.verbs = true;
  request.kernel_stack = true;
  const TestbedConfig c = testbed_config(run, request);
  const PerfEnds ends = perf_ends(run, c.topology);
  const std::size_t end_nodes[2] = {ends.client, ends.server};
  // Every frame of a full window must find a receive buffer: with no loss
  // recovery, a drop would stop the run.
  for (const std::size_t i : end_nodes) {
    const KernelConfig& k = *c.nodes[i].kernel;
    const std::uint64_t most = std::uint64_t{k.ring_entries} * k.tcp.mss;
    if (k.tcp.receive_buffer_bytes > most) {
      const std::string key = "kernel.tcp_receive_buffer_bytes";
      throw config::ConfigError(
          run.loaded().source_of(key), "nodes." + c.topology.nodes[i] + "." + key,
          std::to_string(k.tcp.receive_buffer_bytes) + " bytes is a window of more full " +
              "segments than the " + std::to_string(k.ring_entries) +
              " receive descriptors (kernel.ring_entries); a frame could find no buffer, and " +
              "the kernel path has no loss recovery yet: at most " + std::to_string(most));
    }
  }
  const KernelConfig& client_kernel = *c.nodes[ends.client].kernel;
  const KernelConfig& server_kernel = *c.nodes[ends.server].kernel;
  configured();
  std::unique_ptr<WireCapture> capture = open_capture(options);
  Testbed testbed("testbed", c);
  if (capture && testbed.switched()) {
    for (MacPort* mac : testbed.fabric_macs()) capture->tap(*mac);
  } else if (capture) {
    for (std::size_t i = 0; i < testbed.node_count(); ++i) capture->tap(testbed.wire_to(i));
  }
  const TcpEndpoint client{node_address(ends.client), kClientPort};
  const TcpEndpoint server{node_address(ends.server), kServerPort};
  // The first data byte each way: any numbers will do; these are fixed so
  // that runs are identical.
  const std::uint32_t client_isn = 0x10000000;
  const std::uint32_t server_isn = 0x20000000;
  KernelStack client_stack(("kernel_" + ends.client_name).c_str(), testbed.node(ends.client).host,
                           client_kernel, client.address);
  KernelStack server_stack(("kernel_" + ends.server_name).c_str(), testbed.node(ends.server).host,
                           server_kernel, server.address);
  const TcpSocket client_socket{client_stack,
                                client_stack.connect(client.port, server, client_isn, server_isn,
                                                     server_kernel.tcp.receive_buffer_bytes)};
  const TcpSocket server_socket{server_stack,
                                server_stack.connect(server.port, client, server_isn, client_isn,
                                                     client_kernel.tcp.receive_buffer_bytes)};
  report << banner(options, client_kernel, *c.nodes[ends.client].nic.ethernet)
         << perf::format_table_header(options);
  RunProgress progress(terminal);
  if (options.breakdown && options.is_latency()) MessageBreakdown::instance().enable();
  TcpPerfWorkload workload("perf", testbed, ends, client_socket, server_socket, options, report,
                           progress);
  progress.start("iterations", options.iterations * options.sizes.size());
  const auto started = std::chrono::steady_clock::now();
  simulate_workload(1);
  const double wall =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  PerfResult result = std::move(workload.result);
  result.capture = std::move(capture);
  const double elapsed_ns = to_ns(sim_now());
  const std::uint64_t messages = options.iterations * options.sizes.size();
  nlohmann::json counters = nlohmann::json::object();
  nlohmann::json statistics = testbed.statistics();
  KernelStack* stacks[2] = {&client_stack, &server_stack};
  const std::string* names[2] = {&ends.client_name, &ends.server_name};
  for (std::size_t side = 0; side < 2; ++side) {
    nlohmann::json& node = statistics["nodes"][*names[side]];
    counters[*names[side]] = node_json(*stacks[side], node, elapsed_ns, messages);
    const nlohmann::json kernel = kernel_statistics(*stacks[side]);
    for (const auto& block : kernel.items()) node[block.key()] = block.value();
  }
  if (testbed.switched()) {
    counters["switches"] = statistics.at("switches");
  } else {
    counters["link"] = statistics.at("wires");
  }
  result.statistics = statistics;
  result.counters = counters;
  result.speed = {{"wall_seconds", wall}};
  // The CPU per message, below the table (perf.json has it by core and kind).
  for (const std::size_t i : end_nodes) {
    const std::string& name = c.topology.nodes[i];
    report << format_cpu_line(name, counters[name]["cpu"]);
  }
  if (!result.breakdowns.empty()) report << format_breakdown(result.breakdowns);
  return result;
}

}  // namespace rnicsim
