#pragma once
// KernelStack: one host's kernel network path for one TCP connection, on the
// NIC's Ethernet port (../ethernet), with the CPU time of every step.
//
//   send():  syscall -> copy from user into the socket's send buffer (kernel
//            memory) -> TCP/IP output per frame (TSO: up to tso_max_bytes
//            per frame) -> transmit descriptor and doorbell -> the NIC
//   receive: the NIC writes a frame and interrupts -> interrupt and softirq
//            -> NAPI poll: driver, IP and TCP input per frame (ACKs free the
//            send buffer; data joins the socket's receive queue, still in
//            its receive buffer) -> ACK now, or the delayed-ACK timer ->
//            wake the thread blocked in recv()
//   recv():  syscall -> (sleep until woken, or with busy_poll spin on the
//            receive ring) -> copy to user -> window update if due
//
// Two cores: the application's (its system calls, copies and the output
// they drive) and the one that takes the interrupts (softirq: input, ACKs,
// output the ACKs open). The socket is locked while either works on it, as
// Linux's socket lock does, so frames leave in sequence order.
//
// No loss recovery: a segment out of sequence or failing its
// checksum stops the run with an error naming the connection.
#include <cstdint>
#include <deque>
#include <optional>
#include <string>
#include <systemc>
#include <vector>

#include "common/module_macros.hpp"
#include "common/transfer.hpp"
#include "host/host.hpp"
#include "host/cpu/cpu_core.hpp"
#include "host/kernel/ethernet_driver.hpp"
#include "host/kernel/kernel_config.hpp"
#include "host/kernel/kernel_memory.hpp"
#include "host/kernel/tcp_connection.hpp"
#include "interface/nic_address.hpp"
#include "common/statistics.hpp"

namespace rnicsim {

// One end of the connection on the wire.
struct TcpEndpoint {
  NicAddress address;
  std::uint16_t port = 0;
};

struct KernelStackStats {
  std::uint64_t frames_sent = 0;      // handed to the NIC (a TSO frame counts once)
  std::uint64_t frames_received = 0;
  std::uint64_t frames_dropped = 0;   // not this connection's
  std::uint64_t interrupts = 0;
  std::uint64_t wakeups = 0;
  std::uint64_t busy_polls = 0;       // polls recv() made itself
};

// KernelStackStats's names, units and meanings (common/statistics.hpp).
const StatisticsTable<KernelStackStats>& kernel_stack_statistics();

class KernelStack : public sc_core::sc_module {
 public:
  RNICSIM_PROCESS_MODULE(KernelStack);

  // `send_isn` and `receive_isn`: the first data byte's sequence number each
  // way (the peer's are these swapped). `peer_receive_buffer`: the window
  // the peer's handshake announced.
  KernelStack(const sc_core::sc_module_name& name, Host& host, const KernelConfig& config,
              const TcpEndpoint& local, const TcpEndpoint& peer, std::uint32_t send_isn,
              std::uint32_t receive_isn, std::uint32_t peer_receive_buffer);

  // From the application's thread. A blocking send() of `length` bytes at
  // `va` in the host's application address space: returns once all of it
  // is in the send buffer.
  void send(std::uint64_t va, std::uint64_t length);
  // A blocking recv() with MSG_WAITALL: returns once `length` bytes are at `va`.
  void recv(std::uint64_t va, std::uint64_t length);

  CpuCore& app_core() { return app_core_; }
  CpuCore& softirq_core() { return softirq_core_; }
  const kernel::TcpConnection& connection() const { return connection_; }
  const KernelStackStats& stats() const { return stats_; }

 private:
  // Data waiting in the socket's receive queue, in its receive buffer.
  struct QueuedData {
    std::uint64_t address = 0;  // its next unread byte
    std::uint32_t length = 0;   // bytes still unread
    std::uint64_t buffer = 0;   // the receive buffer, given back once read
  };

  void open_device();
  void softirq();
  void delayed_ack_timer();
  // One NAPI poll on `core`; returns the frames it took.
  std::size_t napi_poll(CpuCore& core);
  // --breakdown: this stack reached `point` (common/message_breakdown.hpp).
  void mark(const char* point) const;
  void handle_frame(CpuCore& core, const ReceivedFrame& frame);
  // Sends what the window allows (socket locked).
  void transmit_pending(CpuCore& core);
  void send_pure_ack(CpuCore& core, kernel::AckReason reason);
  void post_frame(const Bytes& frame, std::uint8_t flags, std::uint16_t mss);
  Bytes build_frame(std::uint32_t seq, const kernel::TcpAckFields& ack, bool psh,
                    std::uint64_t stream_offset, std::uint32_t length);
  void note_ack_sent();
  void lock_socket();
  void unlock_socket();

  Host& host_;
  KernelConfig config_;
  TcpEndpoint local_;
  TcpEndpoint peer_;
  KernelMemory memory_;
  EthernetDriver driver_;
  kernel::TcpConnection connection_;
  std::uint64_t send_buffer_ = 0;  // a ring of tcp.send_buffer_bytes in kernel memory
  std::uint64_t queued_bytes_ = 0; // stream offset of the next byte send() queues
  std::deque<QueuedData> receive_queue_;
  CpuCore app_core_;
  CpuCore softirq_core_;
  bool device_open_ = false;
  sc_core::sc_event device_opened_;
  bool socket_locked_ = false;
  sc_core::sc_event socket_unlocked_;
  sc_core::sc_event data_arrived_;
  // One NAPI poller at a time (the softirq, or recv() busy polling), as
  // Linux's NAPI ownership: frames are taken and handled in ring order.
  bool napi_owned_ = false;
  sc_core::sc_event napi_released_;
  std::vector<ReceivedFrame> polled_frames_;  // the owner's poll
  sc_core::sc_event send_space_;
  std::optional<sc_core::sc_time> ack_deadline_;
  sc_core::sc_event ack_timer_changed_;
  std::uint16_t ip_id_ = 0;
  std::uint32_t peer_timestamp_ = 0;  // the last TSval received, echoed
  KernelStackStats stats_;
};

}  // namespace rnicsim
