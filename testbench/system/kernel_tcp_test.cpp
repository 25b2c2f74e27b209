// The kernel TCP path between two nodes: a stream arrives byte for byte,
// the window keeps the receiver's buffers from overflowing, a request-
// response exchange costs each core exactly the work it did, and every
// transfer leaves the expected frames on the wire.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <functional>
#include <memory>
#include <systemc>
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

}  // namespace
}  // namespace rnicsim
