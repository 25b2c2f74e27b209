#pragma once
// WireLink: one direction of a point-to-point cable, from a NIC's MAC to the
// peer NIC. A frame occupies the wire for its framed bits at the link rate
// (serialization); its last bit reaches the peer a propagation delay later,
// into the peer's receive buffer (`rx`), which the receiver reads. A
// full-duplex cable is two WireLinks.
//
// The wire never blocks its sender: its output is its own receive buffer,
// which drops (and counts) a frame that arrives when it is full rather than
// hold the wire back; lossless behaviour is for flow control to model, not
// for backpressure to give by accident.
//
// With a fault configured (fault_injector.hpp), frames cross a WireFaults on
// their way from the serialization to the receive buffer, which may lose,
// corrupt, duplicate or delay them; the tap still sees each as it was sent.
#include <cstdint>
#include <functional>
#include <memory>
#include <systemc>

#include "common/stage.hpp"
#include "common/transfer.hpp"
#include "wire/fault_injector.hpp"
#include "wire/receive_buffer.hpp"
#include "wire/wire_faults.hpp"
#include "wire/wire_framing.hpp"

namespace rnicsim {

struct WireLinkConfig {
  double gbps = 0;                  // line rate
  sc_core::sc_time propagation;     // first bit out to first bit in: cable plus both ends' PHYs
  std::uint64_t rx_buffer_bytes = 0;  // the receiver's buffer for arrived frames
};

class WireLink : public PipelineStage<Transfer> {
 public:
  // Sees every item as its first bit goes on the wire (a pcap writer, say).
  using Tap = std::function<void(const Transfer& item, const sc_core::sc_time& first_bit)>;
  using DropHandler = ReceiveBuffer::DropHandler;

  // Frames at the peer, readable once their last bit has arrived. The wire's
  // `out` port is bound to it; bind the receiver to `rx`.
  ReceiveBuffer rx;

  // `faults`: what the cable does to the frames; none by default. The
  // injector names the wire by its basename in traces.
  WireLink(const sc_core::sc_module_name& name, const WireLinkConfig& config, WireFraming framing,
           const FaultConfig& faults = FaultConfig());

  const WireFraming& framing() const { return framing_; }
  void set_tap(Tap tap) { tap_ = std::move(tap); }
  // Called with each frame the receive buffer drops, and when it arrived.
  void set_drop_handler(DropHandler handler) { rx.set_drop_handler(std::move(handler)); }
  // The cable's faults; null when none is configured.
  const FaultInjector* faults() const { return faults_ ? &faults_->injector() : nullptr; }
  // Called with each fault done to a frame; only on a faulty wire.
  void set_fault_trace(FaultInjector::Trace trace);

 protected:
  sc_core::sc_time serve(Transfer& item) override;
  std::uint64_t occupancy_bits(const Transfer& item) const override;
  void end_of_elaboration() override;

 private:
  WireFraming framing_;
  Tap tap_;
  std::unique_ptr<WireFaults> faults_;
};

}  // namespace rnicsim
