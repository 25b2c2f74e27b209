#pragma once
// One ESTABLISHED TCP connection as the host's kernel keeps it: the sender's
// send buffer and window, the receiver's receive buffer, window and
// acknowledgement rules. No SystemC here: the caller owns time, frames and the
// delayed-ACK timer, and asks this object what to send and when to ACK.
//
// The connection starts established with the initial sequence numbers given
// (the handshake is not modelled, as RC QPs start at RTS). There is no loss
// recovery and no congestion control: the peer's window alone bounds the data
// in flight, so a receive buffer cannot overflow, and a segment that does not
// start at rcv_nxt (a loss, a duplicate, a reordering) is an error naming the
// connection. The rules and their sources are in README.md.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include "common/statistics.hpp"

namespace rnicsim::kernel {

// RFC 7323 2.3: a window scale is at most 14, so a window is at most 2^30 bytes.
constexpr std::uint8_t kMaxWindowScale = 14;
constexpr std::uint32_t kMaxTcpBufferBytes = 1u << 30;

// TCP payload bytes per segment on an Ethernet MTU: the MTU less 20 bytes of
// IPv4 and 20 of TCP header, and 12 more with the timestamp option.
constexpr std::uint32_t tcp_mss_for_mtu(std::uint32_t mtu, bool timestamps) {
  return mtu - 40 - (timestamps ? 12 : 0);
}

// The 16-bit window field for a window of `bytes` (RFC 7323 2.3: the field is
// the window shifted right by the scale), saturating at 0xFFFF.
constexpr std::uint16_t window_field(std::uint32_t bytes, std::uint8_t scale) {
  const std::uint32_t field = bytes >> scale;
  return static_cast<std::uint16_t>(field > 0xFFFF ? 0xFFFF : field);
}
// The window in bytes a received field announces.
constexpr std::uint32_t window_bytes(std::uint16_t field, std::uint8_t scale) {
  return std::uint32_t{field} << scale;
}

// Defaults are Linux's on a 1500-byte MTU. Buffers count payload bytes (Linux
// counts socket memory, which includes per-buffer overhead).
struct TcpConfig {
  std::uint32_t mss = tcp_mss_for_mtu(1500, true);  // bytes of payload per segment
  // Linux's initial tcp_wmem[1] and tcp_rmem[1]; its autotuning (up to
  // tcp_wmem[2] = 4 MiB and tcp_rmem[2] = 6 MiB) is not modelled.
  std::uint32_t send_buffer_bytes = 16384;
  std::uint32_t receive_buffer_bytes = 131072;
  double delayed_ack_ns = 40e6;   // Linux TCP_DELACK_MIN (HZ/25)
  bool nagle = false;             // false: TCP_NODELAY, as netperf and perftest-style tests set
  std::uint8_t window_scale = 7;  // Linux picks 7 for its 6 MiB tcp_rmem[2]
  bool timestamps = true;         // RFC 7323 option on every segment (12 header bytes)
  // ACKs sent at once regardless of the delayed-ACK rules, from the start.
  // 0: the connection starts in steady state (see README.md); 16 is Linux's
  // budget on a new connection (TCP_MAX_QUICKACKS).
  std::uint32_t quickack_segments = 0;

  // TCP header bytes on every segment: 20, or 32 with timestamps.
  std::uint32_t tcp_header_bytes() const { return timestamps ? 32 : 20; }
};

// A data segment the sender may put on the wire now.
struct TcpSegment {
  std::uint32_t seq = 0;
  std::uint64_t stream_offset = 0;  // of its first byte, from the first byte ever queued
  std::uint32_t length = 0;
  bool psh = false;  // it ends the data queued so far
};

// What an ACK going out carries.
struct TcpAckFields {
  std::uint32_t ack = 0;           // rcv_nxt
  std::uint32_t window_bytes = 0;  // advertised_window()
  std::uint16_t window_field = 0;  // window_bytes >> window_scale
};

// Why an ACK goes out; it only sorts the counters.
enum class AckReason : std::uint8_t {
  kPiggyback,        // on a data segment going the other way
  kImmediate,        // a pure ACK because on_segment() said kAckNow
  kDelayedAckTimer,  // a pure ACK because the delayed-ACK timer fired
  kWindowUpdate,     // a pure ACK because app_read() said the window opened
};

// What the receiver must do after a data segment.
enum class ReceiveAction : std::uint8_t {
  kAckNow,                  // send an ACK now (a pure one, or on data already going)
  kStartDelayedAckTimer,    // start the delayed-ACK timer: delayed_ack_ns from now
  kDelayedAckTimerRunning,  // the timer already runs for earlier data; nothing to do
};

struct TcpCounters {
  std::uint64_t segments_sent = 0;  // data segments
  std::uint64_t bytes_sent = 0;     // payload
  std::uint64_t segments_received = 0;
  std::uint64_t bytes_received = 0;
  std::uint64_t acks_received = 0;     // on_ack() calls that were not ignored
  std::uint64_t piggybacked_acks = 0;  // pending ACKs that went out on data
  std::uint64_t pure_acks_sent = 0;    // all three kinds below
  std::uint64_t immediate_acks = 0;    // every other full segment, or quick-ack
  std::uint64_t delayed_ack_timer_acks = 0;
  std::uint64_t window_updates = 0;
};

// TcpCounters' names, units and meanings (common/statistics.hpp).
const StatisticsTable<TcpCounters>& tcp_statistics();

class TcpConnection {
 public:
  // `send_initial_seq` and `receive_initial_seq` are the sequence numbers of
  // the first data byte each way (the SYNs' numbers plus one).
  // `peer_window_bytes` is the window the peer announced in its handshake.
  // Throws std::invalid_argument naming the connection for a bad config: mss
  // 0, a buffer of 0 or above 1 GiB, window_scale above 14, a negative
  // delayed_ack_ns.
  TcpConnection(std::string name, const TcpConfig& config, std::uint32_t send_initial_seq,
                std::uint32_t receive_initial_seq, std::uint32_t peer_window_bytes);

  const std::string& name() const { return name_; }
  const TcpConfig& config() const { return config_; }
  const TcpCounters& counters() const { return counters_; }

  // --- Sender half ---------------------------------------------------------

  // Takes up to `bytes` of application data into the send buffer and returns
  // how many fitted; a blocking send() waits for on_ack() to free the rest.
  std::size_t queue(std::size_t bytes);
  // The next segment to send, or nullopt when nothing is queued, or the
  // segment does not fit the peer's window whole (sender silly-window
  // avoidance), or Nagle holds a sub-MSS segment. Calling it sends it:
  // snd_nxt advances.
  std::optional<TcpSegment> next_segment();
  // An ACK from the peer with the window it announces in bytes
  // (window_bytes() of its field). An ACK before snd_una is ignored; one
  // equal to snd_una only updates the window. Returns the bytes it frees
  // from the send buffer. Throws std::runtime_error naming the connection
  // for an ACK beyond snd_nxt.
  std::uint32_t on_ack(std::uint32_t ack, std::uint32_t window_bytes);

  std::uint32_t snd_una() const;
  std::uint32_t snd_nxt() const;
  std::uint32_t bytes_in_flight() const { return static_cast<std::uint32_t>(nxt_ - una_); }
  std::uint32_t unsent_bytes() const { return static_cast<std::uint32_t>(queued_end_ - nxt_); }
  std::uint32_t send_buffer_free() const;
  std::uint32_t peer_window() const { return peer_window_; }
  // The largest segment the sender builds: mss, or less when the peer's
  // largest window is small (see the .cpp).
  std::uint32_t send_mss() const;

  // --- Receiver half -------------------------------------------------------

  // A segment carrying `length` (> 0) payload bytes at `seq`. Throws
  // std::runtime_error naming the connection when it does not start at
  // rcv_nxt ("connection <name>: segment seq X expected Y (no loss
  // recovery)") or ends beyond the window advertised to the peer. Pure ACKs
  // go to on_ack() alone.
  ReceiveAction on_segment(std::uint32_t seq, std::uint32_t length);
  // The delayed-ACK timer fired: true when an ACK must go now. The caller
  // cancels its timer whenever an ACK goes out (ack_sent()), so a firing
  // means the ACK is still owed.
  bool on_delayed_ack_timer() const { return delayed_ack_timer_running_; }
  // An ACK went out (pure, or on a data segment): returns what it carries.
  // Clears the data waiting for an ACK, stops the delayed-ACK timer and
  // records the window advertised.
  TcpAckFields ack_sent(AckReason reason);
  // The application read `bytes` from the receive buffer. True when a window
  // update must go now (receiver silly-window avoidance, RFC 1122 4.2.3.3):
  // Linux's rule (tcp_cleanup_rbuf): the window the peer still has is at most
  // half the buffer, and the window now offered (none while the free space is
  // below both half the buffer and one mss: receiver SWS avoidance) is at
  // least twice it. Throws std::runtime_error naming the connection when
  // fewer bytes are readable.
  bool app_read(std::uint32_t bytes);

  std::uint32_t rcv_nxt() const;
  std::uint32_t readable_bytes() const { return static_cast<std::uint32_t>(rcv_nxt_ - read_); }
  bool ack_pending() const { return rcv_nxt_ != rcv_acked_; }
  bool delayed_ack_timer_running() const { return delayed_ack_timer_running_; }
  // Free receive buffer, rounded down to what the scaled field can carry.
  std::uint32_t advertised_window() const;

 private:
  std::string error_prefix() const { return "connection " + name_ + ": "; }

  std::string name_;
  TcpConfig config_;
  TcpCounters counters_;

  // Sender: stream offsets (64-bit, never wrapping) of snd_una, snd_nxt and
  // the end of the queued data; sequence numbers are offsets plus the ISN.
  std::uint32_t send_initial_seq_;
  std::uint64_t una_ = 0;
  std::uint64_t nxt_ = 0;
  std::uint64_t queued_end_ = 0;
  std::uint64_t send_right_edge_;  // snd_una + window at the last ACK
  std::uint32_t peer_window_;
  std::uint32_t max_peer_window_;
  // End of the last sub-MSS segment sent (Linux's snd_sml, for Nagle).
  std::uint64_t last_small_segment_end_ = 0;

  // Receiver: stream offsets of rcv_nxt, of the data the application has
  // read, of rcv_nxt when the last ACK went out (Linux's rcv_wup), and of the
  // furthest right edge ever advertised.
  std::uint32_t receive_initial_seq_;
  std::uint64_t rcv_nxt_ = 0;
  std::uint64_t read_ = 0;
  std::uint64_t rcv_acked_ = 0;
  std::uint64_t advertised_right_edge_;
  std::uint32_t quickacks_left_;
  bool delayed_ack_timer_running_ = false;
};

}  // namespace rnicsim::kernel
