// 100,000 truncated and mutated frames through the parser: none may crash or
// read past its frame (each sits in a heap block of exactly its size, so
// ASan catches any overread), and every rejected one names its reason.
#include <gtest/gtest.h>

#include <cstring>
#include <fstream>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "packet/frame.hpp"

namespace rnicsim::packet {
namespace {

std::vector<std::vector<std::uint8_t>> seed_frames() {
  std::ifstream file(RNICSIM_TEST_DATA_DIR "/roce/icrc_test_vectors.json");
  const nlohmann::json vectors = nlohmann::json::parse(file);
  std::vector<std::vector<std::uint8_t>> frames;
  for (const auto& v : vectors) {
    const std::string hex = v.at("frame_hex");
    std::vector<std::uint8_t> frame;
    for (std::size_t i = 0; i + 1 < hex.size(); i += 2) {
      frame.push_back(static_cast<std::uint8_t>(std::stoul(hex.substr(i, 2), nullptr, 16)));
    }
    frames.push_back(frame);
  }
  return frames;
}

TEST(PacketRobustness, HundredThousandBrokenFramesAreRejectedWithAReasonAndNeverOverread) {
  const auto seeds = seed_frames();
  ASSERT_EQ(seeds.size(), 10u);
  for (const auto& frame : seeds) ASSERT_TRUE(parse_frame(frame.data(), frame.size()).ok());

  std::mt19937_64 random(2026);
  std::map<std::string, std::uint64_t> reasons;
  std::uint64_t accepted = 0;
  std::uint64_t truncated_accepted = 0;
  constexpr int kFrames = 100000;
  for (int i = 0; i < kFrames; ++i) {
    std::vector<std::uint8_t> frame = seeds[static_cast<std::size_t>(i) % seeds.size()];
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
    if (result.ok()) {
      ++accepted;
      truncated_accepted += truncate;
      continue;
    }
    const std::string reason = to_string(*result.error);
    ASSERT_FALSE(reason.empty());
    ++reasons[reason];
  }
  // None of the 10 frames carries Ethernet padding, so any cut is caught. A
  // mutation survives only where neither a check nor the ICRC looks (the
  // Ethernet addresses, the masked UDP checksum and BTH byte 4), a few percent.
  EXPECT_EQ(truncated_accepted, 0u);
  EXPECT_LT(accepted, static_cast<std::uint64_t>(kFrames / 10));
  std::uint64_t rejected = 0;
  for (const auto& [reason, count] : reasons) {
    rejected += count;
    std::printf("  %-40s %8llu\n", reason.c_str(), static_cast<unsigned long long>(count));
  }
  EXPECT_EQ(rejected + accepted, static_cast<std::uint64_t>(kFrames));
  EXPECT_GE(reasons.size(), 8u);  // the mutations reach many different checks
}

}  // namespace
}  // namespace rnicsim::packet
