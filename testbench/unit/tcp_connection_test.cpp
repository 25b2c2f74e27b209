// One established TCP connection without the kernel around it: the window
// bounds the bytes in flight exactly, ACKs follow Linux's every-other-segment
// and delayed-ACK rules, the receiver opens its window by RFC 1122's rule, and
// a lost or duplicated segment is an error that names the connection.
#include "host/kernel/tcp_connection.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>

namespace rnicsim::kernel {
namespace {

constexpr std::uint32_t kMss = 1448;

// The message of the std::runtime_error `action` throws; empty if none.
template <typename Action>
std::string error_of(Action action) {
  try {
    action();
  } catch (const std::exception& error) {
    return error.what();
  }
  return "";
}

TcpConfig big_send_buffer() {
  TcpConfig config;
  config.send_buffer_bytes = 1 << 20;
  return config;
}

TEST(TcpConnection, DefaultsAreLinuxOnA1500ByteMtu) {
  const TcpConfig config;
  EXPECT_EQ(config.mss, 1448u);
  EXPECT_EQ(tcp_mss_for_mtu(1500, false), 1460u);
  EXPECT_EQ(config.tcp_header_bytes(), 32u);
  EXPECT_TRUE(config.timestamps);
  EXPECT_FALSE(config.nagle);
  EXPECT_EQ(config.window_scale, 7);
  EXPECT_EQ(config.delayed_ack_ns, 40e6);
  EXPECT_EQ(config.send_buffer_bytes, 16384u);
  EXPECT_EQ(config.receive_buffer_bytes, 131072u);
  EXPECT_EQ(config.quickack_segments, 0u);
}

TEST(TcpConnection, WindowFieldIsScaledAndSaturates) {
  EXPECT_EQ(window_field(131072, 7), 1024);
  EXPECT_EQ(window_bytes(1024, 7), 131072u);
  EXPECT_EQ(window_field(1000, 7), 7);  // 896 bytes: rounded down to the scale's unit
  EXPECT_EQ(window_field(1u << 30, 7), 0xFFFF);
  EXPECT_EQ(window_field(65535, 0), 0xFFFF);
  EXPECT_EQ(window_bytes(0xFFFF, 14), 0xFFFFu << 14);
}

TEST(TcpConnection, BadConfigNamesTheConnection) {
  TcpConfig config;
  config.mss = 0;
  EXPECT_EQ(error_of([&] { TcpConnection("a:1", config, 0, 0, 65536); }), "connection a:1: mss 0");
  config = TcpConfig{};
  config.window_scale = 15;
  EXPECT_EQ(error_of([&] { TcpConnection("a:1", config, 0, 0, 65536); }),
            "connection a:1: window_scale 15 above 14 (RFC 7323)");
  config = TcpConfig{};
  config.receive_buffer_bytes = 0;
  EXPECT_EQ(error_of([&] { TcpConnection("a:1", config, 0, 0, 65536); }),
            "connection a:1: receive_buffer_bytes 0 outside 1 .. 2^30");
}

// --- Sender ------------------------------------------------------------------

TEST(TcpConnection, WindowLimitsBytesInFlightExactly) {
  const std::uint32_t window = 4 * kMss;
  TcpConnection sender("s", big_send_buffer(), 5000, 0, window);
  ASSERT_EQ(sender.queue(100000), 100000u);
  for (std::uint32_t i = 0; i < 4; ++i) {
    const auto segment = sender.next_segment();
    ASSERT_TRUE(segment);
    EXPECT_EQ(segment->seq, 5000 + i * kMss);
    EXPECT_EQ(segment->stream_offset, i * kMss);
    EXPECT_EQ(segment->length, kMss);
    EXPECT_FALSE(segment->psh);
  }
  EXPECT_FALSE(sender.next_segment());
  EXPECT_EQ(sender.bytes_in_flight(), window);
  // Each ACK of one segment opens room for exactly one more.
  for (std::uint32_t i = 1; i <= 3; ++i) {
    EXPECT_EQ(sender.on_ack(5000 + i * kMss, window), kMss);
    ASSERT_TRUE(sender.next_segment());
    EXPECT_FALSE(sender.next_segment());
    EXPECT_EQ(sender.bytes_in_flight(), window);
  }
  EXPECT_EQ(sender.snd_una(), 5000 + 3 * kMss);
  EXPECT_EQ(sender.snd_nxt(), 5000 + 7 * kMss);
}

TEST(TcpConnection, FullSegmentWaitsForRoomForAllOfIt) {
  // 5000 bytes of window: three full segments (4344), then 656 bytes of room,
  // which a full segment does not fit (sender silly-window avoidance).
  TcpConnection sender("s", big_send_buffer(), 0, 0, 5000);
  sender.queue(10000);
  for (int i = 0; i < 3; ++i) ASSERT_TRUE(sender.next_segment());
  EXPECT_FALSE(sender.next_segment());
  EXPECT_EQ(sender.bytes_in_flight(), 3 * kMss);
  // The tail of the data does fit whole when it is small enough.
  TcpConnection tail("t", big_send_buffer(), 0, 0, 5000);
  tail.queue(4900);
  for (int i = 0; i < 3; ++i) ASSERT_TRUE(tail.next_segment());
  const auto last = tail.next_segment();
  ASSERT_TRUE(last);
  EXPECT_EQ(last->length, 4900 - 3 * kMss);
  EXPECT_TRUE(last->psh);
  EXPECT_EQ(tail.bytes_in_flight(), 4900u);
}

TEST(TcpConnection, SegmentSizeBoundedByHalfTheLargestPeerWindow) {
  TcpConnection sender("s", big_send_buffer(), 0, 0, 2000);
  EXPECT_EQ(sender.send_mss(), 1000u);
  sender.queue(3000);
  EXPECT_EQ(sender.next_segment()->length, 1000u);
  EXPECT_EQ(sender.next_segment()->length, 1000u);
  EXPECT_FALSE(sender.next_segment());
  sender.on_ack(2000, 8000);  // a larger window restores the full mss
  EXPECT_EQ(sender.send_mss(), kMss);
}

TEST(TcpConnection, SendBufferHoldsQueuedAndUnacknowledgedBytes) {
  TcpConnection sender("s", TcpConfig{}, 0, 0, 131072);
  EXPECT_EQ(sender.queue(20000), 16384u);
  EXPECT_EQ(sender.queue(1), 0u);
  ASSERT_TRUE(sender.next_segment());
  EXPECT_EQ(sender.send_buffer_free(), 0u);  // sent, not yet acknowledged
  EXPECT_EQ(sender.on_ack(kMss, 131072), kMss);
  EXPECT_EQ(sender.send_buffer_free(), kMss);
  EXPECT_EQ(sender.queue(5000), kMss);
}

TEST(TcpConnection, PshMarksTheEndOfTheQueuedData) {
  TcpConnection sender("s", big_send_buffer(), 0, 0, 131072);
  sender.queue(3000);
  const auto first = sender.next_segment();
  const auto second = sender.next_segment();
  const auto third = sender.next_segment();
  ASSERT_TRUE(first && second && third);
  EXPECT_FALSE(first->psh);
  EXPECT_FALSE(second->psh);
  EXPECT_TRUE(third->psh);
  EXPECT_EQ(third->length, 3000 - 2 * kMss);
  EXPECT_FALSE(sender.next_segment());
  EXPECT_EQ(sender.counters().segments_sent, 3u);
  EXPECT_EQ(sender.counters().bytes_sent, 3000u);
}

TEST(TcpConnection, AcksOldBeyondAndWindowOnly) {
  const std::uint32_t isn = 0xFFFFFF00;  // sequence numbers wrap after 256 bytes
  TcpConnection sender("host0:40000", big_send_buffer(), isn, 0, 131072);
  sender.queue(2 * kMss);
  sender.next_segment();
  sender.next_segment();
  EXPECT_EQ(sender.snd_nxt(), isn + 2 * kMss);
  EXPECT_EQ(sender.on_ack(isn + kMss, 0), kMss);   // a zero window
  EXPECT_EQ(sender.on_ack(isn + 10, 131072), 0u);  // old: ignored, window too
  EXPECT_EQ(sender.peer_window(), 0u);
  EXPECT_EQ(sender.counters().acks_received, 1u);
  EXPECT_EQ(error_of([&] { sender.on_ack(isn + 2 * kMss + 1, 131072); }),
            "connection host0:40000: ACK " + std::to_string(isn + 2 * kMss + 1) +
                " acknowledges beyond snd_nxt " + std::to_string(isn + 2 * kMss));
  sender.queue(100);
  EXPECT_FALSE(sender.next_segment());              // the window is closed
  EXPECT_EQ(sender.on_ack(isn + kMss, 65536), 0u);  // a window update: same ACK, new window
  EXPECT_EQ(sender.peer_window(), 65536u);
  EXPECT_TRUE(sender.next_segment());
}

TEST(TcpConnection, NagleHoldsASmallSegmentWhileASmallOneIsUnacknowledged) {
  TcpConfig config = big_send_buffer();
  config.nagle = true;
  TcpConnection sender("s", config, 0, 0, 131072);
  sender.queue(100);
  ASSERT_TRUE(sender.next_segment());
  sender.queue(100);
  EXPECT_FALSE(sender.next_segment());
  sender.queue(2 * kMss);
  const auto full = sender.next_segment();  // full-sized segments go regardless
  ASSERT_TRUE(full);
  EXPECT_EQ(full->length, kMss);
  ASSERT_TRUE(sender.next_segment());
  EXPECT_FALSE(sender.next_segment());  // the 100-byte rest waits
  sender.on_ack(100, 131072);
  const auto rest = sender.next_segment();
  ASSERT_TRUE(rest);
  EXPECT_EQ(rest->length, 100u);

  TcpConnection no_delay("n", big_send_buffer(), 0, 0, 131072);
  for (int i = 0; i < 5; ++i) {
    no_delay.queue(100);
    ASSERT_TRUE(no_delay.next_segment());
  }
}

// --- Receiver ------------------------------------------------------------------

TEST(TcpConnection, AcksEverySecondFullSegmentAndDelaysTheOther) {
  TcpConnection receiver("r", TcpConfig{}, 0, 7000, 131072);
  EXPECT_EQ(receiver.on_segment(7000, kMss), ReceiveAction::kStartDelayedAckTimer);
  EXPECT_TRUE(receiver.delayed_ack_timer_running());
  EXPECT_EQ(receiver.on_segment(7000 + kMss, kMss), ReceiveAction::kAckNow);
  const TcpAckFields ack = receiver.ack_sent(AckReason::kImmediate);
  EXPECT_EQ(ack.ack, 7000 + 2 * kMss);
  EXPECT_EQ(ack.window_field, (131072 - 2 * kMss) >> 7);  // 1001: 128128 bytes
  EXPECT_EQ(ack.window_bytes, 128128u);
  EXPECT_FALSE(receiver.delayed_ack_timer_running());
  EXPECT_FALSE(receiver.ack_pending());

  EXPECT_EQ(receiver.on_segment(7000 + 2 * kMss, kMss), ReceiveAction::kStartDelayedAckTimer);
  EXPECT_TRUE(receiver.on_delayed_ack_timer());
  EXPECT_EQ(receiver.ack_sent(AckReason::kDelayedAckTimer).ack, 7000 + 3 * kMss);
  EXPECT_FALSE(receiver.on_delayed_ack_timer());

  const TcpCounters& counters = receiver.counters();
  EXPECT_EQ(counters.segments_received, 3u);
  EXPECT_EQ(counters.bytes_received, 3 * kMss);
  EXPECT_EQ(counters.pure_acks_sent, 2u);
  EXPECT_EQ(counters.immediate_acks, 1u);
  EXPECT_EQ(counters.delayed_ack_timer_acks, 1u);
}

TEST(TcpConnection, SmallSegmentsAreAckedOnceMoreThanOneMssArrived) {
  TcpConnection receiver("r", TcpConfig{}, 0, 0, 131072);
  EXPECT_EQ(receiver.on_segment(0, 100), ReceiveAction::kStartDelayedAckTimer);
  for (std::uint32_t i = 1; i < 14; ++i) {
    EXPECT_EQ(receiver.on_segment(i * 100, 100), ReceiveAction::kDelayedAckTimerRunning) << i;
  }
  // 1500 bytes since the last ACK: more than one full-sized segment.
  EXPECT_EQ(receiver.on_segment(1400, 100), ReceiveAction::kAckNow);
}

TEST(TcpConnection, QuickAckSegmentsAreAckedAtOnce) {
  TcpConfig config;
  config.quickack_segments = 2;
  TcpConnection receiver("r", config, 0, 0, 131072);
  EXPECT_EQ(receiver.on_segment(0, 64), ReceiveAction::kAckNow);
  receiver.ack_sent(AckReason::kImmediate);
  EXPECT_EQ(receiver.on_segment(64, 64), ReceiveAction::kAckNow);
  receiver.ack_sent(AckReason::kImmediate);
  EXPECT_EQ(receiver.on_segment(128, 64), ReceiveAction::kStartDelayedAckTimer);
}

TEST(TcpConnection, PiggybackedAckClearsThePendingAck) {
  TcpConnection peer("r", TcpConfig{}, 300, 0, 131072);
  EXPECT_EQ(peer.on_segment(0, 64), ReceiveAction::kStartDelayedAckTimer);
  EXPECT_TRUE(peer.ack_pending());
  // The response goes out carrying the ACK.
  peer.queue(64);
  const auto response = peer.next_segment();
  ASSERT_TRUE(response);
  EXPECT_EQ(response->seq, 300u);
  const TcpAckFields ack = peer.ack_sent(AckReason::kPiggyback);
  EXPECT_EQ(ack.ack, 64u);
  EXPECT_FALSE(peer.ack_pending());
  EXPECT_FALSE(peer.delayed_ack_timer_running());
  EXPECT_FALSE(peer.on_delayed_ack_timer());
  EXPECT_EQ(peer.counters().piggybacked_acks, 1u);
  EXPECT_EQ(peer.counters().pure_acks_sent, 0u);
  // Data with nothing to acknowledge is no piggybacked ACK.
  peer.ack_sent(AckReason::kPiggyback);
  EXPECT_EQ(peer.counters().piggybacked_acks, 1u);
  // The next request starts a fresh timer.
  EXPECT_EQ(peer.on_segment(64, 64), ReceiveAction::kStartDelayedAckTimer);
}

TEST(TcpConnection, OutOfOrderOrDuplicateSegmentIsAnErrorNamingTheConnection) {
  TcpConnection receiver("host1:12865", TcpConfig{}, 0, 1000, 131072);
  EXPECT_EQ(error_of([&] { receiver.on_segment(1000 + kMss, kMss); }),
            "connection host1:12865: segment seq 2448 expected 1000 (no loss recovery)");
  receiver.on_segment(1000, kMss);
  EXPECT_EQ(error_of([&] { receiver.on_segment(1000, kMss); }),
            "connection host1:12865: segment seq 1000 expected 2448 (no loss recovery)");
}

TEST(TcpConnection, SegmentBeyondTheAdvertisedWindowIsAnError) {
  TcpConfig config;
  config.receive_buffer_bytes = 4096;
  config.window_scale = 0;
  TcpConnection receiver("r", config, 0, 0, 65535);
  EXPECT_EQ(receiver.advertised_window(), 4096u);
  receiver.on_segment(0, kMss);
  receiver.on_segment(kMss, kMss);
  receiver.ack_sent(AckReason::kImmediate);
  receiver.on_segment(2 * kMss, 4096 - 2 * kMss);
  EXPECT_EQ(receiver.advertised_window(), 0u);
  EXPECT_EQ(error_of([&] { receiver.on_segment(4096, 1); }),
            "connection r: segment seq 4096 length 1 exceeds the advertised window (right edge "
            "4096)");
}

TEST(TcpConnection, WindowUpdateWhenTheOfferedWindowDoublesWhatThePeerHas) {
  TcpConfig config;
  config.receive_buffer_bytes = 16384;
  config.window_scale = 0;
  TcpConnection receiver("r", config, 0, 0, 65535);
  // Ten full segments, acknowledged in pairs while the application reads
  // nothing: the right edge stays at 16384.
  for (std::uint32_t i = 0; i < 10; ++i) {
    if (receiver.on_segment(i * kMss, kMss) == ReceiveAction::kAckNow) {
      EXPECT_EQ(receiver.ack_sent(AckReason::kImmediate).window_bytes, 16384 - (i + 1) * kMss);
    }
  }
  EXPECT_EQ(receiver.advertised_window(), 16384 - 10 * kMss);  // 1904
  // The peer has 1904 bytes of window: an update is due once 3808 are free,
  // one byte short, then enough.
  EXPECT_FALSE(receiver.app_read(1903));
  EXPECT_TRUE(receiver.app_read(1));
  const TcpAckFields update = receiver.ack_sent(AckReason::kWindowUpdate);
  EXPECT_EQ(update.ack, 10 * kMss);
  EXPECT_EQ(update.window_bytes, 3808u);  // right edge 18288
  // Now the peer has 3808: 1000 more free bytes (4808) are not twice that.
  EXPECT_FALSE(receiver.app_read(1000));
  EXPECT_EQ(receiver.counters().window_updates, 1u);
  EXPECT_EQ(receiver.readable_bytes(), 10 * kMss - 1904 - 1000);
  EXPECT_EQ(error_of([&] { receiver.app_read(9 * kMss); }),
            "connection r: application reads 13032 bytes, 11576 readable");
}

TEST(TcpConnection, SmallBufferUpdatesAtHalfTheBuffer) {
  TcpConfig config;
  config.receive_buffer_bytes = 2000;
  config.window_scale = 0;
  TcpConnection receiver("r", config, 0, 0, 65535);
  receiver.on_segment(0, 1000);
  receiver.on_segment(1000, 1000);
  receiver.ack_sent(AckReason::kImmediate);
  EXPECT_FALSE(receiver.app_read(999));  // 999 free: below half the buffer and one mss
  EXPECT_TRUE(receiver.app_read(1));
}

// A sender and a receiver over a lossless wire that delivers at once, the
// receiving application reading in 5000-byte chunks: every byte arrives in
// order, the data in flight never exceeds the window last advertised, and no
// more than every other segment draws an immediate ACK.
TEST(TcpConnection, LosslessTransferStaysInsideTheWindow) {
  TcpConfig config;
  config.send_buffer_bytes = 65536;
  TcpConnection receiver("b", config, 0, 100, 0);
  TcpConnection sender("a", config, 100, 0, receiver.advertised_window());
  const std::uint64_t total = 1 << 20;
  std::uint64_t queued = 0;
  std::uint64_t read = 0;
  for (int round = 0; read < total; ++round) {
    ASSERT_LT(round, 100000) << "no progress";
    queued += sender.queue(static_cast<std::size_t>(total - queued));
    bool sent = false;
    while (const auto segment = sender.next_segment()) {
      sent = true;
      ASSERT_LE(sender.bytes_in_flight(), sender.peer_window());
      if (receiver.on_segment(segment->seq, segment->length) == ReceiveAction::kAckNow) {
        const TcpAckFields ack = receiver.ack_sent(AckReason::kImmediate);
        sender.on_ack(ack.ack, ack.window_bytes);
      }
    }
    const std::uint32_t chunk = std::min<std::uint32_t>(5000, receiver.readable_bytes());
    if (chunk > 0) {
      read += chunk;
      if (receiver.app_read(chunk)) {
        const TcpAckFields ack = receiver.ack_sent(AckReason::kWindowUpdate);
        sender.on_ack(ack.ack, ack.window_bytes);
      }
    } else if (!sent && receiver.on_delayed_ack_timer()) {
      const TcpAckFields ack = receiver.ack_sent(AckReason::kDelayedAckTimer);
      sender.on_ack(ack.ack, ack.window_bytes);
    }
  }
  if (receiver.on_delayed_ack_timer()) {
    const TcpAckFields ack = receiver.ack_sent(AckReason::kDelayedAckTimer);
    sender.on_ack(ack.ack, ack.window_bytes);
  }
  EXPECT_EQ(receiver.rcv_nxt(), 100 + total);
  EXPECT_EQ(receiver.counters().bytes_received, total);
  // At least 725 segments; more where the send buffer ended the queued data
  // mid-segment and TCP_NODELAY sent the short rest.
  const std::uint64_t segments = sender.counters().segments_sent;
  EXPECT_GE(segments, (total + kMss - 1) / kMss);
  EXPECT_EQ(sender.counters().bytes_sent, total);
  const TcpCounters& acks = receiver.counters();
  EXPECT_LE(acks.immediate_acks, segments / 2);
  EXPECT_GT(acks.immediate_acks, 0u);
  EXPECT_EQ(acks.pure_acks_sent,
            acks.immediate_acks + acks.delayed_ack_timer_acks + acks.window_updates);
  EXPECT_EQ(sender.snd_una(), 100 + total);
}

}  // namespace
}  // namespace rnicsim::kernel
