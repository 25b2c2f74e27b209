#include "link/wire_link.hpp"

#include <utility>

namespace rnicsim {

WireLink::WireLink(const sc_core::sc_module_name& name, const WireLinkConfig& config,
                   WireFraming framing)
    : PipelineStage<Transfer>(name, StageTiming::rate(config.propagation, config.gbps)),
      framing_(std::move(framing)) {}

sc_core::sc_time WireLink::serve(Transfer& item) {
  if (tap_) tap_(item, sc_core::sc_time_stamp());
  return sc_core::SC_ZERO_TIME;
}

std::uint64_t WireLink::occupancy_bits(const Transfer& item) const {
  return framing_.wire_bits(item.size_bits());
}

}  // namespace rnicsim
