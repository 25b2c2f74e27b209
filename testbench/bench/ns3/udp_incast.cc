// The ns-3 peer of rnicsim's incast speed figures: 8 senders and 1 receiver,
// each on its own 100 Gbit/s point-to-point cable to one router node in the
// middle (a Node with the internet stack and global routing, standing in for
// a switch). Every sender sends UDP datagrams of 4096 B payload to the
// receiver, paced at exactly 1/8 of the line rate, so the router's port to the
// receiver runs at line rate and nothing is dropped. Each packet crosses two
// cables: its sender's, then the receiver's.
//
// The senders start one frame time apart, so their packets come to the
// router in turn and leave it back to back: the bottleneck is kept exactly
// busy without a standing queue (had they all started at once, each round of
// packets would queue up to 7 deep at the router, still without loss).
//
// Prints one JSON line: senders, packets sent and received, simulated and
// wall seconds, packets received per wall second, packet hops (two per
// packet) and the receiver's simulated goodput. Exits 1 if a packet was lost.
//
// By default each device's queue disc is removed, as in udp_stream.cc. With
// --queue-disc=true it is kept, as in a program written the usual way.
//
//   ns3_udp_incast [--senders=N] [--packets=N] [--payload=BYTES] [--queue-disc=BOOL]

#include <chrono>
#include <cinttypes>
#include <cstdint>
#include <cstdio>

#include "ns3/applications-module.h"
#include "ns3/core-module.h"
#include "ns3/internet-module.h"
#include "ns3/network-module.h"
#include "ns3/point-to-point-module.h"
#include "ns3/traffic-control-module.h"
#include "ns3/version-defines.h"
#include "udp_common.hpp"

using rnicsim_ns3::kHeaderBytes;
using rnicsim_ns3::kLinkBitsPerSecond;
using rnicsim_ns3::kMaxPayload;
using rnicsim_ns3::kMinPayload;
using rnicsim_ns3::kPicosecondsPerSecond;
using rnicsim_ns3::kPort;
using rnicsim_ns3::seconds_since;

namespace {

// Every packet crosses its sender's cable and then the receiver's.
constexpr uint64_t kHopsPerPacket = 2;

}  // namespace

int main(int argc, char* argv[]) {
  const auto setup_start = std::chrono::steady_clock::now();
  // At 100 Gbit/s one 4126 B frame takes 330.08 ns: picoseconds hold it
  // exactly, and so every sender's interval, a whole number of frame times.
  ns3::Time::SetResolution(ns3::Time::PS);

  uint32_t senders = 8;
  uint32_t packets = 400'000;
  uint32_t payload = 4096;
  ns3::CommandLine cmd(__FILE__);
  cmd.AddValue("senders", "sender nodes, all sending to the one receiver", senders);
  cmd.AddValue("packets", "UDP packets to send, in total across the senders", packets);
  cmd.AddValue("payload", "UDP payload bytes per packet, 12 to 65507", payload);
  bool queue_disc = false;
  cmd.AddValue("queue-disc", "keep ns-3's default queue disc on each device", queue_disc);
  cmd.Parse(argc, argv);
  if (payload < kMinPayload || payload > kMaxPayload) {
    std::fprintf(stderr, "ns3_udp_incast: --payload: from 12 to 65507 bytes\n");
    return 2;
  }
  if (senders == 0) {
    std::fprintf(stderr, "ns3_udp_incast: --senders: at least 1\n");
    return 2;
  }
  if (packets < senders) {
    std::fprintf(stderr, "ns3_udp_incast: --packets: at least one for each sender\n");
    return 2;
  }

  const uint64_t frame_bytes = payload + kHeaderBytes;
  // One frame's time on the cable, and each sender sends one frame for every
  // `senders` that the receiver's cable carries: 1/senders of the line rate.
  const uint64_t frame_ps = frame_bytes * 8 * kPicosecondsPerSecond / kLinkBitsPerSecond;
  const uint64_t interval_ps = frame_ps * senders;

  ns3::NodeContainer sender_nodes;
  sender_nodes.Create(senders);
  ns3::Ptr<ns3::Node> receiver_node = ns3::CreateObject<ns3::Node>();
  ns3::Ptr<ns3::Node> router = ns3::CreateObject<ns3::Node>();

  ns3::PointToPointHelper cable;
  cable.SetDeviceAttribute("DataRate", ns3::DataRateValue(ns3::DataRate(kLinkBitsPerSecond)));
  // One IP packet per payload: with the default 1500 B MTU, IPv4 would split
  // each 4 KB datagram into fragments and reassemble them.
  cable.SetDeviceAttribute("Mtu", ns3::UintegerValue(frame_bytes - 2));
  cable.SetChannelAttribute("Delay", ns3::TimeValue(ns3::NanoSeconds(100)));

  ns3::InternetStackHelper internet;
  internet.Install(sender_nodes);
  internet.Install(receiver_node);
  internet.Install(router);

  // Each cable its own /24: 10.0.0.0 for the receiver's, then one a sender.
  ns3::Ipv4AddressHelper addresses;
  addresses.SetBase("10.0.0.0", "255.255.255.0");
  ns3::NetDeviceContainer all_devices;
  const ns3::NetDeviceContainer receiver_cable = cable.Install(receiver_node, router);
  all_devices.Add(receiver_cable);
  const ns3::Ipv4InterfaceContainer receiver_interfaces = addresses.Assign(receiver_cable);
  const ns3::Ipv4Address receiver_address = receiver_interfaces.GetAddress(0);
  for (uint32_t i = 0; i < senders; ++i) {
    const ns3::NetDeviceContainer sender_cable = cable.Install(sender_nodes.Get(i), router);
    all_devices.Add(sender_cable);
    addresses.NewNetwork();
    addresses.Assign(sender_cable);
  }
  // Assign() gives each device ns-3's default queue disc. At 1/senders of the
  // line rate each, the senders never queue, nor does the router's port to the
  // receiver (see the start times below), so the disc would only add
  // per-packet work that a NIC or switch model has no counterpart for.
  if (!queue_disc) ns3::TrafficControlHelper().Uninstall(all_devices);
  ns3::Ipv4GlobalRoutingHelper::PopulateRoutingTables();

  ns3::UdpServerHelper server_helper(kPort);
  ns3::ApplicationContainer server_apps = server_helper.Install(receiver_node);
  ns3::Ptr<ns3::UdpServer> server = server_helper.GetServer();

  // The total split as evenly as it goes: the first `packets % senders`
  // senders send one more, which keeps the round-robin order to the end.
  ns3::UdpClientHelper client_helper(receiver_address, kPort);
  client_helper.SetAttribute("Interval", ns3::TimeValue(ns3::PicoSeconds(interval_ps)));
  client_helper.SetAttribute("PacketSize", ns3::UintegerValue(payload));
  ns3::ApplicationContainer client_apps;
  for (uint32_t i = 0; i < senders; ++i) {
    client_helper.SetAttribute(
        "MaxPackets", ns3::UintegerValue(packets / senders + (i < packets % senders ? 1 : 0)));
    ns3::ApplicationContainer app = client_helper.Install(sender_nodes.Get(i));
    // Sender i's packets reach the router one frame time after sender i-1's,
    // just as the receiver's cable has finished with that one.
    app.Start(ns3::PicoSeconds(frame_ps * i));
    client_apps.Add(app);
  }

  // No application is stopped: once the clients have sent their last packets
  // and the server has taken them, no event is left and Run() returns.
  const double setup_wall = seconds_since(setup_start);
  const auto run_start = std::chrono::steady_clock::now();
  ns3::Simulator::Run();
  const double run_wall = seconds_since(run_start);
  const double simulated = ns3::Simulator::Now().GetSeconds();
  uint64_t sent = 0;
  for (uint32_t i = 0; i < client_apps.GetN(); ++i) {
    sent += ns3::DynamicCast<ns3::UdpClient>(client_apps.Get(i))->GetTotalTx() / payload;
  }
  const uint64_t received = server->GetReceived();
  ns3::Simulator::Destroy();
  // Payload bytes the receiver took over the whole run: just under
  // 100 * payload / frame_bytes when the bottleneck was kept exactly busy.
  const double goodput_gbps =
      simulated > 0.0 ? static_cast<double>(received * payload * 8) / simulated / 1e9 : 0.0;

  std::printf(
      "{\"program\": \"ns3_udp_incast\", \"ns3_version\": \"%d.%d.%d\", \"link_gbps\": %" PRIu64
      ", \"queue_disc\": %s, \"senders\": %" PRIu32 ", \"payload_bytes\": %" PRIu32
      ", \"frame_bytes\": %" PRIu64 ", \"packets_sent\": %" PRIu64
      ", \"packets_received\": %" PRIu64 ", \"packet_hops\": %" PRIu64
      ", \"simulated_seconds\": %.9g, \"setup_wall_seconds\": %.6f"
      ", \"goodput_gbps\": %.3f, \"wall_seconds\": %.6f, \"packets_per_wall_second\": %.0f}\n",
      NS3_VERSION_MAJOR, NS3_VERSION_MINOR, NS3_VERSION_PATCH, kLinkBitsPerSecond / 1'000'000'000,
      queue_disc ? "true" : "false", senders, payload, frame_bytes, sent, received,
      received * kHopsPerPacket, simulated, setup_wall, goodput_gbps, run_wall,
      static_cast<double>(received) / run_wall);
  return sent == packets && received == packets ? 0 : 1;
}
