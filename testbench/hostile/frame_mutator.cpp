#include "hostile/frame_mutator.hpp"

#include <algorithm>
#include <iterator>
#include <limits>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>

#include "formats/icrc.hpp"
#include "formats/opcodes.hpp"
#include "hostile/retarget.hpp"

namespace rnicsim::hostile {

namespace {

using packet::RocePacket;
using Bytes = std::vector<std::uint8_t>;

constexpr std::uint32_t kPsnHalf = 1u << 23;
constexpr std::uint32_t kPsnQuarter = 1u << 22;
constexpr std::uint64_t kAtomicSize = 8;
constexpr std::size_t kIpv4TotalLengthOffset = 2;
constexpr std::size_t kIpv4ChecksumOffset = 10;
constexpr std::size_t kUdpLengthOffset = 4;
constexpr std::size_t kBthPadByte = 1;  // SE(1) M(1) PadCnt(2) TVer(4)
constexpr std::size_t kMaxIpv4OptionWords = 10;

constexpr std::uint8_t kSendMiddle = 0x01;
constexpr std::uint8_t kSendLast = 0x02;
constexpr std::uint8_t kSendLastImm = 0x03;
constexpr std::uint8_t kSendOnly = 0x04;
constexpr std::uint8_t kSendOnlyImm = 0x05;
constexpr std::uint8_t kWriteFirst = 0x06;
constexpr std::uint8_t kWriteMiddle = 0x07;
constexpr std::uint8_t kWriteLast = 0x08;
constexpr std::uint8_t kWriteLastImm = 0x09;
constexpr std::uint8_t kWriteOnly = 0x0A;
constexpr std::uint8_t kWriteOnlyImm = 0x0B;
constexpr std::uint8_t kReadRequest = 0x0C;
constexpr std::uint8_t kReadResponseFirst = 0x0D;
constexpr std::uint8_t kAcknowledge = 0x11;
constexpr std::uint8_t kCompareSwap = 0x13;
constexpr std::uint8_t kFetchAdd = 0x14;
constexpr std::uint8_t kUcFirst = 0x20;
constexpr std::uint8_t kUcWriteFirst = 0x26;
constexpr std::uint8_t kUcWriteOnly = 0x2A;
constexpr std::uint8_t kUcWriteOnlyImm = 0x2B;
constexpr std::uint8_t kUcLast = 0x2B;
constexpr std::uint8_t kUdSendOnly = 0x64;
// RC opcodes the IBTA reserves (or later gave to FLUSH / ATOMIC WRITE, which
// the model does not support); 0x16 and 0x17 are SEND WITH INVALIDATE.
const std::vector<std::uint8_t> kReservedRcOpcodes = {0x15, 0x18, 0x19, 0x1A, 0x1B,
                                                      0x1C, 0x1D, 0x1E, 0x1F};
const std::vector<std::uint8_t> kOutOfSequenceOpcodes = {kSendMiddle,  kSendLast,  kSendLastImm,
                                                         kWriteMiddle, kWriteLast, kWriteLastImm};
const std::vector<std::uint8_t> kRethOpcodes = {kWriteFirst, kWriteOnly, kReadRequest};
const std::vector<std::uint8_t> kWriteOrAtomicOpcodes = {kWriteFirst, kWriteOnly, kCompareSwap,
                                                         kFetchAdd};
const std::vector<std::uint8_t> kRemoteAccessOpcodes = {kWriteFirst, kWriteOnly, kReadRequest,
                                                        kCompareSwap, kFetchAdd};

std::uint64_t region_end(const TargetRegion& region) { return region.va + region.length; }

std::uint64_t align_up(std::uint64_t value, std::uint64_t alignment) {
  return (value + alignment - 1) / alignment * alignment;
}

bool has_aligned_slot(const TargetRegion& region) {
  return region.length >= kAtomicSize &&
         align_up(region.va, kAtomicSize) + kAtomicSize <= region_end(region);
}

// A misaligned 8-byte access fits wholly inside when the region holds 9 bytes.
bool has_misaligned_slot(const TargetRegion& region) { return region.length > kAtomicSize; }

bool not_empty(const TargetRegion& region) { return region.length > 0; }

// Whether a writable region can take the access the class makes there.
bool writable_region_fits(Mutation mutation, const TargetRegion& region) {
  switch (mutation) {
    case Mutation::kRethInside:
    case Mutation::kRethStraddleByOne:
    case Mutation::kRethStraddle:
    case Mutation::kImmWriteOnly:
      return not_empty(region);
    case Mutation::kAtomicMisaligned:
      return has_misaligned_slot(region);
    case Mutation::kAtomicAligned:
      return has_aligned_slot(region);
    default:
      return true;
  }
}

template <typename Predicate>
std::vector<TargetRegion> regions_where(const std::vector<TargetRegion>& regions,
                                        Predicate predicate) {
  std::vector<TargetRegion> out;
  std::copy_if(regions.begin(), regions.end(), std::back_inserter(out), predicate);
  return out;
}

std::vector<TargetRegion> writable_regions_for(Mutation mutation, const HostileTarget& target) {
  return regions_where(target.writable, [mutation](const TargetRegion& region) {
    return writable_region_fits(mutation, region);
  });
}

bool is_write_first(std::uint8_t opcode) {
  return opcode == kWriteFirst || opcode == kUcWriteFirst;
}

std::size_t ip_header_offset(const RocePacket& headers) { return headers.ethernet.size(); }
std::size_t bth_offset(const RocePacket& headers) {
  return headers.ethernet.size() +
         (headers.is_ipv6() ? packet::Ipv6Header::kSize : packet::Ipv4Header::kSize) +
         packet::UdpHeader::kSize;
}

// Writes the ICRC over the bytes as they now are, if the headers still
// locate one; a frame whose lengths no longer hold together keeps the old.
void recompute_icrc(Bytes& frame) {
  const std::optional<packet::IcrcLocation> where = packet::locate_icrc(frame.data(), frame.size());
  if (!where) return;
  std::uint8_t* const ip = frame.data() + where->ip_offset;
  packet::store_icrc(packet::compute_icrc(ip, where->icrc_offset - where->ip_offset),
                     frame.data() + where->icrc_offset);
}

void recompute_ipv4_checksum(Bytes& frame, std::size_t ip_offset) {
  std::uint8_t* const ip = frame.data() + ip_offset;
  const std::size_t header_size = std::size_t{ip[0] & 0xFu} * 4;
  packet::store_be16(packet::ipv4_header_checksum(ip, header_size), ip + kIpv4ChecksumOffset);
}

// Raw 64-bit draws reduced by our own arithmetic: the modulo bias is of no
// concern here, replaying a failing case on any platform is.
class Random {
 public:
  explicit Random(std::mt19937_64& rng) : rng_(rng) {}
  std::uint64_t bits() { return rng_(); }
  std::uint64_t below(std::uint64_t bound) { return rng_() % bound; }
  // [low, high]; high - low < 2^64 - 1.
  std::uint64_t between(std::uint64_t low, std::uint64_t high) {
    return low + below(high - low + 1);
  }
  template <typename T>
  const T& pick(const std::vector<T>& items) {
    return items[below(items.size())];
  }
  Bytes bytes(std::size_t count) {
    Bytes out(count);
    for (std::size_t i = 0; i < count; i += 8) {
      std::uint64_t word = rng_();
      for (std::size_t j = i; j < std::min(count, i + 8); ++j, word >>= 8) {
        out[j] = static_cast<std::uint8_t>(word);
      }
    }
    return out;
  }

 private:
  std::mt19937_64& rng_;
};

// Whether the target offers what the class needs, with `qpn` the attacked
// QP the frame was first aimed at.
bool target_serves(Mutation mutation, const HostileTarget& target, std::uint32_t qpn) {
  const bool some_writable_fits =
      std::any_of(target.writable.begin(), target.writable.end(),
                  [mutation](const TargetRegion& r) { return writable_region_fits(mutation, r); });
  switch (mutation) {
    case Mutation::kQpnOtherAttacked:
      return std::any_of(target.attacked_qpns.begin(), target.attacked_qpns.end(),
                         [qpn](std::uint32_t other) { return other != qpn; });
    case Mutation::kQpnUnknown:
      return !target.unknown_qpns.empty();
    case Mutation::kRethInside:
    case Mutation::kRethStraddleByOne:
    case Mutation::kRethStraddle:
    case Mutation::kRethOutside:
    case Mutation::kRethWrapVa:
    case Mutation::kRethZeroLength:
    case Mutation::kRethLength2Pow31:
    case Mutation::kRethLengthMax:
    case Mutation::kImmWriteOnly:
    case Mutation::kAtomicMisaligned:
    case Mutation::kAtomicAligned:
    case Mutation::kAtomicAlignedPastEnd:
      return some_writable_fits;
    case Mutation::kRkeyLacksRight:
      return !target.read_only.empty();
    case Mutation::kRkeyOtherPd:
      return !target.other_pd.empty();
    case Mutation::kRkeyDeregistered:
      return !target.deregistered_rkeys.empty();
    default:
      return true;
  }
}

// One frame in the making: the retargeted template's headers and payload,
// rewritten by one mutation and then built, or built and then edited raw.
class Forge {
 public:
  Forge(Random& random, const HostileTarget& target, RocePacket headers, Bytes payload)
      : random_(random),
        target_(target),
        headers_(std::move(headers)),
        payload_(std::move(payload)) {}

  HostileFrame make(Mutation mutation) {
    Bytes frame = apply(mutation);
    return HostileFrame{std::move(frame), mutation, headers_.bth.dest_qp};
  }

 private:
  Bytes apply(Mutation mutation) {
    switch (mutation) {
      case Mutation::kQpnOtherAttacked: {
        std::uint32_t other = headers_.bth.dest_qp;
        while (other == headers_.bth.dest_qp) other = random_.pick(target_.attacked_qpns);
        headers_.bth.dest_qp = other;
        return build();
      }
      case Mutation::kQpnUnknown:
        headers_.bth.dest_qp = random_.pick(target_.unknown_qpns) & packet::kPsnMask;
        return build();
      case Mutation::kPsnDuplicate:
        return build_with_psn_offset(0u - static_cast<std::uint32_t>(random_.between(1, 16)));
      case Mutation::kPsnJustAhead:
        return build_with_psn_offset(static_cast<std::uint32_t>(random_.between(1, 16)));
      case Mutation::kPsnFarAhead:
        return build_with_psn_offset(kPsnQuarter - kPsnQuarter / 4 +
                                     static_cast<std::uint32_t>(random_.below(kPsnQuarter / 2)));
      case Mutation::kPsnHalfWay:
        return build_with_psn_offset(kPsnHalf);
      case Mutation::kPsnOldestDuplicate:
        return build_with_psn_offset(1u - kPsnHalf);
      case Mutation::kOpcodeOutOfSequence:
        reshape(random_.pick(kOutOfSequenceOpcodes));
        return build_fitted();
      case Mutation::kOpcodeReserved:
        return reserved_opcode();
      case Mutation::kOpcodeResponse:
        reshape(static_cast<std::uint8_t>(kReadResponseFirst + random_.below(6)));
        return build_fitted();
      case Mutation::kOpcodeUc:
        reshape(static_cast<std::uint8_t>(random_.between(kUcFirst, kUcLast)));
        return build_fitted();
      case Mutation::kOpcodeUd:
        reshape(static_cast<std::uint8_t>(kUdSendOnly + random_.below(2)));
        return build_fitted();
      case Mutation::kRethInside:
      case Mutation::kRethStraddleByOne:
      case Mutation::kRethStraddle:
      case Mutation::kRethOutside:
      case Mutation::kRethWrapVa:
      case Mutation::kRethZeroLength:
      case Mutation::kRethLength2Pow31:
      case Mutation::kRethLengthMax:
        return reth(mutation);
      case Mutation::kRkeyLacksRight:
        return wrong_key(kWriteOrAtomicOpcodes, random_.pick(target_.read_only));
      case Mutation::kRkeyOtherPd:
        return wrong_key(kRemoteAccessOpcodes, random_.pick(target_.other_pd));
      case Mutation::kRkeyDeregistered: {
        TargetRegion aim = some_writable_region();
        aim.rkey = random_.pick(target_.deregistered_rkeys);
        return wrong_key(kRemoteAccessOpcodes, aim);
      }
      case Mutation::kRkeyRandom: {
        TargetRegion aim = some_writable_region();
        aim.rkey = unregistered_rkey();
        return wrong_key(kRemoteAccessOpcodes, aim);
      }
      case Mutation::kAtomicMisaligned:
      case Mutation::kAtomicAligned:
      case Mutation::kAtomicAlignedPastEnd:
        return atomic(mutation);
      case Mutation::kPadCountChanged:
        return pad_count_changed();
      case Mutation::kPayloadOverPmtu:
        return payload_over_pmtu();
      case Mutation::kLengthMismatch:
        return length_mismatch();
      case Mutation::kAckRandomSyndrome:
        reshape(kAcknowledge);
        headers_.aeth->syndrome = random_syndrome();
        return build_fitted();
      case Mutation::kImmWriteOnly:
        reshape(kWriteOnlyImm);
        aim_inside(random_.pick(writable_regions_for(mutation, target_)));
        return build_fitted();
      case Mutation::kImmSendOnly:
        reshape(kSendOnlyImm);
        return build_fitted();
      case Mutation::kIpv4Options:
        return ipv4_options();
      case Mutation::kIpv6:
        to_ipv6();
        return build();
      case Mutation::kVlanTag:
        headers_.ethernet.vlan_tci = static_cast<std::uint16_t>(random_.bits());
        return build();
      case Mutation::kTruncated: {
        Bytes frame = build();
        frame.resize(random_.below(frame.size()));
        return frame;
      }
      case Mutation::kOverLong: {
        Bytes frame = build();
        const Bytes tail = random_.bytes(random_.between(1, 256));
        frame.insert(frame.end(), tail.begin(), tail.end());
        return frame;
      }
      case Mutation::kBitFlip:
        return bit_flips();
    }
    throw std::logic_error("FrameMutator: unknown mutation");
  }

  Bytes build() const { return packet::build_frame(headers_, payload_.data(), payload_.size()); }

  Bytes build_fitted() {
    fit_payload();
    return build();
  }

  Bytes build_with_psn_offset(std::uint32_t offset) {
    headers_.bth.psn = (headers_.bth.psn + offset) & packet::kPsnMask;
    return build();
  }

  // The writable region to aim a wrong key at, so that only the key is wrong;
  // a made-up one when the target lists none.
  TargetRegion some_writable_region() {
    return target_.writable.empty() ? TargetRegion{0x100000, 4096, 0}
                                    : random_.pick(target_.writable);
  }

  std::uint32_t unregistered_rkey() {
    const auto listed = [this](std::uint32_t rkey) {
      for (const auto* regions : {&target_.writable, &target_.read_only, &target_.other_pd}) {
        for (const TargetRegion& region : *regions) {
          if (region.rkey == rkey) return true;
        }
      }
      return std::find(target_.deregistered_rkeys.begin(), target_.deregistered_rkeys.end(),
                       rkey) != target_.deregistered_rkeys.end();
    };
    std::uint32_t rkey = 0;
    do {
      rkey = static_cast<std::uint32_t>(random_.bits());
    } while (listed(rkey));
    return rkey;
  }

  // Gives the packet `opcode` and exactly the extended headers it needs:
  // RETH and AtomicETH aimed inside a writable region when there is one (so
  // the opcode is the only thing wrong), the rest random. The payload is
  // fit_payload's, once the caller's edits are done.
  void reshape(std::uint8_t opcode) {
    const packet::OpcodeInfo& info = opcode_info(opcode);
    headers_.bth.opcode = opcode;
    headers_.reth.reset();
    headers_.aeth.reset();
    headers_.atomic_eth.reset();
    headers_.atomic_ack_eth.reset();
    headers_.imm_dt.reset();
    headers_.ieth.reset();
    headers_.deth.reset();
    const std::vector<TargetRegion> writable = regions_where(target_.writable, not_empty);
    for (std::size_t i = 0; i < info.header_count; ++i) {
      switch (info.headers[i]) {
        case packet::ExtHeader::kReth:
          headers_.reth.emplace();
          if (writable.empty()) {
            *headers_.reth = {random_.bits(), static_cast<std::uint32_t>(random_.bits()),
                              static_cast<std::uint32_t>(random_.below(target_.pmtu + 1))};
          } else {
            aim_inside(random_.pick(writable));
          }
          break;
        case packet::ExtHeader::kAeth:
          headers_.aeth =
              packet::Aeth{static_cast<std::uint8_t>(random_.below(0x20)),
                           static_cast<std::uint32_t>(random_.bits()) & packet::kPsnMask};
          break;
        case packet::ExtHeader::kAtomicEth:
          headers_.atomic_eth =
              packet::AtomicEth{random_.bits(), 0, random_.bits(), random_.bits()};
          if (!target_.writable.empty()) {
            const TargetRegion& region = random_.pick(target_.writable);
            headers_.atomic_eth->rkey = region.rkey;
            headers_.atomic_eth->virtual_address = aligned_va_inside(region);
          }
          break;
        case packet::ExtHeader::kAtomicAckEth:
          headers_.atomic_ack_eth = packet::AtomicAckEth{random_.bits()};
          break;
        case packet::ExtHeader::kImmDt:
          headers_.imm_dt = packet::ImmDt{static_cast<std::uint32_t>(random_.bits())};
          break;
        case packet::ExtHeader::kIeth:
          headers_.ieth = packet::Ieth{static_cast<std::uint32_t>(random_.bits())};
          break;
        case packet::ExtHeader::kDeth:
          headers_.deth =
              packet::Deth{static_cast<std::uint32_t>(random_.bits()),
                           static_cast<std::uint32_t>(random_.bits()) & packet::kPsnMask};
          break;
        case packet::ExtHeader::kCnpReserved:
          break;
      }
    }
  }

  static const packet::OpcodeInfo& opcode_info(std::uint8_t opcode) {
    const packet::OpcodeInfo* info = packet::find_opcode(opcode);
    if (info == nullptr) throw std::logic_error("FrameMutator: unsupported opcode");
    return *info;
  }

  // A payload that suits the opcode: a WRITE ONLY carries its whole RETH
  // length (capped at the PMTU), FIRST and MIDDLE exactly the PMTU.
  void fit_payload() {
    const packet::OpcodeInfo& info = opcode_info(headers_.bth.opcode);
    std::size_t length = 0;
    switch (info.payload) {
      case packet::PayloadRule::kNone:
        length = 0;
        break;
      case packet::PayloadRule::kExactlyPmtu:
        length = target_.pmtu;
        break;
      case packet::PayloadRule::kOneToPmtu:
        length = random_.between(1, target_.pmtu);
        break;
      case packet::PayloadRule::kZeroToPmtu:
        length = headers_.reth ? std::min<std::uint64_t>(headers_.reth->dma_length, target_.pmtu)
                               : random_.between(0, target_.pmtu);
        break;
    }
    payload_ = random_.bytes(length);
  }

  bool is_write_only() const {
    const std::uint8_t opcode = headers_.bth.opcode;
    return opcode == kWriteOnly || opcode == kWriteOnlyImm || opcode == kUcWriteOnly ||
           opcode == kUcWriteOnlyImm;
  }

  // A DMA length in [low, high] that suits the opcode: a WRITE ONLY's fits
  // in its one packet, a WRITE FIRST's needs more than one when the range
  // allows. `low` <= `high`.
  std::uint32_t fitting_length(std::uint64_t low, std::uint64_t high) {
    high = std::min<std::uint64_t>(high, std::numeric_limits<std::uint32_t>::max());
    if (is_write_only()) {
      high = std::max(low, std::min<std::uint64_t>(high, target_.pmtu));
    } else if (is_write_first(headers_.bth.opcode) && high > target_.pmtu) {
      low = std::max<std::uint64_t>(low, target_.pmtu + 1);
    }
    return static_cast<std::uint32_t>(random_.between(low, high));
  }

  // A RETH range wholly inside the region, with its rkey.
  void aim_inside(const TargetRegion& region) {
    if (region.length == 0) {
      headers_.reth = packet::Reth{region.va, region.rkey, 0};
      return;
    }
    const std::uint32_t length = fitting_length(1, region.length);
    headers_.reth =
        packet::Reth{region.va + random_.below(region.length - length + 1), region.rkey, length};
  }

  std::uint64_t aligned_va_inside(const TargetRegion& region) {
    if (!has_aligned_slot(region)) return align_up(region.va, kAtomicSize);
    const std::uint64_t first = align_up(region.va, kAtomicSize);
    const std::uint64_t slots = (region_end(region) - first) / kAtomicSize;
    return first + kAtomicSize * random_.below(slots);
  }

  Bytes reth(Mutation mutation) {
    reshape(random_.pick(kRethOpcodes));
    const std::vector<TargetRegion> usable = writable_regions_for(mutation, target_);
    const TargetRegion& region = random_.pick(usable);
    const std::uint64_t end = region_end(region);
    packet::Reth& reth = *headers_.reth;
    reth.rkey = region.rkey;
    const auto somewhere_inside = [&] {
      return region.va + random_.below(std::max<std::uint64_t>(region.length, 1));
    };
    switch (mutation) {
      case Mutation::kRethInside:
        aim_inside(region);
        break;
      case Mutation::kRethStraddleByOne:
        reth.dma_length = fitting_length(2, region.length + 1);
        reth.virtual_address = end + 1 - reth.dma_length;
        break;
      case Mutation::kRethStraddle: {
        // A WRITE ONLY carries its whole range, so its overrun stays below the PMTU.
        const std::uint64_t beyond = random_.between(2, is_write_only() ? target_.pmtu - 1 : 4096);
        reth.dma_length = fitting_length(beyond + 1, region.length + beyond);
        reth.virtual_address = end + beyond - reth.dma_length;
        break;
      }
      case Mutation::kRethOutside: {
        reth.dma_length = fitting_length(1, 4 * std::uint64_t{target_.pmtu});
        const std::uint64_t room_before =
            region.va >= reth.dma_length ? region.va - reth.dma_length : 0;
        if (room_before > 0 && random_.below(2) == 0) {
          reth.virtual_address =
              room_before - random_.below(std::min<std::uint64_t>(room_before, 4096) + 1);
        } else {
          reth.virtual_address = end + random_.below(4097);
        }
        break;
      }
      case Mutation::kRethWrapVa:
        reth.dma_length = fitting_length(1, 4 * std::uint64_t{target_.pmtu});
        reth.virtual_address = 0 - random_.between(1, reth.dma_length);
        break;
      case Mutation::kRethZeroLength:
        reth.dma_length = 0;
        reth.virtual_address = somewhere_inside();
        break;
      case Mutation::kRethLength2Pow31:
        reth.dma_length = 1u << 31;
        reth.virtual_address = somewhere_inside();
        break;
      case Mutation::kRethLengthMax:
        reth.dma_length = std::numeric_limits<std::uint32_t>::max();
        reth.virtual_address = somewhere_inside();
        break;
      default:
        throw std::logic_error("FrameMutator: not a RETH mutation");
    }
    return build_fitted();
  }

  // A WRITE, READ or atomic (one of `opcodes`) within `aim` (its range, its
  // rkey): only the key can make it fail.
  Bytes wrong_key(const std::vector<std::uint8_t>& opcodes, const TargetRegion& aim) {
    reshape(random_.pick(opcodes));
    if (headers_.reth) {
      aim_inside(aim);
    } else {
      headers_.atomic_eth->virtual_address = aligned_va_inside(aim);
      headers_.atomic_eth->rkey = aim.rkey;
    }
    return build_fitted();
  }

  Bytes atomic(Mutation mutation) {
    reshape(random_.below(2) == 0 ? kCompareSwap : kFetchAdd);
    const std::vector<TargetRegion> usable = writable_regions_for(mutation, target_);
    const TargetRegion& region = random_.pick(usable);
    const std::uint64_t end = region_end(region);
    std::uint64_t va = 0;
    switch (mutation) {
      case Mutation::kAtomicMisaligned: {
        // Two neighbouring addresses are never both aligned: this ends.
        const std::uint64_t last = end - kAtomicSize;
        do {
          va = random_.between(region.va, last);
        } while (va % kAtomicSize == 0);
        break;
      }
      case Mutation::kAtomicAligned:
        va = aligned_va_inside(region);
        break;
      case Mutation::kAtomicAlignedPastEnd:
        va = end % kAtomicSize != 0 ? end / kAtomicSize * kAtomicSize : end;
        break;
      default:
        throw std::logic_error("FrameMutator: not an atomic mutation");
    }
    headers_.atomic_eth->virtual_address = va;
    headers_.atomic_eth->rkey = region.rkey;
    return build_fitted();
  }

  Bytes reserved_opcode() {
    Bytes frame = build();
    frame[bth_offset(headers_)] = random_.pick(kReservedRcOpcodes);
    recompute_icrc(frame);
    return frame;
  }

  // On an opcode without payload (READ REQUEST, ACK, atomic) any pad is
  // wrong; on the others the receiver reads a shorter payload.
  Bytes pad_count_changed() {
    Bytes frame = build();
    std::uint8_t& byte = frame[bth_offset(headers_) + kBthPadByte];
    const unsigned old_pad = (byte >> 4) & 0x3u;
    const unsigned new_pad = (old_pad + 1 + random_.below(3)) & 0x3u;
    byte = static_cast<std::uint8_t>((byte & ~0x30u) | (new_pad << 4));
    recompute_icrc(frame);
    return frame;
  }

  // A SEND ONLY or WRITE ONLY with more payload than the PMTU; beyond the
  // 4096 bytes build_frame allows, words are added raw.
  Bytes payload_over_pmtu() {
    const bool write = random_.below(2) == 0;
    reshape(write ? kWriteOnly : kSendOnly);
    const std::size_t length = target_.pmtu < packet::kMaxPmtu
                                   ? random_.between(target_.pmtu + 1, packet::kMaxPmtu)
                                   : packet::kMaxPmtu + 4 * random_.between(1, 256);
    if (write) {
      const auto big_enough = [length](const TargetRegion& r) { return r.length >= length; };
      const std::vector<TargetRegion> usable = regions_where(target_.writable, big_enough);
      packet::Reth& reth = *headers_.reth;
      reth.dma_length = static_cast<std::uint32_t>(length);
      if (!usable.empty()) {
        const TargetRegion& region = random_.pick(usable);
        reth.rkey = region.rkey;
        reth.virtual_address = region.va + random_.below(region.length - length + 1);
      }
    }
    const std::size_t built = std::min<std::size_t>(length, packet::kMaxPmtu);
    payload_ = random_.bytes(built);
    Bytes frame = build();
    if (length > built) {
      const Bytes more = random_.bytes(length - built);
      const std::size_t icrc_at = frame.size() - packet::kIcrcSize;  // pad is 0: 4096 bytes
      frame.insert(frame.begin() + static_cast<std::ptrdiff_t>(icrc_at), more.begin(), more.end());
      add_to_lengths(frame, static_cast<std::int64_t>(more.size()), true, true);
      recompute_icrc(frame);
    }
    return frame;
  }

  // Adds `delta` to the IPv4 total length and / or the UDP length as the
  // frame carries them (16-bit wrap), then redoes the IPv4 checksum so the
  // frame gets past it.
  void add_to_lengths(Bytes& frame, std::int64_t delta, bool ip, bool udp) const {
    const std::size_t ip_at = ip_header_offset(headers_);
    const std::size_t udp_at = bth_offset(headers_) - packet::UdpHeader::kSize;
    if (ip) {
      std::uint8_t* field = frame.data() + ip_at + kIpv4TotalLengthOffset;
      packet::store_be16(static_cast<std::uint16_t>(packet::load_be16(field) + delta), field);
    }
    if (udp) {
      std::uint8_t* field = frame.data() + udp_at + kUdpLengthOffset;
      packet::store_be16(static_cast<std::uint16_t>(packet::load_be16(field) + delta), field);
    }
    recompute_ipv4_checksum(frame, ip_at);
  }

  // IP and UDP lengths both, or only one of them, off by 1..64 bytes either
  // way; the bytes stay as built.
  Bytes length_mismatch() {
    Bytes frame = build();
    const std::size_t udp_length = frame.size() - bth_offset(headers_) + packet::UdpHeader::kSize;
    const std::uint64_t size = random_.between(1, 64);
    // Shrinking below the UDP header would only test the IP length check.
    const bool shrink = size < udp_length - packet::UdpHeader::kSize && random_.below(2) == 0;
    const std::int64_t delta =
        shrink ? -static_cast<std::int64_t>(size) : static_cast<std::int64_t>(size);
    switch (random_.below(3)) {
      case 0:
        add_to_lengths(frame, delta, true, true);
        break;
      case 1:
        add_to_lengths(frame, delta, true, false);
        break;
      default:
        add_to_lengths(frame, delta, false, true);
        break;
    }
    recompute_icrc(frame);
    return frame;
  }

  std::uint8_t random_syndrome() {
    switch (random_.below(4)) {
      case 0:
        return static_cast<std::uint8_t>(random_.below(0x20));  // ACK, any credit count
      case 1:
        return static_cast<std::uint8_t>(0x20 + random_.below(0x20));  // RNR NAK, any timer
      case 2:
        return static_cast<std::uint8_t>(0x60 + random_.below(4));  // the four defined NAKs
      default: {
        // Reserved: 0x40..0x5F, NAK codes past 0x63, and bit 7 set.
        std::uint8_t syndrome = static_cast<std::uint8_t>(0x40 + random_.below(0xC0));
        if (syndrome >= 0x60 && syndrome <= 0x63) syndrome += 4;
        return syndrome;
      }
    }
  }

  Bytes ipv4_options() {
    Bytes frame = build();
    const std::size_t words = random_.between(1, kMaxIpv4OptionWords);
    const Bytes options = random_.bytes(4 * words);
    const std::size_t ip_at = ip_header_offset(headers_);
    frame.insert(frame.begin() + static_cast<std::ptrdiff_t>(ip_at + packet::Ipv4Header::kSize),
                 options.begin(), options.end());
    frame[ip_at] = static_cast<std::uint8_t>(0x40 | (5 + words));
    std::uint8_t* total_length = frame.data() + ip_at + kIpv4TotalLengthOffset;
    packet::store_be16(static_cast<std::uint16_t>(packet::load_be16(total_length) + 4 * words),
                       total_length);
    recompute_ipv4_checksum(frame, ip_at);
    recompute_icrc(frame);
    return frame;
  }

  // IPv4-mapped addresses (::ffff:a.b.c.d), as a RoCEv2 GID of an IPv4
  // address reads: the NIC must still tell the IP versions apart.
  void to_ipv6() {
    const auto mapped = [](std::uint32_t ipv4) {
      packet::Ipv6Address address{};
      address[10] = address[11] = 0xFF;
      packet::store_be32(ipv4, address.data() + 12);
      return address;
    };
    const auto& ipv4 = std::get<packet::Ipv4Header>(headers_.ip);
    packet::Ipv6Header ipv6;
    ipv6.traffic_class = ipv4.tos;
    ipv6.flow_label = static_cast<std::uint32_t>(random_.below(1u << 20));
    ipv6.hop_limit = ipv4.ttl;
    ipv6.source = mapped(target_.ip_source);
    ipv6.destination = mapped(target_.ip_destination);
    headers_.ip = ipv6;
  }

  Bytes bit_flips() {
    Bytes frame = build();
    const std::size_t first = bth_offset(headers_);
    const std::size_t bits =
        8 * (packet::Bth::kSize + opcode_info(headers_.bth.opcode).ext_header_bytes());
    for (std::uint64_t flips = random_.between(1, 4); flips > 0; --flips) {
      const std::uint64_t bit = random_.below(bits);
      frame[first + bit / 8] ^= static_cast<std::uint8_t>(1u << (bit % 8));
    }
    recompute_icrc(frame);
    headers_.bth.dest_qp = packet::Bth::decode(frame.data() + first).dest_qp;
    return frame;
  }

  Random& random_;
  const HostileTarget& target_;
  RocePacket headers_;
  Bytes payload_;
};

}  // namespace

const char* to_string(Mutation mutation) {
  switch (mutation) {
    case Mutation::kQpnOtherAttacked:
      return "qpn_other_attacked";
    case Mutation::kQpnUnknown:
      return "qpn_unknown";
    case Mutation::kPsnDuplicate:
      return "psn_duplicate";
    case Mutation::kPsnJustAhead:
      return "psn_just_ahead";
    case Mutation::kPsnFarAhead:
      return "psn_far_ahead";
    case Mutation::kPsnHalfWay:
      return "psn_half_way";
    case Mutation::kPsnOldestDuplicate:
      return "psn_oldest_duplicate";
    case Mutation::kOpcodeOutOfSequence:
      return "opcode_out_of_sequence";
    case Mutation::kOpcodeReserved:
      return "opcode_reserved";
    case Mutation::kOpcodeResponse:
      return "opcode_response";
    case Mutation::kOpcodeUc:
      return "opcode_uc";
    case Mutation::kOpcodeUd:
      return "opcode_ud";
    case Mutation::kRethInside:
      return "reth_inside";
    case Mutation::kRethStraddleByOne:
      return "reth_straddle_by_one";
    case Mutation::kRethStraddle:
      return "reth_straddle";
    case Mutation::kRethOutside:
      return "reth_outside";
    case Mutation::kRethWrapVa:
      return "reth_wrap_va";
    case Mutation::kRethZeroLength:
      return "reth_zero_length";
    case Mutation::kRethLength2Pow31:
      return "reth_length_2pow31";
    case Mutation::kRethLengthMax:
      return "reth_length_max";
    case Mutation::kRkeyLacksRight:
      return "rkey_lacks_right";
    case Mutation::kRkeyOtherPd:
      return "rkey_other_pd";
    case Mutation::kRkeyDeregistered:
      return "rkey_deregistered";
    case Mutation::kRkeyRandom:
      return "rkey_random";
    case Mutation::kAtomicMisaligned:
      return "atomic_misaligned";
    case Mutation::kAtomicAligned:
      return "atomic_aligned";
    case Mutation::kAtomicAlignedPastEnd:
      return "atomic_aligned_past_end";
    case Mutation::kPadCountChanged:
      return "pad_count_changed";
    case Mutation::kPayloadOverPmtu:
      return "payload_over_pmtu";
    case Mutation::kLengthMismatch:
      return "length_mismatch";
    case Mutation::kAckRandomSyndrome:
      return "ack_random_syndrome";
    case Mutation::kImmWriteOnly:
      return "imm_write_only";
    case Mutation::kImmSendOnly:
      return "imm_send_only";
    case Mutation::kIpv4Options:
      return "ipv4_options";
    case Mutation::kIpv6:
      return "ipv6";
    case Mutation::kVlanTag:
      return "vlan_tag";
    case Mutation::kTruncated:
      return "truncated";
    case Mutation::kOverLong:
      return "over_long";
    case Mutation::kBitFlip:
      return "bit_flip";
  }
  return "unknown_mutation";
}

FrameMutator::FrameMutator(std::uint64_t seed, std::vector<std::vector<std::uint8_t>> templates)
    : rng_(seed) {
  for (const Bytes& frame : templates) {
    const packet::ParseResult parsed = packet::parse_frame(frame.data(), frame.size());
    if (!parsed.ok()) continue;
    const auto payload = frame.begin() + static_cast<std::ptrdiff_t>(parsed.packet.payload_offset);
    templates_.push_back(Template{
        parsed.packet,
        Bytes(payload, payload + static_cast<std::ptrdiff_t>(parsed.packet.payload_length))});
  }
  if (templates_.empty()) {
    throw std::invalid_argument("FrameMutator: no template parses as a RoCEv2 frame");
  }
}

HostileFrame FrameMutator::next(const HostileTarget& target) {
  if (target.attacked_qpns.empty()) {
    throw std::invalid_argument("FrameMutator: the target has no attacked QPN");
  }
  if (!target.expected_psn) throw std::invalid_argument("FrameMutator: no expected_psn");
  if (!packet::is_valid_pmtu(target.pmtu)) {
    throw std::invalid_argument("FrameMutator: invalid PMTU " + std::to_string(target.pmtu));
  }
  Random random(rng_);
  const Template& chosen = random.pick(templates_);
  const std::uint32_t qpn = random.pick(target.attacked_qpns) & packet::kPsnMask;
  Mutation mutation;
  do {
    mutation = static_cast<Mutation>(random.below(kMutationCount));
  } while (!target_serves(mutation, target, qpn));

  RocePacket headers = retarget_headers(chosen.headers, target, qpn);
  headers.bth.psn = target.expected_psn(qpn) & packet::kPsnMask;
  Forge forge(random, target, std::move(headers), chosen.payload);
  return forge.make(mutation);
}

}  // namespace rnicsim::hostile
