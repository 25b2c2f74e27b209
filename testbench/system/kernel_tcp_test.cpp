// The kernel TCP path between two nodes: a stream arrives byte for byte,
// the window keeps the receiver's buffers from overflowing, a request-
// response exchange costs each core exactly the work it did, and every
// transfer leaves the expected frames on the wire. Then many connections per
// host on a switched star: concurrent streams from one host, a ring that
// needs a sending and a receiving thread on each host, frames for no
// connection.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <functional>
#include <memory>
#include <stdexcept>
#include <string>
#include <systemc>
#include <utility>
#include <vector>

#include "common/simulation.hpp"
#include "common/time_units.hpp"
#include "host/kernel/kernel_stack.hpp"
#include "system/rc_bench.hpp"
#include "system/testbed.hpp"

namespace rnicsim {
namespace {

// Nodes a and b, a kernel stack on each with one connection between them
// (a's port 40000 to b's 5001, connection 0 of each), and one application
// thread per node.
class TcpBench : public sc_core::sc_module {
 public:
  RNICSIM_PROCESS_MODULE(TcpBench);

  using Body = std::function<void(KernelStack& stack, Host& host)>;

  TcpBench(const sc_core::sc_module_name& name, const config::Json& given)
      : sc_core::sc_module(name),
        run_(testing::loaded_config(given)),
        testbed_("testbed", config_with_ports(run_)) {
    for (std::size_t i = 0; i < 2; ++i) {
      const KernelConfig c =
          kernel_config(run_.node_section(i == 0 ? "a" : "b", "kernel"), 1500);
      const TcpEndpoint a{node_address(0), 40000};
      const TcpEndpoint b{node_address(1), 5001};
      stacks_.push_back(std::make_unique<KernelStack>(i == 0 ? "kernel_a" : "kernel_b",
                                                      testbed_.node(i).host, c, node_address(i)));
      stacks_.back()->connect(i == 0 ? a.port : b.port, i == 0 ? b : a, i == 0 ? 1000u : 900000u,
                              i == 0 ? 900000u : 1000u, c.tcp.receive_buffer_bytes);
    }
    SC_THREAD(run_a);
    SC_THREAD(run_b);
  }

  Body a_body;
  Body b_body;
  KernelStack& stack(std::size_t i) { return *stacks_.at(i); }
  Host& host(std::size_t i) { return testbed_.node(i).host; }
  EthernetPort& port(std::size_t i) { return *testbed_.node(i).nic.ethernet_port(); }

 private:
  static TestbedConfig config_with_ports(config::RunConfig& run) {
    TestbedRequest request;
    request.host_software = true;  // the applications' pages
    request.kernel_stack = true;
    return testbed_config(run, request);
  }
  void run_a() { if (a_body) a_body(stack(0), host(0)); }
  void run_b() { if (b_body) b_body(stack(1), host(1)); }

  config::RunConfig run_;
  Testbed testbed_;
  std::vector<std::unique_ptr<KernelStack>> stacks_;
};

Bytes pattern(std::size_t n, std::uint8_t salt) {
  Bytes b(n);
  for (std::size_t i = 0; i < n; ++i) b[i] = static_cast<std::uint8_t>(i * 7 + i / 251 + salt);
  return b;
}

// Sends `total` bytes from a to b in `chunk`-byte send() and recv() calls;
// returns what b's application received, for comparison with pattern(total, salt).
Bytes stream(TcpBench& bench, std::size_t total, std::size_t chunk, std::uint8_t salt) {
  const Bytes sent = pattern(total, salt);
  std::uint64_t b_buffer = 0;
  bench.a_body = [&](KernelStack& stack, Host& host) {
    const std::uint64_t va = host.software().process.allocate(total);
    host.software().process.write(host.memory, va, sent.data(), total);
    for (std::size_t at = 0; at < total; at += chunk) {
      stack.send(0, va + at, std::min(chunk, total - at));
    }
  };
  bench.b_body = [&](KernelStack& stack, Host& host) {
    b_buffer = host.software().process.allocate(total);
    for (std::size_t at = 0; at < total; at += chunk) {
      stack.recv(0, b_buffer + at, std::min(chunk, total - at));
    }
  };
  simulate();
  Bytes received(total);
  bench.host(1).software().process.read(bench.host(1).memory, b_buffer, received.data(), total);
  return received;
}

// 1 MiB in 64 KiB send() calls against a 64 KiB receive buffer: the window
// bounds what is in flight, so nothing is dropped, and the bytes arrive
// exactly.
TEST(KernelTcp, AStreamArrivesByteForByteThroughASmallWindow) {
  TcpBench bench("bench", {{"kernel", {{"tcp_receive_buffer_bytes", 65536}}}});
  const std::size_t total = 1 << 20;
  EXPECT_EQ(stream(bench, total, 65536, 3), pattern(total, 3));
  EXPECT_EQ(bench.stack(1).connection(0).counters().bytes_received, total);
  EXPECT_EQ(bench.stack(0).connection(0).snd_una(), 1000u + total);  // all acknowledged
  EXPECT_EQ(bench.port(1).stats().rx_no_buffer, 0u);
  // TSO: the sender handed the NIC fewer frames than went on the wire.
  EXPECT_LT(bench.stack(0).stats().frames_sent, bench.port(0).stats().tx_frames);
  EXPECT_EQ(bench.port(0).stats().tx_frames, bench.port(1).stats().rx_frames);
  // With no data going back, the receiver ACKs on its own: every second full
  // segment at once (a window update or the timer may take a turn).
  const kernel::TcpCounters& b = bench.stack(1).connection(0).counters();
  EXPECT_GE(2 * b.pure_acks_sent + 2, b.segments_received);
  EXPECT_GT(b.immediate_acks, b.segments_received / 4);
}

// The same stream to a receiver that busy polls: recv() and the softirq
// share the receive ring, one poller at a time, and every byte arrives.
TEST(KernelTcp, ABusyPollingReceiverGetsTheStreamByteForByte) {
  TcpBench bench("bench", {{"kernel", {{"busy_poll", true}}}});
  const std::size_t total = 1 << 20;
  EXPECT_EQ(stream(bench, total, 65536, 5), pattern(total, 5));
  EXPECT_GT(bench.stack(1).stats().busy_polls, 0u);
  EXPECT_GT(to_ns(bench.stack(1).app_core().spinning()), 0.0);
}

// The same stream without TSO or checksum offload: the kernel cuts every
// segment and computes every checksum, and the receiver still finds them good.
TEST(KernelTcp, WithoutOffloadsTheKernelSegmentsAndChecksums) {
  TcpBench bench("bench", {{"kernel", {{"tso", false}, {"checksum_offload", false}}}});
  const std::size_t total = 100000;
  EXPECT_EQ(stream(bench, total, total, 9), pattern(total, 9));
  const std::uint64_t segments = (total + 1447) / 1448;  // mss 1448 on a 1500 MTU with timestamps
  EXPECT_EQ(bench.port(0).stats().tx_frames, segments);
  EXPECT_EQ(bench.stack(0).stats().frames_sent, segments);
  EXPECT_EQ(bench.port(0).stats().tso_segments, 0u);
  EXPECT_EQ(bench.port(1).stats().rx_checksum_bad, 0u);
}

// Ten 64-byte request-response exchanges (netperf TCP_RR): every message
// arrives exactly; responses carry the ACKs of their requests and requests
// those of the previous responses, so the only pure ACK is the delayed one
// for the last response; and each core is charged exactly its work.
TEST(KernelTcp, ARequestResponseExchangeChargesEachCoreItsWork) {
  TcpBench bench("bench", config::Json::object());
  const int rounds = 10;
  const std::size_t size = 64;
  bool all_equal = true;
  bench.a_body = [&](KernelStack& stack, Host& host) {
    AddressSpace& p = host.software().process;
    const std::uint64_t request = p.allocate(size);
    const std::uint64_t response = p.allocate(size);
    for (int r = 0; r < rounds; ++r) {
      const Bytes out = pattern(size, static_cast<std::uint8_t>(r));
      p.write(host.memory, request, out.data(), size);
      stack.send(0, request, size);
      stack.recv(0, response, size);
      Bytes in(size);
      p.read(host.memory, response, in.data(), size);
      all_equal = all_equal && in == pattern(size, static_cast<std::uint8_t>(r + 100));
    }
  };
  bench.b_body = [&](KernelStack& stack, Host& host) {
    AddressSpace& p = host.software().process;
    const std::uint64_t request = p.allocate(size);
    const std::uint64_t response = p.allocate(size);
    for (int r = 0; r < rounds; ++r) {
      stack.recv(0, request, size);
      Bytes in(size);
      p.read(host.memory, request, in.data(), size);
      all_equal = all_equal && in == pattern(size, static_cast<std::uint8_t>(r));
      const Bytes out = pattern(size, static_cast<std::uint8_t>(r + 100));
      p.write(host.memory, response, out.data(), size);
      stack.send(0, response, size);
    }
  };
  simulate();
  EXPECT_TRUE(all_equal);
  const KernelStack& a = bench.stack(0);
  const KernelStack& b = bench.stack(1);
  EXPECT_EQ(a.stats().frames_sent, rounds + 1u);  // + the delayed ACK of the last response
  EXPECT_EQ(a.connection(0).counters().delayed_ack_timer_acks, 1u);
  EXPECT_EQ(b.stats().frames_sent, static_cast<std::uint64_t>(rounds));
  EXPECT_EQ(b.connection(0).counters().pure_acks_sent, 0u);
  // Defaults (configs/README.md): syscall 200 ns, copy 50 ns + 64 B at 80 Gbit/s = 6.4 ns,
  // output 1000 ns per frame, input 1000 ns, pure ACK 500 ns, interrupt 1000 ns, wake-up 2000 ns.
  auto ns = [](const sc_core::sc_time& t) { return to_ns(t); };
  KernelStack& client = bench.stack(0);
  EXPECT_DOUBLE_EQ(ns(client.app_core().busy(CpuWork::kSyscall)), rounds * 2 * 200.0);
  EXPECT_DOUBLE_EQ(ns(client.app_core().busy(CpuWork::kCopy)), rounds * 2 * 56.4);
  EXPECT_DOUBLE_EQ(ns(client.app_core().busy(CpuWork::kTcpTx)), rounds * 1000.0);
  EXPECT_DOUBLE_EQ(ns(client.app_core().busy(CpuWork::kWakeup)), rounds * 2000.0);
  EXPECT_DOUBLE_EQ(ns(client.softirq_core().busy(CpuWork::kTcpRx)), rounds * 1000.0);
  EXPECT_DOUBLE_EQ(ns(client.softirq_core().busy(CpuWork::kInterrupt)),
                   1000.0 * static_cast<double>(client.stats().interrupts));
  EXPECT_DOUBLE_EQ(ns(client.softirq_core().busy(CpuWork::kAck)), 500.0);
  EXPECT_EQ(ns(client.app_core().spinning()), 0.0);
}

// A segment out of sequence is an error naming the connection (no loss
// recovery yet): a wire that loses 30% of the frames stops the run (with
// seed 1 the first of its 14 segments to go is not the last).
TEST(KernelTcp, ALostSegmentStopsTheRunNamingTheConnection) {
  TcpBench bench("bench", {{"kernel", {{"tso", false}}},
                           {"nodes", {{"a", {{"faults", {{"loss_rate", 0.3}}}}}}}});
  try {
    stream(bench, 20000, 20000, 1);
    FAIL() << "the run went on past a lost segment";
  } catch (const RunFailed& failed) {
    EXPECT_NE(std::string(failed.what())
                  .find("connection bench.kernel_b:5001->192.168.0.1:40000: segment seq"),
              std::string::npos)
        << failed.what();
  }
}

// Any testbed's nodes with a kernel stack on each and no connections: a test
// connects the nodes it needs and starts application threads (SystemC
// threads from time zero), as many per node as it likes.
class KernelBench {
 public:
  explicit KernelBench(const config::Json& given)
      : run_(testing::loaded_config(given)),
        config_(config_with_ports(run_)),
        testbed_("testbed", config_) {
    for (std::size_t i = 0; i < testbed_.node_count(); ++i) {
      stacks_.push_back(std::make_unique<KernelStack>(
          ("kernel_" + config_.topology.nodes[i]).c_str(), testbed_.node(i).host,
          *config_.nodes[i].kernel, node_address(i)));
    }
  }

  // A connection between node a's port `a_port` and node b's `b_port`:
  // returns its index at a and at b.
  std::pair<std::size_t, std::size_t> connect(std::size_t a, std::uint16_t a_port, std::size_t b,
                                              std::uint16_t b_port) {
    const auto a_isn = static_cast<std::uint32_t>(1000 + 7919 * a_port);
    const auto b_isn = static_cast<std::uint32_t>(0xFFFF0000u + 104729 * b_port);  // wraps
    const std::size_t at_a = stack(a).connect(a_port, {node_address(b), b_port}, a_isn, b_isn,
                                              kernel(b).tcp.receive_buffer_bytes);
    const std::size_t at_b = stack(b).connect(b_port, {node_address(a), a_port}, b_isn, a_isn,
                                              kernel(a).tcp.receive_buffer_bytes);
    return {at_a, at_b};
  }
  void thread(std::function<void()> body) { sc_core::sc_spawn(std::move(body)); }

  KernelStack& stack(std::size_t i) { return *stacks_.at(i); }
  Host& host(std::size_t i) { return testbed_.node(i).host; }
  const KernelConfig& kernel(std::size_t i) const { return *config_.nodes.at(i).kernel; }

  // Application pages on node `node` holding `bytes`, untimed.
  std::uint64_t write(std::size_t node, const Bytes& bytes) {
    AddressSpace& p = host(node).software().process;
    const std::uint64_t va = p.allocate(bytes.size());
    p.write(host(node).memory, va, bytes.data(), bytes.size());
    return va;
  }
  Bytes read(std::size_t node, std::uint64_t va, std::size_t bytes) {
    Bytes out(bytes);
    host(node).software().process.read(host(node).memory, va, out.data(), bytes);
    return out;
  }

 private:
  static TestbedConfig config_with_ports(config::RunConfig& run) {
    TestbedRequest request;
    request.host_software = true;
    request.kernel_stack = true;
    return testbed_config(run, request);
  }

  config::RunConfig run_;
  TestbedConfig config_;
  Testbed testbed_;
  std::vector<std::unique_ptr<KernelStack>> stacks_;
};

// `hosts` nodes h1, h2, ... on one switch.
config::Json star(std::size_t hosts) {
  config::Json given = config::Json::parse(
      R"({"topology": {"preset": "star"}, "roles": {"client": "h1", "server": "h2"}})");
  given["topology"]["hosts"] = hosts;
  return given;
}

// h1 streams 1 MiB to h2 and, from a second thread at the same time, 1 MiB
// to h3, each over its own connection from h1: both arrive byte for byte,
// each connection carries only its own stream, and the streams overlap (each
// receiver has its first 64 KiB before the other has all).
TEST(KernelTcpConnections, OneHostStreamsToTwoHostsAtOnce) {
  KernelBench bench(star(3));
  const std::size_t total = 1 << 20, chunk = 65536;
  const std::pair<std::size_t, std::size_t> to_b = bench.connect(0, 40000, 1, 5001);
  const std::pair<std::size_t, std::size_t> to_c = bench.connect(0, 40001, 2, 5001);
  ASSERT_EQ(bench.stack(0).connection_count(), 2u);
  const Bytes sent[2] = {pattern(total, 11), pattern(total, 22)};
  const std::size_t at_a[2] = {to_b.first, to_c.first};
  const std::size_t at_receiver[2] = {to_b.second, to_c.second};
  std::uint64_t buffer[2] = {};
  sc_core::sc_time first_chunk[2], all[2];
  for (std::size_t k = 0; k < 2; ++k) {
    bench.thread([&, k] {
      const std::uint64_t va = bench.write(0, sent[k]);
      for (std::size_t at = 0; at < total; at += chunk)
        bench.stack(0).send(at_a[k], va + at, chunk);
    });
    bench.thread([&, k] {
      const std::size_t node = k + 1;
      buffer[k] = bench.host(node).software().process.allocate(total);
      for (std::size_t at = 0; at < total; at += chunk) {
        bench.stack(node).recv(at_receiver[k], buffer[k] + at, chunk);
        if (at == 0) first_chunk[k] = sim_now();
      }
      all[k] = sim_now();
    });
  }
  simulate();
  EXPECT_EQ(bench.read(1, buffer[0], total), sent[0]);
  EXPECT_EQ(bench.read(2, buffer[1], total), sent[1]);
  EXPECT_LT(first_chunk[0], all[1]);
  EXPECT_LT(first_chunk[1], all[0]);
  const KernelStack& a = bench.stack(0);
  EXPECT_EQ(a.connection(to_b.first).counters().bytes_sent, total);
  EXPECT_EQ(a.connection(to_c.first).counters().bytes_sent, total);
  EXPECT_EQ(a.tcp_counters().bytes_sent, 2 * total);
  EXPECT_EQ(a.tcp_counters().segments_received, 0u);
  EXPECT_EQ(bench.stack(1).connection(to_b.second).counters().bytes_received, total);
  EXPECT_EQ(bench.stack(2).connection(to_c.second).counters().bytes_received, total);
  for (std::size_t i = 0; i < 3; ++i) EXPECT_EQ(bench.stack(i).stats().frames_dropped, 0u) << i;
}

// A ring of three hosts, each sending 600000 bytes to the next while it
// receives as much from the previous, twice: more than a send buffer and a
// receive window (64 KiB and 256 KiB here), so a host's send() returns only while its receiving
// thread reads, and one thread per host would deadlock. Every message arrives byte for byte.
TEST(KernelTcpConnections, ARingOfThreeSendsAndReceivesAtOnce) {
  config::Json given = star(3);
  given["kernel"] = {{"tcp_send_buffer_bytes", 65536}, {"tcp_receive_buffer_bytes", 262144}};
  KernelBench bench(given);
  const std::size_t hosts = 3, bytes = 600000, rounds = 2;
  ASSERT_GT(bytes,
            bench.kernel(0).tcp.send_buffer_bytes + bench.kernel(0).tcp.receive_buffer_bytes);
  std::vector<std::size_t> to_next(hosts), from_prev(hosts);
  for (std::size_t h = 0; h < hosts; ++h) {
    const auto [at_h, at_next] = bench.connect(h, 40000, (h + 1) % hosts, 5001);
    to_next[h] = at_h;
    from_prev[(h + 1) % hosts] = at_next;
  }
  const auto message = [](std::size_t from, std::size_t round) {
    return pattern(bytes, static_cast<std::uint8_t>(16 * from + round));
  };
  std::vector<std::vector<Bytes>> received(hosts, std::vector<Bytes>(rounds));
  for (std::size_t h = 0; h < hosts; ++h) {
    bench.thread([&, h] {
      for (std::size_t r = 0; r < rounds; ++r) {
        bench.stack(h).send(to_next[h], bench.write(h, message(h, r)), bytes);
      }
    });
    bench.thread([&, h] {
      const std::uint64_t va = bench.host(h).software().process.allocate(bytes);
      for (std::size_t r = 0; r < rounds; ++r) {
        bench.stack(h).recv(from_prev[h], va, bytes);
        received[h][r] = bench.read(h, va, bytes);
      }
    });
  }
  simulate();
  for (std::size_t h = 0; h < hosts; ++h) {
    const std::size_t prev = (h + hosts - 1) % hosts;
    for (std::size_t r = 0; r < rounds; ++r) {
      EXPECT_EQ(received[h][r], message(prev, r)) << "host " << h << " round " << r;
    }
    const KernelStack& s = bench.stack(h);
    EXPECT_EQ(s.connection(to_next[h]).counters().bytes_sent, rounds * bytes);
    EXPECT_EQ(s.connection(from_prev[h]).counters().bytes_received, rounds * bytes);
    EXPECT_EQ(s.connection(to_next[h]).counters().bytes_received, 0u);
    EXPECT_EQ(s.stats().frames_dropped, 0u);
  }
}

// A frame for no connection of its host (b has none on the port a sends to)
// is dropped and counted; a connection with the same ports to another peer
// does not take it.
TEST(KernelTcpConnections, AFrameForNoConnectionIsCountedAsDropped) {
  KernelBench bench(star(3));
  const std::size_t a_to_b = bench.stack(0).connect(40000, {node_address(1), 5001}, 1, 2, 65536);
  const std::size_t b_to_c = bench.stack(1).connect(5001, {node_address(2), 40000}, 3, 4, 65536);
  bench.thread([&] { bench.stack(0).send(a_to_b, bench.write(0, pattern(100, 1)), 100); });
  simulate();
  EXPECT_EQ(bench.stack(0).stats().frames_sent, 1u);
  EXPECT_EQ(bench.stack(1).stats().frames_received, 1u);
  EXPECT_EQ(bench.stack(1).stats().frames_dropped, 1u);
  EXPECT_EQ(bench.stack(1).connection(b_to_c).counters().segments_received, 0u);
}

// connect() refuses a second connection with the same ports and peer, and
// names the connection whose buffers no longer fit the kernel's memory.
TEST(KernelTcpConnections, ConnectRefusesADuplicateAndAFullKernelMemory) {
  KernelBench bench(star(2));
  KernelStack& a = bench.stack(0);
  const TcpEndpoint b{node_address(1), 5001};
  a.connect(40000, b, 1, 2, 65536);
  EXPECT_THROW(a.connect(40000, b, 1, 2, 65536), std::invalid_argument);
  std::string error;
  try {
    for (std::uint16_t port = 40001; port < 41000; ++port) a.connect(port, b, 1, 2, 65536);
  } catch (const std::invalid_argument& e) {
    error = e.what();
  }
  EXPECT_NE(error.find("connection kernel_h1:"), std::string::npos) << error;
  EXPECT_NE(error.find("->192.168.0.2:5001: its "), std::string::npos) << error;
  EXPECT_NE(error.find("do not fit the kernel's memory"), std::string::npos) << error;
}

}  // namespace
}  // namespace rnicsim
