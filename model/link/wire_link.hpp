#pragma once
// WireLink: one direction of a point-to-point cable, from a NIC's MAC to the
// peer NIC. A frame occupies the wire for its framed bits at the link rate
// (serialization); its last bit reaches the peer a propagation delay later.
// A full-duplex cable is two WireLinks.
#include <cstdint>
#include <functional>
#include <systemc>

#include "common/stage.hpp"
#include "common/transfer.hpp"
#include "link/wire_framing.hpp"

namespace rnicsim {

struct WireLinkConfig {
  double gbps = 0;                  // line rate
  sc_core::sc_time propagation;     // cable delay, first bit out to first bit in
};

class WireLink : public PipelineStage<Transfer> {
 public:
  // Sees every item as its first bit goes on the wire (a pcap writer, say).
  using Tap = std::function<void(const Transfer& item, const sc_core::sc_time& first_bit)>;

  WireLink(const sc_core::sc_module_name& name, const WireLinkConfig& config,
           WireFraming framing);

  const WireFraming& framing() const { return framing_; }
  void set_tap(Tap tap) { tap_ = std::move(tap); }

 protected:
  sc_core::sc_time serve(Transfer& item) override;
  std::uint64_t occupancy_bits(const Transfer& item) const override;

 private:
  WireFraming framing_;
  Tap tap_;
};

}  // namespace rnicsim
