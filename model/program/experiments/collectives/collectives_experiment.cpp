#include "program/experiments/collectives/collectives_experiment.hpp"

#include <algorithm>
#include <chrono>
#include <cstring>
#include <memory>
#include <ostream>

#include "common/module_macros.hpp"
#include "common/run_progress.hpp"
#include "common/simulation.hpp"
#include "common/time_units.hpp"
#include "program/experiments/collectives/collective_algorithms.hpp"
#include "program/experiments/collectives/collectives_report.hpp"
#include "program/experiments/output_files.hpp"
#include "system/application_api.hpp"
#include "system/testbed.hpp"

namespace rnicsim {
namespace {

constexpr std::uint16_t kFirstTcpPort = 40000;
// Inputs are written and results read in pieces of this many bytes.
constexpr std::uint64_t kPieceBytes = 1 << 20;

// Rank r's element i: a fixed function of both, so a result names who sent what.
constexpr std::uint64_t kRankFactor = 0x9E3779B1, kIndexFactor = 0x85EBCA77;
std::uint32_t element(std::size_t rank, std::uint64_t i) {
  return static_cast<std::uint32_t>((rank + 1) * kRankFactor + i * kIndexFactor);
}
// Element i summed over ranks 0 to n-1, modulo 2^32: n(n+1)/2 x the rank
// factor plus n x i x the index factor, so a check costs no loop over ranks.
std::uint32_t element_sum(std::size_t n, std::uint64_t i) {
  const std::uint64_t ranks = n;
  return static_cast<std::uint32_t>(ranks * (ranks + 1) / 2 * kRankFactor +
                                    ranks * i * kIndexFactor);
}

// Rank `rank`'s elements from `first`, `bytes` of them (the last one cut short if need be).
void elements_into(std::vector<std::uint8_t>& out, std::size_t rank, std::uint64_t first,
                   std::uint64_t bytes) {
  out.resize(bytes);
  for (std::uint64_t at = 0; at < bytes; at += kElementBytes) {
    const std::uint32_t v = element(rank, first + at / kElementBytes);
    std::memcpy(&out[at], &v, std::min<std::uint64_t>(kElementBytes, bytes - at));
  }
}

// Every rank's CPU time so far: its cores' work, spinning apart.
double busy_ns(const RankLink& link) {
  double ns = 0;
  for (const CpuCore* core : link.cores()) {
    for (std::size_t k = 0; k < kCpuWorkKinds; ++k)
      ns += to_ns(core->busy(static_cast<CpuWork>(k)));
  }
  return ns;
}

// Adds the wall time of its scope to `total`.
class WallClock {
 public:
  explicit WallClock(double& total) : total_(total), start_(std::chrono::steady_clock::now()) {}
  ~WallClock() {
    total_ += std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  }

 private:
  double& total_;
  std::chrono::steady_clock::time_point start_;
};

// A barrier of the model's: every rank leaves it at the same simulated time.
class Barrier {
 public:
  explicit Barrier(std::size_t parties) : parties_(parties) {}
  void arrive_and_wait() {
    const std::uint64_t generation = generation_;
    if (++arrived_ == parties_) {
      arrived_ = 0;
      ++generation_;
      released_.notify(sc_core::SC_ZERO_TIME);
      sc_core::wait(released_);
      return;
    }
    while (generation_ == generation) sc_core::wait(released_);
  }

 private:
  std::size_t parties_;
  std::size_t arrived_ = 0;
  std::uint64_t generation_ = 0;
  sc_core::sc_event released_;
};

class Workload : public sc_core::sc_module {
 public:
  RNICSIM_PROCESS_MODULE(Workload);
  Workload(const sc_core::sc_module_name& name, Testbed& testbed, const CollectivesConfig& config,
           std::vector<std::string> names, RdmaRankOptions rdma, std::vector<KernelStack*> stacks,
           std::vector<std::map<std::size_t, std::size_t>> tcp, CollectivesReport& report,
           RunProgress& progress)
      : sc_core::sc_module(name),
        testbed_(testbed),
        config_(config),
        names_(std::move(names)),
        rdma_(rdma),
        stacks_(std::move(stacks)),
        tcp_(std::move(tcp)),
        report_(report),
        progress_(progress),
        barrier_(config.ranks),
        end_ps_(config.ranks, 0),
        cpu_at_start_(config.ranks, 0.0) {
    SC_THREAD(set_up);
  }

 private:
  void set_up() {
    std::uint64_t largest = 0;
    for (const std::uint64_t bytes : config_.sizes) {
      largest = std::max(largest, rank_buffer_bytes(config_, bytes));
    }
    std::vector<std::uint64_t> base(config_.ranks);
    for (std::size_t r = 0; r < config_.ranks; ++r) {
      base[r] = testbed_.node(r).software().process.allocate(largest);
    }
    if (config_.transport == CollectiveTransport::kRdma) {
      links_ = connect_rdma_ranks(testbed_, names_, CollectiveRank::pairs(config_), base, largest,
                                  rdma_);
    } else {
      links_ = tcp_ranks(stacks_, tcp_, rdma_.step_cost);
    }
    for (std::size_t r = 0; r < config_.ranks; ++r) {
      ranks_.push_back(std::make_unique<CollectiveRank>(r, config_, *links_[r],
                                                        testbed_.node(r).software().process,
                                                        testbed_.node(r).host.memory, base[r]));
    }
    ranks_[0]->on_step = [this](std::size_t step) {
      if (!timing_) return;
      if (step_sum_ns_.size() <= step) step_sum_ns_.resize(step + 1, 0.0);
      step_sum_ns_[step] += to_ns(sim_now()) - static_cast<double>(start_ps_) / 1000;
    };
    for (std::size_t r = 0; r < config_.ranks; ++r) {
      sc_core::sc_spawn([this, r] { run_rank(r); }, ("rank" + std::to_string(r)).c_str());
    }
  }

  // Before each operation (no simulated time): the output filled with what
  // no rank sends, so an output not overwritten fails the check, then the
  // input. In pieces through one working buffer, kept between operations.
  void fill_input(std::size_t r, std::uint64_t bytes) {
    const WallClock clock(data_wall_seconds_);
    const RankLayout l = ranks_[r]->layout(bytes);
    Node& node = testbed_.node(r);
    for (std::uint64_t at = 0; at < l.output_bytes; at += kPieceBytes) {
      fill_.assign(std::min(kPieceBytes, l.output_bytes - at), 0xA5);
      node.software().process.write(node.host.memory, l.output_va + at, fill_.data(), fill_.size());
    }
    if (config_.test == CollectiveTest::kBcast && r != 0) return;
    for (std::uint64_t at = 0; at < l.input_bytes; at += kPieceBytes) {
      elements_into(fill_, r, at / kElementBytes, std::min(kPieceBytes, l.input_bytes - at));
      node.software().process.write(node.host.memory, l.input_va + at, fill_.data(), fill_.size());
    }
  }

  // Element `i` of what rank r must hold after an operation of `bytes`.
  std::uint32_t expected_element(std::size_t r, std::uint64_t bytes, std::uint64_t i) const {
    const std::size_t n = config_.ranks;
    const std::uint64_t count = bytes / kElementBytes;  // elements per rank's buffer (or block)
    const auto sum = [n](std::uint64_t index) { return element_sum(n, index); };
    switch (config_.test) {
      case CollectiveTest::kAllreduce:
        return sum(i);
      case CollectiveTest::kReduceScatter: {
        std::uint64_t first = 0;  // block r's first element
        for (std::size_t b = 0; b < r; ++b) first += count / n + (b < count % n ? 1 : 0);
        return sum(first + i);
      }
      case CollectiveTest::kBcast:
        return element(0, i);
      case CollectiveTest::kAllgather:
        return element(i / count, i % count);
      case CollectiveTest::kAlltoall:  // rank k's block for rank r
        return element(i / count, r * count + i % count);
      default: {
        // What the partner sent: a whole message, or bw's 4-byte answer
        // (the rest of the receive buffer still as fill_input left it).
        const std::size_t half = n / 2;
        const std::size_t peer = r < half ? r + half : r - half;
        const bool answer = r < half && (config_.test == CollectiveTest::kBw ||
                                         config_.test == CollectiveTest::kMbwMr);
        return answer && i > 0 ? 0xA5A5A5A5u : element(peer, i);
      }
    }
  }

  void check(std::size_t r, std::uint64_t bytes) {
    const WallClock clock(data_wall_seconds_);
    const RankLayout l = ranks_[r]->layout(bytes);
    Node& node = testbed_.node(r);
    for (std::uint64_t at = 0; at < l.output_bytes; at += kPieceBytes) {
      fill_.resize(std::min(kPieceBytes, l.output_bytes - at));
      node.software().process.read(node.host.memory, l.output_va + at, fill_.data(), fill_.size());
      for (std::uint64_t k = 0; k < fill_.size(); ++k) {
        const std::uint64_t byte = at + k;
        const std::uint32_t want = expected_element(r, bytes, byte / kElementBytes);
        if (fill_[k] != static_cast<std::uint8_t>(want >> (8 * (byte % kElementBytes)))) {
          fail_run(std::string(to_string(config_.test)) + " of " + std::to_string(bytes) +
                   " bytes: rank " + std::to_string(r) + " (" + names_[r] +
                   ") holds a wrong result at byte " + std::to_string(byte) + " of its output");
        }
      }
    }
  }

  void run_rank(std::size_t r) {
    CollectiveRank& rank = *ranks_[r];
    for (const std::uint64_t bytes : config_.sizes) {
      const std::uint64_t total = config_.warmup_for(bytes) + config_.iterations;
      for (std::uint64_t it = 0; it < total; ++it) {
        // Each rank's CPU from the first timed operation's receives on.
        if (it == config_.warmup_for(bytes)) cpu_at_start_[r] = busy_ns(*links_[r]);
        fill_input(r, bytes);
        rank.prepare(bytes);
        barrier_.arrive_and_wait();
        if (r == 0) {
          start_ps_ = to_ps(sim_now());
          timing_ = it >= config_.warmup_for(bytes);
          if (it == config_.warmup_for(bytes)) {
            mean_ns_.clear();
            most_ns_.clear();
            rank0_ns_.clear();
            step_sum_ns_.clear();
          }
        }
        rank.run(bytes);
        end_ps_[r] = to_ps(sim_now());
        rank.complete();
        barrier_.arrive_and_wait();
        if (r == 0 && timing_) record_operation();
      }
      check(r, bytes);
      barrier_.arrive_and_wait();
      if (r == 0) finish_size(bytes);
    }
    if (r == 0) finish_workload();
  }

  // Each rank's time in the operation: OSU's latency is their mean, the
  // collective's completion (nccl-tests' time) their largest; point-to-point
  // tests time rank 0, which sends and hears back (OSU's).
  void record_operation() {
    double sum = 0, most = 0;
    for (const std::uint64_t end : end_ps_) {
      const double ns = static_cast<double>(end - start_ps_) / 1000;
      sum += ns;
      most = std::max(most, ns);
    }
    mean_ns_.push_back(sum / static_cast<double>(end_ps_.size()));
    most_ns_.push_back(most);
    rank0_ns_.push_back(static_cast<double>(end_ps_[0] - start_ps_) / 1000);
    progress_.advance();
  }

  void finish_size(std::uint64_t bytes) {
    CollectivesRow row;
    row.bytes = bytes;
    row.algorithm = config_.algorithm_for(bytes);
    row.mean_ns = mean_ns_;
    row.most_ns = most_ns_;
    row.rank0_ns = rank0_ns_;
    for (std::size_t k = 0; k < config_.ranks; ++k) {
      row.cpu_ns_per_operation.push_back((busy_ns(*links_[k]) - cpu_at_start_[k]) /
                                         static_cast<double>(config_.iterations));
    }
    for (const double s : step_sum_ns_) {
      row.step_end_ns.push_back(s / static_cast<double>(config_.iterations));
    }
    report_.add(row);
  }

  Testbed& testbed_;
  const CollectivesConfig& config_;
  std::vector<std::string> names_;
  RdmaRankOptions rdma_;
  std::vector<KernelStack*> stacks_;
  std::vector<std::map<std::size_t, std::size_t>> tcp_;
  CollectivesReport& report_;
  RunProgress& progress_;
  Barrier barrier_;
  std::vector<std::unique_ptr<RankLink>> links_;
  std::vector<std::unique_ptr<CollectiveRank>> ranks_;
  std::uint64_t start_ps_ = 0;
  std::vector<std::uint64_t> end_ps_;
  bool timing_ = false;
  std::vector<double> mean_ns_, most_ns_, rank0_ns_;  // per timed operation
  std::vector<double> cpu_at_start_;
  std::vector<double> step_sum_ns_;
  std::vector<std::uint8_t> fill_;  // fill_input's and check's working buffer

 public:
  // Wall time spent writing inputs and checking results (not simulating).
  double data_wall_seconds_ = 0;
};

// The DSCP of `priority` under a node's table: the first that maps to it.
std::optional<std::uint8_t> dscp_of(const packet::DscpClasses& classes, std::uint8_t priority) {
  for (std::size_t d = 0; d < classes.size(); ++d) {
    if (classes[d] == priority) return static_cast<std::uint8_t>(d);
  }
  return std::nullopt;
}

}  // namespace

void declare_collectives_experiment_keys(config::Schema& schema) {
  declare_collectives_keys(schema);
}

void run_collectives(config::RunConfig& run, const std::function<void()>& configured,
                     const std::filesystem::path& folder, std::ostream& report,
                     std::ostream* terminal) {
  TestbedRequest request;
  request.host_software = true;
  request.verbs = true;
  request.kernel_stack = run.section("collectives").text("transport") == "tcp";
  const TestbedConfig c = testbed_config(run, request);
  const CollectivesConfig config = collectives_config(run, c.topology);
  const std::vector<std::pair<std::size_t, std::size_t>> pairs = CollectiveRank::pairs(config);
  std::vector<std::string> names(c.topology.nodes.begin(),
                                 c.topology.nodes.begin() + static_cast<long>(config.ranks));
  RdmaRankOptions rdma;
  rdma.step_cost = picoseconds(config.step_ns * 1000);
  rdma.eager_bytes = kEagerBytes;
  rdma.eager_depth = eager_depth(config);
  rdma.copy_gbps = config.reduce_gbps;
  std::uint8_t dscp = static_cast<std::uint8_t>(config.priority << 3);
  if (c.topology.switched()) {
    const std::optional<std::uint8_t> d = dscp_of(c.node_ports[0].dscp_classes, config.priority);
    if (!d) {
      const std::string key = "collectives.priority";
      throw config::ConfigError(
          run.loaded().source_of(key), key,
          "qos.dscp_classes maps no DSCP to priority " + std::to_string(config.priority));
    }
    dscp = *d;
  }
  rdma.traffic_class = static_cast<std::uint8_t>(dscp << 2);
  // The QPs' MTU: the smallest active MTU of the ranks' ports.
  std::uint32_t mtu = 4096;
  for (std::size_t r = 0; r < config.ranks; ++r) {
    mtu = std::min(mtu, ibv_mtu_to_bytes(c.nodes[r].host.port.active_mtu));
  }
  rdma.mtu = ibv_mtu_from_bytes(mtu);
  // Each rank's connections: one per peer; with no loss recovery in the
  // kernel path, every connection's window must find receive descriptors.
  std::vector<std::map<std::size_t, std::size_t>> connections(config.ranks);
  if (config.transport == CollectiveTransport::kTcp) {
    std::vector<std::size_t> peers(config.ranks, 0);
    for (const auto& [a, b] : pairs) ++peers[a], ++peers[b];
    for (std::size_t r = 0; r < config.ranks; ++r) {
      const KernelConfig& k = *c.nodes[r].kernel;
      const std::uint64_t most = std::uint64_t{k.ring_entries} * k.tcp.mss;
      if (std::uint64_t{k.tcp.receive_buffer_bytes} * peers[r] > most) {
        const std::string key = "kernel.tcp_receive_buffer_bytes";
        throw config::ConfigError(
            run.loaded().source_of(key), "nodes." + names[r] + "." + key,
            std::to_string(k.tcp.receive_buffer_bytes) + " bytes on each of rank " +
                std::to_string(r) + "'s " + std::to_string(peers[r]) +
                " connections is a window of more full segments than its " +
                std::to_string(k.ring_entries) +
                " receive descriptors (kernel.ring_entries), and the kernel path has no loss "
                "recovery: at most " +
                std::to_string(most / peers[r]) + " each");
      }
    }
  }
  configured();
  Testbed testbed("testbed", c);
  std::vector<std::unique_ptr<KernelStack>> stacks;
  std::vector<KernelStack*> stack_pointers;
  if (config.transport == CollectiveTransport::kTcp) {
    for (std::size_t r = 0; r < config.ranks; ++r) {
      stacks.push_back(std::make_unique<KernelStack>(("kernel_" + names[r]).c_str(),
                                                     testbed.node(r).host, *c.nodes[r].kernel,
                                                     node_address(r)));
      stack_pointers.push_back(stacks.back().get());
    }
    for (const auto& [a, b] : pairs) {
      const std::uint32_t isn_a = 0x10000000u + static_cast<std::uint32_t>(a << 16 | b);
      const std::uint32_t isn_b = 0x20000000u + static_cast<std::uint32_t>(b << 16 | a);
      const TcpEndpoint at_a{node_address(a), static_cast<std::uint16_t>(kFirstTcpPort + b)};
      const TcpEndpoint at_b{node_address(b), static_cast<std::uint16_t>(kFirstTcpPort + a)};
      connections[a][b] = stacks[a]->connect(at_a.port, at_b, isn_a, isn_b,
                                             c.nodes[b].kernel->tcp.receive_buffer_bytes);
      connections[b][a] = stacks[b]->connect(at_b.port, at_a, isn_b, isn_a,
                                             c.nodes[a].kernel->tcp.receive_buffer_bytes);
    }
  }
  CollectivesReport table(config, report);
  RunProgress progress(terminal);
  Workload workload("collectives", testbed, config, names, rdma, stack_pointers, connections, table,
                    progress);
  progress.start("operations", config.iterations * config.sizes.size());
  table.print_header();
  const auto started = std::chrono::steady_clock::now();
  simulate_workload(1);
  const double wall =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  progress.finish();
  table.print_footer();

  std::uint64_t request_packets = 0;
  std::uint64_t rnr_naks = 0;
  for (std::size_t n = 0; n < testbed.node_count(); ++n) {
    request_packets += testbed.node(n).nic.transport.stats().request_packets;
    rnr_naks += testbed.node(n).nic.transport.stats().rnr_nak_retry_err;
  }
  nlohmann::json results = table.json(names);
  results["rnr_naks_received"] = rnr_naks;
  results["qp_mtu_bytes"] = mtu;
  write_text(folder / "results.json", results.dump(2) + "\n");
  write_text(folder / "statistics.json", testbed.statistics().dump(2) + "\n");
  // The simulation's own speed: the wall time less what writing the inputs
  // and checking the results took (they are the experiment's, not the model's).
  const double simulating = wall - workload.data_wall_seconds_;
  const nlohmann::json speed = {
      {"wall_seconds", wall},
      {"inputs_and_checks_wall_seconds", workload.data_wall_seconds_},
      {"request_packets", request_packets},
      {"request_packets_per_wall_second", simulating > 0 ? request_packets / simulating : 0.0}};
  write_text(folder / "speed.json", speed.dump(2) + "\n");
}

}  // namespace rnicsim
