// PacketInbox (nic/transport/packet_inbox.hpp) and Channel::take_head: a thread
// that takes packets through the inbox must see every packet at the times a
// thread popping them and then waiting its delay sees them, and its writer
// must be held back exactly as much. Two copies of one queue run side by
// side on the same seeded stimulus, one read each way, through idle stretches
// (the inbox takes packets at their push, or the head before it is visible)
// and bursts that fill the queue (the writer blocks).
#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <string>
#include <systemc>
#include <vector>

#include "common/channel.hpp"
#include "common/time_units.hpp"
#include "nic/transport/packet_inbox.hpp"

namespace rnicsim {
namespace {

constexpr std::uint32_t kPackets = 400;
const sc_core::sc_time kDelay = nanoseconds(8);

packet::ReceivedPacket numbered(std::uint32_t n) {
  packet::ReceivedPacket p;
  p.packet.bth.psn = n;
  return p;
}

// Pushes kPackets packets with seeded gaps and latencies; records when each
// push returned (a full queue blocks it).
class Writer : public sc_core::sc_module {
 public:
  sc_core::sc_port<PushIf<packet::ReceivedPacket>> out;
  std::vector<std::uint64_t> pushed_ps;

  SC_HAS_PROCESS(Writer);
  explicit Writer(const sc_core::sc_module_name& name) : sc_core::sc_module(name), out("out") {
    SC_THREAD(run);
  }

 private:
  void run() {
    std::mt19937 random(7);
    for (std::uint32_t n = 0; n < kPackets; ++n) {
      // Bursts of back-to-back packets, then gaps long enough to drain the queue.
      const std::uint64_t gap_ps = n % 40 < 20 ? random() % 3000 : 20000 + random() % 60000;
      sc_core::wait(picoseconds(gap_ps));
      out->push(numbered(n), picoseconds(1000 + random() % 40000));
      pushed_ps.push_back(to_ps(sc_core::sc_time_stamp()));
    }
  }
};

// What a reader saw of one packet: its number, when it was popped, when the
// reader acted on it.
struct Seen {
  std::uint32_t psn;
  std::uint64_t popped_ps;
  std::uint64_t acted_ps;
  bool operator==(const Seen& o) const {
    return psn == o.psn && popped_ps == o.popped_ps && acted_ps == o.acted_ps;
  }
};

// Spends a packet-dependent time on each packet after acting on it, so that
// it is sometimes free when packets come and sometimes behind.
sc_core::sc_time work(std::uint32_t psn) { return picoseconds((psn % 7) * 9000); }

// Pops, then waits its delay: what the responder and completer did before the inbox.
class PoppingReader : public sc_core::sc_module {
 public:
  sc_core::sc_port<PopIf<packet::ReceivedPacket>> in;
  std::vector<Seen> seen;

  SC_HAS_PROCESS(PoppingReader);
  explicit PoppingReader(const sc_core::sc_module_name& name)
      : sc_core::sc_module(name), in("in") {
    SC_THREAD(run);
  }

 private:
  void run() {
    for (;;) {
      const packet::ReceivedPacket p = in->pop();
      const std::uint64_t popped = to_ps(sc_core::sc_time_stamp());
      sc_core::wait(kDelay);
      seen.push_back(Seen{p.packet.bth.psn, popped, to_ps(sc_core::sc_time_stamp())});
      sc_core::wait(work(p.packet.bth.psn));
    }
  }
};

class InboxReader : public sc_core::sc_module {
 public:
  sc_core::sc_port<PopIf<packet::ReceivedPacket>> in;
  std::vector<Seen> seen;

  SC_HAS_PROCESS(InboxReader);
  explicit InboxReader(const sc_core::sc_module_name& name)
      : sc_core::sc_module(name), in("in"), inbox_(kDelay) {
    SC_THREAD(run);
  }

 private:
  void end_of_elaboration() override { inbox_.attach(in.get_interface()); }
  void run() {
    for (;;) {
      packet::ReceivedPacket p;
      const sc_core::sc_time popped = inbox_.next(in, p);
      seen.push_back(Seen{p.packet.bth.psn, to_ps(popped), to_ps(sc_core::sc_time_stamp())});
      sc_core::wait(work(p.packet.bth.psn));
    }
  }
  PacketInbox inbox_;
};

TEST(PacketInbox, SeesEveryPacketWhenAPoppingReaderWouldAndHoldsTheWriterBackAlike) {
  Channel<packet::ReceivedPacket> popped_queue("popped_queue", 3);
  Channel<packet::ReceivedPacket> inbox_queue("inbox_queue", 3);
  Writer popped_writer("popped_writer");
  Writer inbox_writer("inbox_writer");
  PoppingReader popping("popping");
  InboxReader inbox("inbox");
  popped_writer.out(popped_queue);
  popping.in(popped_queue);
  inbox_writer.out(inbox_queue);
  inbox.in(inbox_queue);
  sc_core::sc_start();

  ASSERT_EQ(popping.seen.size(), kPackets);
  ASSERT_EQ(inbox.seen.size(), kPackets);
  for (std::uint32_t n = 0; n < kPackets; ++n) {
    EXPECT_EQ(inbox.seen[n], popping.seen[n]) << "packet " << n;
    EXPECT_EQ(inbox.seen[n].psn, n);
  }
  EXPECT_EQ(inbox_writer.pushed_ps, popped_writer.pushed_ps);
  EXPECT_EQ(inbox_queue.peak_occupancy(), popped_queue.peak_occupancy());
  // Both ways were taken: packets whose place was held (pushed into an empty
  // queue, or taken as the head before they were visible) and packets popped.
  EXPECT_GT(inbox_queue.taken_early(), kPackets / 4);
  EXPECT_LT(inbox_queue.taken_early(), kPackets);
  EXPECT_EQ(popped_queue.taken_early(), 0u);
}

TEST(ChannelTakeHead, TakesAnInvisibleHeadAndHoldsItsPlaceUntilItWouldHaveBeenPopped) {
  Channel<packet::ReceivedPacket> queue("queue", 1);
  packet::ReceivedPacket out;
  sc_core::sc_time popped_at;
  EXPECT_FALSE(queue.take_head(out, popped_at));  // nothing to take
  queue.nb_push(numbered(5), nanoseconds(10));
  ASSERT_TRUE(queue.take_head(out, popped_at));
  EXPECT_EQ(out.packet.bth.psn, 5u);
  EXPECT_EQ(popped_at, nanoseconds(10));
  EXPECT_EQ(queue.size(), 0u);
  // The place is still taken: a capacity-1 queue stays full until then.
  EXPECT_FALSE(queue.can_push());
  sc_core::sc_start(nanoseconds(9));
  EXPECT_FALSE(queue.can_push());
  sc_core::sc_start(nanoseconds(1));
  EXPECT_TRUE(queue.can_push());
  // A visible head is popped now.
  queue.nb_push(numbered(6), sc_core::SC_ZERO_TIME);
  ASSERT_TRUE(queue.take_head(out, popped_at));
  EXPECT_EQ(out.packet.bth.psn, 6u);
  EXPECT_EQ(popped_at, nanoseconds(10));
  EXPECT_TRUE(queue.can_push());
}

}  // namespace
}  // namespace rnicsim
