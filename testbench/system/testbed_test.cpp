// The testbed's structure and its wires: a drop is a counted loss, and each
// wire has the faults of the node that sends on it.
// (Bytes crossing between two nodes: rc_verbs_test.cpp.)
#include "system/testbed.hpp"

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <systemc>
#include <vector>

#include "common/simulation.hpp"
#include "config/run_config.hpp"
#include "program/experiments/experiments.hpp"
#include "system/rc_bench.hpp"

namespace rnicsim {
namespace {

packet::RocePacket template_to(std::uint32_t qp) {
  packet::RocePacket t;
  t.ethernet.destination = {0x02, 0, 0, 0, 0, 2};
  t.ethernet.source = {0x02, 0, 0, 0, 0, 1};
  packet::Ipv4Header ip;
  ip.source = 0xC0A80001;
  ip.destination = 0xC0A80002;
  t.ip = ip;
  t.udp.source_port = 0xC011;
  t.bth.dest_qp = qp;
  return t;
}

Bytes message(std::size_t n, std::uint8_t salt) {
  Bytes b(n);
  for (std::size_t i = 0; i < n; ++i) b[i] = static_cast<std::uint8_t>(i * 7 + salt);
  return b;
}

// Node a sends `messages` RDMA WRITEs of `length` bytes to QP 0x11 of node b.
struct WriteTraffic : sc_core::sc_module {
  RNICSIM_PROCESS_MODULE(WriteTraffic);
  WriteTraffic(const sc_core::sc_module_name& name, Testbed& testbed, int messages,
               std::size_t length)
      : sc_core::sc_module(name), testbed_(testbed), messages_(messages), length_(length) {
    SC_THREAD(send);
  }

  void send() {
    for (int m = 0; m < messages_; ++m) {
      packet::TransmitRequest r;
      r.kind = packet::MessageKind::kRdmaWrite;
      r.pmtu = 1024;
      r.first_psn = static_cast<std::uint32_t>(m) * packets_per_message();
      r.header_template = template_to(0x11);
      r.reth.virtual_address = 0x1000;
      r.reth.rkey = 0x1234;
      r.payload = std::make_shared<const Bytes>(message(length_, static_cast<std::uint8_t>(m)));
      testbed_.node(0).nic.transmit.push(std::move(r), sc_core::SC_ZERO_TIME);
    }
  }

  std::uint32_t packets_per_message() const {
    return static_cast<std::uint32_t>((length_ + 1023) / 1024);
  }

  Testbed& testbed_;
  int messages_;
  std::size_t length_;
};

TEST(Testbed, AFrameTheReceiveBufferDropsIsCountedAndTheRunGoesOn) {
  // 1 KiB of payload per frame does not fit a 512 B receive buffer.
  config::RunConfig run(testing::loaded_config({{"link", {{"rx_buffer_bytes", 512}}}}));
  Testbed testbed("testbed", testbed_config(run));
  WriteTraffic traffic("traffic", testbed, 1, 3000);
  simulate();
  EXPECT_EQ(testbed.wire_to(1).rx.stats().dropped, 3u);
  EXPECT_EQ(testbed.wire_to(1).rx.stats().frames, 0u);
}

TEST(Testbed, EachWireHasTheFaultsOfTheNodeThatSendsOnIt) {
  config::RunConfig run(testing::loaded_config(
      {{"faults", {{"loss_rate", 0.5}}},
       {"nodes", {{"b", {{"faults", {{"loss_rate", 0}, {"script", "drop:psn=1"}}}}}}}}));
  const TestbedConfig c = testbed_config(run);
  ASSERT_EQ(c.faults.size(), 2u);
  EXPECT_EQ(c.faults[0].loss_rate, 0.5);
  EXPECT_EQ(c.faults[1].loss_rate, 0);
  EXPECT_EQ(c.faults[1].script.size(), 1u);
  EXPECT_NE(c.faults[0].seed, c.faults[1].seed);  // two streams from one run seed
  Testbed testbed("testbed", c);
  ASSERT_NE(testbed.wire_to(1).faults(), nullptr);  // a_to_b: node a's faults
  EXPECT_EQ(testbed.wire_to(1).faults()->config().loss_rate, 0.5);
  EXPECT_EQ(testbed.wire_to(1).faults()->wire(), "a_to_b");
  EXPECT_EQ(testbed.wire_to(0).faults()->config().script.size(), 1u);
}

TEST(Testbed, AWireWithoutFaultsDeliversStraightIntoItsReceiveBuffer) {
  config::RunConfig run(testing::loaded_config(config::Json::object()));
  Testbed testbed("testbed", testbed_config(run));
  EXPECT_EQ(testbed.wire_to(0).faults(), nullptr);
  EXPECT_EQ(testbed.wire_to(1).faults(), nullptr);
}

// With Ethernet ports, the MAC is shared: RoCE frames still reach the
// parser, and none reaches the Ethernet port.
TEST(Testbed, WithEthernetPortsRoceFramesKeepToTheRdmaSide) {
  config::RunConfig run(testing::loaded_config(config::Json::object()));
  TestbedRequest request;
  request.kernel_stack = true;
  Testbed testbed("testbed", testbed_config(run, request));
  WriteTraffic traffic("traffic", testbed, 2, 3000);
  simulate();
  EXPECT_EQ(testbed.node(1).nic.parser.stats().items, 6u);
  ASSERT_NE(testbed.node(1).nic.ethernet_port(), nullptr);
  EXPECT_EQ(testbed.node(1).nic.ethernet_port()->stats().rx_frames, 0u);
  EXPECT_EQ(testbed.node(1).nic.ethernet_port()->stats().rx_no_buffer, 0u);
  EXPECT_EQ(testbed.node(0).nic.ethernet_port()->stats().tx_frames, 0u);
}

TEST(Testbed, AScriptedLossLosesExactlyTheFrameItNames) {
  config::RunConfig run(testing::loaded_config({{"faults", {{"script", "drop:psn=0"}}}}));
  Testbed testbed("testbed", testbed_config(run));
  WriteTraffic traffic("traffic", testbed, 1, 3000);
  simulate();
  EXPECT_EQ(testbed.wire_to(1).faults()->stats().lost, 1u);
  EXPECT_EQ(testbed.wire_to(1).rx.stats().frames, 2u);
}

// Each `impl` key reaches its block in both NICs: the swap tests (label
// "swap") compare outputs, which would agree just as well if a block
// ignored its key.
TEST(Testbed, ImplRtlPutsEachRtlTwinIntoBothNics) {
  for (const bool rtl : {false, true}) {
    SCOPED_TRACE(rtl ? "impl rtl" : "impl model");
    const char* impl = rtl ? "rtl" : "model";
    config::RunConfig run(testing::loaded_config(
        {{"icrc", {{"impl", impl}, {"latency_cycles", 0}}},
         {"packet", {{"parser_impl", impl}, {"parser_latency_cycles", 0}}},
         {"request_splitter", {{"impl", impl}}},
         {"translation", {{"mpt_cache_impl", impl}, {"mtt_cache_impl", impl}}}}));
    Testbed testbed("testbed", testbed_config(run));
    for (std::size_t n = 0; n < testbed.node_count(); ++n) {
      const Nic& nic = testbed.node(n).nic;
      EXPECT_STREQ(nic.icrc_tx.engine_name(), rtl ? "rtl/icrc" : "model");
      EXPECT_STREQ(nic.icrc_rx.engine_name(), rtl ? "rtl/icrc" : "model");
      EXPECT_STREQ(nic.parser.engine_name(), rtl ? "rtl/packet_parser" : "model");
      EXPECT_STREQ(nic.request_splitter.engine_name(), rtl ? "rtl/request_splitter" : "model");
      EXPECT_STREQ(nic.translation.mpt_cache().name(), rtl ? "rtl/translation_cache" : "model");
      EXPECT_STREQ(nic.translation.mtt_cache().name(), rtl ? "rtl/translation_cache" : "model");
    }
  }
}

TEST(Testbed, ASingleNodeIsCabledToItself) {
  config::RunConfig run(testing::loaded_config(
      {{"topology", {{"nodes", {"solo"}}, {"links", config::Json::array()}}}}));
  Testbed testbed("testbed", testbed_config(run));
  EXPECT_EQ(testbed.node_count(), 1U);
  EXPECT_STREQ(testbed.node(0).name(), "testbed.solo");
  EXPECT_STREQ(testbed.wire_to(0).name(), "testbed.loopback");
}

TEST(Testbed, AloneBuildsTheRoleNodeOnItsOwnLoopback) {
  config::RunConfig run(testing::loaded_config({{"roles", {{"subject", "b"}}}}));
  TestbedRequest request;
  request.alone_role = "subject";
  Testbed testbed("testbed", testbed_config(run, request));
  ASSERT_EQ(testbed.node_count(), 1U);
  EXPECT_STREQ(testbed.node(0).name(), "testbed.b");
  EXPECT_STREQ(testbed.wire_to(0).name(), "testbed.loopback");
}

// Free names: the nodes are named by the topology, their cables after them,
// and each node reads its own nodes.<name> sections.
TEST(Testbed, NodesTakeTheirNamesAndSectionsFromTheTopology) {
  config::RunConfig run(testing::loaded_config(
      {{"topology", {{"nodes", {"client", "server"}}, {"links", {"client-server"}}}},
       {"nodes", {{"server", {{"pcie", {{"lanes", 4}}}}}}}}));
  const TestbedConfig c = testbed_config(run);
  EXPECT_EQ(c.nodes[1].nic.address.mac[5], 2);  // node 1: 02:00:00:00:00:02
  Testbed testbed("testbed", c);
  ASSERT_EQ(testbed.node_count(), 2U);
  EXPECT_STREQ(testbed.node(0).name(), "testbed.client");
  EXPECT_STREQ(testbed.node(1).name(), "testbed.server");
  EXPECT_STREQ(testbed.wire_to(1).name(), "testbed.client_to_server");
  EXPECT_STREQ(testbed.wire_to(0).name(), "testbed.server_to_client");
  EXPECT_EQ(testbed.node(1).host.config().pcie.lanes, 4U);
  EXPECT_NE(testbed.node(0).host.config().pcie.lanes, 4U);
}

// Each error names the key at fault and says why; the run stops (exit 2).
TEST(Testbed, ATopologyOrRoleNamingAMissingNodeIsRefusedNamingTheKey) {
  const auto error = [](const config::Json& given, const TestbedRequest& request = {}) {
    config::RunConfig run(testing::loaded_config(given));
    try {
      testbed_config(run, request);
    } catch (const config::ConfigError& e) {
      return e.key() + ": " + e.reason();
    }
    return std::string("no error");
  };
  EXPECT_EQ(error({{"topology", {{"links", {"a-c"}}}}}),
            "topology.links: \"a-c\" names node \"c\", which topology.nodes lacks (its nodes: "
            "a, b)");
  EXPECT_EQ(error({{"topology", {{"links", {"ab"}}}}}),
            "topology.links: a link is \"<node>-<node>\" (got \"ab\")");
  EXPECT_EQ(error({{"topology", {{"nodes", {"a", "b", "c"}}}}}),
            "topology.links: node \"c\" has 0 cables; each node has one port, so one cable");
  EXPECT_EQ(error({{"topology", {{"nodes", {"a", "a"}}}}}),
            "topology.nodes: node \"a\" is listed twice");
  EXPECT_EQ(error({{"topology", {{"nodes", {"A"}}}}}),
            "topology.nodes: a node name is a lower-case letter followed by lower-case letters, "
            "digits or '_' (got \"A\" at index 0)");
  const std::string reserved =
      "\" is reserved: \"link\" and \"loopback\" name the wires in results, and a wire is "
      "\"<from>_to_<to>\", so no node name contains \"_to_\"";
  for (const char* name : {"link", "loopback", "rack_to_spine"}) {
    EXPECT_EQ(error({{"topology", {{"nodes", {"a", name}}, {"links", {std::string("a-") + name}}}}}),
              std::string("topology.nodes: node name \"") + name + reserved);
  }
  TestbedRequest alone;
  alone.alone_role = "subject";
  EXPECT_EQ(error({{"roles", {{"subject", "server"}}}}, alone),
            "roles.subject: names node \"server\", which topology.nodes lacks (its nodes: a, b)");
}

}  // namespace
}  // namespace rnicsim
