// FrameMutator and retarget_capture: replay from a seed, every class drawn,
// each class's frames carry what the class says, and the ICRC is right
// wherever the headers still locate one.
#include "hostile/frame_mutator.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "formats/frame.hpp"
#include "formats/icrc.hpp"
#include "formats/opcodes.hpp"
#include "formats/pcap.hpp"
#include "hostile/retarget.hpp"

namespace rnicsim::hostile {
namespace {

using packet::ParseError;
using Bytes = std::vector<std::uint8_t>;

constexpr std::size_t kFrames = 20000;
constexpr std::uint32_t kPmtu = 1024;

// The repository root: RNICSIM_SOURCE_DIR from the environment, else the
// one the CMake build compiles in, else the working directory.
std::string source_dir() {
  if (const char* root = std::getenv("RNICSIM_SOURCE_DIR")) return root;
#ifdef RNICSIM_SOURCE_DIR
  return RNICSIM_SOURCE_DIR;
#else
  return ".";
#endif
}

std::string capture(const std::string& name) {
  return source_dir() + "/testbench/data/roce/captures/" + name;
}

// Expected PSNs that put the 24-bit wrap in play: one QP just below it.
std::uint32_t expected_psn_of(std::uint32_t qpn) {
  switch (qpn) {
    case 0x11:
      return 5;
    case 0x12:
      return 0xFFFFF0;
    default:
      return 0x7FFFFF;
  }
}

HostileTarget full_target() {
  HostileTarget t;
  t.mac_source = {0x02, 0, 0, 0, 0, 0xA};
  t.mac_destination = {0x02, 0, 0, 0, 0, 0xB};
  t.ip_source = 0x0A00000A;
  t.ip_destination = 0x0A00000B;
  t.attacked_qpns = {0x11, 0x12, 0x13};
  t.unknown_qpns = {0x999, 0xFFFFFF};
  // The second region's end is not 8-aligned: an aligned atomic can straddle it.
  t.writable = {{0x10000, 8192, 0x100}, {0x40003, 1001, 0x101}};
  t.read_only = {{0x80000, 4096, 0x200}};
  t.other_pd = {{0x90000, 4096, 0x300}};
  t.deregistered_rkeys = {0x400};
  t.expected_psn = expected_psn_of;
  t.pmtu = kPmtu;
  return t;
}

std::vector<Bytes> templates() {
  std::vector<Bytes> all;
  for (const char* name :
       {"pingpong_rc.pcap", "pingpong_uc.pcap", "pingpong_ud.pcap", "rdma_atomic_bw.pcap",
        "rdma_cm.pcap", "rdma_read_bw.pcap", "rdma_read_lat.pcap", "rdma_send_bw.pcap",
        "rdma_write_bw.pcap", "rdma_write_lat.pcap", "rping.pcap"}) {
    for (Bytes& frame : roce_frames_of(capture(name))) all.push_back(std::move(frame));
  }
  return all;
}

const std::vector<Bytes>& shared_templates() {
  static const std::vector<Bytes> all = templates();
  return all;
}

const std::vector<HostileFrame>& campaign_frames() {
  static const std::vector<HostileFrame> frames = [] {
    FrameMutator mutator(1, shared_templates());
    const HostileTarget target = full_target();
    std::vector<HostileFrame> out;
    for (std::size_t i = 0; i < kFrames; ++i) out.push_back(mutator.next(target));
    return out;
  }();
  return frames;
}

packet::ParseResult parse(const Bytes& frame) {
  return packet::parse_frame(frame.data(), frame.size(), packet::IcrcHandling::kCompute);
}

// True when the frame's headers locate no ICRC, or the one there is right.
bool icrc_right_where_located(const Bytes& frame) {
  const auto where = packet::locate_icrc(frame.data(), frame.size());
  if (!where) return true;
  const std::uint8_t* ip = frame.data() + where->ip_offset;
  return packet::load_icrc(frame.data() + where->icrc_offset) ==
         packet::compute_icrc(ip, where->icrc_offset - where->ip_offset);
}

const TargetRegion* region_with_rkey(const std::vector<TargetRegion>& regions, std::uint32_t rkey) {
  for (const TargetRegion& region : regions) {
    if (region.rkey == rkey) return &region;
  }
  return nullptr;
}

std::uint64_t end_of(const TargetRegion& region) { return region.va + region.length; }

bool inside(const TargetRegion& region, std::uint64_t va, std::uint64_t length) {
  return va >= region.va && length <= region.length && va - region.va <= region.length - length;
}

bool contains(const std::vector<std::uint32_t>& values, std::uint32_t value) {
  return std::find(values.begin(), values.end(), value) != values.end();
}

// The classes whose frames keep every header a receiver checks before the
// transport valid: they must parse, ICRC included.
bool keeps_valid_headers(Mutation m) {
  switch (m) {
    case Mutation::kOpcodeReserved:
    case Mutation::kPadCountChanged:
    case Mutation::kLengthMismatch:
    case Mutation::kTruncated:
    case Mutation::kBitFlip:
      return false;
    default:
      return true;
  }
}

// The classes that leave the PSN at the responder's expected one.
bool keeps_expected_psn(Mutation m) {
  switch (m) {
    case Mutation::kQpnOtherAttacked:
    case Mutation::kQpnUnknown:
    case Mutation::kPsnDuplicate:
    case Mutation::kPsnJustAhead:
    case Mutation::kPsnFarAhead:
    case Mutation::kPsnHalfWay:
    case Mutation::kPsnOldestDuplicate:
      return false;
    default:
      return true;
  }
}

TEST(FrameMutator, TheCapturesGiveTemplates) {
  EXPECT_GT(shared_templates().size(), 100u);
  EXPECT_EQ(FrameMutator(1, shared_templates()).template_count(), shared_templates().size());
}

TEST(FrameMutator, SameSeedSameFrames) {
  const HostileTarget target = full_target();
  FrameMutator first(42, shared_templates());
  FrameMutator second(42, shared_templates());
  FrameMutator other(43, shared_templates());
  std::size_t differing = 0;
  for (int i = 0; i < 3000; ++i) {
    const HostileFrame a = first.next(target);
    const HostileFrame b = second.next(target);
    const HostileFrame c = other.next(target);
    ASSERT_EQ(a.bytes, b.bytes) << "frame " << i;
    ASSERT_EQ(a.mutation, b.mutation) << "frame " << i;
    ASSERT_EQ(a.qpn, b.qpn) << "frame " << i;
    if (a.bytes != c.bytes) ++differing;
  }
  EXPECT_GT(differing, 2900u);
}

TEST(FrameMutator, EveryClassAppearsIn20kFrames) {
  std::array<std::size_t, kMutationCount> seen{};
  for (const HostileFrame& frame : campaign_frames()) {
    ++seen[static_cast<std::size_t>(frame.mutation)];
  }
  for (std::size_t i = 0; i < kMutationCount; ++i) {
    // Uniform: about kFrames / kMutationCount each.
    EXPECT_GT(seen[i], kFrames / kMutationCount / 2) << to_string(static_cast<Mutation>(i));
  }
}

TEST(FrameMutator, NamesAreDistinctSnakeCase) {
  std::set<std::string> names;
  for (std::size_t i = 0; i < kMutationCount; ++i) {
    const std::string name = to_string(static_cast<Mutation>(i));
    EXPECT_EQ(name.find_first_not_of("abcdefghijklmnopqrstuvwxyz0123456789_"), std::string::npos)
        << name;
    names.insert(name);
  }
  EXPECT_EQ(names.size(), kMutationCount);
  EXPECT_STREQ(to_string(Mutation::kRethStraddleByOne), "reth_straddle_by_one");
}

TEST(FrameMutator, NoFrameCarriesAWrongIcrc) {
  for (const HostileFrame& frame : campaign_frames()) {
    const packet::ParseResult parsed = parse(frame.bytes);
    ASSERT_NE(parsed.error, ParseError::kIcrcMismatch) << to_string(frame.mutation);
    ASSERT_TRUE(icrc_right_where_located(frame.bytes)) << to_string(frame.mutation);
    if (keeps_valid_headers(frame.mutation)) {
      ASSERT_TRUE(parsed.ok()) << to_string(frame.mutation) << ": "
                               << packet::to_string(*parsed.error);
    }
  }
}

TEST(FrameMutator, ValidFramesAreAimedAtTheTarget) {
  const HostileTarget target = full_target();
  for (const HostileFrame& frame : campaign_frames()) {
    if (!keeps_valid_headers(frame.mutation)) continue;
    const packet::ParseResult parsed = parse(frame.bytes);
    ASSERT_TRUE(parsed.ok());
    const packet::RocePacket& p = parsed.packet;
    const char* name = to_string(frame.mutation);
    EXPECT_EQ(p.ethernet.source, target.mac_source) << name;
    EXPECT_EQ(p.ethernet.destination, target.mac_destination) << name;
    EXPECT_EQ(p.bth.dest_qp, frame.qpn) << name;
    if (frame.mutation != Mutation::kIpv6) {
      const auto& ip = std::get<packet::Ipv4Header>(p.ip);
      EXPECT_EQ(ip.source, target.ip_source) << name;
      EXPECT_EQ(ip.destination, target.ip_destination) << name;
    }
    if (frame.mutation != Mutation::kQpnUnknown) {
      EXPECT_TRUE(contains(target.attacked_qpns, frame.qpn)) << name;
    }
    if (keeps_expected_psn(frame.mutation)) {
      EXPECT_EQ(p.bth.psn, expected_psn_of(frame.qpn)) << name;
    }
  }
}

TEST(FrameMutator, QpnAndPsnClasses) {
  const HostileTarget target = full_target();
  for (const HostileFrame& frame : campaign_frames()) {
    const packet::ParseResult parsed = parse(frame.bytes);
    if (!parsed.ok()) continue;
    const std::uint32_t psn = parsed.packet.bth.psn;
    const std::uint32_t ahead = (psn - expected_psn_of(frame.qpn)) & packet::kPsnMask;
    const std::uint32_t behind = (expected_psn_of(frame.qpn) - psn) & packet::kPsnMask;
    switch (frame.mutation) {
      case Mutation::kQpnOtherAttacked:
        EXPECT_TRUE(contains(target.attacked_qpns, frame.qpn));
        break;
      case Mutation::kQpnUnknown:
        EXPECT_TRUE(contains(target.unknown_qpns, frame.qpn));
        break;
      case Mutation::kPsnDuplicate:
        EXPECT_GE(behind, 1u);
        EXPECT_LE(behind, 16u);
        break;
      case Mutation::kPsnJustAhead:
        EXPECT_GE(ahead, 1u);
        EXPECT_LE(ahead, 16u);
        break;
      case Mutation::kPsnFarAhead:
        EXPECT_GE(ahead, (1u << 22) - (1u << 20));
        EXPECT_LT(ahead, (1u << 22) + (1u << 20));
        break;
      case Mutation::kPsnHalfWay:
        EXPECT_EQ(psn, (expected_psn_of(frame.qpn) + (1u << 23)) & packet::kPsnMask);
        break;
      case Mutation::kPsnOldestDuplicate:
        EXPECT_EQ(psn, (expected_psn_of(frame.qpn) - (1u << 23) + 1) & packet::kPsnMask);
        EXPECT_EQ(behind, (1u << 23) - 1);
        break;
      default:
        break;
    }
  }
}

TEST(FrameMutator, OpcodeClasses) {
  std::set<std::uint8_t> reserved_seen;
  for (const HostileFrame& frame : campaign_frames()) {
    const packet::ParseResult parsed = parse(frame.bytes);
    const packet::RocePacket& p = parsed.packet;
    const std::uint8_t opcode = p.bth.opcode;
    switch (frame.mutation) {
      case Mutation::kOpcodeOutOfSequence: {
        const packet::OpcodeInfo* info = packet::find_opcode(opcode);
        ASSERT_NE(info, nullptr);
        EXPECT_EQ(info->transport, packet::Transport::kRc);
        EXPECT_TRUE(opcode <= 0x03 || (opcode >= 0x07 && opcode <= 0x09)) << int{opcode};
        EXPECT_TRUE(info->position == packet::MessagePosition::kMiddle ||
                    info->position == packet::MessagePosition::kLast);
        EXPECT_TRUE(packet::payload_length_ok(info->payload, p.payload_length, kPmtu));
        break;
      }
      case Mutation::kOpcodeReserved:
        EXPECT_EQ(parsed.error, ParseError::kUnsupportedOpcode);
        EXPECT_TRUE(opcode == 0x15 || (opcode >= 0x18 && opcode <= 0x1F)) << int{opcode};
        reserved_seen.insert(opcode);
        break;
      case Mutation::kOpcodeResponse:
        EXPECT_GE(opcode, 0x0D);
        EXPECT_LE(opcode, 0x12);
        EXPECT_TRUE(packet::payload_length_ok(packet::find_opcode(opcode)->payload,
                                              p.payload_length, kPmtu));
        break;
      case Mutation::kOpcodeUc:
        EXPECT_EQ(packet::find_opcode(opcode)->transport, packet::Transport::kUc);
        break;
      case Mutation::kOpcodeUd:
        EXPECT_TRUE(opcode == 0x64 || opcode == 0x65) << int{opcode};
        EXPECT_TRUE(p.deth.has_value());
        break;
      default:
        break;
    }
  }
  EXPECT_EQ(reserved_seen.size(), 9u);
}

TEST(FrameMutator, RethClasses) {
  const HostileTarget target = full_target();
  std::set<std::uint8_t> opcodes;
  for (const HostileFrame& frame : campaign_frames()) {
    const char* name = to_string(frame.mutation);
    const std::string prefix = "reth_";
    if (std::string(name).compare(0, prefix.size(), prefix) != 0) continue;
    const packet::ParseResult parsed = parse(frame.bytes);
    ASSERT_TRUE(parsed.ok()) << name;
    const packet::RocePacket& p = parsed.packet;
    const std::uint8_t opcode = p.bth.opcode;
    opcodes.insert(opcode);
    ASSERT_TRUE(opcode == 0x06 || opcode == 0x0A || opcode == 0x0C) << name << int{opcode};
    ASSERT_TRUE(p.reth.has_value());
    const std::uint64_t va = p.reth->virtual_address;
    const std::uint64_t length = p.reth->dma_length;
    const TargetRegion* region = region_with_rkey(target.writable, p.reth->rkey);
    ASSERT_NE(region, nullptr) << name;
    const std::uint64_t end = end_of(*region);
    if (opcode == 0x0A) {
      EXPECT_EQ(p.payload_length, std::min<std::uint64_t>(length, kPmtu)) << name;
    }
    if (opcode == 0x06) {
      EXPECT_EQ(p.payload_length, kPmtu) << name;
    }
    if (opcode == 0x0C) {
      EXPECT_EQ(p.payload_length, 0u) << name;
    }
    switch (frame.mutation) {
      case Mutation::kRethInside:
        EXPECT_TRUE(inside(*region, va, length)) << va << "+" << length;
        break;
      case Mutation::kRethStraddleByOne:
        EXPECT_EQ(va + length, end + 1);
        EXPECT_GE(va, region->va);
        EXPECT_LT(va, end);
        if (opcode == 0x0A) {
          EXPECT_LE(length, kPmtu);
        }
        break;
      case Mutation::kRethStraddle:
        EXPECT_GE(va + length, end + 2);
        EXPECT_LE(va + length, end + 4096);
        EXPECT_GE(va, region->va);
        EXPECT_LT(va, end);
        if (opcode == 0x0A) {
          EXPECT_LE(length, kPmtu);
        }
        break;
      case Mutation::kRethOutside:
        EXPECT_TRUE(va + length <= region->va || va >= end) << va << "+" << length;
        EXPECT_GT(length, 0u);
        break;
      case Mutation::kRethWrapVa:
        EXPECT_GT(va, std::numeric_limits<std::uint64_t>::max() - length) << va << "+" << length;
        break;
      case Mutation::kRethZeroLength:
        EXPECT_EQ(length, 0u);
        break;
      case Mutation::kRethLength2Pow31:
        EXPECT_EQ(length, 1ull << 31);
        break;
      case Mutation::kRethLengthMax:
        EXPECT_EQ(length, 0xFFFFFFFFull);
        break;
      default:
        ADD_FAILURE() << name;
    }
  }
  EXPECT_EQ(opcodes.size(), 3u);
}

TEST(FrameMutator, RkeyClassesGetOnlyTheKeyWrong) {
  const HostileTarget target = full_target();
  for (const HostileFrame& frame : campaign_frames()) {
    const Mutation m = frame.mutation;
    if (m != Mutation::kRkeyLacksRight && m != Mutation::kRkeyOtherPd &&
        m != Mutation::kRkeyDeregistered && m != Mutation::kRkeyRandom) {
      continue;
    }
    const packet::ParseResult parsed = parse(frame.bytes);
    ASSERT_TRUE(parsed.ok());
    const packet::RocePacket& p = parsed.packet;
    const bool atomic = p.atomic_eth.has_value();
    ASSERT_TRUE(atomic || p.reth.has_value());
    const std::uint32_t rkey = atomic ? p.atomic_eth->rkey : p.reth->rkey;
    const std::uint64_t va = atomic ? p.atomic_eth->virtual_address : p.reth->virtual_address;
    const std::uint64_t length = atomic ? 8 : p.reth->dma_length;
    if (atomic) {
      EXPECT_EQ(va % 8, 0u);
    }
    switch (m) {
      case Mutation::kRkeyLacksRight: {
        EXPECT_NE(p.bth.opcode, 0x0C) << "a READ of a read-only region is allowed";
        const TargetRegion* region = region_with_rkey(target.read_only, rkey);
        ASSERT_NE(region, nullptr);
        EXPECT_TRUE(inside(*region, va, length));
        break;
      }
      case Mutation::kRkeyOtherPd: {
        const TargetRegion* region = region_with_rkey(target.other_pd, rkey);
        ASSERT_NE(region, nullptr);
        EXPECT_TRUE(inside(*region, va, length));
        break;
      }
      case Mutation::kRkeyDeregistered:
        EXPECT_TRUE(contains(target.deregistered_rkeys, rkey));
        break;
      default:
        EXPECT_EQ(region_with_rkey(target.writable, rkey), nullptr);
        EXPECT_EQ(region_with_rkey(target.read_only, rkey), nullptr);
        EXPECT_EQ(region_with_rkey(target.other_pd, rkey), nullptr);
        EXPECT_FALSE(contains(target.deregistered_rkeys, rkey));
        break;
    }
  }
}

TEST(FrameMutator, AtomicClasses) {
  const HostileTarget target = full_target();
  std::size_t straddling = 0;
  for (const HostileFrame& frame : campaign_frames()) {
    const Mutation m = frame.mutation;
    if (m != Mutation::kAtomicMisaligned && m != Mutation::kAtomicAligned &&
        m != Mutation::kAtomicAlignedPastEnd) {
      continue;
    }
    const packet::ParseResult parsed = parse(frame.bytes);
    ASSERT_TRUE(parsed.ok());
    const packet::RocePacket& p = parsed.packet;
    ASSERT_TRUE(p.bth.opcode == 0x13 || p.bth.opcode == 0x14);
    const std::uint64_t va = p.atomic_eth->virtual_address;
    const TargetRegion* region = region_with_rkey(target.writable, p.atomic_eth->rkey);
    ASSERT_NE(region, nullptr);
    const std::uint64_t end = end_of(*region);
    switch (m) {
      case Mutation::kAtomicMisaligned:
        EXPECT_NE(va % 8, 0u);
        EXPECT_TRUE(inside(*region, va, 8));
        break;
      case Mutation::kAtomicAligned:
        EXPECT_EQ(va % 8, 0u);
        EXPECT_TRUE(inside(*region, va, 8));
        break;
      default:
        EXPECT_EQ(va % 8, 0u);
        EXPECT_GT(va + 8, end);
        EXPECT_LE(va, end);
        if (va < end) ++straddling;
        break;
    }
  }
  EXPECT_GT(straddling, 0u) << "the unaligned region's end was never straddled";
}

TEST(FrameMutator, PayloadAndLengthClasses) {
  std::size_t pad_on_no_payload = 0;
  std::size_t pad_read_as_shorter_payload = 0;
  for (const HostileFrame& frame : campaign_frames()) {
    const packet::ParseResult parsed = parse(frame.bytes);
    const packet::RocePacket& p = parsed.packet;
    switch (frame.mutation) {
      case Mutation::kPayloadOverPmtu:
        EXPECT_GT(p.payload_length, kPmtu);
        EXPECT_TRUE(p.bth.opcode == 0x04 || p.bth.opcode == 0x0A);
        if (p.reth) {
          EXPECT_EQ(p.reth->dma_length, p.payload_length);
        }
        break;
      case Mutation::kLengthMismatch: {
        // The lengths as the frame carries them disagree with its bytes.
        const std::uint16_t ip_total = packet::load_be16(frame.bytes.data() + 14 + 2);
        const std::uint16_t udp_length = packet::load_be16(frame.bytes.data() + 14 + 20 + 4);
        EXPECT_TRUE(ip_total != frame.bytes.size() - 14 || udp_length != ip_total - 20);
        break;
      }
      case Mutation::kPadCountChanged: {
        // Refused for its pad, or read with a payload shorter or longer than built.
        const packet::OpcodeInfo* info = packet::find_opcode(p.bth.opcode);
        ASSERT_NE(info, nullptr);
        if (info->payload == packet::PayloadRule::kNone) {
          EXPECT_EQ(parsed.error, ParseError::kPad);
          ++pad_on_no_payload;
        } else if (!parsed.ok()) {
          EXPECT_TRUE(parsed.error == ParseError::kPad ||
                      parsed.error == ParseError::kPayloadLength)
              << packet::to_string(*parsed.error);
        } else {
          ++pad_read_as_shorter_payload;
        }
        break;
      }
      default:
        break;
    }
  }
  EXPECT_GT(pad_on_no_payload, 0u);
  EXPECT_GT(pad_read_as_shorter_payload, 0u);
}

TEST(FrameMutator, PayloadOverA4096PmtuIsAddedRawWithTheIcrcRedone) {
  HostileTarget target = full_target();
  target.pmtu = 4096;
  FrameMutator mutator(5, shared_templates());
  std::size_t seen = 0;
  for (int i = 0; i < 4000; ++i) {
    const HostileFrame frame = mutator.next(target);
    if (frame.mutation != Mutation::kPayloadOverPmtu) continue;
    ++seen;
    EXPECT_EQ(parse(frame.bytes).error, ParseError::kPayloadLength);
    ASSERT_TRUE(packet::locate_icrc(frame.bytes.data(), frame.bytes.size()).has_value());
    EXPECT_TRUE(icrc_right_where_located(frame.bytes));
  }
  EXPECT_GT(seen, 0u);
}

TEST(FrameMutator, AckSyndromesCoverEveryKind) {
  std::set<std::string> kinds;
  for (const HostileFrame& frame : campaign_frames()) {
    if (frame.mutation != Mutation::kAckRandomSyndrome) continue;
    const packet::ParseResult parsed = parse(frame.bytes);
    ASSERT_TRUE(parsed.ok());
    EXPECT_EQ(parsed.packet.bth.opcode, 0x11);
    const std::uint8_t s = parsed.packet.aeth->syndrome;
    if (s < 0x20) {
      kinds.insert("ack");
    } else if (s < 0x40) {
      kinds.insert("rnr");
    } else if (s >= 0x60 && s <= 0x63) {
      kinds.insert("nak");
    } else {
      kinds.insert("reserved");
    }
  }
  EXPECT_EQ(kinds.size(), 4u);
}

TEST(FrameMutator, ImmediateAndHeaderShapeClasses) {
  const HostileTarget target = full_target();
  for (const HostileFrame& frame : campaign_frames()) {
    const packet::ParseResult parsed = parse(frame.bytes);
    const packet::RocePacket& p = parsed.packet;
    switch (frame.mutation) {
      case Mutation::kImmWriteOnly: {
        ASSERT_EQ(p.bth.opcode, 0x0B);
        ASSERT_TRUE(p.imm_dt.has_value());
        const TargetRegion* region = region_with_rkey(target.writable, p.reth->rkey);
        ASSERT_NE(region, nullptr);
        EXPECT_TRUE(inside(*region, p.reth->virtual_address, p.reth->dma_length));
        EXPECT_EQ(p.payload_length, std::min<std::uint64_t>(p.reth->dma_length, kPmtu));
        break;
      }
      case Mutation::kImmSendOnly:
        EXPECT_EQ(p.bth.opcode, 0x05);
        EXPECT_TRUE(p.imm_dt.has_value());
        break;
      case Mutation::kIpv4Options:
        EXPECT_GT(frame.bytes[14] & 0xF, 5);
        break;
      case Mutation::kIpv6: {
        ASSERT_TRUE(p.is_ipv6());
        const auto& ip = std::get<packet::Ipv6Header>(p.ip);
        EXPECT_EQ(packet::load_be32(ip.destination.data() + 12), target.ip_destination);
        break;
      }
      case Mutation::kVlanTag:
        EXPECT_TRUE(p.ethernet.vlan_tci.has_value());
        break;
      case Mutation::kTruncated:
        EXPECT_FALSE(parsed.ok());
        break;
      case Mutation::kOverLong: {
        const auto where = packet::locate_icrc(frame.bytes.data(), frame.bytes.size());
        ASSERT_TRUE(where.has_value());
        EXPECT_GT(frame.bytes.size(), where->icrc_offset + packet::kIcrcSize);
        break;
      }
      case Mutation::kBitFlip:
        EXPECT_EQ(frame.qpn, packet::load_be24(frame.bytes.data() + 14 + 20 + 8 + 5));
        break;
      default:
        break;
    }
  }
}

TEST(FrameMutator, ClassesWithoutWhatTheyNeedAreDrawnAgain) {
  HostileTarget bare = full_target();
  bare.attacked_qpns = {0x11};
  bare.unknown_qpns.clear();
  bare.writable.clear();
  bare.read_only.clear();
  bare.other_pd.clear();
  bare.deregistered_rkeys.clear();
  FrameMutator mutator(9, shared_templates());
  std::set<Mutation> seen;
  for (int i = 0; i < 5000; ++i) {
    const HostileFrame frame = mutator.next(bare);
    seen.insert(frame.mutation);
    EXPECT_EQ(parse(frame.bytes).error == ParseError::kIcrcMismatch, false);
  }
  for (Mutation never :
       {Mutation::kQpnOtherAttacked, Mutation::kQpnUnknown, Mutation::kRethInside,
        Mutation::kRethStraddleByOne, Mutation::kRethWrapVa, Mutation::kRkeyLacksRight,
        Mutation::kRkeyOtherPd, Mutation::kRkeyDeregistered, Mutation::kAtomicAligned,
        Mutation::kAtomicMisaligned, Mutation::kAtomicAlignedPastEnd, Mutation::kImmWriteOnly}) {
    EXPECT_EQ(seen.count(never), 0u) << to_string(never);
  }
  EXPECT_EQ(seen.count(Mutation::kRkeyRandom), 1u);
  EXPECT_EQ(seen.count(Mutation::kBitFlip), 1u);
}

TEST(FrameMutator, RefusesWhatItCannotUse) {
  EXPECT_THROW(FrameMutator(1, {Bytes(60, 0)}), std::invalid_argument);
  FrameMutator mutator(1, shared_templates());
  HostileTarget no_qps = full_target();
  no_qps.attacked_qpns.clear();
  EXPECT_THROW(mutator.next(no_qps), std::invalid_argument);
  HostileTarget bad_pmtu = full_target();
  bad_pmtu.pmtu = 1000;
  EXPECT_THROW(mutator.next(bad_pmtu), std::invalid_argument);
}

TEST(RetargetCapture, RdmaWriteBwIsAimedAtTheTarget) {
  const HostileTarget target = full_target();
  const std::string path = capture("rdma_write_bw.pcap");
  const std::vector<Bytes> original = roce_frames_of(path);
  const std::vector<Bytes> aimed = retarget_capture(path, target, false);
  const std::vector<Bytes> with_psn = retarget_capture(path, target, true);
  ASSERT_GT(original.size(), 10u);
  ASSERT_EQ(aimed.size(), original.size());
  ASSERT_EQ(with_psn.size(), original.size());
  for (std::size_t i = 0; i < aimed.size(); ++i) {
    const packet::ParseResult was = parse(original[i]);
    const packet::ParseResult now = parse(aimed[i]);
    ASSERT_TRUE(now.ok()) << i << ": " << packet::to_string(*now.error);
    const packet::RocePacket& p = now.packet;
    EXPECT_EQ(p.bth.dest_qp, target.attacked_qpns[i % target.attacked_qpns.size()]);
    EXPECT_EQ(p.ethernet.source, target.mac_source);
    EXPECT_EQ(p.ethernet.destination, target.mac_destination);
    EXPECT_EQ(std::get<packet::Ipv4Header>(p.ip).source, target.ip_source);
    EXPECT_EQ(std::get<packet::Ipv4Header>(p.ip).destination, target.ip_destination);
    EXPECT_EQ(p.bth.psn, was.packet.bth.psn);
    EXPECT_EQ(p.bth.opcode, was.packet.bth.opcode);
    EXPECT_EQ(p.payload_length, was.packet.payload_length);
    const packet::ParseResult psn = parse(with_psn[i]);
    ASSERT_TRUE(psn.ok());
    EXPECT_EQ(psn.packet.bth.psn, expected_psn_of(psn.packet.bth.dest_qp));
  }
}

TEST(RetargetCapture, Ipv6BecomesIpv4AndOtherRecordsAreSkipped) {
  packet::RocePacket headers;
  packet::Ipv6Header ipv6;
  ipv6.traffic_class = 0x68;
  ipv6.hop_limit = 17;
  headers.ip = ipv6;
  headers.bth.opcode = 0x04;
  headers.bth.psn = 77;
  const Bytes payload(13, 0xAB);
  const Bytes roce = packet::build_frame(headers, payload.data(), payload.size());
  const std::string path = ::testing::TempDir() + "retarget_ipv6.pcap";
  {
    packet::PcapWriter writer(path);
    const Bytes not_roce(64, 0x55);
    writer.write(0, not_roce.data(), not_roce.size());
    writer.write(1, roce.data(), roce.size());
  }
  const HostileTarget target = full_target();
  const std::vector<Bytes> aimed = retarget_capture(path, target, false);
  std::remove(path.c_str());
  ASSERT_EQ(aimed.size(), 1u);
  const packet::ParseResult parsed = parse(aimed[0]);
  ASSERT_TRUE(parsed.ok());
  ASSERT_FALSE(parsed.packet.is_ipv6());
  const auto& ipv4 = std::get<packet::Ipv4Header>(parsed.packet.ip);
  EXPECT_EQ(ipv4.tos, 0x68);
  EXPECT_EQ(ipv4.ttl, 17);
  EXPECT_EQ(ipv4.destination, target.ip_destination);
  EXPECT_EQ(parsed.packet.bth.dest_qp, target.attacked_qpns[0]);
  EXPECT_EQ(parsed.packet.bth.psn, 77u);
  EXPECT_EQ(parsed.packet.payload_length, payload.size());
}

}  // namespace
}  // namespace rnicsim::hostile
