#pragma once
// FaultInjector: what one direction of a faulty cable does to each frame.
// Kernel-free: it is given each frame (Ethernet header first, no FCS) and
// decides, from its own seeded generator, whether the frame is lost,
// corrupted, duplicated or delayed; WireFaults (wire_faults.hpp) applies the
// decision on the simulated cable.
//
// Per frame, in this order (a frame that is lost skips the rest):
// 1. loss: with loss_rate, or burst_loss_rate while a Gilbert-Elliott chain
//    is in its bad state (the chain then moves: good->bad with
//    burst_enter_rate, bad->good with burst_exit_rate; burst_enter_rate 0 is
//    plain Bernoulli loss);
// 2. corruption with corrupt_rate: corrupt_bits distinct bits flip in a copy
//    of the bytes (the sender's stay as they were). before_fcs: anywhere in
//    the frame; the sender's MAC computed the FCS over the original bytes,
//    the receiver's MAC recomputes it over the arrived ones and drops the
//    frame (fcs_errors). after_fcs: only in bytes the RoCEv2 ICRC covers and
//    does not mask, as a switch that rewrites the FCS would; the MAC passes
//    the frame and only the NIC's ICRC check can catch it. A frame that is
//    not RoCEv2 is left alone in that mode;
// 3. duplication with duplicate_rate: the frame arrives twice, the copy one
//    serialization time after the original;
// 4. reordering with reorder_rate: the frame arrives a uniform extra
//    (0, reorder_delay] later, so frames sent after it may overtake it.
// A script (fault_script.hpp) adds faults of its own to the frames it
// names; the chance draws are made whether or not a script fires, so a
// script never shifts the random faults of other frames.
//
// Randomness: std::mt19937_64, whose output the C++ standard fixes for a
// seed; probabilities compare a double made from its top 53 bits and
// integers come from rejection sampling, never from the standard's
// implementation-defined distributions, so a seed gives the same faults on
// every platform. A draw is made only for a rate strictly between 0 and 1.
#include <cstdint>
#include <functional>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "common/transfer.hpp"
#include "wire/fault_script.hpp"
#include "common/statistics.hpp"

namespace rnicsim {

enum class CorruptMode { kBeforeFcs, kAfterFcs };

struct FaultConfig {
  double loss_rate = 0;            // per frame, in the good state
  double burst_enter_rate = 0;     // per frame: good -> bad
  double burst_exit_rate = 0.25;   // per frame: bad -> good
  double burst_loss_rate = 1;      // per frame, in the bad state
  double corrupt_rate = 0;         // per frame
  std::uint32_t corrupt_bits = 1;  // distinct bits flipped in a corrupted frame
  CorruptMode corrupt_mode = CorruptMode::kBeforeFcs;
  double duplicate_rate = 0;                 // per frame
  double reorder_rate = 0;                   // per frame
  std::uint64_t reorder_delay_ps = 1000000;  // largest extra delay of a reordered frame, >= 1
  std::vector<FaultScriptEntry> script;
  std::uint64_t seed = 0;

  // Whether any frame can be touched: without, the wire needs no injector.
  bool any() const;
  // Whether corruption can happen, so the MACs compute the FCS.
  bool corrupts() const;
};

struct FaultStats {
  std::uint64_t frames = 0;      // frames the injector saw
  std::uint64_t lost = 0;        // lost on the cable (random, burst or scripted)
  std::uint64_t burst_lost = 0;  // of `lost`, in the Gilbert-Elliott bad state
  std::uint64_t corrupted = 0;   // frames with flipped bits
  std::uint64_t fcs_errors = 0;  // of `corrupted`, dropped by the receiver's MAC
  std::uint64_t duplicated = 0;  // frames that arrived twice
  std::uint64_t reordered = 0;   // frames delayed (reorder_rate or a delay entry)
  std::uint64_t scripted = 0;    // script entries that fired
};

// FaultStats's names, units and meanings (common/statistics.hpp).
const StatisticsTable<FaultStats>& fault_statistics();

enum class FaultKind { kLost, kBurstLost, kCorrupted, kFcsError, kDuplicated, kDelayed };
const char* to_string(FaultKind kind);

// One fault done to one frame, for traces.
struct FaultEvent {
  std::uint64_t time_ps = 0;  // when the frame would have arrived untouched
  const std::string* wire = nullptr;
  FaultKind kind = FaultKind::kLost;
  bool scripted = false;
  std::uint64_t delay_ps = 0;     // kDelayed: the extra delay
  std::optional<FrameKey> frame;  // when the frame parses as RoCEv2
};

// What happens to one frame.
struct FaultDecision {
  bool delivered = true;        // false: lost, or dropped by the receiver's MAC
  SharedBytes corrupted_bytes;  // non-null: the bytes that arrive instead
  bool duplicated = false;      // a copy arrives one serialization time later
  std::uint64_t extra_delay_ps = 0;
};

class FaultInjector {
 public:
  using Trace = std::function<void(const FaultEvent&)>;

  // `wire` names the direction in traces ("a_to_b").
  FaultInjector(std::string wire, FaultConfig config);

  // Decides the fate of `frame`, whose last bit would reach the peer at
  // `arrival_ps` untouched (for traces only).
  FaultDecision inject(const Transfer& frame, std::uint64_t arrival_ps);

  void set_trace(Trace trace) { trace_ = std::move(trace); }
  const FaultStats& stats() const { return stats_; }
  const FaultConfig& config() const { return config_; }
  const std::string& wire() const { return wire_; }

 private:
  // The script's actions for this frame.
  struct Scripted {
    bool drop = false;
    bool corrupt = false;
    bool duplicate = false;
    std::uint64_t delay_ps = 0;
  };
  Scripted run_script(const std::optional<FrameKey>& key);

  double uniform();                          // [0, 1), 53 bits
  std::uint64_t below(std::uint64_t bound);  // [0, bound), unbiased
  bool chance(double rate);
  // Draws the loss of this frame, then moves the Gilbert-Elliott chain.
  bool draw_loss(bool& in_burst);
  // The corrupted copy of `bytes`, or null when nothing may be flipped.
  SharedBytes corrupt(const Bytes& bytes);

  // The frame's BTH fields, parsed once, when a script or a trace needs them.
  const std::optional<FrameKey>& frame_key();
  void trace(FaultKind kind, bool scripted, std::uint64_t delay_ps);

  std::string wire_;
  FaultConfig config_;
  std::mt19937_64 random_;
  bool bad_state_ = false;
  std::vector<std::uint64_t> script_matches_;  // per entry: matching frames so far
  std::vector<bool> script_fired_;
  FaultStats stats_;
  Trace trace_;
  // The frame being decided, for scripts and traces.
  const Transfer* frame_ = nullptr;
  std::uint64_t arrival_ps_ = 0;
  std::optional<std::optional<FrameKey>> key_;  // parsed on first need
};

// A trace of faults as CSV (faults.csv): the header line, then one line per
// event: time_ns (when the frame would have arrived), wire, fault, scripted
// (0 or 1), delay_ns, and the frame's opcode (hex), destination QP (hex) and
// PSN, empty when it does not parse as RoCEv2.
std::string fault_trace_csv_header();
std::string fault_trace_csv_row(const FaultEvent& event);

// Frame key of a RoCEv2 frame (parse_frame without the ICRC); nullopt if it
// does not parse.
std::optional<FrameKey> frame_key_of(const Bytes& frame);

}  // namespace rnicsim
