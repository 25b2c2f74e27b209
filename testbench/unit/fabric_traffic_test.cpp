// The fabric experiment's traffic section: patterns, flow lines, and the
// errors a bad line gets (the key, the field, the reason); and the wire bytes
// the goodput rule counts.
#include <gtest/gtest.h>

#include <set>
#include <string>

#include "config/config.hpp"
#include "config/run_config.hpp"
#include "program/experiments/experiments.hpp"
#include "program/experiments/fabric/fabric_outputs.hpp"
#include "program/experiments/fabric/traffic.hpp"
#include "system/rc_bench.hpp"
#include "system/topology.hpp"

namespace rnicsim {
namespace {

struct Read {
  Topology topology;
  TrafficConfig traffic;
};

Read read(const std::string& json) {
  config::RunConfig run(testing::loaded_config(config::Json::parse(json)));
  Read r;
  r.topology = topology_config(run);
  r.traffic = traffic_config(run, r.topology);
  return r;
}

// The ConfigError reading `json` gives, as "<key>: <reason>".
std::string error_of(const std::string& json) {
  try {
    read(json);
  } catch (const config::ConfigError& e) {
    return e.key() + ": " + e.reason();
  }
  return "no error";
}

std::string star_flows(const std::string& lines) {
  return R"({"experiment": "fabric", "topology": {"preset": "star", "hosts": 4},
             "traffic": {"pattern": "flows", "flows": [)" +
         lines + "]}}";
}

TEST(FabricTraffic, IncastSendsFromEveryOtherNodeToTheReceiver) {
  const Read r = read(R"({"experiment": "fabric", "topology": {"preset": "star", "hosts": 9},
      "traffic": {"pattern": "incast", "receiver": "h4", "bytes": 4096, "messages": 3,
                  "qps": 2, "priority": 5}})");
  ASSERT_EQ(r.traffic.flows.size(), 8u);
  std::set<std::size_t> sources;
  for (const FlowSpec& f : r.traffic.flows) {
    EXPECT_EQ(f.destination, 3u);  // h4
    EXPECT_EQ(f.bytes, 4096u);
    EXPECT_EQ(f.messages, 3u);
    EXPECT_EQ(f.qps, 2u);
    EXPECT_EQ(f.priority, 5);
    EXPECT_EQ(f.verb, FlowVerb::kWrite);
    sources.insert(f.source);
  }
  EXPECT_EQ(sources, (std::set<std::size_t>{0, 1, 2, 4, 5, 6, 7, 8}));
}

TEST(FabricTraffic, IncastTakesTheSendersAfterTheReceiver) {
  const Read r = read(R"({"experiment": "fabric", "topology": {"preset": "star", "hosts": 9},
      "traffic": {"pattern": "incast", "receiver": "h8", "senders": 3}})");
  ASSERT_EQ(r.traffic.flows.size(), 3u);
  EXPECT_EQ(r.traffic.flows[0].source, 8u);  // h9, then around to h1 and h2
  EXPECT_EQ(r.traffic.flows[1].source, 0u);
  EXPECT_EQ(r.traffic.flows[2].source, 1u);
}

TEST(FabricTraffic, PermutationSendsOnceFromAndOnceToEveryNodeNeverToItself) {
  const std::string json = R"({"experiment": "fabric", "seed": SEED,
      "topology": {"preset": "star", "hosts": 64}, "traffic": {"pattern": "permutation"}})";
  std::vector<std::vector<std::size_t>> targets;
  for (const char* seed : {"1", "1", "2"}) {
    std::string text = json;
    text.replace(text.find("SEED"), 4, seed);
    const Read r = read(text);
    ASSERT_EQ(r.traffic.flows.size(), 64u);
    std::set<std::size_t> to;
    std::vector<std::size_t> target(64);
    for (const FlowSpec& f : r.traffic.flows) {
      EXPECT_NE(f.source, f.destination);
      to.insert(f.destination);
      target[f.source] = f.destination;
    }
    EXPECT_EQ(to.size(), 64u);
    targets.push_back(target);
  }
  EXPECT_EQ(targets[0], targets[1]);  // the same seed, the same permutation
  EXPECT_NE(targets[0], targets[2]);
}

TEST(FabricTraffic, AllToAllIsEveryOrderedPair) {
  const Read r = read(R"({"experiment": "fabric", "topology": {"preset": "star", "hosts": 5},
      "traffic": {"pattern": "all_to_all", "verb": "read"}})");
  EXPECT_EQ(r.traffic.flows.size(), 20u);
  std::set<std::pair<std::size_t, std::size_t>> pairs;
  for (const FlowSpec& f : r.traffic.flows) pairs.insert({f.source, f.destination});
  EXPECT_EQ(pairs.size(), 20u);
  EXPECT_EQ(r.traffic.flows[0].verb, FlowVerb::kRead);
}

TEST(FabricTraffic, AFlowLineGivesItsFieldsAndTakesThePatternsForTheRest) {
  const Read r = read(R"({"experiment": "fabric", "topology": {"preset": "star", "hosts": 4},
      "traffic": {"pattern": "flows", "qps": 3, "priority": 2, "flows": [
        "h2 h1 send 1000 messages=7 start_ns=2500 priority=6", "h3 h4 read 4096"]}})");
  ASSERT_EQ(r.traffic.flows.size(), 2u);
  const FlowSpec& a = r.traffic.flows[0];
  EXPECT_EQ(a.source, 1u);
  EXPECT_EQ(a.destination, 0u);
  EXPECT_EQ(a.verb, FlowVerb::kSend);
  EXPECT_EQ(a.bytes, 1000u);
  EXPECT_EQ(a.messages, 7u);
  EXPECT_EQ(a.start_ns, 2500u);
  EXPECT_EQ(a.qps, 3u);
  EXPECT_EQ(a.priority, 6);
  EXPECT_EQ(a.key, "traffic.flows[0]");
  const FlowSpec& b = r.traffic.flows[1];
  EXPECT_EQ(b.bytes, 4096u);
  EXPECT_EQ(b.data_sender(), 3u);            // a read's data comes from its destination
  EXPECT_EQ(b.data_receiver(), 2u);
  EXPECT_EQ(b.priority, 2);
  // IBTA's largest message is a size a line may give (the memory budget is
  // the section's to check).
  EXPECT_EQ(parse_flow("h3 h4 read 2147483648", a, r.topology, "k", "test").bytes,
            kMaxFlowMessageBytes);
}

TEST(FabricTraffic, BadLinesNameTheirKeyAndReason) {
  EXPECT_EQ(error_of(star_flows(R"("h1 h9 write 100")")),
            "traffic.flows[0]: destination \"h9\" is not a node of the topology (its nodes: h1, "
            "h2, h3, h4)");
  EXPECT_EQ(error_of(star_flows(R"("h1 h2 write 100", "h2 h1 write 100 start_ns=-5")")),
            "traffic.flows[1]: start_ns -5 is in the past of the run: 0 is when every flow's "
            "QPs are connected");
  EXPECT_EQ(error_of(star_flows(R"("h1 h2 read 2147483649")")),
            "traffic.flows[0]: bytes 2147483649: a read carries 1 to 2147483648 bytes (IBTA's "
            "largest message, 2^31)");
  EXPECT_EQ(error_of(star_flows(R"("h1 h2 send 0")")),
            "traffic.flows[0]: bytes 0: a send carries 1 to 2147483648 bytes (IBTA's largest "
            "message, 2^31)");
  EXPECT_EQ(error_of(star_flows(R"("h1 h2 atomic 8")")),
            "traffic.flows[0]: verb \"atomic\" is none of write, read, send");
  EXPECT_EQ(error_of(star_flows(R"("h1 h1 write 8")")),
            "traffic.flows[0]: runs from node \"h1\" to itself; a flow joins two nodes");
  EXPECT_EQ(error_of(star_flows(R"("h1 h2 write 8 rate=5")")),
            "traffic.flows[0]: field \"rate\" is none of messages, start_ns, qps, priority");
  EXPECT_EQ(error_of(star_flows(R"("h1 h2 write 8 qps=0")")),
            "traffic.flows[0]: qps must be 1 to 64");
  EXPECT_EQ(error_of(star_flows(R"("h1 h2 write 8 messages=x")")),
            "traffic.flows[0]: messages \"x\" is not a whole number (of at most 18 digits)");
  EXPECT_EQ(error_of(star_flows(R"("h1 h2 write 99999999999999999999")")),
            "traffic.flows[0]: bytes \"99999999999999999999\" is not a whole number (of at most "
            "18 digits)");
  EXPECT_EQ(error_of(star_flows(R"("h1 h2 write 8 messages=1000000001")")),
            "traffic.flows[0]: messages must be 1 to 1000000000");
  EXPECT_EQ(error_of(star_flows(R"("h1 h2 write")")),
            "traffic.flows[0]: \"h1 h2 write\" is not \"<source> <destination> <verb> <bytes> "
            "[messages=N] [start_ns=T] [qps=Q] [priority=P]\"");
  EXPECT_EQ(error_of(star_flows("")), "traffic.flows: gives no flow");
  // 64 QPs of 2 GiB at both ends of one flow: 256 GiB the simulator would hold.
  EXPECT_EQ(error_of(star_flows(R"("h1 h2 write 2147483648 messages=64 qps=64")")),
            "traffic.flows: the flows' buffers (bytes x QPs at both ends of each flow: 262144 "
            "MiB) and 4 nodes need about 262180 MiB, over the run's budget of 512 MiB: fewer or "
            "smaller messages' buffers (bytes, qps) or flows");
  EXPECT_EQ(error_of(R"({"experiment": "fabric", "topology": {"preset": "star", "hosts": 4},
      "traffic": {"receiver": "h7"}})"),
            "traffic.receiver: receiver \"h7\" is not a node of the topology (its nodes: h1, h2, "
            "h3, h4)");
  EXPECT_EQ(error_of(R"({"experiment": "fabric", "topology": {"preset": "star", "hosts": 4},
      "traffic": {"senders": 4}})"),
            "traffic.senders: 4 senders, but the topology has 4 nodes (at most 3 senders)");
}

TEST(FabricTraffic, BackToBackFlowsRunBetweenTheCablesEnds) {
  EXPECT_EQ(error_of(R"({"experiment": "fabric", "topology": {"nodes": ["a", "b", "c", "d"],
      "links": ["a-b", "c-d"]}, "traffic": {"pattern": "flows", "flows": ["a c write 8"]}})"),
            "traffic.flows[0]: joins \"a\" and \"c\", which no cable joins (back to back, a "
            "flow runs between a cable's two ends)");
  EXPECT_EQ(read(R"({"experiment": "fabric", "traffic": {"pattern": "permutation"}})")
                .traffic.flows.size(),
            2u);
}

// The bytes on the cable per message, by hand: headers 58 (Ethernet 14, IPv4
// 20, UDP 8, BTH 12, ICRC 4), FCS 4, preamble and gap 20, payload padded to 4.
TEST(FabricTraffic, MessageWireBytesCountEveryPacketsHeadersAndGap) {
  // A 1 MiB WRITE at PMTU 4096: 256 packets, the first with a RETH (16).
  EXPECT_EQ(message_wire_bytes(FlowVerb::kWrite, 1048576, 4096), 1048576u + 256 * 82 + 16);
  // A send of 5000 B at PMTU 1024: 4 full packets and 904 B.
  EXPECT_EQ(message_wire_bytes(FlowVerb::kSend, 5000, 1024), 5000u + 5 * 82);
  // A READ's responses: AETH (4) on the first and the last.
  EXPECT_EQ(message_wire_bytes(FlowVerb::kRead, 3000, 1024), 3000u + 3 * 82 + 8);
  // A 3-byte WRITE ONLY: its RETH and 1 pad byte (a RoCEv2 frame is never
  // below Ethernet's 64 B: 58 B of headers and ICRC, and the FCS).
  EXPECT_EQ(message_wire_bytes(FlowVerb::kWrite, 3, 1024), 58u + 16 + 3 + 1 + 4 + 20);
  EXPECT_EQ(message_wire_bytes(FlowVerb::kRead, 1, 1024), 58u + 4 + 1 + 3 + 4 + 20);
}

}  // namespace
}  // namespace rnicsim
