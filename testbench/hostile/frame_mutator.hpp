#pragma once
// Hostile RoCEv2 frames for the campaign (campaign.hpp): a valid frame taken
// as a template is retargeted at node b (MACs, IPs, an attacked QPN and the
// PSN its responder expects), so that unmutated it would reach the transport,
// then exactly one mutation class is applied and the ICRC made right again
// wherever the frame still locates one. A bad ICRC would stop the frame at
// the ICRC check; the point is to reach the checks behind it.
//
// Every random choice comes from std::mt19937_64's raw output, reduced by
// our own arithmetic (no std::*_distribution, whose results differ between
// standard libraries): one seed, the same templates and the same target
// answers replay the same frames on any platform.
#include <cstddef>
#include <cstdint>
#include <functional>
#include <random>
#include <vector>

#include "formats/frame.hpp"
#include "formats/headers.hpp"

namespace rnicsim::hostile {

// Default member initializers (not in the original sketch) so that a
// target built field by field never carries indeterminate bytes into frames.
struct TargetRegion {
  std::uint64_t va = 0;
  std::uint64_t length = 0;
  std::uint32_t rkey = 0;
};

struct HostileTarget {
  packet::MacAddress mac_source{}, mac_destination{};  // a's MAC -> b's MAC
  std::uint32_t ip_source = 0, ip_destination = 0;     // IPv4, host order (a -> b)
  std::vector<std::uint32_t> attacked_qpns;            // live QPs on b that hostile frames may name
  std::vector<std::uint32_t> unknown_qpns;             // QPNs b does not have
  // rkeys by what they name (each list may be empty):
  std::vector<TargetRegion> writable;   // MRs in the attacked QPs' PD with every remote right
  std::vector<TargetRegion> read_only;  // same PD, remote read only
  std::vector<TargetRegion> other_pd;   // MRs of another PD (bystanders')
  std::vector<std::uint32_t> deregistered_rkeys;
  // b's responder's next PSN for a QP
  std::function<std::uint32_t(std::uint32_t qpn)> expected_psn;
  std::uint32_t pmtu = 1024;
};

// One value per mutation class; to_string gives the name results tables use.
enum class Mutation : std::uint8_t {
  // Destination QPN.
  kQpnOtherAttacked,  // another live attacked QP (its PSN is then most likely wrong)
  kQpnUnknown,        // a QPN node b does not have
  // PSN relative to the responder's expected PSN e (24-bit arithmetic).
  kPsnDuplicate,        // e - k, k in 1..16
  kPsnJustAhead,        // e + k, k in 1..16
  kPsnFarAhead,         // e + 2^22 +- 2^20
  kPsnHalfWay,          // e + 2^23: neither ahead nor behind
  kPsnOldestDuplicate,  // e - 2^23 + 1: the farthest PSN still behind
  // Opcode.
  kOpcodeOutOfSequence,  // a SEND / WRITE MIDDLE or LAST with no FIRST before it
  kOpcodeReserved,       // RC 0x15 or 0x18..0x1F (raw byte: build_frame refuses them)
  kOpcodeResponse,       // 0x0D..0x12 with their headers, on the request path
  kOpcodeUc,             // a UC opcode to an RC QP
  kOpcodeUd,             // a UD opcode (with DETH) to an RC QP
  // RETH of a WRITE FIRST, WRITE ONLY or READ REQUEST, with a writable region's rkey.
  kRethInside,
  kRethStraddleByOne,  // va + length == region end + 1
  kRethStraddle,       // va + length == region end + 2..4096
  kRethOutside,        // wholly before the region's start or past its end
  kRethWrapVa,         // va + length wraps past 2^64
  kRethZeroLength,
  kRethLength2Pow31,
  kRethLengthMax,  // 2^32 - 1
  // rkey: the range fits the region the key names, the key is what is wrong.
  kRkeyLacksRight,    // a read-only MR's key on a WRITE or atomic
  kRkeyOtherPd,       // another PD's MR
  kRkeyDeregistered,  // a key that was valid once
  kRkeyRandom,        // a key nobody registered (as far as the target lists tell)
  // COMPARE & SWAP / FETCH & ADD into a writable region.
  kAtomicMisaligned,  // va % 8 != 0, all 8 bytes inside
  kAtomicAligned,     // va % 8 == 0, all 8 bytes inside
  // va % 8 == 0 and the 8 bytes not wholly inside: straddling the end when
  // the end is not 8-aligned, else starting at the end (an aligned access
  // cannot straddle an aligned end).
  kAtomicAlignedPastEnd,
  // Payload and lengths.
  kPadCountChanged,  // BTH pad count rewritten (raw), the bytes unchanged
  kPayloadOverPmtu,  // SEND ONLY / WRITE ONLY payload longer than the PMTU
  kLengthMismatch,   // IP and/or UDP length rewritten (raw) to disagree with the bytes
  // An ACKNOWLEDGE at a QP's completer: random MSN, syndrome an ACK, RNR NAK,
  // NAK 0x60..0x63 or reserved.
  kAckRandomSyndrome,
  // Immediate data, random.
  kImmWriteOnly,  // RC WRITE ONLY WITH IMMEDIATE into a writable region
  kImmSendOnly,   // RC SEND ONLY WITH IMMEDIATE
  // Header shapes.
  kIpv4Options,  // IHL 6..15, random option bytes (raw), checksum and ICRC redone
  kIpv6,         // IPv6 with the target's addresses IPv4-mapped
  kVlanTag,      // one 802.1Q tag, random TCI
  kTruncated,    // cut at a random byte, ICRC left as it was
  kOverLong,     // random bytes after the ICRC, lengths unchanged (L2 padding)
  // 1..4 random bit flips from the BTH to the end of the extended headers.
  kBitFlip,
};

inline constexpr std::size_t kMutationCount = static_cast<std::size_t>(Mutation::kBitFlip) + 1;

// Stable snake_case names ("reth_straddle_by_one"); results tables use them.
const char* to_string(Mutation mutation);

struct HostileFrame {
  std::vector<std::uint8_t> bytes;  // Ethernet header to ICRC (and beyond), no FCS
  Mutation mutation;
  std::uint32_t qpn;  // the destination QPN the BTH names (for kTruncated: was aimed at)
};

class FrameMutator {
 public:
  // Templates that parse as RoCEv2 (ICRC included) are kept, others dropped;
  // throws std::invalid_argument when none is left.
  FrameMutator(std::uint64_t seed, std::vector<std::vector<std::uint8_t>> templates);

  // One hostile frame made from a template chosen at random, aimed at
  // `target`. A class the target cannot serve (it needs a list that is
  // empty) is drawn again, so the classes stay uniform among those it can.
  // Throws std::invalid_argument for a target without attacked QPNs or
  // expected_psn, or with an invalid PMTU.
  HostileFrame next(const HostileTarget& target);

  std::size_t template_count() const { return templates_.size(); }

 private:
  // A template decoded once: retargeting rewrites headers, not bytes.
  struct Template {
    packet::RocePacket headers;
    std::vector<std::uint8_t> payload;
  };

  std::mt19937_64 rng_;
  std::vector<Template> templates_;
};

}  // namespace rnicsim::hostile
