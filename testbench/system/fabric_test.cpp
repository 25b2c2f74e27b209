// The fabric: PFC's timing between two MACs, many flows through a switch
// with PFC on (lossless) and off (drops that RC recovers), ECMP over spines.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <memory>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "common/ring_queue.hpp"
#include "common/time_units.hpp"
#include "formats/ip_fields.hpp"
#include "formats/mac_control.hpp"
#include "formats/pcap.hpp"
#include "system/rc_bench.hpp"
#include "wire/mac_port.hpp"

namespace rnicsim {
namespace {

using testing::Buffer;
using testing::RcBench;

// Two priorities' backlogs of 1000-byte frames; records when each frame starts.
class TwoPriorities : public TransmitQueues {
 public:
  TwoPriorities(std::size_t p3_frames, std::size_t p5_frames) {
    for (unsigned p : {3u, 5u}) {
      for (std::size_t i = 0; i < (p == 3 ? p3_frames : p5_frames); ++i) {
        auto bytes = std::make_shared<Bytes>(1000, static_cast<std::uint8_t>(p));
        queue[p].push_back(Transfer(i, 8000, sc_core::SC_ZERO_TIME, bytes));
      }
    }
  }
  bool next_frame(std::uint8_t paused, Transfer& frame) override {
    for (unsigned p : {3u, 5u}) {
      if (((paused >> p) & 1u) || queue[p].empty()) continue;
      frame = std::move(queue[p].front());
      queue[p].pop_front();
      starts[p].push_back(sim_now());
      return true;
    }
    return false;
  }
  bool waiting() const override { return !queue[3].empty() || !queue[5].empty(); }
  RingQueue<Transfer> queue[8];
  std::vector<sc_core::sc_time> starts[8];
};

class NoFrames : public TransmitQueues {
 public:
  bool next_frame(std::uint8_t, Transfer&) override { return false; }
  bool waiting() const override { return false; }
};

Transfer pfc_transfer(std::uint8_t enabled, std::uint16_t quanta) {
  packet::PfcPause pause;
  pause.enabled = enabled;
  for (auto& q : pause.quanta) q = quanta;
  auto bytes = std::make_shared<Bytes>(packet::encode_pfc({2, 0, 0, 0, 0, 9}, pause));
  return Transfer(0, 8 * bytes->size(), sc_core::SC_ZERO_TIME, bytes);
}

// Priority 3 is paused for 1000 quanta (5.12 us at 100 Gbit/s) from the
// pause's arrival: its next frame starts exactly then, priority 5 (served
// after 3, 40 frames, done well before) sends all its frames meanwhile, and
// a later resume releases priority 3 at once.
TEST(Pfc, APausedPriorityWaitsExactlyItsQuantaWhileTheOthersSend) {
  MacPortConfig config;
  config.gbps = 100;
  config.propagation = nanoseconds(10);
  config.pfc.enabled = true;
  TwoPriorities queues(400, 40);
  NoFrames none;
  MacPort sender("sender", config, queues, [](Transfer&&) {});
  MacPort receiver("receiver", config, none, [](Transfer&&) {});
  sender.connect(receiver);
  sc_core::sc_start(sc_core::SC_ZERO_TIME);
  sender.wake_transmit();
  // A 1000-byte frame takes (1000 + 4 + 8 + 12) x 8 bits / 100 Gbit/s = 81.92 ns.
  const sc_core::sc_time pause_at = nanoseconds(1000);
  sender.arrive(pfc_transfer(0x08, 1000), pause_at);
  const sc_core::sc_time resume_at = nanoseconds(10000);
  sender.arrive(pfc_transfer(0x08, 1000), nanoseconds(9000));
  sender.arrive(pfc_transfer(0x08, 0), resume_at);
  sc_core::sc_start(nanoseconds(20000));

  const auto& p3 = queues.starts[3];
  const auto first_after = [](const std::vector<sc_core::sc_time>& starts,
                              const sc_core::sc_time& t) {
    for (const auto& s : starts) {
      if (s >= t) return s;
    }
    return sc_core::SC_ZERO_TIME;
  };
  EXPECT_EQ(first_after(p3, pause_at), pause_at + nanoseconds(5120));
  // No priority-3 frame starts inside the pause.
  for (const auto& s : p3) EXPECT_FALSE(s >= pause_at && s < pause_at + nanoseconds(5120));
  // Priority 5 sent through it: a frame every 81.92 ns.
  std::size_t p5_during = 0;
  for (const auto& s : queues.starts[5])
    p5_during += s >= pause_at && s < pause_at + nanoseconds(5120);
  EXPECT_EQ(p5_during, 40u);
  // The second pause (at 9 us) would hold priority 3 until 14.12 us; the
  // resume at 10 us releases it then (the MAC is idle).
  EXPECT_EQ(first_after(p3, nanoseconds(9000)), resume_at);
  EXPECT_EQ(sender.priority_stats(3).pauses_received, 2u);
  EXPECT_EQ(sender.priority_stats(3).resumes_received, 1u);
}

// The pause frames a congested port sends decode in tshark as MAC Control,
// opcode 0x0101, with the vector and times the port wrote.
TEST(Pfc, TsharkDecodesEveryPauseFrameAsClassBasedFlowControl) {
  MacPortConfig config;
  config.gbps = 100;
  config.pfc.enabled = true;
  config.pfc.pause_quanta = 4000;
  config.pfc.refresh_quanta = 2000;
  NoFrames none;
  MacPort port("port", config, none, [](Transfer&&) {});
  const std::string path = ::testing::TempDir() + "pfc_frames.pcap";
  std::size_t written = 0;
  {
    packet::PcapWriter pcap(path);
    port.add_tap([&](const Transfer& frame, const sc_core::sc_time& at) {
      pcap.write(static_cast<std::uint64_t>(to_ns(at)), frame.bytes()->data(),
                 frame.bytes()->size());
      ++written;
    });
    sc_core::sc_start(sc_core::SC_ZERO_TIME);
    port.buffer_level(0x08,
                      1);  // past XOFF (0): a pause, then refreshes every 2000 quanta (10.24 us)
    sc_core::sc_start(nanoseconds(30000));
    port.buffer_level(0x08, 0);  // at XON (0): a resume
    sc_core::sc_start(nanoseconds(1000));
  }
  ASSERT_EQ(written, 4u);  // pause at 0, refreshes at 10.24 and 20.48 us, resume at 30 us
  const std::string out = ::testing::TempDir() + "pfc_frames.txt";
  const std::string command = "tshark -r " + path +
                              " -T fields -E separator=, -e eth.type -e macc.opcode "
                              "-e macc.cbfc.enbv -e macc.cbfc.pause_time.c3 "
                              "-e macc.cbfc.pause_time.c0 -e _ws.malformed > " +
                              out + " 2>/dev/null";
  ASSERT_EQ(std::system(command.c_str()), 0);
  std::ifstream in(out);
  std::string line;
  std::size_t lines = 0;
  // Priority 3 enabled (vector 0x0008), 4000 quanta in its field and 0 in
  // the others; the last frame is the resume, 0 quanta.
  while (std::getline(in, line)) {
    ++lines;
    EXPECT_EQ(line, lines < written ? "0x8808,0x0101,0x0008,4000,0," : "0x8808,0x0101,0x0008,0,0,")
        << "frame " << lines;
  }
  EXPECT_EQ(lines, written);
  const std::string verbose = ::testing::TempDir() + "pfc_verbose.txt";
  ASSERT_EQ(std::system(("tshark -r " + path + " -V > " + verbose + " 2>/dev/null").c_str()), 0);
  std::ifstream v(verbose);
  std::stringstream text;
  text << v.rdbuf();
  EXPECT_NE(text.str().find("Class Based Flow Control [CBFC] Pause"), std::string::npos);
  EXPECT_EQ(text.str().find("Malformed"), std::string::npos);
}

// Each flow (source node, destination node) WRITEs `messages` messages of
// `bytes` from the source into its own slice of a region at the
// destination, every flow at once, over the given fabric; checks every byte
// and every completion.
struct FlowsResult {
  std::uint64_t drops = 0;  // switches' and NICs' receive buffers'
  std::uint64_t retransmitted = 0;
  std::uint64_t pauses = 0;        // PFC frames the switches sent
  std::uint64_t cnps_handled = 0;  // DCQCN: CNPs that cut a QP's rate
};

FlowsResult run_flows(const config::Json& given,
                      const std::vector<std::pair<std::size_t, std::size_t>>& flows,
                      std::uint32_t bytes, std::uint32_t messages) {
  RcBench bench(given);
  Testbed& testbed = bench.testbed();
  FlowsResult result;
  bench.run([&] {
    RcOptions options;
    options.mtu = IBV_MTU_1024;
    struct Flow {
      RcSide source, destination;
      std::uint64_t local = 0, remote = 0;
      ibv_mr* local_mr = nullptr;
      ibv_mr* remote_mr = nullptr;
      std::vector<std::uint8_t> data;
    };
    std::vector<Flow> f(flows.size());
    const std::uint64_t slice = std::uint64_t{bytes} * messages;
    for (std::size_t i = 0; i < flows.size(); ++i) {
      const auto [from, to] = flows[i];
      f[i].source = create_rc_side(testbed, from, options);
      f[i].destination = create_rc_side(testbed, to, options);
      connect_rc(testbed, f[i].source, f[i].destination, options);
      HostSoftware& src = testbed.node(from).software();
      HostSoftware& dst = testbed.node(to).software();
      f[i].local = src.process.allocate(slice);
      f[i].remote = dst.process.allocate(slice);
      f[i].local_mr = src.driver.ibv_reg_mr(f[i].source.pd, f[i].local, slice, testing::kAllAccess);
      f[i].remote_mr =
          dst.driver.ibv_reg_mr(f[i].destination.pd, f[i].remote, slice, testing::kAllAccess);
      f[i].data = testing::pattern(slice, static_cast<std::uint8_t>(i * 31 + 1));
      src.process.write(testbed.node(from).host.memory, f[i].local, f[i].data.data(), slice);
    }
    std::vector<ibv_sge> sges(flows.size() * messages);
    std::vector<ibv_send_wr> wrs(flows.size() * messages);
    for (std::size_t i = 0; i < flows.size(); ++i) {
      for (std::uint32_t m = 0; m < messages; ++m) {
        const std::size_t w = i * messages + m;
        sges[w] = ibv_sge{f[i].local + std::uint64_t{m} * bytes, bytes, f[i].local_mr->lkey};
        wrs[w] = testing::signaled_write(sges[w], f[i].remote + std::uint64_t{m} * bytes,
                                         f[i].remote_mr->rkey, w);
        if (m > 0) wrs[w - 1].next = &wrs[w];
      }
    }
    for (std::size_t i = 0; i < flows.size(); ++i) {
      ASSERT_EQ(testbed.node(flows[i].first)
                    .software()
                    .driver.ibv_post_send(f[i].source.qps[0], &wrs[i * messages], nullptr),
                0);
    }
    for (std::size_t i = 0; i < flows.size(); ++i) {
      VerbsDriver& d = testbed.node(flows[i].first).software().driver;
      for (std::uint32_t m = 0; m < messages; ++m) {
        ibv_wc wc;
        while (d.ibv_poll_cq(f[i].source.send_cq, 1, &wc) == 0) d.wait_cq(f[i].source.send_cq);
        EXPECT_EQ(wc.status, IBV_WC_SUCCESS);
      }
    }
    for (std::size_t i = 0; i < flows.size(); ++i) {
      std::vector<std::uint8_t> got(slice);
      testbed.node(flows[i].second)
          .software()
          .process.read(testbed.node(flows[i].second).host.memory, f[i].remote, got.data(), slice);
      EXPECT_EQ(got, f[i].data) << "flow " << flows[i].first << " -> " << flows[i].second;
    }
  });
  for (std::size_t s = 0; s < testbed.switch_count(); ++s) {
    result.drops += testbed.switch_at(s).dropped();
    for (std::size_t p = 0; p < testbed.switch_at(s).port_count(); ++p)
      result.pauses += testbed.switch_at(s).port(p).stats().pause_frames_sent;
  }
  for (std::size_t n = 0; n < testbed.node_count(); ++n) {
    result.retransmitted += testbed.node(n).nic.transport.stats().retransmitted_packets;
    result.drops += testbed.port_of(n).rx.stats().dropped;
    result.cnps_handled += testbed.node(n).nic.transport.rate_limiters().stats().rp_cnp_handled;
  }
  return result;
}

std::vector<std::pair<std::size_t, std::size_t>> incast(std::size_t senders) {
  std::vector<std::pair<std::size_t, std::size_t>> flows;
  for (std::size_t s = 1; s <= senders; ++s) flows.push_back({s, 0});
  return flows;
}

config::Json star(std::size_t hosts, bool pfc) {
  config::Json given = config::Json::parse(R"({"topology": {"preset": "star"},
      "roles": {"client": "h1", "server": "h2"}, "switch": {"buffer_bytes": 4194304}})");
  given["topology"]["hosts"] = hosts;
  given["pfc"]["enabled"] = pfc;
  return given;
}

TEST(FabricIncast, EightToOneWithPfcLosesNothing) {
  const FlowsResult r = run_flows(star(9, true), incast(8), 65536, 8);
  EXPECT_EQ(r.drops, 0u);
  EXPECT_EQ(r.retransmitted, 0u);
  EXPECT_GT(r.pauses, 0u);  // the incast did congest the switch
}

TEST(FabricIncast, EightToOneWithoutPfcDropsAndRcStillDeliversEverything) {
  config::Json given = star(9, false);
  given["switch"]["buffer_bytes"] = 262144;
  const FlowsResult r = run_flows(given, incast(8), 65536, 8);
  EXPECT_GT(r.drops, 0u);
  EXPECT_GT(r.retransmitted, 0u);
}

// The same two incasts with DCQCN under each preset (nic/congestion/): the
// senders are cut, every byte still arrives exactly (run_flows checks it),
// and with PFC nothing is dropped.
config::Json with_dcqcn(config::Json given, const char* mode) {
  given["qos"]["ecn"] = "ect0";
  given["dcqcn"]["mode"] = mode;
  return given;
}

// (One testbed per test process: SystemC elaborates once.)
void expect_lossless_and_cut(const char* mode) {
  const FlowsResult r = run_flows(with_dcqcn(star(9, true), mode), incast(8), 65536, 8);
  EXPECT_EQ(r.drops, 0u);
  EXPECT_EQ(r.retransmitted, 0u);
  EXPECT_GT(r.cnps_handled, 0u);
}

void expect_lossy_and_exact(const char* mode) {
  config::Json given = with_dcqcn(star(9, false), mode);
  given["switch"]["buffer_bytes"] = 262144;
  const FlowsResult r = run_flows(given, incast(8), 65536, 8);
  EXPECT_GT(r.drops, 0u);
  EXPECT_GT(r.cnps_handled, 0u);
}

TEST(FabricIncast, EightToOneWithPaperDcqcnAndPfcLosesNothing) { expect_lossless_and_cut("paper"); }
TEST(FabricIncast, EightToOneWithFirmwareDcqcnAndPfcLosesNothing) {
  expect_lossless_and_cut("firmware");
}
TEST(FabricIncast, EightToOneWithPaperDcqcnWithoutPfcDeliversEverything) {
  expect_lossy_and_exact("paper");
}
TEST(FabricIncast, EightToOneWithFirmwareDcqcnWithoutPfcDeliversEverything) {
  expect_lossy_and_exact("firmware");
}

// A permutation of 16 hosts (a seeded shuffle without fixed points), all at
// once, on a leaf-spine of 4 leaves and 2 spines with PFC: lossless.
TEST(FabricPermutation, SixteenHostsWithPfcLoseNothing) {
  std::vector<std::size_t> to(16);
  for (std::size_t i = 0; i < 16; ++i) to[i] = (i * 5 + 3) % 16;  // 5 is prime to 16: a permutation
  std::vector<std::pair<std::size_t, std::size_t>> flows;
  for (std::size_t i = 0; i < 16; ++i) {
    ASSERT_NE(to[i], i);
    flows.push_back({i, to[i]});
  }
  config::Json given = config::Json::parse(R"({"topology": {"preset": "leaf_spine", "leaves": 4,
      "spines": 2, "hosts_per_leaf": 4}, "roles": {"client": "h1", "server": "h2"},
      "switch": {"buffer_bytes": 2097152}, "pfc": {"enabled": true}})");
  const FlowsResult r = run_flows(given, flows, 32768, 8);
  EXPECT_EQ(r.drops, 0u);
  EXPECT_EQ(r.retransmitted, 0u);
}

// 16 QPs between two hosts on different leaves, 4 spines: ECMP uses every
// spine, and each QP's packets (its UDP source port) cross one spine only.
TEST(FabricEcmp, SixteenQpsUseEverySpineAndEachQpOnePath) {
  config::Json given = config::Json::parse(R"({"topology": {"switches": ["leaf1", "leaf2",
      "spine1", "spine2", "spine3", "spine4"], "links": ["a-leaf1", "b-leaf2",
      "leaf1-spine1", "leaf1-spine2", "leaf1-spine3", "leaf1-spine4",
      "leaf2-spine1", "leaf2-spine2", "leaf2-spine3", "leaf2-spine4"]},
      "pfc": {"enabled": true}})");
  RcBench bench(given);
  Testbed& testbed = bench.testbed();
  std::map<std::uint16_t, std::set<std::size_t>> spines_of_port;
  for (std::size_t s = 2; s < 6; ++s) {
    for (std::size_t p = 0; p < 2; ++p) {
      testbed.switch_at(s).port(p).add_tap(
          [&spines_of_port, s](const Transfer& frame, const sc_core::sc_time&) {
            const Bytes& b = *frame.bytes();
            const auto ip = packet::ipv4_offset(b.data(), b.size());
            if (!ip) return;
            const packet::FiveTuple flow = packet::five_tuple(b.data(), b.size(), *ip);
            if (flow.source == node_address(0).ipv4) spines_of_port[flow.source_port].insert(s);
          });
    }
  }
  bench.run([&] {
    RcOptions options;
    options.qps = 16;
    bench.connect(options);
    Buffer local = bench.buffer(0, 16 * 65536, testing::kAllAccess);
    Buffer remote = bench.buffer(1, 16 * 65536, testing::kAllAccess);
    bench.fill(local, testing::pattern(16 * 65536, 9));
    std::vector<ibv_sge> sges(16);
    std::vector<ibv_send_wr> wrs(16);
    for (std::uint32_t q = 0; q < 16; ++q) {
      sges[q] = testing::sge_of(local, 65536, q * 65536ULL);
      wrs[q] = testing::signaled_write(sges[q], remote.va + q * 65536ULL, remote.mr->rkey, q);
      ASSERT_EQ(bench.driver(0).ibv_post_send(bench.a.qps[q], &wrs[q], nullptr), 0);
    }
    for (std::uint32_t q = 0; q < 16; ++q) {
      EXPECT_EQ(bench.next_completion(0, bench.a.send_cq).status, IBV_WC_SUCCESS);
    }
    EXPECT_EQ(bench.contents(remote, 0, 16 * 65536), testing::pattern(16 * 65536, 9));
  });
  EXPECT_EQ(spines_of_port.size(), 16u);
  std::set<std::size_t> used;
  for (const auto& [port, spines] : spines_of_port) {
    EXPECT_EQ(spines.size(), 1u) << "UDP source port " << port;
    used.insert(spines.begin(), spines.end());
  }
  EXPECT_EQ(used, (std::set<std::size_t>{2, 3, 4, 5}));
  // In order at the responder: no sequence NAK, no retransmission.
  EXPECT_EQ(testbed.node(1).nic.transport.stats().out_of_sequence, 0u);
  EXPECT_EQ(testbed.node(0).nic.transport.stats().retransmitted_packets, 0u);
}

// Bad topologies: one error naming the key and saying why.
TEST(FabricTopology, BadTopologiesAreRefusedNamingTheKey) {
  const auto error = [](const std::string& topology) {
    config::Json given = config::Json::parse(topology);
    try {
      config::RunConfig run(testing::loaded_config(given));
      testbed_config(run);
    } catch (const config::ConfigError& e) {
      return e.key() + ": " + e.reason();
    }
    return std::string("no error");
  };
  EXPECT_EQ(error(R"({"topology": {"switches": ["s"], "links": ["a-s:1", "b-s:1"]}})"),
            "topology.links: \"b-s:1\" uses port 1 of switch \"s\", which another link uses "
            "already");
  EXPECT_EQ(error(R"({"topology": {"switches": ["s"], "links": ["a-s", "b-t"]}})"),
            "topology.links: \"b-t\" names \"t\", which is neither a node nor a switch (nodes: "
            "a, b; switches: s)");
  EXPECT_EQ(error(R"({"topology": {"switches": ["s"], "links": ["a-s", "b-s:64"]}})"),
            "topology.links: \"b-s:64\" names port 64 of switch \"s\", which has ports 0 to 63 "
            "(switch.ports)");
  EXPECT_EQ(error(R"({"topology": {"switches": ["s", "t"], "links": ["a-s", "b-t"]}})"),
            "topology.links: the topology is not connected: node \"b\" cannot reach node \"a\"");
  EXPECT_EQ(error(R"({"topology": {"switches": ["s"], "links": ["a-s", "b-s", "a-s"]}})"),
            "topology.links: node \"a\" has 2 cables; a node has one port, so one cable");
  EXPECT_EQ(error(R"({"topology": {"switches": ["s"], "links": ["a-s", "b-s 40X"]}})"),
            "topology.links: \"b-s 40X\": a link option is a rate \"<gbps>G\" (up to 1000000) "
            "or a length \"<metres>m\" (up to 1000000), got \"40X\"");
  EXPECT_EQ(error(R"({"topology": {"preset": "star", "hosts": 255}})"),
            "topology.hosts: must be <= 254 (got 255)");
  // Two switches in a ring toward b: s1 sends b's frames to s2, s2 back to s1.
  const char* ring = R"({"topology": {"switches": ["s1", "s2", "s3"],
      "links": ["a-s1", "b-s3", "s1:1-s2:0", "s2:1-s3:1", "s1:2-s3:2"],
      "routes": [%s]}})";
  const auto with_routes = [ring](const std::string& routes) {
    std::string text(ring);
    text.replace(text.find("%s"), 2, routes);
    return text;
  };
  EXPECT_EQ(error(with_routes(R"("s1 b 1", "s2 b 0")").c_str()),
            "topology.routes: a routing loop toward node \"b\": s1 -> s2 -> s1");
  EXPECT_EQ(error(with_routes(R"("s1 b 0")").c_str()),
            "topology.routes: switch \"s1\" sends frames for node \"b\" out of port 0, to node "
            "\"a\"");
  EXPECT_EQ(error(with_routes(R"("s1 b 5")").c_str()),
            "topology.routes: \"s1 b 5\": port \"5\" of switch \"s1\" has no cable");
  EXPECT_EQ(error(with_routes(R"("s1 a 2")").c_str()),
            "topology.routes: a routing loop toward node \"a\": s3 -> s1 -> s3");
  // The long way round is a route, not an error.
  EXPECT_EQ(error(with_routes(R"("s1 b 1", "s3 a 1", "s2 a 0")").c_str()), "no error");
  EXPECT_EQ(error(R"({"topology": {"preset": "star", "nodes": ["a"]}})"),
            "topology.nodes: topology.preset star generates the nodes, switches and links; give "
            "either the preset or the lists");
}

// Links take their own rate and length; the presets build what they say.
TEST(FabricTopology, LinksTakeTheirOwnRateAndLengthAndPresetsTheirShape) {
  config::Json given = config::Json::parse(R"({"topology": {"switches": ["s"],
      "links": ["a-s 25G", "b-s:7 400G 10m"]}, "link": {"phy_latency_ns": 3}})");
  config::RunConfig run(testing::loaded_config(given));
  const Topology t = testbed_config(run).topology;
  ASSERT_EQ(t.cables.size(), 2u);
  EXPECT_EQ(t.cables[0].gbps, 25);
  EXPECT_EQ(t.cables[0].propagation_ns, 3);  // link.propagation_ns 0, plus the PHYs
  EXPECT_EQ(t.cables[1].gbps, 400);
  EXPECT_EQ(t.cables[1].propagation_ns, 53);  // 10 m at 5 ns/m, plus the PHYs
  EXPECT_EQ(t.cables[1].ends[1].port, 7u);
  EXPECT_EQ(t.cables[0].ends[1].port, 0u);

  config::RunConfig leaf_spine(testing::loaded_config(config::Json::parse(
      R"({"topology": {"preset": "leaf_spine", "leaves": 3, "spines": 2, "hosts_per_leaf": 5}})")));
  const Topology ls = testbed_config(leaf_spine).topology;
  EXPECT_EQ(ls.nodes.size(), 15u);
  EXPECT_EQ(ls.switches, (std::vector<std::string>{"leaf1", "leaf2", "leaf3", "spine1", "spine2"}));
  EXPECT_EQ(ls.cables.size(), 15u + 6u);
  // From leaf1, a host on leaf2 is two ECMP ways away (both spines); its own hosts one port.
  const auto routes = shortest_path_routes(ls)[0];
  EXPECT_EQ(routes[5], (std::vector<std::size_t>{5, 6}));
  EXPECT_EQ(routes[0], (std::vector<std::size_t>{0}));
  EXPECT_EQ(ls.routes, shortest_path_routes(ls));
}

}  // namespace
}  // namespace rnicsim

namespace rnicsim {
namespace {

// topology.routes sends a's frames to b the long way (s1 -> s2 -> s3) and b's
// straight back (s3 -> s1): the bytes arrive, and s2 forwards only a's.
TEST(FabricTopology, ExplicitRoutesCarryTheFramesTheirWay) {
  RcBench bench(config::Json::parse(R"({"topology": {"switches": ["s1", "s2", "s3"],
      "links": ["a-s1", "b-s3", "s1:1-s2:0", "s2:1-s3:1", "s1:2-s3:2"],
      "routes": ["s1 b 1"]}, "pfc": {"enabled": true}})"));
  bench.run([&] {
    bench.connect();
    Buffer local = bench.buffer(0, 65536, testing::kAllAccess);
    Buffer remote = bench.buffer(1, 65536, testing::kAllAccess);
    bench.fill(local, testing::pattern(65536, 3));
    const ibv_sge sge = testing::sge_of(local, 65536);
    ibv_send_wr wr = testing::signaled_write(sge, remote.va, remote.mr->rkey, 1);
    ASSERT_EQ(bench.driver(0).ibv_post_send(bench.a.qps[0], &wr, nullptr), 0);
    EXPECT_EQ(bench.next_completion(0, bench.a.send_cq).status, IBV_WC_SUCCESS);
    EXPECT_EQ(bench.contents(remote, 0, 65536), testing::pattern(65536, 3));
  });
  const Switch& s2 = bench.testbed().switch_at(1);
  EXPECT_EQ(s2.queue_stats(1, 0).forwarded, 64u);  // 64 KiB at PMTU 1024, toward s3
  EXPECT_EQ(s2.queue_stats(0, 0).forwarded, 0u);   // b's ACKs go s3 -> s1 directly
}

}  // namespace
}  // namespace rnicsim

namespace rnicsim {
namespace {

// Two QPs from a to b, one in class 0 (traffic class 0), one in class 3
// (DSCP 24), each WRITEs 1 MiB (1024 frames). As a's first data frame
// leaves, its port receives a pause of class 0 for 65535 quanta (335.5 us at
// 100 Gbit/s): no class-0 frame leaves until it runs out, and every class-3
// frame leaves meanwhile (1024 frames take some 90 us): the NIC holds the
// paused class's QP at its scheduler, so the transmit path both share stays
// free. (Queues at the MAC alone would fill with class 0 and block class 3.)
TEST(FabricPriorities, APausedPriorityDoesNotHoldAnotherInTheNic) {
  // PFC on a's port alone: only the pause the test sends stops anything.
  RcBench bench(config::Json::parse(R"({"topology": {"switches": ["s1"], "links": ["a-s1", "b-s1"]},
      "nodes": {"a": {"pfc": {"enabled": true}}}})"));
  Testbed& testbed = bench.testbed();
  MacPort& mac = testbed.port_of(0).mac;
  sc_core::sc_time paused_at;
  std::vector<sc_core::sc_time> starts[8];
  mac.add_tap([&](const Transfer& frame, const sc_core::sc_time& at) {
    const Bytes& b = *frame.bytes();
    const auto ip = packet::ipv4_offset(b.data(), b.size());
    if (!ip || packet::ipv4_destination(b.data(), *ip) != node_address(1).ipv4) return;
    if (paused_at == sc_core::SC_ZERO_TIME) {
      paused_at = at;
      mac.arrive(pfc_transfer(0x01, 65535), at);
    }
    starts[packet::ipv4_dscp(b.data(), *ip) >> 3].push_back(at);
  });
  bench.run([&] {
    RcOptions low, high;
    high.traffic_class = 24 << 2;
    RcSide a[2] = {create_rc_side(testbed, 0, low), create_rc_side(testbed, 0, high)};
    RcSide b[2] = {create_rc_side(testbed, 1, low), create_rc_side(testbed, 1, high)};
    connect_rc(testbed, a[0], b[0], low);
    connect_rc(testbed, a[1], b[1], high);
    HostSoftware& sa = testbed.node(0).software();
    HostSoftware& sb = testbed.node(1).software();
    constexpr std::uint32_t kBytes = 1 << 20;
    std::vector<ibv_sge> sges(2);
    std::vector<ibv_send_wr> wrs(2);
    for (int q = 0; q < 2; ++q) {
      const std::uint64_t local = sa.process.allocate(kBytes);
      const std::uint64_t remote = sb.process.allocate(kBytes);
      ibv_mr* lmr = sa.driver.ibv_reg_mr(a[q].pd, local, kBytes, testing::kAllAccess);
      ibv_mr* rmr = sb.driver.ibv_reg_mr(b[q].pd, remote, kBytes, testing::kAllAccess);
      sges[q] = ibv_sge{local, kBytes, lmr->lkey};
      wrs[q] = testing::signaled_write(sges[q], remote, rmr->rkey, q);
    }
    for (int q = 0; q < 2; ++q)
      ASSERT_EQ(sa.driver.ibv_post_send(a[q].qps[0], &wrs[q], nullptr), 0);
    for (int q = 0; q < 2; ++q) {
      ibv_wc wc;
      while (sa.driver.ibv_poll_cq(a[q].send_cq, 1, &wc) == 0) sa.driver.wait_cq(a[q].send_cq);
      EXPECT_EQ(wc.status, IBV_WC_SUCCESS);
    }
  });
  const sc_core::sc_time pause_ends = paused_at + picoseconds(pause_ps(65535, 100));
  ASSERT_EQ(starts[0].size(), 1024u);
  ASSERT_EQ(starts[3].size(), 1024u);
  for (const auto& t : starts[0]) {
    // The first frame started before the pause arrived; none after, until it ends.
    EXPECT_TRUE(t == paused_at || t >= pause_ends) << t;
  }
  EXPECT_LT(starts[3].back(), pause_ends);
  EXPECT_EQ(mac.priority_stats(0).pauses_received, 1u);
}

}  // namespace
}  // namespace rnicsim

namespace rnicsim {
namespace {

// The first data frame's start at a's MAC (t0) and at the switch's port
// toward b (t1), for one 4 KiB WRITE across a star of 100 Gbit/s, 0-delay
// cables, switch.forwarding_ns 500: store-and-forward starts once the whole
// frame is in (its framed bits at 100 Gbit/s), cut-through once its
// preamble and first 64 bytes are (5.76 ns).
sc_core::sc_time switch_delay(bool cut_through, std::uint64_t& frame_bytes) {
  config::Json given =
      config::Json::parse(R"({"topology": {"switches": ["s1"], "links": ["a-s1", "b-s1"]},
      "switch": {"forwarding_ns": 500}})");
  given["switch"]["cut_through"] = cut_through;
  RcBench bench(given);
  Testbed& testbed = bench.testbed();
  sc_core::sc_time t0, t1;
  testbed.port_of(0).mac.add_tap([&](const Transfer& frame, const sc_core::sc_time& at) {
    if (t0 == sc_core::SC_ZERO_TIME && frame.size_bytes() > 1000) {
      t0 = at;
      frame_bytes = frame.size_bytes();
    }
  });
  testbed.switch_at(0).port(1).add_tap([&](const Transfer& frame, const sc_core::sc_time& at) {
    if (t1 == sc_core::SC_ZERO_TIME && frame.size_bytes() > 1000) t1 = at;
  });
  bench.run([&] {
    bench.connect();
    Buffer local = bench.buffer(0, 4096, testing::kAllAccess);
    Buffer remote = bench.buffer(1, 4096, testing::kAllAccess);
    const ibv_sge sge = testing::sge_of(local, 4096);
    ibv_send_wr wr = testing::signaled_write(sge, remote.va, remote.mr->rkey, 1);
    ASSERT_EQ(bench.driver(0).ibv_post_send(bench.a.qps[0], &wr, nullptr), 0);
    EXPECT_EQ(bench.next_completion(0, bench.a.send_cq).status, IBV_WC_SUCCESS);
  });
  return t1 - t0;
}

TEST(FabricSwitch, StoreAndForwardWaitsForTheWholeFrame) {
  std::uint64_t bytes = 0;
  const sc_core::sc_time store = switch_delay(false, bytes);
  // The frame, its FCS, preamble and gap: (bytes + 4 + 8 + 12) x 8 bits at 100 Gbit/s.
  EXPECT_EQ(store, nanoseconds(500) + serialization_time((bytes + 24) * 8, 100)) << bytes;
}

TEST(FabricSwitch, CutThroughWaitsForTheFirst64Bytes) {
  std::uint64_t bytes = 0;
  // The preamble and SFD (8 bytes), then the 64 bytes.
  EXPECT_EQ(switch_delay(true, bytes), nanoseconds(500) + serialization_time((8 + 64) * 8, 100));
}

}  // namespace
}  // namespace rnicsim
