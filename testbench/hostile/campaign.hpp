#pragma once
// The hostile-peer campaign: two nodes run a verbs workload while frames
// from outside (mutated by FrameMutator, or captures replayed) arrive on
// node b's receive port, timed like any frame off the cable. Afterwards:
// - every byte of both hosts' memory is compared with its state before the
//   first frame; outside what the ProtectionOracle allows and what the
//   workload itself writes, nothing may have changed;
// - the bystander QPs (which no hostile frame names) completed every work
//   request with success and their data are exact;
// - every work request posted on an attacked QP completed exactly once, with
//   a status the spec allows, and the attacked QPs end in RTS or ERR. The
//   application reconnects an attacked QP that went to ERR (after its
//   flushed completions), as a real one would, so frames keep reaching it.
// A run that stalls (no event left before the work is done) is a hang.
#include <array>
#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "hostile/frame_mutator.hpp"

namespace rnicsim::hostile {

struct CampaignOptions {
  enum class Source { kMutate, kReplay };
  Source source = Source::kMutate;
  std::uint64_t frames = 10000;  // hostile frames to send (kMutate)
  std::uint64_t seed = 1;
  std::uint64_t interval_ps = 200000;  // between two hostile frames
  std::uint32_t attacked_pairs = 8;
  std::uint32_t bystander_pairs = 2;
  // kMutate: the captures whose frames are templates, with the model's own
  // frames of the running workload; kReplay: the captures replayed, each
  // frame retargeted to node b.
  std::vector<std::string> captures;
  std::size_t own_templates = 32;
  // kMutate: only frames of these classes are sent (others are drawn again);
  // empty: every class.
  std::vector<Mutation> only;
};

struct CampaignResult {
  std::uint64_t frames_sent = 0;
  std::uint64_t frames_redrawn = 0;  // named a bystander QP: drawn again
  std::array<std::uint64_t, kMutationCount> by_mutation{};
  nlohmann::json receive_path;  // node b's drop causes and check verdicts
  std::vector<std::string> memory_violations;
  std::vector<std::string> bystander_errors;
  std::vector<std::string> attacked_errors;
  std::map<std::string, std::uint64_t> attacked_end_states;   // QP state -> QPs
  std::map<std::string, std::uint64_t> attacked_completions;  // status -> CQEs
  std::uint64_t attacked_reconnects = 0;
  std::uint64_t attacked_reconnects_refused = 0;  // RTS refused: ERR meanwhile, tried again
  std::uint64_t bystander_messages = 0;
  bool hang = false;
  double simulated_us = 0;
  double wall_seconds = 0;

  bool passed() const {
    return !hang && memory_violations.empty() && bystander_errors.empty() &&
           attacked_errors.empty();
  }
  nlohmann::json to_json() const;
};

CampaignResult run_campaign(const CampaignOptions& options);

}  // namespace rnicsim::hostile
