#include "host/kernel/kernel_stack.hpp"

#include <algorithm>
#include <memory>
#include <stdexcept>
#include <string>
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
  // Spare buffers come with each connection (connect()).
  return d;
}

// Spare receive buffers for one connection's full receive window of
// mss-sized frames, which its socket may hold until recv() reads them.
std::uint32_t rx_spare_buffers(const kernel::TcpConfig& tcp) {
  return tcp.receive_buffer_bytes / tcp.mss + 1;
}

std::string ipv4_text(std::uint32_t a) {
  return std::to_string(a >> 24) + "." + std::to_string((a >> 16) & 0xFF) + "." +
         std::to_string((a >> 8) & 0xFF) + "." + std::to_string(a & 0xFF);
}

}  // namespace

KernelStack::KernelStack(const sc_core::sc_module_name& name, Host& host,
                         const KernelConfig& config, const NicAddress& local)
    : sc_core::sc_module(name),
      host_(host),
      config_(config),
      local_(local),
      driver_(host, memory_, driver_config(config)),
      app_core_(std::string(this->name()) + ".app_core"),
      softirq_core_(std::string(this->name()) + ".softirq_core") {
  SC_THREAD(open_device);
  SC_THREAD(softirq);
  SC_THREAD(delayed_ack_timer);
}

std::size_t KernelStack::connect(std::uint16_t local_port, const TcpEndpoint& peer,
                                 std::uint32_t send_isn, std::uint32_t receive_isn,
                                 std::uint32_t peer_receive_buffer) {
  const std::string name = std::string(this->name()) + ":" + std::to_string(local_port) + "->" +
                           ipv4_text(peer.address.ipv4) + ":" + std::to_string(peer.port);
  // The receive buffers go to the driver before it opens, at time zero.
  if (sc_core::sc_is_running()) {
    throw std::logic_error("connection " + name + ": connect() after the run started");
  }
  const std::uint64_t key = demux_key(peer.address.ipv4, peer.port, local_port);
  if (socket_by_key_.count(key) != 0) {
    throw std::invalid_argument("connection " + name + ": the ports and peer of connection " +
                                std::to_string(socket_by_key_.at(key)) +
                                ", so frames could not tell them apart");
  }
  auto s = std::make_unique<Socket>(name, config_.tcp, local_port, peer, send_isn, receive_isn,
                                    peer_receive_buffer);
  const std::string of = "connection " + name + ": ";
  driver_.add_rx_spare_buffers(rx_spare_buffers(config_.tcp), of + "its receive buffers");
  s->send_buffer = memory_.allocate(config_.tcp.send_buffer_bytes, 4096, of + "its send buffer");
  sockets_.push_back(std::move(s));
  socket_by_key_[key] = sockets_.size() - 1;
  return sockets_.size() - 1;
}

KernelStack::Socket& KernelStack::socket(std::size_t i) {
  return const_cast<Socket&>(static_cast<const KernelStack&>(*this).socket(i));
}

const KernelStack::Socket& KernelStack::socket(std::size_t i) const {
  if (i >= sockets_.size()) {
    throw std::invalid_argument(std::string(name()) + ": no connection " + std::to_string(i) +
                                " (" + std::to_string(sockets_.size()) + " connected)");
  }
  return *sockets_[i];
}

kernel::TcpCounters KernelStack::tcp_counters() const {
  kernel::TcpCounters sum;
  for (const auto& s : sockets_) {
    const kernel::TcpCounters& c = s->connection.counters();
    sum.segments_sent += c.segments_sent;
    sum.bytes_sent += c.bytes_sent;
    sum.segments_received += c.segments_received;
    sum.bytes_received += c.bytes_received;
    sum.acks_received += c.acks_received;
    sum.piggybacked_acks += c.piggybacked_acks;
    sum.pure_acks_sent += c.pure_acks_sent;
    sum.immediate_acks += c.immediate_acks;
    sum.delayed_ack_timer_acks += c.delayed_ack_timer_acks;
    sum.window_updates += c.window_updates;
  }
  return sum;
}

void KernelStack::mark(const char* point) const {
  MessageBreakdown::instance().mark(*this, point);
}

void KernelStack::open_device() {
  driver_.open();
  device_open_ = true;
  device_opened_.notify(sc_core::SC_ZERO_TIME);
}

void KernelStack::lock_socket(Socket& s) {
  while (s.locked) sc_core::wait(s.unlocked);
  s.locked = true;
}

void KernelStack::unlock_socket(Socket& s) {
  s.locked = false;
  s.unlocked.notify(sc_core::SC_ZERO_TIME);
}

void KernelStack::send(std::size_t connection, std::uint64_t va, std::uint64_t length) {
  Socket& s = socket(connection);
  if (!device_open_) sc_core::wait(device_opened_);
  app_core_.run(config_.syscall, CpuWork::kSyscall);
  mark("send syscall");
  AddressSpace& process = host_.software().process;
  const std::uint32_t ring = config_.tcp.send_buffer_bytes;
  std::vector<std::uint8_t> chunk;
  std::uint64_t done = 0;
  while (done < length) {
    lock_socket(s);
    const std::size_t accepted = s.connection.queue(length - done);
    if (accepted == 0) {  // the send buffer is full: sleep until ACKs free it
      unlock_socket(s);
      sc_core::wait(s.send_space);
      continue;
    }
    chunk.resize(accepted);
    process.read(host_.memory, va + done, chunk.data(), accepted);
    for (std::size_t at = 0; at < accepted;) {
      const std::uint64_t offset = (s.queued_bytes + at) % ring;
      const std::size_t piece = std::min<std::size_t>(accepted - at, ring - offset);
      host_.memory.write_bytes(s.send_buffer + offset, chunk.data() + at, piece);
      at += piece;
    }
    s.queued_bytes += accepted;
    app_core_.run(config_.copy_time(accepted), CpuWork::kCopy);
    mark("copied from user");
    transmit_pending(s, app_core_);
    unlock_socket(s);
    done += accepted;
  }
}

void KernelStack::recv(std::size_t connection, std::uint64_t va, std::uint64_t length) {
  Socket& s = socket(connection);
  if (!device_open_) sc_core::wait(device_opened_);
  app_core_.run(config_.syscall, CpuWork::kSyscall);
  AddressSpace& process = host_.software().process;
  std::vector<std::uint8_t> chunk;
  std::uint64_t got = 0;
  while (got < length) {
    if (s.receive_queue.empty()) {
      if (config_.busy_poll) {
        ++stats_.busy_polls;
        if (napi_poll(app_core_) == 0 && s.receive_queue.empty()) {
          // A frame the NIC writes, or one the softirq queued meanwhile.
          app_core_.spin_until(driver_.receive_written() | s.data_arrived);
        }
      } else {
        sc_core::wait(s.data_arrived);
        ++stats_.wakeups;
        app_core_.run(config_.wakeup, CpuWork::kWakeup);
        mark("woken");
      }
      continue;
    }
    lock_socket(s);
    QueuedData& data = s.receive_queue.front();
    const auto n = static_cast<std::uint32_t>(std::min<std::uint64_t>(length - got, data.length));
    chunk.resize(n);
    host_.memory.read_bytes(data.address, chunk.data(), n);
    process.write(host_.memory, va + got, chunk.data(), n);
    data.address += n;
    data.length -= n;
    if (data.length == 0) {
      driver_.release_rx_buffer(data.buffer);
      s.receive_queue.pop_front();
    }
    got += n;
    app_core_.run(config_.copy_time(n), CpuWork::kCopy);
    if (s.connection.app_read(n)) send_pure_ack(s, app_core_, kernel::AckReason::kWindowUpdate);
    unlock_socket(s);
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
  const auto found = tcp ? socket_by_key_.find(demux_key(tcp->ip.source, tcp->tcp.source_port,
                                                         tcp->tcp.destination_port))
                         : socket_by_key_.end();
  if (found == socket_by_key_.end()) {
    ++stats_.frames_dropped;
    driver_.release_rx_buffer(frame.buffer_address);
    return;
  }
  Socket& s = *sockets_[found->second];
  if ((frame.flags & ethernet::kRxChecksumBad) != 0) {
    fail_run("connection " + s.connection.name() + ": a segment at seq " +
             std::to_string(tcp->tcp.sequence) + " failed its TCP checksum (no loss recovery)");
    return;
  }
  lock_socket(s);
  try {
    if (tcp->tcp.timestamps) s.peer_timestamp = tcp->tcp.timestamp_value;
    if (tcp->tcp.ack) {
      const std::uint32_t window =
          kernel::window_bytes(tcp->tcp.window, config_.tcp.window_scale);
      if (s.connection.on_ack(tcp->tcp.acknowledgment, window) > 0) {
        s.send_space.notify(sc_core::SC_ZERO_TIME);
      }
    }
    const auto length = static_cast<std::uint32_t>(tcp->payload_length);
    bool ack_now = false;
    if (length == 0) {
      driver_.release_rx_buffer(frame.buffer_address);
    } else {
      const kernel::ReceiveAction action = s.connection.on_segment(tcp->tcp.sequence, length);
      ack_now = action == kernel::ReceiveAction::kAckNow;
      s.receive_queue.push_back(
          QueuedData{frame.buffer_address + tcp->payload_offset, length, frame.buffer_address});
      s.data_arrived.notify(sc_core::SC_ZERO_TIME);
      if (action == kernel::ReceiveAction::kStartDelayedAckTimer) {
        s.ack_deadline = sim_now() + nanoseconds(config_.tcp.delayed_ack_ns);
        ack_timer_changed_.notify(sc_core::SC_ZERO_TIME);
      }
    }
    // Data the ACK let out carries the ACK owed; else a pure ACK if due now.
    transmit_pending(s, core);
    if (ack_now && s.connection.ack_pending()) {
      send_pure_ack(s, core, kernel::AckReason::kImmediate);
    }
  } catch (const std::runtime_error& error) {
    fail_run(error.what());
  }
  unlock_socket(s);
}

// One thread for every socket's timer (Linux keeps one timer per socket on a
// shared timer wheel): it sleeps until the earliest deadline, or until one
// changes, then serves each socket whose deadline has passed.
void KernelStack::delayed_ack_timer() {
  for (;;) {
    std::optional<sc_core::sc_time> earliest;
    for (const auto& s : sockets_) {
      if (s->ack_deadline && (!earliest || *s->ack_deadline < *earliest)) {
        earliest = s->ack_deadline;
      }
    }
    if (!earliest) {
      sc_core::wait(ack_timer_changed_);
      continue;
    }
    // A deadline may have passed while another socket's lock was awaited.
    const sc_core::sc_time now = sim_now();
    sc_core::wait(*earliest > now ? *earliest - now : sc_core::SC_ZERO_TIME, ack_timer_changed_);
    for (const auto& socket : sockets_) {
      Socket& s = *socket;
      if (!s.ack_deadline || sim_now() < *s.ack_deadline) continue;
      s.ack_deadline.reset();
      lock_socket(s);
      // While the lock was awaited an ACK may have gone and a new timer started.
      if (!s.ack_deadline && s.connection.on_delayed_ack_timer()) {
        send_pure_ack(s, softirq_core_, kernel::AckReason::kDelayedAckTimer);
      }
      unlock_socket(s);
    }
  }
}

void KernelStack::note_ack_sent(Socket& s) {
  if (s.ack_deadline) {
    s.ack_deadline.reset();
    ack_timer_changed_.notify(sc_core::SC_ZERO_TIME);
  }
}

void KernelStack::transmit_pending(Socket& s, CpuCore& core) {
  // A TSO frame is one IPv4 packet: its total length fits 16 bits.
  const std::uint32_t largest_tso = 0xFFFF - 20 - config_.tcp.tcp_header_bytes();
  const std::uint32_t limit =
      config_.tso ? std::min(config_.tso_max_bytes, largest_tso) : s.connection.send_mss();
  for (;;) {
    const std::optional<kernel::TcpSegment> first = s.connection.next_segment();
    if (!first) return;
    std::uint32_t length = first->length;
    bool psh = first->psh;
    while (length + s.connection.send_mss() <= limit) {
      const std::optional<kernel::TcpSegment> more = s.connection.next_segment();
      if (!more) break;
      length += more->length;
      psh = more->psh;
    }
    const kernel::TcpAckFields ack = s.connection.ack_sent(kernel::AckReason::kPiggyback);
    note_ack_sent(s);
    const Bytes frame = build_frame(s, first->seq, ack, psh, first->stream_offset, length);
    core.run(config_.tx_segment, CpuWork::kTcpTx);
    mark("TCP output");
    std::uint8_t flags = config_.checksum_offload ? ethernet::kTxChecksumOffload : 0;
    if (length > s.connection.send_mss()) flags |= ethernet::kTxTso;
    post_frame(frame, flags, static_cast<std::uint16_t>(s.connection.send_mss()));
  }
}

void KernelStack::send_pure_ack(Socket& s, CpuCore& core, kernel::AckReason reason) {
  const kernel::TcpAckFields ack = s.connection.ack_sent(reason);
  note_ack_sent(s);
  const Bytes frame = build_frame(s, s.connection.snd_nxt(), ack, false, 0, 0);
  core.run(config_.pure_ack, CpuWork::kAck);
  post_frame(frame, config_.checksum_offload ? ethernet::kTxChecksumOffload : 0, 0);
}

Bytes KernelStack::build_frame(Socket& s, std::uint32_t seq, const kernel::TcpAckFields& ack,
                               bool psh, std::uint64_t stream_offset, std::uint32_t length) {
  packet::TcpFrame h;
  h.ethernet.destination = s.peer.address.mac;
  h.ethernet.source = local_.mac;
  h.ip.source = local_.ipv4;
  h.ip.destination = s.peer.address.ipv4;
  h.ip.identification = s.ip_id;
  const std::uint32_t segments =
      length == 0 ? 1 : (length + s.connection.send_mss() - 1) / s.connection.send_mss();
  s.ip_id = static_cast<std::uint16_t>(s.ip_id + segments);  // TSO gives each segment an id
  h.tcp.source_port = s.local_port;
  h.tcp.destination_port = s.peer.port;
  h.tcp.sequence = seq;
  h.tcp.acknowledgment = ack.ack;
  h.tcp.ack = true;
  h.tcp.psh = psh;
  h.tcp.window = ack.window_field;
  h.tcp.timestamps = config_.tcp.timestamps;
  h.tcp.timestamp_value = static_cast<std::uint32_t>(sim_now().value() / 1000000000ULL);  // ms
  h.tcp.timestamp_echo_reply = s.peer_timestamp;
  std::vector<std::uint8_t> payload(length);
  const std::uint32_t ring = config_.tcp.send_buffer_bytes;
  for (std::uint32_t at = 0; at < length;) {
    const std::uint64_t offset = (stream_offset + at) % ring;
    const std::uint32_t piece = static_cast<std::uint32_t>(
        std::min<std::uint64_t>(length - at, ring - offset));
    host_.memory.read_bytes(s.send_buffer + offset, payload.data() + at, piece);
    at += piece;
  }
  return packet::build_tcp_frame(h, payload.data(), payload.size(), config_.checksum_offload);
}

void KernelStack::post_frame(const Bytes& frame, std::uint8_t flags, std::uint16_t mss) {
  // The transmit queue's lock (Linux's HARD_TX_LOCK): one socket's lock no
  // longer orders every frame, and two threads' doorbell writes must reach
  // the NIC in ring order (one waiting for PCIe credits could otherwise
  // write an older tail after a newer one).
  while (transmit_locked_) sc_core::wait(transmit_unlocked_);
  transmit_locked_ = true;
  while (!driver_.can_transmit_copy(frame.size())) sc_core::wait(driver_.transmit_done());
  driver_.transmit_copy(frame, flags, mss);
  ++stats_.frames_sent;
  transmit_locked_ = false;
  transmit_unlocked_.notify(sc_core::SC_ZERO_TIME);
}

const StatisticsTable<KernelStackStats>& kernel_stack_statistics() {
  static const StatisticsTable<KernelStackStats> table(
      "kernel",
      {
          {"frames_sent", "frames", &KernelStackStats::frames_sent,
           "frames handed to the NIC (a TSO frame counts once)"},
          {"frames_received", "frames", &KernelStackStats::frames_received, "frames received"},
          {"frames_dropped", "frames", &KernelStackStats::frames_dropped,
           "frames dropped: for no connection of this host"},
          {"interrupts", "interrupts", &KernelStackStats::interrupts, "interrupts taken"},
          {"wakeups", "wakeups", &KernelStackStats::wakeups, "threads woken"},
          {"busy_polls", "polls", &KernelStackStats::busy_polls, "polls recv() made itself"},
      });
  return table;
}

}  // namespace rnicsim
