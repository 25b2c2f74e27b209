// The ns-3 peer of rnicsim's simulator-speed figures: two nodes on a
// 100 Gbit/s point-to-point cable, one UDP stream of 4096 B payloads paced at
// exactly the link's line rate. ns-3's packets carry a size, not payload
// bytes, and it computes no CRC, so its packets per wall second are what an
// event-driven network simulator reaches on this machine for the same traffic.
//
// Prints one JSON line: packets sent and received, simulated and wall seconds,
// packets per wall second, and the simulated rate on the wire. Exits 1 if a
// packet was lost (the pacing would then not be line rate but overload).
//
// By default each device's queue disc is removed (see below). With
// --queue-disc=true it is kept, as in a program written the usual way (ns-3's
// tutorials): scripts/bench runs that too, for context, not for the ratio.
//
//   ns3_udp_stream [--packets=N | --seconds=S] [--payload=BYTES] [--queue-disc=BOOL]

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

int main(int argc, char* argv[]) {
  const auto setup_start = std::chrono::steady_clock::now();
  // At 100 Gbit/s one 4126 B frame takes 330.08 ns: picoseconds hold it
  // exactly, so the sender's interval is the link's serialization time.
  ns3::Time::SetResolution(ns3::Time::PS);

  uint32_t packets = 1'000'000;
  double seconds = 0.0;
  uint32_t payload = 4096;
  ns3::CommandLine cmd(__FILE__);
  cmd.AddValue("packets", "UDP packets to send", packets);
  cmd.AddValue("seconds", "simulated seconds to send for (overrides --packets when > 0)", seconds);
  cmd.AddValue("payload", "UDP payload bytes per packet, 12 to 65507", payload);
  bool queue_disc = false;
  cmd.AddValue("queue-disc", "keep ns-3's default queue disc on each device", queue_disc);
  cmd.Parse(argc, argv);
  if (payload < kMinPayload || payload > kMaxPayload) {
    std::fprintf(stderr, "ns3_udp_stream: --payload: from 12 to 65507 bytes\n");
    return 2;
  }

  const uint64_t frame_bytes = payload + kHeaderBytes;
  const uint64_t interval_ps = frame_bytes * 8 * kPicosecondsPerSecond / kLinkBitsPerSecond;
  if (seconds > 0.0) {
    const double count =
        seconds * static_cast<double>(kPicosecondsPerSecond) / static_cast<double>(interval_ps);
    if (count >= 4'294'967'295.0) {
      std::fprintf(stderr, "ns3_udp_stream: --seconds: more packets than UdpClient counts\n");
      return 2;
    }
    packets = static_cast<uint32_t>(count);
  }
  if (packets == 0) {
    std::fprintf(stderr, "ns3_udp_stream: nothing to send\n");
    return 2;
  }

  ns3::NodeContainer nodes;
  nodes.Create(2);
  ns3::PointToPointHelper cable;
  cable.SetDeviceAttribute("DataRate", ns3::DataRateValue(ns3::DataRate(kLinkBitsPerSecond)));
  // One IP packet per payload: with the default 1500 B MTU, IPv4 would split
  // each 4 KB datagram into fragments and reassemble them.
  cable.SetDeviceAttribute("Mtu", ns3::UintegerValue(frame_bytes - 2));
  cable.SetChannelAttribute("Delay", ns3::TimeValue(ns3::NanoSeconds(100)));
  ns3::NetDeviceContainer devices = cable.Install(nodes);

  ns3::InternetStackHelper internet;
  internet.Install(nodes);
  ns3::Ipv4AddressHelper addresses;
  addresses.SetBase("10.1.1.0", "255.255.255.0");
  ns3::Ipv4InterfaceContainer interfaces = addresses.Assign(devices);
  // Assign() gives each device ns-3's default queue disc. A sender paced at
  // line rate never queues, so the disc would only add per-packet work that a
  // NIC model has no counterpart for.
  if (!queue_disc) ns3::TrafficControlHelper().Uninstall(devices);

  ns3::UdpServerHelper server_helper(kPort);
  ns3::ApplicationContainer server_apps = server_helper.Install(nodes.Get(1));
  ns3::Ptr<ns3::UdpServer> server = server_helper.GetServer();

  ns3::UdpClientHelper client_helper(interfaces.GetAddress(1), kPort);
  client_helper.SetAttribute("MaxPackets", ns3::UintegerValue(packets));
  client_helper.SetAttribute("Interval", ns3::TimeValue(ns3::PicoSeconds(interval_ps)));
  client_helper.SetAttribute("PacketSize", ns3::UintegerValue(payload));
  ns3::ApplicationContainer client_apps = client_helper.Install(nodes.Get(0));
  auto client = ns3::DynamicCast<ns3::UdpClient>(client_apps.Get(0));

  // Neither application is stopped: once the client has sent its last packet
  // and the server has taken it, no event is left and Run() returns.
  const double setup_wall = seconds_since(setup_start);
  const auto run_start = std::chrono::steady_clock::now();
  ns3::Simulator::Run();
  const double run_wall = seconds_since(run_start);
  const double simulated = ns3::Simulator::Now().GetSeconds();
  const uint64_t sent = client->GetTotalTx() / payload;
  const uint64_t received = server->GetReceived();
  ns3::Simulator::Destroy();
  // The stream's rate on the cable, headers included: 100 when the pacing
  // kept the link exactly busy.
  const double wire_gbps =
      simulated > 0.0 ? static_cast<double>(received * frame_bytes * 8) / simulated / 1e9 : 0.0;

  std::printf(
      "{\"program\": \"ns3_udp_stream\", \"ns3_version\": \"%d.%d.%d\", \"link_gbps\": %" PRIu64
      ", \"queue_disc\": %s"
      ", \"payload_bytes\": %" PRIu32 ", \"frame_bytes\": %" PRIu64 ", \"packets_sent\": %" PRIu64
      ", \"packets_received\": %" PRIu64
      ", \"simulated_seconds\": %.9g, \"setup_wall_seconds\": %.6f"
      ", \"wire_gbps\": %.3f, \"wall_seconds\": %.6f, \"packets_per_wall_second\": %.0f}\n",
      NS3_VERSION_MAJOR, NS3_VERSION_MINOR, NS3_VERSION_PATCH, kLinkBitsPerSecond / 1'000'000'000,
      queue_disc ? "true" : "false", payload, frame_bytes, sent, received, simulated, setup_wall,
      wire_gbps, run_wall,
      static_cast<double>(received) / run_wall);
  return received == packets ? 0 : 1;
}
