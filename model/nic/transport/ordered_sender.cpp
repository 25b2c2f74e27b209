// Request and response packets leave in the order they were made.
#include <algorithm>
#include <stdexcept>

#include "common/activity.hpp"
#include "common/message_breakdown.hpp"
#include "common/time_units.hpp"
#include "formats/opcodes.hpp"
#include "nic/transport/ordered_sender.hpp"

namespace rnicsim {

OrderedSender::OrderedSender(const sc_core::sc_module_name& name, DmaClient& dma,
                             const sc_core::sc_time& latency)
    : sc_core::sc_module(name), out("out"), dma_(dma), latency_(latency) {
  SC_METHOD(run);
}

void OrderedSender::send(packet::TransmitRequest request,
                         const std::vector<PhysicalSegment>* payload_from, std::uint64_t offset,
                         std::uint32_t length, const std::vector<std::uint32_t>& after,
                         SegmentCursor* cursor) {
  const bool inner = sending_;
  std::vector<std::uint32_t>& staged = inner ? inner_tickets_ : staged_tickets_;
  if (!inner) {
    sending_ = true;
    discarded_while_sending_.clear();
  }
  staged.assign(after.begin(), after.end());
  const std::size_t first_read = staged.size();
  if (payload_from != nullptr && length > 0) {
    // Issuing may wait for room at the port; an inner send reads no payload.
    std::shared_ptr<Bytes> buffer = payloads_.take(length);
    requests_for(reads_, DmaOp::kRead, *payload_from, offset, length, buffer->data(), cursor);
    for (const DmaRequest& r : reads_) staged.push_back(dma_.issue(r, buffer));
    request.payload = std::move(buffer);
  }
  const bool was_idle = pending_.empty();
  Pending& pending = pending_.push_back_slot();
  pending.discard = false;
  if (!inner) {
    sending_ = false;
    pending.discard = std::find(discarded_while_sending_.begin(), discarded_while_sending_.end(),
                                request.source_qpn) != discarded_while_sending_.end();
  }
  pending.request = std::move(request);
  pending.tickets.assign(staged.begin(), staged.end());
  pending.first_read = first_read;
  // A busy sender gets to this packet by itself. An idle one hears of each
  // completion at the port (completion_arrived), so it needs waking now only
  // when nothing is left to complete (every completion there is taken first,
  // so a ticket not done now has its completion still to come).
  if (!was_idle) return;
  dma_.pump();
  for (const std::uint32_t ticket : pending.tickets)
    if (!dma_.done(ticket)) return;
  queued_.notify(sc_core::SC_ZERO_TIME);
}

void OrderedSender::discard_queued_from(std::uint32_t qpn) {
  for (Pending& pending : pending_)
    if (pending.request.source_qpn == qpn) pending.discard = true;
  if (sending_) discarded_while_sending_.push_back(qpn);
}

packet::TransmitRequest OrderedSender::take_head() {
  packet::TransmitRequest request = std::move(pending_.front().request);
  pending_.pop_front();
  head_tickets_done_ = 0;
  head_read_failed_ = false;
  return request;
}

void OrderedSender::end_of_elaboration() {
  // Here, not in the constructor: the owning unit's DmaClient is constructed
  // after its sender.
  dma_.set_completion_listener(this);
}

void OrderedSender::run() {
  ++activity().method_activations;
  blocked_ = advance();
  if (blocked_ == Blocked::kSpace) {
    sc_core::next_trigger(out->space_event());
  } else {
    sc_core::next_trigger(queued_);  // completions come through completion_arrived()
  }
}

void OrderedSender::completion_arrived() {
  if (blocked_ == Blocked::kSpace) return;  // the builder's room is what it waits for
  blocked_ = advance();
  // The method waits on queued_: have it run now and wait for the room instead.
  if (blocked_ == Blocked::kSpace) queued_.notify();
}

OrderedSender::Blocked OrderedSender::advance() {
  while (!pending_.empty()) {
    Pending& head = pending_.front();
    // The head's tickets are released in order, each once done, as a thread
    // waiting for them one by one would: ticket numbers are reused in that order.
    if (head_tickets_done_ < head.tickets.size()) dma_.pump();
    while (head_tickets_done_ < head.tickets.size() &&
           dma_.done(head.tickets[head_tickets_done_])) {
      const bool ok = dma_.release(head.tickets[head_tickets_done_]);
      if (!ok && head_tickets_done_ >= head.first_read) head_read_failed_ = true;
      ++head_tickets_done_;
    }
    if (head_tickets_done_ < head.tickets.size()) return Blocked::kTickets;
    if (head.discard) {
      take_head();
      continue;
    }
    if (head_read_failed_) {
      // Never stale bytes on the wire: the owner decides what happens instead.
      const packet::TransmitRequest failed = take_head();
      if (read_failed_) read_failed_(failed);
      continue;
    }
    if (!out->can_push()) return Blocked::kSpace;
    const bool acknowledge = is_acknowledge(head.request.header_template.bth.opcode);
    if (!head.tickets.empty() && head.request.payload)
      MessageBreakdown::instance().mark(*this, "payload read");
    out->nb_push(take_head(), latency_);
    if (!acknowledge) MessageBreakdown::instance().mark(*this, "to the builder");
  }
  return Blocked::kNothing;
}

}  // namespace rnicsim
