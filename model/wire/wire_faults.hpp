#pragma once
// WireFaults: the faulty stretch of a cable, between the wire's
// serialization and the peer's receive buffer. The wire's `out` port is
// bound to it instead of to the buffer when a fault is configured; without
// one it does not exist, so a fault-free wire costs nothing.
//
// It asks its FaultInjector about each frame the wire pushes and delivers
// what arrives: nothing for a lost frame (or one the receiver's MAC drops
// for a bad FCS), a corrupted copy of the bytes (the sender's buffer, which
// the pcap tap and a retransmission see, stays as it was), a frame late by
// its extra delay, and a duplicate one serialization time after the
// original. Delayed frames and duplicates may be overtaken, so frames go
// into the buffer in arrival order rather than push order, and those two
// kinds are never taken early by the receiver (receive_buffer.hpp).
#include <cstdint>
#include <functional>
#include <string>
#include <systemc>

#include "common/channel.hpp"
#include "common/transfer.hpp"
#include "wire/fault_injector.hpp"
#include "wire/receive_buffer.hpp"

namespace rnicsim {

class WireFaults : public sc_core::sc_prim_channel,
                   public PushIf<Transfer>,
                   public NbPushIf<Transfer> {
 public:
  // The time a frame occupies the wire: a duplicate follows its original by that much.
  using SerializationTime = std::function<sc_core::sc_time(const Transfer& frame)>;

  WireFaults(const char* name, FaultInjector injector, ReceiveBuffer& rx,
             SerializationTime serialization);

  // The wire's side: never waits, like the receive buffer behind it.
  void push(Transfer frame, const sc_core::sc_time& latency) override;
  void wait_for_space() override {}
  bool can_push() const override { return true; }
  bool nb_push(Transfer&& frame, const sc_core::sc_time& latency) override {
    push(std::move(frame), latency);
    return true;
  }
  const sc_core::sc_event& space_event() const override { return never_; }
  bool has_room_for(std::size_t /*items*/) const override { return true; }

  FaultInjector& injector() { return injector_; }
  const FaultInjector& injector() const { return injector_; }
  const char* kind() const override { return "rnicsim_wire_faults"; }

 private:
  FaultInjector injector_;
  ReceiveBuffer& rx_;
  SerializationTime serialization_;
  sc_core::sc_event never_;
};

}  // namespace rnicsim
