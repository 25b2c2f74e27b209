#pragma once
// KernelStack: one host's kernel network path on the NIC's Ethernet port
// (../ethernet), with the CPU time of every step, and the host's TCP
// connections (as many as connect() adds).
//
//   send():  syscall -> copy from user into the socket's send buffer (kernel
//            memory) -> TCP/IP output per frame (TSO: up to tso_max_bytes
//            per frame) -> transmit descriptor and doorbell -> the NIC
//   receive: the NIC writes a frame and interrupts -> interrupt and softirq
//            -> NAPI poll: driver, IP and TCP input per frame, demultiplexed
//            to its connection by (peer address, peer port, local port)
//            (ACKs free the send buffer; data joins the socket's receive
//            queue, still in its receive buffer) -> ACK now, or the
//            delayed-ACK timer -> wake the thread blocked in recv()
//   recv():  syscall -> (sleep until woken, or with busy_poll spin on the
//            receive ring) -> copy to user -> window update if due
//
// Shared by the host's connections: the driver and its rings, kernel memory,
// the two cores (the application's: its system calls, copies and the output
// they drive; the one that takes the interrupts: softirq input, ACKs, output
// the ACKs open), NAPI (one poller at a time) and the delayed-ACK timer
// thread. Each connection has its own socket: buffers, queues, and a lock
// held while either core works on it, as Linux's socket lock, so its frames
// leave in sequence order. Threads may block in send() and recv() on
// different connections at once (or on one connection's two directions).
//
// No loss recovery: a segment out of sequence or failing its
// checksum stops the run with an error naming the connection.
#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <systemc>
#include <utility>
#include <vector>

#include "common/module_macros.hpp"
#include "common/statistics.hpp"
#include "common/transfer.hpp"
#include "host/cpu/cpu_core.hpp"
#include "host/host.hpp"
#include "host/kernel/ethernet_driver.hpp"
#include "host/kernel/kernel_config.hpp"
#include "host/kernel/kernel_memory.hpp"
#include "host/kernel/tcp_connection.hpp"
#include "interface/nic_address.hpp"

namespace rnicsim {

// One end of a connection on the wire.
struct TcpEndpoint {
  NicAddress address;
  std::uint16_t port = 0;
};

struct KernelStackStats {
  std::uint64_t frames_sent = 0;      // handed to the NIC (a TSO frame counts once)
  std::uint64_t frames_received = 0;
  std::uint64_t frames_dropped = 0;  // for no connection of this host
  std::uint64_t interrupts = 0;
  std::uint64_t wakeups = 0;
  std::uint64_t busy_polls = 0;       // polls recv() made itself
};

// KernelStackStats's names, units and meanings (common/statistics.hpp).
const StatisticsTable<KernelStackStats>& kernel_stack_statistics();

class KernelStack : public sc_core::sc_module {
 public:
  RNICSIM_PROCESS_MODULE(KernelStack);

  // The host's kernel path on its NIC's Ethernet port at `local`; no
  // connections yet.
  KernelStack(const sc_core::sc_module_name& name, Host& host, const KernelConfig& config,
              const NicAddress& local);

  // Adds one ESTABLISHED connection from `local_port` to `peer`, before the
  // run starts; returns its index for send() and recv(). `send_isn` and
  // `receive_isn`: the first data byte's sequence number each way (the
  // peer's are these swapped). `peer_receive_buffer`: the window the peer's
  // handshake announced. Throws std::invalid_argument naming the connection
  // when another connection has the same ports and peer, or its buffers do
  // not fit the kernel's memory; std::logic_error once the run has started.
  std::size_t connect(std::uint16_t local_port, const TcpEndpoint& peer, std::uint32_t send_isn,
                      std::uint32_t receive_isn, std::uint32_t peer_receive_buffer);

  // From an application thread. A blocking send() of `length` bytes at `va`
  // in the host's application address space on connection `connection`:
  // returns once all of it is in the send buffer.
  void send(std::size_t connection, std::uint64_t va, std::uint64_t length);
  // A blocking recv() with MSG_WAITALL: returns once `length` bytes are at `va`.
  void recv(std::size_t connection, std::uint64_t va, std::uint64_t length);

  std::size_t connection_count() const { return sockets_.size(); }
  const kernel::TcpConnection& connection(std::size_t i) const { return socket(i).connection; }
  // Every connection's counters summed: a host's TCP totals.
  kernel::TcpCounters tcp_counters() const;
  CpuCore& app_core() { return app_core_; }
  CpuCore& softirq_core() { return softirq_core_; }
  const KernelStackStats& stats() const { return stats_; }

 private:
  // Data waiting in the socket's receive queue, in its receive buffer.
  struct QueuedData {
    std::uint64_t address = 0;  // its next unread byte
    std::uint32_t length = 0;   // bytes still unread
    std::uint64_t buffer = 0;   // the receive buffer, given back once read
  };
  // One connection's socket: what Linux keeps per socket.
  struct Socket {
    Socket(std::string name, const kernel::TcpConfig& tcp, std::uint16_t port,
           const TcpEndpoint& to, std::uint32_t send_isn, std::uint32_t receive_isn,
           std::uint32_t peer_receive_buffer)
        : local_port(port),
          peer(to),
          connection(std::move(name), tcp, send_isn, receive_isn, peer_receive_buffer) {}
    std::uint16_t local_port;
    TcpEndpoint peer;
    kernel::TcpConnection connection;
    std::uint64_t send_buffer = 0;   // a ring of tcp.send_buffer_bytes in kernel memory
    std::uint64_t queued_bytes = 0;  // stream offset of the next byte send() queues
    std::deque<QueuedData> receive_queue;
    bool locked = false;
    sc_core::sc_event unlocked;
    sc_core::sc_event data_arrived;
    sc_core::sc_event send_space;
    std::optional<sc_core::sc_time> ack_deadline;  // the delayed-ACK timer, when it runs
    std::uint16_t ip_id = 0;
    std::uint32_t peer_timestamp = 0;  // the last TSval received, echoed
  };

  // A received frame's connection: (peer IPv4 address, peer port, local port).
  static std::uint64_t demux_key(std::uint32_t peer_ipv4, std::uint16_t peer_port,
                                 std::uint16_t local_port) {
    return std::uint64_t{peer_ipv4} << 32 | std::uint32_t{peer_port} << 16 | local_port;
  }
  Socket& socket(std::size_t i);
  const Socket& socket(std::size_t i) const;
  void open_device();
  void softirq();
  void delayed_ack_timer();
  // One NAPI poll on `core`; returns the frames it took.
  std::size_t napi_poll(CpuCore& core);
  // --breakdown: this stack reached `point` (common/message_breakdown.hpp).
  void mark(const char* point) const;
  void handle_frame(CpuCore& core, const ReceivedFrame& frame);
  // Sends what the window allows (socket locked).
  void transmit_pending(Socket& s, CpuCore& core);
  void send_pure_ack(Socket& s, CpuCore& core, kernel::AckReason reason);
  void post_frame(const Bytes& frame, std::uint8_t flags, std::uint16_t mss);
  Bytes build_frame(Socket& s, std::uint32_t seq, const kernel::TcpAckFields& ack, bool psh,
                    std::uint64_t stream_offset, std::uint32_t length);
  void note_ack_sent(Socket& s);
  static void lock_socket(Socket& s);
  static void unlock_socket(Socket& s);

  Host& host_;
  KernelConfig config_;
  NicAddress local_;
  KernelMemory memory_;
  EthernetDriver driver_;
  // Sockets do not move: threads wait on their events.
  std::vector<std::unique_ptr<Socket>> sockets_;
  std::map<std::uint64_t, std::size_t> socket_by_key_;  // demux_key() -> index in sockets_
  CpuCore app_core_;
  CpuCore softirq_core_;
  bool device_open_ = false;
  sc_core::sc_event device_opened_;
  // One NAPI poller at a time (the softirq, or recv() busy polling), as
  // Linux's NAPI ownership: frames are taken and handled in ring order.
  bool napi_owned_ = false;
  bool transmit_locked_ = false;  // post_frame's: frames and doorbells in ring order
  sc_core::sc_event transmit_unlocked_;
  sc_core::sc_event napi_released_;
  std::vector<ReceivedFrame> polled_frames_;  // the owner's poll
  // One timer thread serves every socket's delayed-ACK deadline, the
  // earliest first; notified when any deadline is set or cleared.
  sc_core::sc_event ack_timer_changed_;
  KernelStackStats stats_;
};

}  // namespace rnicsim
