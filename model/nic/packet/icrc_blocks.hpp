#pragma once
// The ICRC as its own block pair, the seam where its RTL twin (rtl/icrc)
// plugs in:
// - IcrcInserter (transmit) fills the ICRC field of the builder's frames and
//   hands them on as the Transfers the wire carries;
// - IcrcChecker (receive) recomputes the ICRC of each RoCEv2 frame and drops
//   (and counts) a frame whose ICRC is bad before the parser sees it. A frame
//   it cannot locate an ICRC in (not RoCEv2 by its Ethernet, IP and UDP
//   headers; locate_icrc) goes on unchecked, for the parser to reject.
// Both charge a clocked datapath per frame: ceil(bytes / bytes_per_cycle)
// cycles, then `latency_cycles`. What computes the ICRC is an IcrcEngine:
// the model's compute_icrc (icrc.hpp, the function build_frame and
// parse_frame use as the reference) or, with `icrc.impl` rtl, the verilated
// RTL twin, whose timing is then the stage's (model/nic/rtl_bridge).
#include <cstdint>
#include <memory>
#include <systemc>

#include "common/block_impl.hpp"
#include "common/stage.hpp"
#include "common/stage_timing.hpp"
#include "common/transfer.hpp"
#include "config/config.hpp"
#include "config/run_config.hpp"
#include "nic/packet/icrc_engine.hpp"
#include "nic/packet/packet_blocks.hpp"
#include "common/statistics.hpp"

namespace rnicsim::packet {

struct IcrcBlockConfig {
  BlockImpl impl = BlockImpl::kModel;
  std::uint64_t bytes_per_cycle = 0;  // the datapath width, which picks the RTL's
  StageTiming timing;                 // each direction's datapath
};

// Statistics (StageStats): items = items_out = frames.
class IcrcInserter : public Stage<OutgoingFrame, Transfer> {
 public:
  IcrcInserter(const sc_core::sc_module_name& name, const StageTiming& timing,
               std::unique_ptr<IcrcEngine> engine = make_model_icrc_engine());

  // Which engine computes: "model" or "rtl/icrc".
  const char* engine_name() const { return engine_->name(); }

 protected:
  void serve(OutgoingFrame& frame, Emitter& emitter) override;

 private:
  std::unique_ptr<IcrcEngine> engine_;
};

struct IcrcCheckStats {
  std::uint64_t good = 0;       // ICRC checked and right: passed on
  std::uint64_t bad = 0;        // ICRC checked and wrong: dropped
  std::uint64_t unchecked = 0;  // no ICRC located: passed on to the parser
};

// IcrcCheckStats's names, units and meanings (common/statistics.hpp).
const StatisticsTable<IcrcCheckStats>& icrc_check_statistics();

// Statistics (StageStats): items = frames taken, dropped = bad ICRCs;
// check_stats() splits them.
class IcrcChecker : public Stage<Transfer, Transfer> {
 public:
  IcrcChecker(const sc_core::sc_module_name& name, const StageTiming& timing,
              std::unique_ptr<IcrcEngine> engine = make_model_icrc_engine());

  const IcrcCheckStats& check_stats() const { return check_stats_; }
  // Which engine checks: "model" or "rtl/icrc".
  const char* engine_name() const { return engine_->name(); }

 protected:
  void serve(Transfer& frame, Emitter& emitter) override;

 private:
  std::unique_ptr<IcrcEngine> engine_;
  IcrcCheckStats check_stats_;
};

// The icrc.* keys (declare_packet_keys declares them with the packet.* keys).
void declare_icrc_keys(config::Schema& schema);
// From a node's "icrc" section.
IcrcBlockConfig icrc_block_config(const config::Section& icrc);

}  // namespace rnicsim::packet
