#include "fuzz_targets.hpp"

#include <algorithm>
#include <array>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <vector>

#include "formats/crc32.hpp"
#include "formats/frame.hpp"
#include "formats/opcodes.hpp"
#include "interface/mpt_format.hpp"
#include "nic/protection/access_check.hpp"
#include "nic/protection/request_checks.hpp"

namespace rnicsim::fuzz {
namespace {

// 128-bit sums for the bounds properties: no 64-bit sum of theirs can wrap.
__extension__ typedef unsigned __int128 Wide;

const char* input_name = nullptr;

using packet::IcrcHandling;
using packet::load_be32;
using packet::ParseError;
using packet::ParseResult;
using packet::RocePacket;

// ---------------------------------------------------------------- parse_frame

// The parser's checks of the Ethernet, IP and UDP headers that locate_icrc
// makes too.
bool fails_before_bth(const std::optional<ParseError>& error) {
  if (!error) return false;
  switch (*error) {
    case ParseError::kTruncatedEthernet:
    case ParseError::kUnsupportedEtherType:
    case ParseError::kIpVersion:
    case ParseError::kIpLength:
    case ParseError::kNotUdp:
    case ParseError::kUdpPort:
    case ParseError::kUdpLength:
      return true;
    default:
      return false;
  }
}

std::size_t ip_header_bytes(const RocePacket& p, const std::uint8_t* frame) {
  if (p.is_ipv6()) return packet::Ipv6Header::kSize;
  return std::size_t{frame[p.ethernet.size()] & 0xFu} * 4;
}

// The fields build_frame writes as given (frame.hpp): all but the
// EtherType, the IP total / payload length, the UDP length, the IPv4 and UDP
// checksums and the BTH pad count. The EtherType and pad count of a frame
// that parsed are what build_frame computes, so they are compared too.
void check_same_kept_headers(const RocePacket& a, const RocePacket& b) {
  FUZZ_CHECK(a.ethernet == b.ethernet);
  FUZZ_CHECK(a.is_ipv6() == b.is_ipv6());
  if (const auto* a4 = std::get_if<packet::Ipv4Header>(&a.ip)) {
    const auto& b4 = std::get<packet::Ipv4Header>(b.ip);
    FUZZ_CHECK(a4->tos == b4.tos);
    FUZZ_CHECK(a4->identification == b4.identification);
    FUZZ_CHECK(a4->flags_fragment == b4.flags_fragment);
    FUZZ_CHECK(a4->ttl == b4.ttl);
    FUZZ_CHECK(a4->protocol == b4.protocol);
    FUZZ_CHECK(a4->source == b4.source);
    FUZZ_CHECK(a4->destination == b4.destination);
  } else {
    const auto& a6 = std::get<packet::Ipv6Header>(a.ip);
    const auto& b6 = std::get<packet::Ipv6Header>(b.ip);
    FUZZ_CHECK(a6.traffic_class == b6.traffic_class);
    FUZZ_CHECK(a6.flow_label == b6.flow_label);
    FUZZ_CHECK(a6.next_header == b6.next_header);
    FUZZ_CHECK(a6.hop_limit == b6.hop_limit);
    FUZZ_CHECK(a6.source == b6.source);
    FUZZ_CHECK(a6.destination == b6.destination);
  }
  FUZZ_CHECK(a.udp.source_port == b.udp.source_port);
  FUZZ_CHECK(a.udp.destination_port == b.udp.destination_port);
  FUZZ_CHECK(a.bth == b.bth);
  FUZZ_CHECK(a.reth == b.reth);
  FUZZ_CHECK(a.aeth == b.aeth);
  FUZZ_CHECK(a.atomic_eth == b.atomic_eth);
  FUZZ_CHECK(a.atomic_ack_eth == b.atomic_ack_eth);
  FUZZ_CHECK(a.imm_dt == b.imm_dt);
  FUZZ_CHECK(a.ieth == b.ieth);
  FUZZ_CHECK(a.deth == b.deth);
  FUZZ_CHECK(a.payload_length == b.payload_length);
}

// Every header parse_frame decoded, derived fields included: kCompute and
// kSkip decode the same bytes.
void check_same_headers(const RocePacket& a, const RocePacket& b) {
  check_same_kept_headers(a, b);
  FUZZ_CHECK(a.ip == b.ip);
  FUZZ_CHECK(a.udp == b.udp);
  FUZZ_CHECK(a.payload_offset == b.payload_offset);
}

void round_trip(const std::uint8_t* frame, const RocePacket& parsed) {
  const std::vector<std::uint8_t> rebuilt = packet::build_frame(
      parsed, frame + parsed.payload_offset, parsed.payload_length, IcrcHandling::kCompute);
  FUZZ_CHECK(rebuilt.size() == packet::frame_size(parsed, parsed.payload_length));
  const ParseResult again = packet::parse_frame(rebuilt.data(), rebuilt.size());
  FUZZ_CHECK(again.ok());
  FUZZ_CHECK(again.icrc_ok);
  check_same_kept_headers(parsed, again.packet);
  FUZZ_CHECK(std::equal(frame + parsed.payload_offset,
                        frame + parsed.payload_offset + parsed.payload_length,
                        rebuilt.data() + again.packet.payload_offset));
  // What build_frame computes: IHL 5, lengths that count the ICRC, UDP
  // checksum 0, the pad that brings the payload to a multiple of 4.
  const std::size_t ip_size = ip_header_bytes(again.packet, rebuilt.data());
  FUZZ_CHECK(ip_size == (parsed.is_ipv6() ? 40u : 20u));
  FUZZ_CHECK(std::size_t{again.packet.udp.length} ==
             rebuilt.size() - parsed.ethernet.size() - ip_size);
  FUZZ_CHECK(again.packet.udp.checksum == 0);
  FUZZ_CHECK(again.packet.payload_offset + again.packet.payload_length +
                 again.packet.bth.pad_count + packet::kIcrcSize ==
             rebuilt.size());
}

// crc32() picks one kernel per processor (ISA-L alone where AVX-512 is, as
// here), so the other is checked against it directly: the fold and ISA-L give
// the same CRC-32 of the input, plain and under a mask (the ICRC's variant
// fields), from any running CRC. Mask and running CRC come from the input.
void crc32_kernel_properties(const std::uint8_t* data, std::size_t length) {
  namespace d = packet::detail;
  if (length < d::kFoldBlockBytes || !d::crc32_fold_available()) return;
  const std::uint32_t crc = load_be32(data);
  FUZZ_CHECK(d::crc32_fold(data, length, crc) == d::crc32_isal(data, length, crc));
  const std::uint8_t* mask = data + length - d::kFoldBlockBytes;
  FUZZ_CHECK(d::crc32_fold_or_masked(data, length, mask, crc) ==
             d::crc32_isal_or_masked(data, length, mask, crc));
}

void parse_frame_properties(const std::uint8_t* frame, std::size_t length) {
  crc32_kernel_properties(frame, length);
  const ParseResult computed = packet::parse_frame(frame, length, IcrcHandling::kCompute);
  const ParseResult skipped = packet::parse_frame(frame, length, IcrcHandling::kSkip);

  // kSkip makes every check but the ICRC: the same verdict, except that a
  // frame whose only fault is its ICRC passes.
  if (computed.error == ParseError::kIcrcMismatch) {
    FUZZ_CHECK(skipped.ok());
  } else {
    FUZZ_CHECK(skipped.error == computed.error);
  }
  FUZZ_CHECK(!skipped.icrc_ok && skipped.icrc_received == 0 && skipped.icrc_computed == 0);
  if (computed.ok()) {
    FUZZ_CHECK(computed.icrc_ok && computed.icrc_received == computed.icrc_computed);
  } else if (computed.error == ParseError::kIcrcMismatch) {
    FUZZ_CHECK(!computed.icrc_ok && computed.icrc_received != computed.icrc_computed);
  } else {
    FUZZ_CHECK(!computed.icrc_ok);
  }

  // locate_icrc reads the same Ethernet, IP and UDP headers but neither the
  // IPv4 checksum nor the fragment fields: it finds no ICRC exactly where the
  // parser fails one of those headers' checks (a frame failing the IPv4
  // checksum or fragment check may go either way: the parser stops there).
  const std::optional<packet::IcrcLocation> location = packet::locate_icrc(frame, length);
  if (fails_before_bth(skipped.error)) {
    FUZZ_CHECK(!location.has_value());
  } else if (skipped.error != ParseError::kIpv4Checksum &&
             skipped.error != ParseError::kIpv4Fragment) {
    FUZZ_CHECK(location.has_value());
  }

  if (!skipped.ok()) return;
  const RocePacket& p = skipped.packet;
  check_same_headers(p, computed.packet);
  const packet::OpcodeInfo* info = packet::find_opcode(p.bth.opcode);
  FUZZ_CHECK(info != nullptr);
  // Payload, pad and ICRC lie inside the frame, the ICRC where locate_icrc
  // puts it, and the payload is one the opcode may carry.
  FUZZ_CHECK(Wide{p.payload_offset} + p.payload_length + p.bth.pad_count + packet::kIcrcSize <=
             length);
  FUZZ_CHECK(location->ip_offset == p.ethernet.size());
  FUZZ_CHECK(location->icrc_offset == p.payload_offset + p.payload_length + p.bth.pad_count);
  FUZZ_CHECK(p.payload_offset == location->ip_offset + ip_header_bytes(p, frame) +
                                     packet::UdpHeader::kSize + packet::Bth::kSize +
                                     info->ext_header_bytes());
  FUZZ_CHECK((p.payload_length + p.bth.pad_count) % 4 == 0);
  FUZZ_CHECK(packet::payload_length_ok(info->payload, p.payload_length, 0));
  round_trip(frame, p);
}

// ------------------------------------------------------------- request_checks

std::uint64_t load_le(const std::uint8_t* in, int bytes) {
  std::uint64_t value = 0;
  for (int i = 0; i < bytes; ++i) value |= std::uint64_t{in[i]} << (8 * i);
  return value;
}

struct RequestChecksInput {
  ResponderQpView view;
  std::uint32_t qp_access = 0;
  std::uint64_t message_offset = 0;
  std::uint64_t target_length = 0;
  MptEntry mpt;
  std::uint32_t key = 0;
  std::uint64_t va = 0;
  std::uint64_t length = 0;
  std::uint32_t access = 0;
  std::uint32_t pd = 0;
};

RequestChecksInput decode_input(const std::uint8_t* h) {
  RequestChecksInput in;
  in.view.ready = (h[0] & 1) != 0;
  in.view.in_message = (h[0] & 2) != 0;
  in.view.message_is_send = (h[0] & 4) != 0;
  // The responder's view holds a 24-bit PSN (psn_add masks) and one of the
  // five path MTUs.
  in.view.expected_psn = static_cast<std::uint32_t>(load_le(h + 1, 3));
  in.view.pmtu = packet::kMinPmtu << (h[4] % 5);
  in.qp_access = h[5];
  in.message_offset = load_le(h + 6, 8);
  in.target_length = load_le(h + 14, 8);
  std::array<std::uint8_t, kMptEntryBytes> mpt{};
  std::copy(h + 22, h + 58, mpt.begin());
  in.mpt = decode_mpt(mpt.data());
  in.key = static_cast<std::uint32_t>(load_le(h + 58, 4));
  in.va = load_le(h + 62, 8);
  in.length = load_le(h + 70, 8);
  in.access = static_cast<std::uint32_t>(load_le(h + 78, 4));
  in.pd = static_cast<std::uint32_t>(load_le(h + 82, 4));
  return in;
}

// The opcode classes, from the IBTA table rather than the model's helpers.
bool is_send_request(std::uint8_t op) { return op <= 0x05; }
bool is_write_request(std::uint8_t op) { return op >= 0x06 && op <= 0x0B; }
bool is_read_request(std::uint8_t op) { return op == 0x0C; }
bool is_atomic_request(std::uint8_t op) { return op == 0x13 || op == 0x14; }
bool starts_message(std::uint8_t op) {  // FIRST or ONLY
  return op == 0x00 || op == 0x04 || op == 0x05 || op == 0x06 || op == 0x0A || op == 0x0B;
}
bool ends_message(std::uint8_t op) {  // LAST or ONLY
  return (op >= 0x02 && op <= 0x05) || (op >= 0x08 && op <= 0x0B);
}

// check_region_access against the definition in access_check.hpp, bounds
// in 128 bits: the first failing check in the documented order.
TranslationStatus expected_access(std::uint32_t key, const MptEntry& mpt, std::uint64_t va,
                                  std::uint64_t length, std::uint32_t access, std::uint32_t pd) {
  if (!mpt.valid) return TranslationStatus::kInvalidKey;
  if (std::uint32_t{mpt.key_variant} != (key & 0xFFu)) return TranslationStatus::kStaleKey;
  if (mpt.pd != pd) return TranslationStatus::kPdMismatch;
  if ((access | std::uint32_t{mpt.access}) != mpt.access) return TranslationStatus::kAccessDenied;
  if (va < mpt.base_va || Wide{va} + length > Wide{mpt.base_va} + mpt.length) {
    return TranslationStatus::kOutOfBounds;
  }
  return TranslationStatus::kOk;
}

TranslationStatus region_access_properties(std::uint32_t key, const MptEntry& mpt, std::uint64_t va,
                                           std::uint64_t length, std::uint32_t access,
                                           std::uint32_t pd) {
  const TranslationStatus status = check_region_access(key, mpt, va, length, access, pd);
  const TranslationStatus expected = expected_access(key, mpt, va, length, access, pd);
  FUZZ_CHECK((status == TranslationStatus::kOk) == (expected == TranslationStatus::kOk));
  FUZZ_CHECK(status == expected);
  return status;
}

void message_length_properties(bool send, bool last, std::uint64_t offset, std::uint64_t length,
                               std::uint64_t target, RequestCheck verdict) {
  const Wide end = Wide{offset} + length;
  switch (verdict) {
    case RequestCheck::kAccepted:
      FUZZ_CHECK(end <= target);
      FUZZ_CHECK(send || !last || end == target);
      break;
    case RequestCheck::kMessageTooLong:
      FUZZ_CHECK(end > target);
      break;
    case RequestCheck::kMessageTooShort:
      FUZZ_CHECK(!send && last && end < target);
      break;
    default:
      FUZZ_CHECK(!"check_message_length returned a verdict that is not its own");
  }
}

void remote_right_properties(std::uint32_t qp_access, std::uint8_t op, RequestCheck verdict) {
  std::uint32_t needs = 0;
  if (is_write_request(op)) needs = IBV_ACCESS_REMOTE_WRITE;
  if (is_read_request(op)) needs = IBV_ACCESS_REMOTE_READ;
  if (is_atomic_request(op)) needs = IBV_ACCESS_REMOTE_ATOMIC;
  const bool granted = (qp_access & needs) == needs;
  FUZZ_CHECK(verdict == (granted ? RequestCheck::kAccepted : RequestCheck::kNoRemoteRight));
}

void header_properties(const ResponderQpView& view, const RocePacket& p, RequestCheck verdict) {
  FUZZ_CHECK(static_cast<std::size_t>(verdict) < kRequestCheckCount);
  const packet::OpcodeInfo* info = packet::find_opcode(p.bth.opcode);
  const bool rc = info != nullptr && info->transport == packet::Transport::kRc;
  if (!view.ready) FUZZ_CHECK(verdict == RequestCheck::kNoQp);
  if (view.ready && !rc) FUZZ_CHECK(verdict == RequestCheck::kWrongTransport);
  if (verdict == RequestCheck::kDuplicate || verdict == RequestCheck::kOutOfSequence) {
    FUZZ_CHECK(p.bth.psn != view.expected_psn);
  }
  if (verdict != RequestCheck::kAccepted) return;
  const std::uint8_t op = p.bth.opcode;
  FUZZ_CHECK(view.ready);
  FUZZ_CHECK(p.bth.psn == view.expected_psn);
  FUZZ_CHECK(rc);
  FUZZ_CHECK(is_send_request(op) || is_write_request(op) || is_read_request(op) ||
             is_atomic_request(op));
  if (is_send_request(op) || is_write_request(op)) {
    // FIRST / ONLY outside a message, MIDDLE / LAST inside one of its kind.
    FUZZ_CHECK(starts_message(op) != view.in_message);
    FUZZ_CHECK(starts_message(op) || view.message_is_send == is_send_request(op));
    FUZZ_CHECK(packet::payload_length_ok(info->payload, p.payload_length, view.pmtu));
    FUZZ_CHECK(p.payload_length <= view.pmtu);
  } else {
    FUZZ_CHECK(!view.in_message);
    FUZZ_CHECK(p.payload_length == 0);
  }
}

// What the responder does after an accepted header (responder.cpp handle(),
// handle_write_or_send(), handle_read(), handle_atomic()), minus the memory.
void responder_decisions(const RequestChecksInput& in, const RocePacket& p) {
  const std::uint8_t op = p.bth.opcode;
  if (is_read_request(op) || is_atomic_request(op)) {
    const RequestCheck right = check_remote_right(in.qp_access, op);
    remote_right_properties(in.qp_access, op, right);
    if (right != RequestCheck::kAccepted) return;
    if (is_read_request(op)) {
      FUZZ_CHECK(p.reth.has_value());
      if (p.reth->dma_length > 0) {
        region_access_properties(p.reth->rkey, in.mpt, p.reth->virtual_address, p.reth->dma_length,
                                 IBV_ACCESS_REMOTE_READ, in.pd);
      }
      return;
    }
    FUZZ_CHECK(p.atomic_eth.has_value());
    const std::uint64_t va = p.atomic_eth->virtual_address;
    const RequestCheck aligned = check_atomic_alignment(va);
    FUZZ_CHECK(aligned == (va % 8 == 0 ? RequestCheck::kAccepted : RequestCheck::kAtomicAlignment));
    if (aligned != RequestCheck::kAccepted) return;
    region_access_properties(p.atomic_eth->rkey, in.mpt, va, 8, IBV_ACCESS_REMOTE_ATOMIC, in.pd);
    return;
  }

  const bool send = is_send_request(op);
  const bool last = ends_message(op);
  std::uint64_t offset = in.message_offset;
  std::uint64_t target = in.target_length;
  // Earlier packets of the message passed check_message_length: the offset
  // never exceeds the target.
  if (offset > target) std::swap(offset, target);
  bool region_ok = false;
  if (starts_message(op)) {
    offset = 0;
    if (!send) {
      FUZZ_CHECK(p.reth.has_value());
      target = p.reth->dma_length;
      const RequestCheck right = check_remote_right(in.qp_access, op);
      remote_right_properties(in.qp_access, op, right);
      if (right != RequestCheck::kAccepted) return;
      if (p.reth->dma_length > 0) {
        const TranslationStatus status =
            region_access_properties(p.reth->rkey, in.mpt, p.reth->virtual_address,
                                     p.reth->dma_length, IBV_ACCESS_REMOTE_WRITE, in.pd);
        if (status != TranslationStatus::kOk) return;
        region_ok = true;
      }
    }
  }
  const RequestCheck fits = check_message_length(send, last, offset, p.payload_length, target);
  message_length_properties(send, last, offset, p.payload_length, target, fits);
  // End to end: a WRITE's first packet that passes every check writes inside
  // the region its key names.
  if (region_ok && fits == RequestCheck::kAccepted && p.payload_length > 0) {
    FUZZ_CHECK(p.reth->virtual_address >= in.mpt.base_va);
    FUZZ_CHECK(Wide{p.reth->virtual_address} + p.payload_length <=
               Wide{in.mpt.base_va} + in.mpt.length);
  }
}

void request_checks_properties(const std::uint8_t* data, std::size_t size) {
  std::array<std::uint8_t, kRequestChecksHeaderBytes> header{};
  std::copy_n(data, std::min(size, header.size()), header.begin());
  const RequestChecksInput in = decode_input(header.data());
  const std::uint8_t* frame = data + std::min(size, header.size());
  const std::size_t frame_length = size - std::min(size, header.size());

  region_access_properties(in.key, in.mpt, in.va, in.length, in.access, in.pd);
  FUZZ_CHECK(check_atomic_alignment(in.va) ==
             (in.va % 8 == 0 ? RequestCheck::kAccepted : RequestCheck::kAtomicAlignment));
  {
    std::uint64_t offset = in.message_offset, target = in.target_length;
    if (offset > target) std::swap(offset, target);
    const bool send = (header[0] & 8) != 0, last = (header[0] & 16) != 0;
    message_length_properties(send, last, offset, in.length, target,
                              check_message_length(send, last, offset, in.length, target));
  }

  const ParseResult parsed = packet::parse_frame(frame, frame_length, IcrcHandling::kSkip);
  if (!parsed.ok()) return;
  const RequestCheck verdict = check_request_header(in.view, parsed.packet);
  header_properties(in.view, parsed.packet, verdict);
  FUZZ_CHECK(std::strcmp(to_string(verdict), "?") != 0);
  if (verdict == RequestCheck::kAccepted) responder_decisions(in, parsed.packet);
}

}  // namespace

void fail(const char* condition, const char* file, int line) {
  std::fprintf(stderr, "FUZZ_CHECK failed: %s\n  at %s:%d\n", condition, file, line);
  if (input_name != nullptr) std::fprintf(stderr, "  input: %s\n", input_name);
  std::fflush(stderr);
  std::abort();
}

void set_input_name(const char* name) { input_name = name; }

}  // namespace rnicsim::fuzz

void fuzz_parse_frame_one(const std::uint8_t* data, std::size_t size) {
  rnicsim::fuzz::parse_frame_properties(data, size);
}

void fuzz_request_checks_one(const std::uint8_t* data, std::size_t size) {
  rnicsim::fuzz::request_checks_properties(data, size);
}
