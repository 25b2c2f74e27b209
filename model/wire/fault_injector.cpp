#include "wire/fault_injector.hpp"

#include <algorithm>
#include <cstdio>
#include <memory>
#include <stdexcept>
#include <utility>

#include "formats/crc32.hpp"
#include "formats/frame.hpp"
#include "formats/icrc.hpp"

namespace rnicsim {
namespace {

bool has_action(const std::vector<FaultScriptEntry>& script, FaultAction action) {
  return std::any_of(script.begin(), script.end(),
                     [action](const FaultScriptEntry& e) { return e.action == action; });
}

// The bytes a faulty switch can flip unseen by the FCS and seen by the ICRC:
// from the IP header to the ICRC field, except the ones the ICRC masks
// (wholly or in part: IPv4 TOS, TTL and checksum, IPv6 traffic class, flow
// label and hop limit, the UDP checksum, BTH byte 4). Empty for a frame that
// is not RoCEv2.
std::vector<std::size_t> icrc_covered_bytes(const Bytes& frame) {
  std::vector<std::size_t> covered;
  const std::optional<packet::IcrcLocation> where = packet::locate_icrc(frame.data(), frame.size());
  if (!where) return covered;
  const std::uint8_t* ip = frame.data() + where->ip_offset;
  const auto& mask = packet::icrc_variant_field_mask(ip);
  for (std::size_t i = where->ip_offset; i < where->icrc_offset; ++i) {
    const std::size_t in_packet = i - where->ip_offset;
    if (in_packet >= mask.size() || mask[in_packet] == 0) covered.push_back(i);
  }
  return covered;
}

// Picoseconds as nanoseconds with three decimals, exactly.
std::string ps_as_ns(std::uint64_t ps) {
  char text[32];
  std::snprintf(text, sizeof text, "%llu.%03llu", static_cast<unsigned long long>(ps / 1000),
                static_cast<unsigned long long>(ps % 1000));
  return text;
}

}  // namespace

bool FaultConfig::any() const {
  const bool burst_losses = burst_enter_rate > 0 && burst_loss_rate > 0;
  return loss_rate > 0 || burst_losses || corrupt_rate > 0 || duplicate_rate > 0 ||
         reorder_rate > 0 || !script.empty();
}

bool FaultConfig::corrupts() const {
  return corrupt_rate > 0 || has_action(script, FaultAction::kCorrupt);
}

const char* to_string(FaultKind kind) {
  switch (kind) {
    case FaultKind::kLost:
      return "lost";
    case FaultKind::kBurstLost:
      return "burst_lost";
    case FaultKind::kCorrupted:
      return "corrupted";
    case FaultKind::kFcsError:
      return "fcs_error";
    case FaultKind::kDuplicated:
      return "duplicated";
    case FaultKind::kDelayed:
      return "delayed";
  }
  return "?";
}

std::optional<FrameKey> frame_key_of(const Bytes& frame) {
  const packet::ParseResult parsed =
      packet::parse_frame(frame.data(), frame.size(), packet::IcrcHandling::kSkip);
  if (!parsed.ok()) return std::nullopt;
  FrameKey key;
  key.opcode = parsed.packet.bth.opcode;
  key.dest_qp = parsed.packet.bth.dest_qp;
  key.psn = parsed.packet.bth.psn;
  if (parsed.packet.aeth) key.aeth_syndrome = parsed.packet.aeth->syndrome;
  return key;
}

std::string fault_trace_csv_header() {
  return "time_ns,wire,fault,scripted,delay_ns,opcode,qp,psn\n";
}

std::string fault_trace_csv_row(const FaultEvent& event) {
  std::string row = ps_as_ns(event.time_ps) + "," + *event.wire + "," + to_string(event.kind) +
                    "," + (event.scripted ? "1" : "0") + "," + ps_as_ns(event.delay_ps) + ",";
  if (event.frame) {
    char frame[48];
    std::snprintf(frame, sizeof frame, "0x%02x,0x%x,%u", event.frame->opcode, event.frame->dest_qp,
                  event.frame->psn);
    row += frame;
  } else {
    row += ",,";
  }
  return row + "\n";
}

FaultInjector::FaultInjector(std::string wire, FaultConfig config)
    : wire_(std::move(wire)),
      config_(std::move(config)),
      random_(config_.seed),
      script_matches_(config_.script.size(), 0),
      script_fired_(config_.script.size(), false) {
  if (config_.reorder_rate > 0 && config_.reorder_delay_ps == 0) {
    throw std::logic_error("FaultInjector " + wire_ + ": reordering needs a delay of 1 ps or more");
  }
}

FaultDecision FaultInjector::inject(const Transfer& frame, std::uint64_t arrival_ps) {
  ++stats_.frames;
  frame_ = &frame;
  arrival_ps_ = arrival_ps;
  key_.reset();
  // Frames are parsed for the script only while one of its entries may still fire.
  const bool script_pending =
      std::find(script_fired_.begin(), script_fired_.end(), false) != script_fired_.end();
  const Scripted scripted = script_pending ? run_script(frame_key()) : Scripted{};
  FaultDecision decision;

  bool in_burst = false;
  const bool random_loss = draw_loss(in_burst);
  if (random_loss || scripted.drop) {
    ++stats_.lost;
    const bool burst_loss = random_loss && in_burst;
    if (burst_loss) ++stats_.burst_lost;
    trace(burst_loss ? FaultKind::kBurstLost : FaultKind::kLost, !random_loss, 0);
    decision.delivered = false;
    return decision;
  }

  const Bytes* bytes = frame.bytes().get();
  // The sender's MAC: the FCS over the bytes as they leave.
  std::optional<std::uint32_t> fcs;
  if (config_.corrupts() && bytes != nullptr) fcs = packet::crc32(bytes->data(), bytes->size());
  const bool random_corrupt = chance(config_.corrupt_rate);
  if ((random_corrupt || scripted.corrupt) && bytes != nullptr) {
    decision.corrupted_bytes = corrupt(*bytes);
    if (decision.corrupted_bytes) {
      ++stats_.corrupted;
      trace(FaultKind::kCorrupted, !random_corrupt, 0);
      if (config_.corrupt_mode == CorruptMode::kAfterFcs) {
        // The switch that flipped them sends a fresh FCS over its bytes.
        fcs = packet::crc32(decision.corrupted_bytes->data(), decision.corrupted_bytes->size());
      }
    }
  }
  // The receiver's MAC: checks the FCS over the bytes that arrived.
  if (fcs) {
    const Bytes& arrived = decision.corrupted_bytes ? *decision.corrupted_bytes : *bytes;
    if (packet::crc32(arrived.data(), arrived.size()) != *fcs) {
      ++stats_.fcs_errors;
      trace(FaultKind::kFcsError, !random_corrupt, 0);
      decision.delivered = false;
      return decision;
    }
  }

  const bool random_duplicate = chance(config_.duplicate_rate);
  if (random_duplicate || scripted.duplicate) {
    decision.duplicated = true;
    ++stats_.duplicated;
    trace(FaultKind::kDuplicated, !random_duplicate, 0);
  }

  const bool random_reorder = chance(config_.reorder_rate);
  // Uniform in (0, reorder_delay]: 1 ps to the whole delay.
  if (random_reorder) decision.extra_delay_ps = 1 + below(config_.reorder_delay_ps);
  decision.extra_delay_ps += scripted.delay_ps;
  if (decision.extra_delay_ps > 0) {
    ++stats_.reordered;
    trace(FaultKind::kDelayed, !random_reorder, decision.extra_delay_ps);
  }
  return decision;
}

FaultInjector::Scripted FaultInjector::run_script(const std::optional<FrameKey>& key) {
  Scripted actions;
  if (!key) return actions;  // a frame that is not RoCEv2 matches no entry
  for (std::size_t i = 0; i < config_.script.size(); ++i) {
    const FaultScriptEntry& entry = config_.script[i];
    if (script_fired_[i] || !entry.matches(*key)) continue;
    if (++script_matches_[i] < entry.nth) continue;
    script_fired_[i] = true;
    ++stats_.scripted;
    switch (entry.action) {
      case FaultAction::kDrop:
        actions.drop = true;
        break;
      case FaultAction::kCorrupt:
        actions.corrupt = true;
        break;
      case FaultAction::kDuplicate:
        actions.duplicate = true;
        break;
      case FaultAction::kDelay:
        actions.delay_ps += entry.delay_ps;
        break;
    }
  }
  return actions;
}

double FaultInjector::uniform() { return static_cast<double>(random_() >> 11) * 0x1.0p-53; }

std::uint64_t FaultInjector::below(std::uint64_t bound) {
  // Values under 2^64 mod bound would come up once more than the others.
  const std::uint64_t skip = (0 - bound) % bound;
  for (;;) {
    const std::uint64_t value = random_();
    if (value >= skip) return value % bound;
  }
}

bool FaultInjector::chance(double rate) {
  if (rate <= 0) return false;
  if (rate >= 1) return true;
  return uniform() < rate;
}

bool FaultInjector::draw_loss(bool& in_burst) {
  in_burst = bad_state_;
  const bool lost = chance(bad_state_ ? config_.burst_loss_rate : config_.loss_rate);
  if (config_.burst_enter_rate > 0) {
    bad_state_ = bad_state_ ? !chance(config_.burst_exit_rate) : chance(config_.burst_enter_rate);
  }
  return lost;
}

SharedBytes FaultInjector::corrupt(const Bytes& bytes) {
  // Positions of the bytes whose bits may flip: all, or the ICRC's unmasked ones.
  std::vector<std::size_t> where;
  if (config_.corrupt_mode == CorruptMode::kAfterFcs) {
    where = icrc_covered_bytes(bytes);
  } else {
    where.resize(bytes.size());
    for (std::size_t i = 0; i < bytes.size(); ++i) where[i] = i;
  }
  const std::uint64_t bits = std::uint64_t{where.size()} * 8;
  if (bits == 0) return nullptr;
  const std::uint64_t count = std::min<std::uint64_t>(config_.corrupt_bits, bits);
  // Floyd's sampling: `count` distinct bits with exactly `count` draws.
  std::vector<std::uint64_t> chosen;
  for (std::uint64_t j = bits - count; j < bits; ++j) {
    const std::uint64_t pick = below(j + 1);
    const bool taken = std::find(chosen.begin(), chosen.end(), pick) != chosen.end();
    chosen.push_back(taken ? j : pick);
  }
  auto flipped = std::make_shared<Bytes>(bytes);
  for (const std::uint64_t bit : chosen) {
    (*flipped)[where[bit / 8]] ^= static_cast<std::uint8_t>(1u << (bit % 8));
  }
  return flipped;
}

const std::optional<FrameKey>& FaultInjector::frame_key() {
  if (!key_) {
    key_.emplace(frame_->bytes() ? frame_key_of(*frame_->bytes()) : std::nullopt);
  }
  return *key_;
}

void FaultInjector::trace(FaultKind kind, bool scripted, std::uint64_t delay_ps) {
  if (!trace_) return;
  FaultEvent event;
  event.time_ps = arrival_ps_;
  event.wire = &wire_;
  event.kind = kind;
  event.scripted = scripted;
  event.delay_ps = delay_ps;
  event.frame = frame_key();
  trace_(event);
}

const StatisticsTable<FaultStats>& fault_statistics() {
  static const StatisticsTable<FaultStats> table(
      "faults",
      {
       {"lost", "frames", &FaultStats::lost,
        "lost on the cable (random, burst or scripted)"},
       {"burst_lost", "frames", &FaultStats::burst_lost,
        "of lost, in the Gilbert-Elliott bad state"},
       {"corrupted", "frames", &FaultStats::corrupted,
        "frames with flipped bits"},
       {"fcs_errors", "frames", &FaultStats::fcs_errors,
        "of corrupted, dropped by the receiver's MAC"},
       {"duplicated", "frames", &FaultStats::duplicated,
        "frames that arrived twice"},
       {"reordered", "frames", &FaultStats::reordered,
        "frames delayed (reorder_rate or a delay entry)"},
       {"scripted", "entries", &FaultStats::scripted,
        "script entries that fired"},
      });
  return table;
}

}  // namespace rnicsim
