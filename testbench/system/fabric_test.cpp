// The fabric: PFC's timing between two MACs, many flows through a switch
// with PFC on (lossless) and off (drops that RC recovers), ECMP over spines.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "common/ring_queue.hpp"
#include "common/time_units.hpp"
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
  RingQueue<Transfer> queue[8];
  std::vector<sc_core::sc_time> starts[8];
};

class NoFrames : public TransmitQueues {
 public:
  bool next_frame(std::uint8_t, Transfer&) override { return false; }
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
    port.set_tap([&](const Transfer& frame, const sc_core::sc_time& at) {
      pcap.write(static_cast<std::uint64_t>(to_ns(at)), frame.bytes()->data(),
                 frame.bytes()->size());
      ++written;
    });
    sc_core::sc_start(sc_core::SC_ZERO_TIME);
    port.set_congested(3, true);  // a pause, then refreshes every 2000 quanta (10.24 us)
    sc_core::sc_start(nanoseconds(30000));
    port.set_congested(3, false);  // a resume
    sc_core::sc_start(nanoseconds(1000));
  }
  ASSERT_EQ(written, 4u);  // pause at 0, refreshes at 10.24 and 20.48 us, resume at 30 us
  const std::string out = ::testing::TempDir() + "pfc_frames.txt";
  const std::string command = "tshark -r " + path +
                              " -T fields -E separator=, -e eth.type -e macc.opcode "
                              "-e _ws.malformed > " +
                              out + " 2>/dev/null";
  ASSERT_EQ(std::system(command.c_str()), 0);
  std::ifstream in(out);
  std::string line;
  std::size_t lines = 0;
  while (std::getline(in, line)) {
    ++lines;
    EXPECT_EQ(line, "0x8808,0x0101,") << "frame " << lines;
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

// `senders` nodes each WRITE `bytes` into their own slice of node 0's region,
// all at once, over the given fabric; checks every byte and completion.
struct Incast {
  std::uint64_t switch_drops = 0;
  std::uint64_t retransmitted = 0;
  std::uint64_t pauses = 0;
};

Incast run_incast(const config::Json& given, std::size_t senders, std::uint32_t bytes,
                  std::uint32_t messages) {
  RcBench bench(given);
  Testbed& testbed = bench.testbed();
  Incast result;
  bench.run([&] {
    RcOptions options;
    options.mtu = IBV_MTU_1024;
    RcSide target = create_rc_side(testbed, 0, options);
    std::vector<RcSide> sides;
    std::vector<RcSide> targets;
    for (std::size_t s = 1; s <= senders; ++s) {
      sides.push_back(create_rc_side(testbed, s, options));
      targets.push_back(create_rc_side(testbed, 0, options));
      connect_rc(testbed, sides.back(), targets.back(), options);
    }
    HostSoftware& sink = testbed.node(0).software();
    const std::uint64_t total = std::uint64_t{bytes} * messages * senders;
    const std::uint64_t va = sink.process.allocate(total);
    ibv_mr* mr = sink.driver.ibv_reg_mr(targets[0].pd, va, total, testing::kAllAccess);
    std::vector<ibv_mr*> mrs{mr};
    for (std::size_t s = 1; s < senders; ++s)
      mrs.push_back(sink.driver.ibv_reg_mr(targets[s].pd, va, total, testing::kAllAccess));
    std::vector<std::vector<std::uint8_t>> data;
    std::vector<ibv_sge> sges(senders * messages);
    std::vector<ibv_send_wr> wrs(senders * messages);
    for (std::size_t s = 0; s < senders; ++s) {
      HostSoftware& sw = testbed.node(s + 1).software();
      const std::uint64_t local = sw.process.allocate(std::uint64_t{bytes} * messages);
      ibv_mr* lmr = sw.driver.ibv_reg_mr(sides[s].pd, local, std::uint64_t{bytes} * messages,
                                         testing::kAllAccess);
      data.push_back(
          testing::pattern(std::size_t{bytes} * messages, static_cast<std::uint8_t>(s * 31 + 1)));
      sw.process.write(testbed.node(s + 1).host.memory, local, data.back().data(),
                       data.back().size());
      for (std::uint32_t m = 0; m < messages; ++m) {
        const std::size_t i = s * messages + m;
        sges[i] = ibv_sge{local + std::uint64_t{m} * bytes, bytes, lmr->lkey};
        wrs[i] = testing::signaled_write(sges[i], va + (s * messages + m) * std::uint64_t{bytes},
                                         mrs[s]->rkey, i);
        if (m > 0) wrs[i - 1].next = &wrs[i];
      }
    }
    for (std::size_t s = 0; s < senders; ++s) {
      ASSERT_EQ(testbed.node(s + 1).software().driver.ibv_post_send(sides[s].qps[0],
                                                                    &wrs[s * messages], nullptr),
                0);
    }
    for (std::size_t s = 0; s < senders; ++s) {
      VerbsDriver& d = testbed.node(s + 1).software().driver;
      for (std::uint32_t m = 0; m < messages; ++m) {
        ibv_wc wc;
        while (d.ibv_poll_cq(sides[s].send_cq, 1, &wc) == 0) d.wait_cq(sides[s].send_cq);
        EXPECT_EQ(wc.status, IBV_WC_SUCCESS);
      }
    }
    std::vector<std::uint8_t> got(total);
    sink.process.read(testbed.node(0).host.memory, va, got.data(), total);
    for (std::size_t s = 0; s < senders; ++s) {
      EXPECT_TRUE(std::equal(data[s].begin(), data[s].end(),
                             got.begin() + static_cast<std::ptrdiff_t>(s * data[s].size())))
          << "sender " << s + 1 << "'s bytes";
    }
  });
  for (std::size_t s = 0; s < testbed.switch_count(); ++s)
    result.switch_drops += testbed.switch_at(s).dropped();
  for (std::size_t n = 0; n < testbed.node_count(); ++n) {
    result.retransmitted += testbed.node(n).nic.transport.stats().retransmitted_packets;
    result.switch_drops += testbed.port_of(n).rx.stats().dropped;
  }
  for (std::size_t p = 0; p < testbed.switch_at(0).port_count(); ++p)
    result.pauses += testbed.switch_at(0).port(p).stats().pause_frames_sent;
  return result;
}

config::Json star(std::size_t hosts, bool pfc) {
  config::Json given = config::Json::parse(R"({"topology": {"preset": "star"},
      "roles": {"client": "h1", "server": "h2"}, "switch": {"buffer_bytes": 4194304}})");
  given["topology"]["hosts"] = hosts;
  given["pfc"]["enabled"] = pfc;
  return given;
}

TEST(FabricIncast, EightToOneWithPfcLosesNothing) {
  const Incast r = run_incast(star(9, true), 8, 65536, 8);
  EXPECT_EQ(r.switch_drops, 0u);
  EXPECT_EQ(r.retransmitted, 0u);
  EXPECT_GT(r.pauses, 0u);  // the incast did congest the switch
}

TEST(FabricIncast, EightToOneWithoutPfcDropsAndRcStillDeliversEverything) {
  config::Json given = star(9, false);
  given["switch"]["buffer_bytes"] = 262144;
  const Incast r = run_incast(given, 8, 65536, 8);
  EXPECT_GT(r.switch_drops, 0u);
  EXPECT_GT(r.retransmitted, 0u);
}

}  // namespace
}  // namespace rnicsim
