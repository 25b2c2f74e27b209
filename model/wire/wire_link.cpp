#include "wire/wire_link.hpp"

#include <string>
#include <utility>

#include "common/message_breakdown.hpp"

namespace rnicsim {

WireLink::WireLink(const sc_core::sc_module_name& name, const WireLinkConfig& config,
                   WireFraming framing, const FaultConfig& faults)
    : PipelineStage<Transfer>(name, StageTiming::rate(config.propagation, config.gbps),
                              StageProcess::kMethod),
      rx("rx", config.rx_buffer_bytes),
      framing_(std::move(framing)) {
  if (!faults.any()) {
    out(rx);
    return;
  }
  faults_ = std::make_unique<WireFaults>(
      "faults", FaultInjector(basename(), faults), rx,
      [this](const Transfer& frame) { return timing().service_time(occupancy_bits(frame)); });
  out(*faults_);
}

void WireLink::set_fault_trace(FaultInjector::Trace trace) {
  if (faults_) faults_->injector().set_trace(std::move(trace));
}

sc_core::sc_time WireLink::serve(Transfer& item) {
  if (tap_) tap_(item, service_start());
  // RoCEv2 over untagged IPv4: the BTH opcode is byte 42. A TCP frame
  // (IPv4 protocol 6, byte 23) is the kernel path's: its first is the message's.
  MessageBreakdown& breakdown = MessageBreakdown::instance();
  if (breakdown.enabled() && item.bytes() && item.bytes()->size() > 42) {
    const auto& frame = *item.bytes();
    if (frame[23] == 6) {
      breakdown.mark(*this, "onto the wire", service_start());
    } else if (!is_acknowledge(frame[42])) {
      breakdown.mark(*this, "built, ICRC, onto the wire", service_start());
    }
  }
  return sc_core::SC_ZERO_TIME;
}

std::uint64_t WireLink::occupancy_bits(const Transfer& item) const {
  return framing_.wire_bits(item.size_bits());
}

void WireLink::end_of_elaboration() {
  if (out.size() != 1) {
    SC_REPORT_ERROR("rnicsim/wire", (std::string(name()) +
                                     ": the wire delivers into its own receive buffer; bind the "
                                     "receiver to its rx instead of binding its out port")
                                        .c_str());
  }
  PipelineStage<Transfer>::end_of_elaboration();
}

const StatisticsTable<ReceiveBufferStats>& receive_buffer_statistics() {
  static const StatisticsTable<ReceiveBufferStats> table(
      "rx",
      {
       {"rx_frames", "frames", &ReceiveBufferStats::frames,
        "frames arrived and kept"},
       {"rx_dropped", "frames", &ReceiveBufferStats::dropped,
        "frames arrived to a full buffer: dropped"},
       {"rx_dropped_bytes", "bytes", &ReceiveBufferStats::dropped_bytes,
        "bytes of the dropped frames"},
       {"rx_peak_bytes", "bytes", &ReceiveBufferStats::peak_bytes,
        "most bytes held at once"},
      });
  return table;
}

}  // namespace rnicsim
