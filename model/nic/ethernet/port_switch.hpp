#pragma once
// The MAC's two sides when the NIC runs its Ethernet port beside RoCE
// (structure plus the steering rule; both take no time):
//
//   RoCE frames (ICRC inserter)  --> TxMerge --> the MAC (wire)
//   Ethernet port frames         -->
//
//   the wire's receive buffer --> RxSteer --> port 0: RoCEv2 (ICRC checker)
//                                         --> port 1: everything else (FrameDelay, the
//                                             port's receive latency, then the port)
//
// TxMerge takes frames round robin from its inputs. RxSteer sends a frame to
// RoCE when its headers say UDP to port 4791 (after at most one 802.1Q tag),
// as a NIC's steering rule does; a damaged RoCE frame still goes there, to
// be counted by the ICRC checker or parser.
#include <cstddef>
#include <cstdint>
#include <systemc>

#include "common/stage.hpp"
#include "common/transfer.hpp"

namespace rnicsim {

// Whether a frame's headers make it RoCEv2 (UDP to port 4791).
bool is_roce_v2_frame(const std::uint8_t* frame, std::size_t length);

class TxMerge : public Stage<Transfer, Transfer> {
 public:
  explicit TxMerge(const sc_core::sc_module_name& name)
      : Stage<Transfer, Transfer>(name, StageTiming(), Occupancy::kInput, StageProcess::kMethod) {}

 protected:
  void serve(Transfer& frame, Emitter& emitter) override { emitter.emit(std::move(frame)); }
};

// The port's receive datapath latency, pipelined: frames overlap in it.
class FrameDelay : public PipelineStage<Transfer> {
 public:
  FrameDelay(const sc_core::sc_module_name& name, const sc_core::sc_time& latency)
      : PipelineStage<Transfer>(name, StageTiming::rate(latency, 0), StageProcess::kMethod) {}

 protected:
  sc_core::sc_time serve(Transfer&) override { return sc_core::SC_ZERO_TIME; }
};

class RxSteer : public Stage<Transfer, Transfer> {
 public:
  static constexpr std::size_t kRocePort = 0;
  static constexpr std::size_t kEthernetPort = 1;

  explicit RxSteer(const sc_core::sc_module_name& name)
      : Stage<Transfer, Transfer>(name, StageTiming(), Occupancy::kInput, StageProcess::kMethod) {}

 protected:
  void serve(Transfer& frame, Emitter& emitter) override {
    const bool roce = frame.bytes() && is_roce_v2_frame(frame.bytes()->data(), frame.bytes()->size());
    emitter.emit(std::move(frame), roce ? kRocePort : kEthernetPort);
  }
};

}  // namespace rnicsim
