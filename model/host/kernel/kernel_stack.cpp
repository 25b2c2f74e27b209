#include "host/kernel/kernel_stack.hpp"

#include <algorithm>
#include <stdexcept>
#include <vector>

#include "common/message_breakdown.hpp"
#include "common/simulation.hpp"
#include "common/time_units.hpp"
#include "formats/tcp_header.hpp"

namespace rnicsim {
namespace {

constexpr std::uint32_t kMaxTcpFrameHeaders = 14 + 4 + 20 + 60;  // Ethernet, a tag, IPv4, TCP

EthernetDriverConfig driver_config(const KernelConfig& c) {
  EthernetDriverConfig d;
  d.tx_entries = c.ring_entries;
  d.rx_entries = c.ring_entries;
  d.rx_buffer_bytes = 2048;
  // Room for a ring's worth of full-sized frames, at least four of the largest.
  const std::uint32_t largest = (c.tso ? c.tso_max_bytes : c.tcp.mss) + kMaxTcpFrameHeaders;
  d.tx_copy_area_bytes = std::max<std::uint32_t>(4 * largest, c.ring_entries * 2048);
  // Enough spare buffers to hold a full receive window of mss-sized frames.
  d.rx_spare_buffers = c.tcp.receive_buffer_bytes / c.tcp.mss + 1;
  return d;
}

}  // namespace

KernelStack::KernelStack(const sc_core::sc_module_name& name, Host& host,
                         const KernelConfig& config, const TcpEndpoint& local,
                         const TcpEndpoint& peer, std::uint32_t send_isn,
                         std::uint32_t receive_isn, std::uint32_t peer_receive_buffer)
    : sc_core::sc_module(name),
      host_(host),
      config_(config),
      local_(local),
      peer_(peer),
      driver_(host, memory_, driver_config(config)),
      connection_(std::string(this->name()), config.tcp, send_isn, receive_isn,
                  peer_receive_buffer),
      app_core_(std::string(this->name()) + ".app_core"),
      softirq_core_(std::string(this->name()) + ".softirq_core") {
  send_buffer_ = memory_.allocate(config.tcp.send_buffer_bytes, 4096, "the socket send buffer");
  SC_THREAD(open_device);
  SC_THREAD(softirq);
  SC_THREAD(delayed_ack_timer);
}

void KernelStack::mark(const char* point) const {
  MessageBreakdown::instance().mark(*this, point);
}

void KernelStack::open_device() {
  driver_.open();
  device_open_ = true;
  device_opened_.notify(sc_core::SC_ZERO_TIME);
}

void KernelStack::lock_socket() {
  while (socket_locked_) sc_core::wait(socket_unlocked_);
  socket_locked_ = true;
}

void KernelStack::unlock_socket() {
  socket_locked_ = false;
  socket_unlocked_.notify(sc_core::SC_ZERO_TIME);
}

void KernelStack::send(std::uint64_t va, std::uint64_t length) {
  if (!device_open_) sc_core::wait(device_opened_);
  app_core_.run(config_.syscall, CpuWork::kSyscall);
  mark("send syscall");
  AddressSpace& process = host_.software().process;
  const std::uint32_t ring = config_.tcp.send_buffer_bytes;
  std::vector<std::uint8_t> chunk;
  std::uint64_t done = 0;
  while (done < length) {
    lock_socket();
    const std::size_t accepted = connection_.queue(length - done);
    if (accepted == 0) {  // the send buffer is full: sleep until ACKs free it
      unlock_socket();
      sc_core::wait(send_space_);
      continue;
    }
    chunk.resize(accepted);
    process.read(host_.memory, va + done, chunk.data(), accepted);
    for (std::size_t at = 0; at < accepted;) {
      const std::uint64_t offset = (queued_bytes_ + at) % ring;
      const std::size_t piece = std::min<std::size_t>(accepted - at, ring - offset);
      host_.memory.write_bytes(send_buffer_ + offset, chunk.data() + at, piece);
      at += piece;
    }
    queued_bytes_ += accepted;
    app_core_.run(config_.copy_time(accepted), CpuWork::kCopy);
    mark("copied from user");
    transmit_pending(app_core_);
    unlock_socket();
    done += accepted;
  }
}

void KernelStack::recv(std::uint64_t va, std::uint64_t length) {
  if (!device_open_) sc_core::wait(device_opened_);
  app_core_.run(config_.syscall, CpuWork::kSyscall);
  AddressSpace& process = host_.software().process;
  std::vector<std::uint8_t> chunk;
  std::uint64_t got = 0;
  while (got < length) {
    if (receive_queue_.empty()) {
      if (config_.busy_poll) {
        ++stats_.busy_polls;
        if (napi_poll(app_core_) == 0 && receive_queue_.empty()) {
          // A frame the NIC writes, or one the softirq queued meanwhile.
          app_core_.spin_until(driver_.receive_written() | data_arrived_);
        }
      } else {
        sc_core::wait(data_arrived_);
        ++stats_.wakeups;
        app_core_.run(config_.wakeup, CpuWork::kWakeup);
        mark("woken");
      }
      continue;
    }
    lock_socket();
    QueuedData& data = receive_queue_.front();
    const auto n = static_cast<std::uint32_t>(std::min<std::uint64_t>(length - got, data.length));
    chunk.resize(n);
    host_.memory.read_bytes(data.address, chunk.data(), n);
    process.write(host_.memory, va + got, chunk.data(), n);
    data.address += n;
    data.length -= n;
    if (data.length == 0) {
      driver_.release_rx_buffer(data.buffer);
      receive_queue_.pop_front();
    }
    got += n;
    app_core_.run(config_.copy_time(n), CpuWork::kCopy);
    if (connection_.app_read(n)) send_pure_ack(app_core_, kernel::AckReason::kWindowUpdate);
    unlock_socket();
  }
}

// NAPI: an interrupt schedules polls until one finds less than its budget,
// then the interrupt is re-armed.
void KernelStack::softirq() {
  if (!device_open_) sc_core::wait(device_opened_);
  for (;;) {
    sc_core::wait(driver_.interrupt());
    const sc_core::sc_time raised = sim_now();
    ++stats_.interrupts;
    softirq_core_.run(config_.interrupt, CpuWork::kInterrupt);
    const sc_core::sc_time entered = sim_now();
    std::size_t polled = napi_poll(softirq_core_);
    // Only an interrupt that brought frames is on a message's path (not the
    // sender's, for its transmit completions).
    if (polled > 0) {
      MessageBreakdown::instance().mark(*this, "interrupt", raised);
      MessageBreakdown::instance().mark(*this, "softirq entered", entered);
    }
    while (polled == config_.napi_budget) polled = napi_poll(softirq_core_);
    driver_.arm_interrupt();
  }
}

std::size_t KernelStack::napi_poll(CpuCore& core) {
  while (napi_owned_) sc_core::wait(napi_released_);
  napi_owned_ = true;
  // A member (one poller at a time): a poll in progress when the run ends
  // must not leave a thread-local vector behind.
  std::vector<ReceivedFrame>& frames = polled_frames_;
  frames.clear();
  driver_.poll(config_.napi_budget, [&frames](ReceivedFrame&& f) { frames.push_back(std::move(f)); },
               /*hold_buffers=*/true);
  for (const ReceivedFrame& frame : frames) handle_frame(core, frame);
  napi_owned_ = false;
  napi_released_.notify(sc_core::SC_ZERO_TIME);
  return frames.size();
}

void KernelStack::handle_frame(CpuCore& core, const ReceivedFrame& frame) {
  core.run(config_.rx_segment, CpuWork::kTcpRx);
  mark("TCP input");
  ++stats_.frames_received;
  const auto tcp = packet::parse_tcp_frame(frame.bytes.data(), frame.bytes.size());
  if (!tcp || tcp->ip.source != peer_.address.ipv4 ||
      tcp->tcp.destination_port != local_.port || tcp->tcp.source_port != peer_.port) {
    ++stats_.frames_dropped;
    driver_.release_rx_buffer(frame.buffer_address);
    return;
  }
  if ((frame.flags & ethernet::kRxChecksumBad) != 0) {
    fail_run("connection " + connection_.name() + ": a segment at seq " +
             std::to_string(tcp->tcp.sequence) + " failed its TCP checksum (no loss recovery)");
    return;
  }
  lock_socket();
  try {
    if (tcp->tcp.timestamps) peer_timestamp_ = tcp->tcp.timestamp_value;
    if (tcp->tcp.ack) {
      const std::uint32_t window =
          kernel::window_bytes(tcp->tcp.window, config_.tcp.window_scale);
      if (connection_.on_ack(tcp->tcp.acknowledgment, window) > 0) {
        send_space_.notify(sc_core::SC_ZERO_TIME);
      }
    }
    const auto length = static_cast<std::uint32_t>(tcp->payload_length);
    bool ack_now = false;
    if (length == 0) {
      driver_.release_rx_buffer(frame.buffer_address);
    } else {
      const kernel::ReceiveAction action = connection_.on_segment(tcp->tcp.sequence, length);
      ack_now = action == kernel::ReceiveAction::kAckNow;
      receive_queue_.push_back(
          QueuedData{frame.buffer_address + tcp->payload_offset, length, frame.buffer_address});
      data_arrived_.notify(sc_core::SC_ZERO_TIME);
      if (action == kernel::ReceiveAction::kStartDelayedAckTimer) {
        ack_deadline_ = sim_now() + nanoseconds(config_.tcp.delayed_ack_ns);
        ack_timer_changed_.notify(sc_core::SC_ZERO_TIME);
      }
    }
    // Data the ACK let out carries the ACK owed; else a pure ACK if due now.
    transmit_pending(core);
    if (ack_now && connection_.ack_pending()) send_pure_ack(core, kernel::AckReason::kImmediate);
  } catch (const std::runtime_error& error) {
    fail_run(error.what());
  }
  unlock_socket();
}

void KernelStack::delayed_ack_timer() {
  for (;;) {
    if (!ack_deadline_) {
      sc_core::wait(ack_timer_changed_);
      continue;
    }
    sc_core::wait(*ack_deadline_ - sim_now(), ack_timer_changed_);
    if (!ack_deadline_ || sim_now() < *ack_deadline_) continue;
    ack_deadline_.reset();
    lock_socket();
    // While the lock was awaited an ACK may have gone and a new timer started.
    if (!ack_deadline_ && connection_.on_delayed_ack_timer()) {
      send_pure_ack(softirq_core_, kernel::AckReason::kDelayedAckTimer);
    }
    unlock_socket();
  }
}

void KernelStack::note_ack_sent() {
  if (ack_deadline_) {
    ack_deadline_.reset();
    ack_timer_changed_.notify(sc_core::SC_ZERO_TIME);
  }
}

void KernelStack::transmit_pending(CpuCore& core) {
  // A TSO frame is one IPv4 packet: its total length fits 16 bits.
  const std::uint32_t largest_tso = 0xFFFF - 20 - config_.tcp.tcp_header_bytes();
  const std::uint32_t limit =
      config_.tso ? std::min(config_.tso_max_bytes, largest_tso) : connection_.send_mss();
  for (;;) {
    const std::optional<kernel::TcpSegment> first = connection_.next_segment();
    if (!first) return;
    std::uint32_t length = first->length;
    bool psh = first->psh;
    while (length + connection_.send_mss() <= limit) {
      const std::optional<kernel::TcpSegment> more = connection_.next_segment();
      if (!more) break;
      length += more->length;
      psh = more->psh;
    }
    const kernel::TcpAckFields ack = connection_.ack_sent(kernel::AckReason::kPiggyback);
    note_ack_sent();
    const Bytes frame = build_frame(first->seq, ack, psh, first->stream_offset, length);
    core.run(config_.tx_segment, CpuWork::kTcpTx);
    mark("TCP output");
    std::uint8_t flags = config_.checksum_offload ? ethernet::kTxChecksumOffload : 0;
    if (length > connection_.send_mss()) flags |= ethernet::kTxTso;
    post_frame(frame, flags, static_cast<std::uint16_t>(connection_.send_mss()));
  }
}

void KernelStack::send_pure_ack(CpuCore& core, kernel::AckReason reason) {
  const kernel::TcpAckFields ack = connection_.ack_sent(reason);
  note_ack_sent();
  const Bytes frame = build_frame(connection_.snd_nxt(), ack, false, 0, 0);
  core.run(config_.pure_ack, CpuWork::kAck);
  post_frame(frame, config_.checksum_offload ? ethernet::kTxChecksumOffload : 0, 0);
}

Bytes KernelStack::build_frame(std::uint32_t seq, const kernel::TcpAckFields& ack, bool psh,
                               std::uint64_t stream_offset, std::uint32_t length) {
  packet::TcpFrame h;
  h.ethernet.destination = peer_.address.mac;
  h.ethernet.source = local_.address.mac;
  h.ip.source = local_.address.ipv4;
  h.ip.destination = peer_.address.ipv4;
  h.ip.identification = ip_id_;
  const std::uint32_t segments =
      length == 0 ? 1 : (length + connection_.send_mss() - 1) / connection_.send_mss();
  ip_id_ = static_cast<std::uint16_t>(ip_id_ + segments);  // TSO gives each segment an id
  h.tcp.source_port = local_.port;
  h.tcp.destination_port = peer_.port;
  h.tcp.sequence = seq;
  h.tcp.acknowledgment = ack.ack;
  h.tcp.ack = true;
  h.tcp.psh = psh;
  h.tcp.window = ack.window_field;
  h.tcp.timestamps = config_.tcp.timestamps;
  h.tcp.timestamp_value = static_cast<std::uint32_t>(sim_now().value() / 1000000000ULL);  // ms
  h.tcp.timestamp_echo_reply = peer_timestamp_;
  std::vector<std::uint8_t> payload(length);
  const std::uint32_t ring = config_.tcp.send_buffer_bytes;
  for (std::uint32_t at = 0; at < length;) {
    const std::uint64_t offset = (stream_offset + at) % ring;
    const std::uint32_t piece = static_cast<std::uint32_t>(
        std::min<std::uint64_t>(length - at, ring - offset));
    host_.memory.read_bytes(send_buffer_ + offset, payload.data() + at, piece);
    at += piece;
  }
  return packet::build_tcp_frame(h, payload.data(), payload.size(), config_.checksum_offload);
}

void KernelStack::post_frame(const Bytes& frame, std::uint8_t flags, std::uint16_t mss) {
  while (!driver_.can_transmit_copy(frame.size())) sc_core::wait(driver_.transmit_done());
  driver_.transmit_copy(frame, flags, mss);
  ++stats_.frames_sent;
}

const StatisticsTable<KernelStackStats>& kernel_stack_statistics() {
  static const StatisticsTable<KernelStackStats> table(
      "kernel",
      {
       {"frames_sent", "frames", &KernelStackStats::frames_sent,
        "frames handed to the NIC (a TSO frame counts once)"},
       {"frames_received", "frames", &KernelStackStats::frames_received,
        "frames received"},
       {"frames_dropped", "frames", &KernelStackStats::frames_dropped,
        "frames dropped: not this connection's"},
       {"interrupts", "interrupts", &KernelStackStats::interrupts,
        "interrupts taken"},
       {"wakeups", "wakeups", &KernelStackStats::wakeups,
        "threads woken"},
       {"busy_polls", "polls", &KernelStackStats::busy_polls,
        "polls recv() made itself"},
      });
  return table;
}

}  // namespace rnicsim
