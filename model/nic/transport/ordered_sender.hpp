#pragma once
// The request and response packets' way out (see transport_shared.hpp).
#include <cstdint>
#include <functional>
#include <systemc>

#include "common/channel.hpp"
#include "common/module_macros.hpp"
#include "common/slot_ring.hpp"
#include "nic/packet/packet_blocks.hpp"
#include "nic/transport/transport_shared.hpp"

namespace rnicsim {

// Sends request packets in the order they were made, each once its payload
// is read (READ requests and atomics carry none): packets of different QPs
// interleave, and a long message's first packet leaves before its last is read.
// One thread of the owning unit calls send(); an SC_METHOD hands the packets on,
// or the process completing their payload reads does (completion_arrived).
// A packet one of whose payload reads failed is not sent (its bytes would be
// stale): the owner's read-failure handler is called instead.
class OrderedSender : public sc_core::sc_module, private DmaCompletionListener {
 public:
  sc_core::sc_port<NbPushIf<packet::TransmitRequest>> out;

  RNICSIM_PROCESS_MODULE(OrderedSender);
  // Each packet reaches `out` `latency` after its payload is read.
  OrderedSender(const sc_core::sc_module_name& name, DmaClient& dma,
                const sc_core::sc_time& latency);

  // Queues a packet; `payload_from` (may be null) are the segments to read
  // its payload from, starting `offset` bytes in. It also waits for the DMA
  // requests `after` (an ACK waits for the writes it acknowledges).
  void send(packet::TransmitRequest request, const std::vector<PhysicalSegment>* payload_from,
            std::uint64_t offset, std::uint32_t length,
            const std::vector<std::uint32_t>& after = {}, SegmentCursor* cursor = nullptr);

  // Called (from the sender's method or the process completing a read: it
  // must not wait) with a packet whose payload could not be read, in place of
  // sending it.
  using ReadFailedHandler = std::function<void(const packet::TransmitRequest&)>;
  void on_read_failed(ReadFailedHandler handler) { read_failed_ = std::move(handler); }
  // The packets QP `qpn` has queued are not sent (their reads still
  // complete first), nor is one it is queueing now: what a QP queued before
  // it failed. Packets it queues afterwards are sent.
  void discard_queued_from(std::uint32_t qpn);

 private:
  struct Pending {
    packet::TransmitRequest request;  // moved out when sent: the slot keeps no payload
    std::vector<std::uint32_t> tickets;  // the `after` tickets, then the payload reads'
    std::size_t first_read = 0;          // where the payload reads' tickets start
    bool discard = false;                // dropped once its tickets are done
  };
  // What keeps the sender from sending its next packet.
  enum class Blocked : std::uint8_t { kNothing, kTickets, kSpace };
  void end_of_elaboration() override;
  // Sends every packet it can, in order; what stops it.
  Blocked advance();
  // The method: advance(), then wait for a packet or for the builder's room.
  void run();
  // A completion at the port, in the process that made it: the head's
  // reads are waited for here, so they cost the kernel no activation.
  void completion_arrived() override;
  // Pops the head (its tickets all released) and readies for the next.
  packet::TransmitRequest take_head();

  DmaClient& dma_;
  sc_core::sc_time latency_;
  std::size_t head_tickets_done_ = 0;  // the head's tickets waited for and released
  bool head_read_failed_ = false;      // one of the head's payload reads failed
  ReadFailedHandler read_failed_;
  BytePool payloads_;  // the DMA reads every byte of a payload it takes
  SlotRing<Pending> pending_;
  // The packet being queued: its tickets gather here while its reads are
  // issued (issuing may wait), so run() never sees a packet half made.
  std::vector<std::uint32_t> staged_tickets_;
  // The owner's read-failure handler may send (a NAK) while the owner's
  // thread waits inside send() for room at the DMA port: that inner send
  // stages its tickets apart, and QPs discarded during the outer one are
  // remembered so that its packet is discarded too.
  bool sending_ = false;
  std::vector<std::uint32_t> inner_tickets_;
  std::vector<std::uint32_t> discarded_while_sending_;
  std::vector<DmaRequest> reads_;  // the reads of the packet being queued
  Blocked blocked_ = Blocked::kNothing;
  // A packet whose reads are all done joined an empty queue, or the method
  // must wait for the builder's room (found full in completion_arrived()).
  sc_core::sc_event queued_;
};

}  // namespace rnicsim
