#pragma once
// PacketInbox: how the responder and completer threads take packets from
// their queue. A unit spends `delay` (its per-packet cycles) on a packet
// before it acts on it: next() pops the next packet and returns `delay`
// after the pop, with the pop's time.
//
// Since nothing happens at the pop but the pop itself, a thread that is free
// takes the queue's head at once, even before it becomes visible
// (Channel::take_head), or the next packet at its push when the queue is
// empty (an early take, see common/channel.hpp). Either way the packet's
// place stays taken until the time the thread would have popped it, and the
// thread wakes once, `delay` after that, where it would have woken at the pop
// and again after the delay. A unit bound to anything but a Channel pops.
#include <systemc>

#include "common/channel.hpp"
#include "common/time_units.hpp"
#include "nic/packet/packet_blocks.hpp"

namespace rnicsim {

class PacketInbox : public EarlyReaderIf<packet::ReceivedPacket> {
 public:
  explicit PacketInbox(const sc_core::sc_time& delay) : delay_(delay) {
    wake_ |= arrived_;
  }

  // Takes early from `queue` when it can (call from end_of_elaboration).
  void attach(sc_core::sc_interface* queue) {
    queue_ = dynamic_cast<Channel<packet::ReceivedPacket>*>(queue);
    if (queue_ == nullptr) return;
    wake_ |= queue_->data_event();
    queue_->set_early_reader(this);
  }

  // Blocks the calling thread until `delay` after it pops the next packet
  // from `in`; returns the time of the pop.
  sc_core::sc_time next(sc_core::sc_port<PopIf<packet::ReceivedPacket>>& in,
                        packet::ReceivedPacket& packet) {
    for (;;) {
      if (held_) {
        // Woken before its time (by a later packet's push).
        if (sim_now() < held_ready_) {
          sc_core::wait(arrived_);
          continue;
        }
        held_ = false;
        packet = std::move(held_packet_);
        return held_popped_;
      }
      if (queue_ == nullptr) {
        packet = in->pop();
        return delay_after_pop();
      }
      sc_core::sc_time popped;
      if (queue_->take_head(packet, popped)) {
        sc_core::wait(popped + delay_ - sim_now());
        return popped;
      }
      waiting_ = true;
      sc_core::wait(wake_);
      waiting_ = false;
    }
  }

  bool take_early(packet::ReceivedPacket& packet, const sc_core::sc_time& visible,
                  sc_core::sc_time& taken_at) override {
    if (!waiting_ || held_) return false;
    held_packet_ = std::move(packet);
    held_ = true;
    held_popped_ = visible;
    held_ready_ = visible + delay_;
    arrived_.notify(held_ready_ - sim_now());
    taken_at = visible;
    return true;
  }

 private:
  sc_core::sc_time delay_after_pop() {
    const sc_core::sc_time popped = sim_now();
    sc_core::wait(delay_);
    return popped;
  }

  sc_core::sc_time delay_;
  Channel<packet::ReceivedPacket>* queue_ = nullptr;
  bool waiting_ = false;  // the thread waits with its queue empty
  bool held_ = false;     // a packet taken early, not yet handed to the thread
  packet::ReceivedPacket held_packet_;
  sc_core::sc_time held_popped_;  // when the thread would have popped it
  sc_core::sc_time held_ready_;   // `delay` later: when the thread takes it
  sc_core::sc_event arrived_;     // notified at held_ready_
  sc_core::sc_event_or_list wake_;  // arrived_, or the queue's data event
};

}  // namespace rnicsim
