// 100,000 truncated and mutated frames through the parser: none may crash or
// read past its frame (each sits in a heap block of exactly its size, so
// ASan catches any overread), every rejected one names its reason, and the
// verdict on every mutated frame must match an oracle worked out from the
// frame layout alone, without the parser.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstring>
#include <fstream>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "own_frames.hpp"
#include "formats/frame.hpp"

namespace rnicsim::packet {
namespace {

using Bytes = std::vector<std::uint8_t>;

// The 10 in-repo ICRC vectors and the frames we build ourselves (VLAN, IPv6
// flow labels, a non-zero UDP checksum, reserved BTH bits, a CNP).
std::vector<Bytes> seed_frames() {
  std::ifstream file(RNICSIM_TEST_DATA_DIR "/roce/icrc_test_vectors.json");
  const nlohmann::json vectors = nlohmann::json::parse(file);
  std::vector<Bytes> frames;
  for (const auto& v : vectors) {
    const std::string hex = v.at("frame_hex");
    Bytes frame;
    for (std::size_t i = 0; i + 1 < hex.size(); i += 2) {
      frame.push_back(static_cast<std::uint8_t>(std::stoul(hex.substr(i, 2), nullptr, 16)));
    }
    frames.push_back(frame);
  }
  for (const auto& own : testbench::own_frames()) frames.push_back(own.bytes);
  return frames;
}

// RFC 1071: a header whose 16-bit words, checksum included, sum to all ones.
bool ipv4_sum_ok(const std::uint8_t* header, std::size_t length) {
  std::uint32_t sum = 0;
  for (std::size_t i = 0; i < length; i += 2) sum += std::uint32_t{header[i]} << 8 | header[i + 1];
  while (sum >> 16) sum = (sum & 0xFFFF) + (sum >> 16);
  return sum == 0xFFFF;
}

// Whether a receiver must accept `mutated`, a copy of the valid frame `seed`
// with the same length and some bytes overwritten. Reading the layout from
// the seed: a byte may change only where no receive check and no ICRC bit
// looks (the ICRC masks as Linux rxe_icrc.c applies them):
//   - the Ethernet addresses and an 802.1Q tag's TCI (nothing reads them);
//   - IPv6 traffic class, flow label, hop limit: the low nibble of byte 0,
//     bytes 1-3 and 7 of the IPv6 header (the version nibble is checked);
//   - IPv4 TOS, TTL and header checksum (bytes 1, 8, 10, 11): masked out of
//     the ICRC, but the header checksum must still add up;
//   - the UDP checksum and BTH byte 4 (FECN, BECN, reserved): masked, unchecked;
//   - anything after the IP packet (Ethernet padding).
// Any other change must be rejected: the EtherType and IP version are checked,
// and everything from the IP header to the ICRC is covered by the ICRC (a
// change escapes a CRC-32 with odds of 2^-32, never at this test's seed).
bool must_accept(const Bytes& seed, const Bytes& mutated) {
  const bool vlan = load_be16(&seed[12]) == kEtherTypeVlan;
  const std::size_t ip = vlan ? 18 : 14;
  const bool ipv6 = (seed[ip] >> 4) == 6;
  const std::size_t ip_header = ipv6 ? 40 : std::size_t{seed[ip] & 0xFu} * 4;
  const std::size_t ip_end = ip + (ipv6 ? 40 + load_be16(&seed[ip + 4]) : load_be16(&seed[ip + 2]));
  const std::size_t udp = ip + ip_header;
  for (std::size_t i = 0; i < seed.size(); ++i) {
    if (seed[i] == mutated[i] || i < 12 || (vlan && (i == 14 || i == 15)) || i >= ip_end) continue;
    if (i < ip) return false;  // EtherType, or the tag's inner EtherType
    const std::size_t at = i - ip;
    const bool masked_ip_byte =
        ipv6 ? (at == 0 && (seed[i] >> 4) == (mutated[i] >> 4)) || (at >= 1 && at <= 3) || at == 7
             : at == 1 || at == 8 || at == 10 || at == 11;
    const bool masked_udp_or_bth = i == udp + 6 || i == udp + 7 || i == udp + 8 + 4;
    if (!masked_ip_byte && !masked_udp_or_bth) return false;
  }
  return ipv6 || ipv4_sum_ok(&mutated[ip], ip_header);
}

TEST(PacketRobustness, HundredThousandBrokenFramesAreJudgedAsTheLayoutSays) {
  const auto seeds = seed_frames();
  ASSERT_EQ(seeds.size(), 10u + testbench::own_frames().size());
  for (const auto& frame : seeds) {
    ASSERT_TRUE(parse_frame(frame.data(), frame.size()).ok());
    ASSERT_TRUE(must_accept(frame, frame));
  }

  std::mt19937_64 random(2026);
  std::map<std::string, std::uint64_t> reasons;
  std::uint64_t accepted = 0;
  std::uint64_t must_accepts = 0;
  std::uint64_t truncated_accepted = 0;
  std::uint64_t disagreements = 0;
  constexpr int kFrames = 100000;
  for (int i = 0; i < kFrames; ++i) {
    const Bytes& seed = seeds[static_cast<std::size_t>(i) % seeds.size()];
    Bytes frame = seed;
    const bool truncate = i % 3 == 0;
    if (truncate) {
      frame.resize(random() % frame.size());  // 0 .. size-1 bytes
    } else {
      // 1 to 4 random bytes overwritten, anywhere.
      for (std::uint64_t n = 1 + random() % 4; n > 0; --n) {
        frame[random() % frame.size()] = static_cast<std::uint8_t>(random());
      }
    }
    const std::size_t length = frame.size();
    std::unique_ptr<std::uint8_t[]> exact(new std::uint8_t[length == 0 ? 1 : length]);
    if (length > 0) std::memcpy(exact.get(), frame.data(), length);
    const ParseResult result = parse_frame(length == 0 ? nullptr : exact.get(), length);
    accepted += result.ok();
    if (truncate) {
      // None of the seeds carries Ethernet padding, so any cut is caught.
      truncated_accepted += result.ok();
    } else {
      const bool expected = must_accept(seed, frame);
      must_accepts += expected;
      if (result.ok() != expected && ++disagreements <= 10) {
        ADD_FAILURE() << "frame " << i << (expected ? " rejected (" : " accepted")
                      << (result.ok() ? "" : to_string(*result.error)) << (expected ? ")" : "")
                      << " against the layout's verdict";
      }
    }
    if (!result.ok()) {
      const std::string reason = to_string(*result.error);
      ASSERT_FALSE(reason.empty());
      ++reasons[reason];
    }
  }
  for (const auto& [reason, count] : reasons) {
    std::printf("  %-40s %8llu\n", reason.c_str(), static_cast<unsigned long long>(count));
  }
  std::printf("  accepted %llu, of which the layout allowed %llu mutated frames\n",
              static_cast<unsigned long long>(accepted),
              static_cast<unsigned long long>(must_accepts));
  EXPECT_EQ(disagreements, 0u);
  EXPECT_EQ(truncated_accepted, 0u);
  // Both verdicts occur often enough to mean something.
  EXPECT_GT(must_accepts, 1000u);
  EXPECT_GE(reasons.size(), 8u);  // the mutations reach many different checks
}

}  // namespace
}  // namespace rnicsim::packet
