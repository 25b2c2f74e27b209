#include "host/kernel/tcp_connection.hpp"

#include <algorithm>
#include <stdexcept>
#include <utility>

namespace rnicsim::kernel {

namespace {

// Linux bounds the segment size to half the largest window the peer has
// offered once that window exceeds TCP_MSS_DEFAULT (tcp_bound_to_half_wnd),
// RFC 1122 4.2.3.4's Fs = 1/2, so that a small window still carries two
// segments; never below 68 bytes (the IPv4 minimum MTU) less the TCP header.
constexpr std::uint32_t kTcpMssDefault = 536;
constexpr std::uint32_t kIpv4MinimumMtu = 68;

}  // namespace

TcpConnection::TcpConnection(std::string name, const TcpConfig& config,
                             std::uint32_t send_initial_seq, std::uint32_t receive_initial_seq,
                             std::uint32_t peer_window_bytes)
    : name_(std::move(name)),
      config_(config),
      send_initial_seq_(send_initial_seq),
      send_right_edge_(peer_window_bytes),
      peer_window_(peer_window_bytes),
      max_peer_window_(peer_window_bytes),
      receive_initial_seq_(receive_initial_seq),
      advertised_right_edge_(0),
      quickacks_left_(config.quickack_segments) {
  if (config_.mss == 0) throw std::invalid_argument(error_prefix() + "mss 0");
  for (const auto& [key, bytes] :
       {std::pair{"send_buffer_bytes", config_.send_buffer_bytes},
        std::pair{"receive_buffer_bytes", config_.receive_buffer_bytes}}) {
    if (bytes == 0 || bytes > kMaxTcpBufferBytes) {
      throw std::invalid_argument(error_prefix() + key + " " + std::to_string(bytes) +
                                  " outside 1 .. 2^30");
    }
  }
  if (config_.window_scale > kMaxWindowScale) {
    throw std::invalid_argument(error_prefix() + "window_scale " +
                                std::to_string(config_.window_scale) + " above 14 (RFC 7323)");
  }
  if (!(config_.delayed_ack_ns >= 0)) {
    throw std::invalid_argument(error_prefix() + "delayed_ack_ns negative");
  }
  // The handshake announced the whole receive buffer.
  advertised_right_edge_ = advertised_window();
}

// --- Sender half -----------------------------------------------------------

std::size_t TcpConnection::queue(std::size_t bytes) {
  const std::size_t accepted = std::min<std::size_t>(bytes, send_buffer_free());
  queued_end_ += accepted;
  return accepted;
}

std::optional<TcpSegment> TcpConnection::next_segment() {
  const std::uint32_t mss = send_mss();
  const std::uint32_t length = std::min(mss, unsent_bytes());
  if (length == 0) return std::nullopt;
  // Sender silly-window avoidance as Linux does it (tcp_snd_wnd_test): the
  // segment goes only if it fits the window whole; a full-sized one is never
  // cut down to a window's leftover.
  if (nxt_ + length > send_right_edge_) return std::nullopt;
  // Nagle as Linux implements it (Minshall's variant, tcp_nagle_check): a
  // sub-MSS segment waits while an earlier sub-MSS segment is unacknowledged.
  const bool small = length < mss;
  if (config_.nagle && small && last_small_segment_end_ > una_) return std::nullopt;

  TcpSegment segment;
  segment.seq = snd_nxt();
  segment.stream_offset = nxt_;
  segment.length = length;
  segment.psh = nxt_ + length == queued_end_;
  nxt_ += length;
  if (small) last_small_segment_end_ = nxt_;
  ++counters_.segments_sent;
  counters_.bytes_sent += length;
  return segment;
}

std::uint32_t TcpConnection::on_ack(std::uint32_t ack, std::uint32_t window_bytes) {
  // Sequence numbers wrap: the signed distance from snd_una tells old from new.
  const auto advance = static_cast<std::int32_t>(ack - snd_una());
  if (advance < 0) return 0;
  if (static_cast<std::uint64_t>(advance) > nxt_ - una_) {
    throw std::runtime_error(error_prefix() + "ACK " + std::to_string(ack) +
                             " acknowledges beyond snd_nxt " + std::to_string(snd_nxt()));
  }
  una_ += static_cast<std::uint64_t>(advance);
  peer_window_ = window_bytes;
  max_peer_window_ = std::max(max_peer_window_, window_bytes);
  send_right_edge_ = una_ + window_bytes;
  ++counters_.acks_received;
  return static_cast<std::uint32_t>(advance);
}

std::uint32_t TcpConnection::snd_una() const {
  return static_cast<std::uint32_t>(send_initial_seq_ + una_);
}

std::uint32_t TcpConnection::snd_nxt() const {
  return static_cast<std::uint32_t>(send_initial_seq_ + nxt_);
}

std::uint32_t TcpConnection::send_buffer_free() const {
  // Sent data stays in the send buffer until it is acknowledged.
  return config_.send_buffer_bytes - static_cast<std::uint32_t>(queued_end_ - una_);
}

std::uint32_t TcpConnection::send_mss() const {
  const std::uint32_t cutoff =
      max_peer_window_ > kTcpMssDefault ? max_peer_window_ / 2 : max_peer_window_;
  if (cutoff == 0 || config_.mss <= cutoff) return config_.mss;
  return std::max(cutoff, kIpv4MinimumMtu - config_.tcp_header_bytes());
}

// --- Receiver half ---------------------------------------------------------

ReceiveAction TcpConnection::on_segment(std::uint32_t seq, std::uint32_t length) {
  if (length == 0) {
    throw std::invalid_argument(error_prefix() + "on_segment without payload (a pure ACK)");
  }
  if (seq != rcv_nxt()) {
    throw std::runtime_error(error_prefix() + "segment seq " + std::to_string(seq) + " expected " +
                             std::to_string(rcv_nxt()) + " (no loss recovery)");
  }
  if (rcv_nxt_ + length > advertised_right_edge_) {
    const auto right_edge =
        static_cast<std::uint32_t>(receive_initial_seq_ + advertised_right_edge_);
    throw std::runtime_error(error_prefix() + "segment seq " + std::to_string(seq) + " length " +
                             std::to_string(length) +
                             " exceeds the advertised window (right edge " +
                             std::to_string(right_edge) + ")");
  }
  rcv_nxt_ += length;
  ++counters_.segments_received;
  counters_.bytes_received += length;

  // Linux (__tcp_ack_snd_check) ACKs at once when more than one full-sized
  // segment has arrived since the last ACK went out (rcv_nxt - rcv_wup >
  // rcv_mss: every other full segment), or in quick-ack mode; otherwise it
  // delays the ACK, keeping a timer that already runs.
  if (quickacks_left_ > 0 || rcv_nxt_ - rcv_acked_ > config_.mss) return ReceiveAction::kAckNow;
  if (delayed_ack_timer_running_) return ReceiveAction::kDelayedAckTimerRunning;
  delayed_ack_timer_running_ = true;
  return ReceiveAction::kStartDelayedAckTimer;
}

TcpAckFields TcpConnection::ack_sent(AckReason reason) {
  switch (reason) {
    case AckReason::kPiggyback:
      if (ack_pending()) ++counters_.piggybacked_acks;
      break;
    case AckReason::kImmediate:
      ++counters_.immediate_acks;
      break;
    case AckReason::kDelayedAckTimer:
      ++counters_.delayed_ack_timer_acks;
      break;
    case AckReason::kWindowUpdate:
      ++counters_.window_updates;
      break;
  }
  if (reason != AckReason::kPiggyback) ++counters_.pure_acks_sent;
  if (quickacks_left_ > 0) --quickacks_left_;
  rcv_acked_ = rcv_nxt_;
  delayed_ack_timer_running_ = false;

  TcpAckFields fields;
  fields.ack = rcv_nxt();
  fields.window_field = window_field(advertised_window(), config_.window_scale);
  fields.window_bytes = window_bytes(fields.window_field, config_.window_scale);
  // The peer may send up to the furthest edge it has seen; rounding to the
  // scale can pull a new edge back by less than one scale unit.
  advertised_right_edge_ = std::max(advertised_right_edge_, rcv_nxt_ + fields.window_bytes);
  return fields;
}

bool TcpConnection::app_read(std::uint32_t bytes) {
  if (bytes > readable_bytes()) {
    throw std::runtime_error(error_prefix() + "application reads " + std::to_string(bytes) +
                             " bytes, " + std::to_string(readable_bytes()) + " readable");
  }
  read_ += bytes;
  // Linux's tcp_cleanup_rbuf: an update goes when the window the peer still
  // has is at most half the buffer and the window now offered is at least
  // twice that. The window offered follows receiver SWS avoidance
  // (__tcp_select_window): none while the free space is below both half the
  // buffer and one mss.
  const std::uint64_t free_bytes = advertised_window();
  const std::uint64_t offered =
      free_bytes < config_.receive_buffer_bytes / 2 && free_bytes < config_.mss ? 0 : free_bytes;
  const std::uint64_t peer_has =
      advertised_right_edge_ > rcv_nxt_ ? advertised_right_edge_ - rcv_nxt_ : 0;
  return 2 * peer_has <= config_.receive_buffer_bytes && offered != 0 && offered >= 2 * peer_has;
}

std::uint32_t TcpConnection::rcv_nxt() const {
  return static_cast<std::uint32_t>(receive_initial_seq_ + rcv_nxt_);
}

std::uint32_t TcpConnection::advertised_window() const {
  const std::uint32_t free_bytes = config_.receive_buffer_bytes - readable_bytes();
  return window_bytes(window_field(free_bytes, config_.window_scale), config_.window_scale);
}

const StatisticsTable<TcpCounters>& tcp_statistics() {
  static const StatisticsTable<TcpCounters> table(
      "tcp",
      {
          {"segments_sent", "segments", &TcpCounters::segments_sent, "data segments sent"},
          {"bytes_sent", "bytes", &TcpCounters::bytes_sent, "payload bytes sent"},
          {"segments_received", "segments", &TcpCounters::segments_received, "data segments received"},
          {"bytes_received", "bytes", &TcpCounters::bytes_received, "payload bytes received"},
          {"acks_received", "ACKs", &TcpCounters::acks_received, "ACKs taken (not ignored)"},
          {"piggybacked_acks", "ACKs", &TcpCounters::piggybacked_acks, "pending ACKs that went out on data"},
          {"pure_acks_sent", "ACKs", &TcpCounters::pure_acks_sent, "ACKs sent without data: the three kinds below"},
          {"immediate_acks", "ACKs", &TcpCounters::immediate_acks, "ACKs sent at once: every other full segment, or quick-ack"},
          {"delayed_ack_timer_acks", "ACKs", &TcpCounters::delayed_ack_timer_acks, "ACKs the delayed-ACK timer sent"},
          {"window_updates", "segments", &TcpCounters::window_updates, "window updates sent"},
      });
  return table;
}

}  // namespace rnicsim::kernel
