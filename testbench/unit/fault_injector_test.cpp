// The fault injector alone: scripted faults hit exactly the frames they
// name, random faults come at their rates from a generator that gives the
// same decisions for a seed on every run and platform, and corruption is
// caught where its mode says (the FCS, or only the ICRC).
#include "wire/fault_injector.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <memory>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "config/config.hpp"
#include "config/run_config.hpp"
#include "program/experiments/experiments.hpp"
#include "wire/fault_script.hpp"
#include "formats/frame.hpp"
#include "formats/icrc.hpp"
#include "formats/opcodes.hpp"
#include "random_packets.hpp"

namespace rnicsim {
namespace {

constexpr std::uint8_t kSendOnly = 0x04;
constexpr std::uint8_t kWriteOnly = 0x0A;
constexpr std::uint8_t kReadResponseOnly = 0x10;
constexpr std::uint8_t kAcknowledge = 0x11;

// A RoCEv2 frame with the given BTH opcode, destination QP and PSN.
Transfer roce_frame(std::uint8_t opcode, std::uint32_t qp, std::uint32_t psn,
                    std::uint8_t syndrome = 0, std::size_t payload = 64) {
  std::mt19937_64 rng(psn * 7919u + qp);
  packet::RocePacket headers = testbench::random_headers(opcode, false, false, rng);
  headers.bth.dest_qp = qp;
  headers.bth.psn = psn;
  if (headers.aeth) headers.aeth->syndrome = syndrome;
  const packet::OpcodeInfo* info = packet::find_opcode(opcode);
  if (info->payload == packet::PayloadRule::kNone) payload = 0;
  const std::vector<std::uint8_t> data(payload, 0x5A);
  auto bytes =
      std::make_shared<const Bytes>(packet::build_frame(headers, data.data(), data.size()));
  return Transfer(psn, bytes->size() * 8, sc_core::SC_ZERO_TIME, bytes);
}

FaultConfig with_seed(std::uint64_t seed) {
  FaultConfig c;
  c.seed = seed;
  return c;
}

TEST(FaultScript, ReadsEveryFieldOfEveryEntry) {
  const std::vector<FaultScriptEntry> script = parse_fault_script(
      "drop:opcode=read_response,qp=5,nth=3; corrupt:opcode=ack;duplicate:opcode=send,psn=12;"
      "delay:qp=0x3,nth=2,ns=500;drop:opcode=0x11;");
  ASSERT_EQ(script.size(), 5u);
  EXPECT_EQ(script[0].action, FaultAction::kDrop);
  EXPECT_EQ(script[0].opcode_class, OpcodeClass::kReadResponse);
  EXPECT_EQ(script[0].dest_qp, 5u);
  EXPECT_EQ(script[0].nth, 3u);
  EXPECT_EQ(script[1].action, FaultAction::kCorrupt);
  EXPECT_EQ(script[1].nth, 1u);
  EXPECT_FALSE(script[1].dest_qp.has_value());
  EXPECT_EQ(script[2].psn, 12u);
  EXPECT_EQ(script[3].action, FaultAction::kDelay);
  EXPECT_EQ(script[3].dest_qp, 3u);
  EXPECT_EQ(script[3].delay_ps, 500000u);
  EXPECT_EQ(script[4].opcode, 0x11);
  EXPECT_TRUE(parse_fault_script("").empty());
}

TEST(FaultScript, ABadEntryIsNamedWithItsReason) {
  const auto reason_of = [](const std::string& text) -> std::string {
    try {
      parse_fault_script(text);
    } catch (const FaultScriptError& e) {
      return e.what();
    }
    return "no error";
  };
  EXPECT_EQ(reason_of("drop:qp=5;explode:qp=1"),
            "bad entry \"explode:qp=1\": unknown action \"explode\" (drop, corrupt, duplicate or "
            "delay)");
  EXPECT_EQ(reason_of("drop:qp=five"),
            "bad entry \"drop:qp=five\": qp must be a whole number from 0 to 16777215 (decimal "
            "or 0x hex), got \"five\"");
  EXPECT_EQ(reason_of("drop:nth=0"),
            "bad entry \"drop:nth=0\": nth must be a whole number from 1 to 4294967295 (decimal "
            "or 0x hex), got \"0\"");
  EXPECT_EQ(reason_of("delay:qp=3"),
            "bad entry \"delay:qp=3\": a delay entry needs ns=<nanoseconds>");
  EXPECT_EQ(reason_of("drop:ns=5"), "bad entry \"drop:ns=5\": ns is for delay entries only");
  EXPECT_EQ(reason_of("drop:colour=red"),
            "bad entry \"drop:colour=red\": unknown field \"colour\" (opcode, qp, psn, nth, ns)");
  EXPECT_EQ(reason_of("drop:qp"), "bad entry \"drop:qp\": expected field=value, got \"qp\"");
  EXPECT_EQ(reason_of("drop:qp=1,qp=2"), "bad entry \"drop:qp=1,qp=2\": qp given twice");
  EXPECT_EQ(reason_of("drop:opcode=reads"),
            "bad entry \"drop:opcode=reads\": opcode must be a number 0-255 or one of request, "
            "response, ack, nak, read_request, read_response, atomic, send, write, got \"reads\"");
  EXPECT_EQ(reason_of("drop:opcode=256").rfind("bad entry \"drop:opcode=256\": opcode must", 0),
            0u);
}

TEST(FaultScript, OpcodeClassesFollowTheBthOpcodeTable) {
  const auto key = [](std::uint8_t opcode, std::optional<std::uint8_t> syndrome = std::nullopt) {
    FrameKey k;
    k.opcode = opcode;
    k.aeth_syndrome = syndrome;
    return k;
  };
  EXPECT_TRUE(in_class(OpcodeClass::kSend, key(0x00)));
  EXPECT_TRUE(in_class(OpcodeClass::kSend, key(0x17)));   // SEND ONLY WITH INVALIDATE
  EXPECT_TRUE(in_class(OpcodeClass::kSend, key(0x64)));   // UD SEND ONLY
  EXPECT_TRUE(in_class(OpcodeClass::kWrite, key(0x2A)));  // UC RDMA WRITE ONLY
  EXPECT_TRUE(in_class(OpcodeClass::kRequest, key(0x0C)));
  EXPECT_TRUE(in_class(OpcodeClass::kRequest, key(0x14)));  // FETCH & ADD
  EXPECT_TRUE(in_class(OpcodeClass::kAtomic, key(0x13)));
  EXPECT_TRUE(in_class(OpcodeClass::kReadResponse, key(0x0D)));
  EXPECT_TRUE(in_class(OpcodeClass::kAck, key(0x11, 0x1F)));  // ACK, credit 31
  EXPECT_TRUE(in_class(OpcodeClass::kNak, key(0x11, 0x60)));  // NAK: PSN sequence error
  EXPECT_TRUE(in_class(OpcodeClass::kNak, key(0x11, 0x20)));  // RNR NAK
  EXPECT_FALSE(in_class(OpcodeClass::kAck, key(0x11, 0x60)));
  EXPECT_TRUE(in_class(OpcodeClass::kResponse, key(0x11, 0x60)));
  EXPECT_TRUE(in_class(OpcodeClass::kAck, key(0x12)));  // ATOMIC ACKNOWLEDGE
  EXPECT_FALSE(in_class(OpcodeClass::kRequest, key(0x10)));
  EXPECT_FALSE(in_class(OpcodeClass::kResponse, key(0x06)));
  EXPECT_FALSE(in_class(OpcodeClass::kRequest, key(0x81)));  // CNP
}

TEST(FaultInjector, ScriptedFaultsHitExactlyTheFramesTheyName) {
  FaultConfig config = with_seed(1);
  config.script = parse_fault_script(
      "drop:opcode=read_response,qp=5,nth=3;corrupt:opcode=ack;"
      "duplicate:opcode=send,psn=12;delay:qp=3,nth=2,ns=500");
  FaultInjector injector("a_to_b", config);
  std::vector<std::string> events;
  injector.set_trace([&](const FaultEvent& e) {
    events.push_back(std::string(to_string(e.kind)) + (e.scripted ? " scripted" : "") + " qp " +
                     std::to_string(e.frame->dest_qp) + " psn " + std::to_string(e.frame->psn));
  });
  // Read responses to QP 5, PSN 0..5: the third is lost, the others arrive.
  for (std::uint32_t psn = 0; psn < 6; ++psn) {
    const FaultDecision d = injector.inject(roce_frame(kReadResponseOnly, 5, psn), 0);
    EXPECT_EQ(d.delivered, psn != 2) << psn;
  }
  // A read response to another QP counts for nothing.
  EXPECT_TRUE(injector.inject(roce_frame(kReadResponseOnly, 6, 2), 0).delivered);
  // The first ACK is corrupted before the FCS: the receiver's MAC drops it.
  EXPECT_FALSE(injector.inject(roce_frame(kAcknowledge, 9, 40), 0).delivered);
  EXPECT_TRUE(injector.inject(roce_frame(kAcknowledge, 9, 41), 0).delivered);
  // SEND with PSN 12: duplicated, once.
  EXPECT_FALSE(injector.inject(roce_frame(kSendOnly, 3, 11), 0).duplicated);
  // That was the first frame to QP 3; the second is this one.
  const FaultDecision dup = injector.inject(roce_frame(kSendOnly, 3, 12), 0);
  EXPECT_TRUE(dup.duplicated);
  EXPECT_EQ(dup.extra_delay_ps, 500000u);
  EXPECT_FALSE(injector.inject(roce_frame(kSendOnly, 3, 12), 0).duplicated);
  EXPECT_EQ(injector.inject(roce_frame(kSendOnly, 3, 13), 0).extra_delay_ps, 0u);

  const FaultStats& s = injector.stats();
  EXPECT_EQ(s.frames, 13u);
  EXPECT_EQ(s.lost, 1u);
  EXPECT_EQ(s.corrupted, 1u);
  EXPECT_EQ(s.fcs_errors, 1u);
  EXPECT_EQ(s.duplicated, 1u);
  EXPECT_EQ(s.reordered, 1u);
  EXPECT_EQ(s.scripted, 4u);
  EXPECT_EQ(s.burst_lost, 0u);
  const std::vector<std::string> expected{
      "lost scripted qp 5 psn 2", "corrupted scripted qp 9 psn 40",
      "fcs_error scripted qp 9 psn 40", "duplicated scripted qp 3 psn 12",
      "delayed scripted qp 3 psn 12"};
  EXPECT_EQ(events, expected);
}

// Decisions over `frames` frames of a few kinds, as text, to compare runs.
std::vector<std::string> decisions(const FaultConfig& config, int frames) {
  FaultInjector injector("a_to_b", config);
  std::vector<std::string> out;
  for (int i = 0; i < frames; ++i) {
    const FaultDecision d =
        injector.inject(roce_frame(i % 3 == 0 ? kAcknowledge : kWriteOnly, 17, i), 0);
    out.push_back(std::to_string(d.delivered) + std::to_string(d.corrupted_bytes != nullptr) +
                  std::to_string(d.duplicated) + ":" + std::to_string(d.extra_delay_ps));
  }
  return out;
}

FaultConfig every_fault(std::uint64_t seed) {
  FaultConfig c = with_seed(seed);
  c.loss_rate = 0.05;
  c.burst_enter_rate = 0.01;
  c.corrupt_rate = 0.05;
  c.corrupt_mode = CorruptMode::kAfterFcs;
  c.duplicate_rate = 0.05;
  c.reorder_rate = 0.05;
  return c;
}

TEST(FaultInjector, TheSameSeedGivesTheSameDecisionsAndTheDirectionsDiffer) {
  // The two directions of one cable, seeded as the testbed seeds them.
  const std::uint64_t a = config::stream_seed(1, "nodes.a.faults");
  const std::uint64_t b = config::stream_seed(1, "nodes.b.faults");
  ASSERT_NE(a, b);
  EXPECT_EQ(decisions(every_fault(a), 3000), decisions(every_fault(a), 3000));
  EXPECT_NE(decisions(every_fault(a), 3000), decisions(every_fault(b), 3000));
}

// Frames out of `frames` that a Bernoulli(rate) draw per frame hits: within
// 5 standard deviations of frames * rate (a false alarm about once in 1.7
// million seeds), so a wrong rate, a draw reused or a biased uniform show.
void expect_binomial(std::uint64_t hits, std::uint64_t frames, double rate, const char* what) {
  const double mean = frames * rate;
  const double sd = std::sqrt(frames * rate * (1 - rate));
  EXPECT_NEAR(static_cast<double>(hits), mean, 5 * sd) << what;
}

TEST(FaultInjector, RandomFaultsComeAtTheirRates) {
  FaultConfig c = with_seed(12345);
  c.loss_rate = 0.01;
  c.corrupt_rate = 0.02;
  c.corrupt_mode = CorruptMode::kAfterFcs;  // delivered, so the later draws happen
  c.duplicate_rate = 0.03;
  c.reorder_rate = 0.04;
  c.reorder_delay_ps = 2000000;
  FaultInjector injector("a_to_b", c);
  const Transfer frame = roce_frame(kWriteOnly, 17, 1);
  constexpr std::uint64_t kFrames = 100000;
  std::uint64_t delay_sum = 0;
  std::uint64_t longest = 0;
  for (std::uint64_t i = 0; i < kFrames; ++i) {
    const FaultDecision d = injector.inject(frame, 0);
    delay_sum += d.extra_delay_ps;
    longest = std::max(longest, d.extra_delay_ps);
  }
  const FaultStats& s = injector.stats();
  EXPECT_EQ(s.frames, kFrames);
  expect_binomial(s.lost, kFrames, 0.01, "lost");
  // The later faults are drawn for the frames not lost.
  const std::uint64_t kept = kFrames - s.lost;
  expect_binomial(s.corrupted, kept, 0.02, "corrupted");
  expect_binomial(s.duplicated, kept, 0.03, "duplicated");
  expect_binomial(s.reordered, kept, 0.04, "reordered");
  EXPECT_EQ(s.fcs_errors, 0u);
  EXPECT_LE(longest, 2000000u);
  // Uniform on (0, 2 us]: mean 1 us, sd 0.58 us; over ~4000 frames the mean
  // is within 5 sd / sqrt(n) (46 ns) of 1 us.
  EXPECT_NEAR(static_cast<double>(delay_sum) / s.reordered, 1000000.0, 46000.0);
  // mt19937_64's output is fixed by the C++ standard and every number here is
  // made from it with integer arithmetic or an exact scaling, so these
  // counts are the same on every platform: a regression of the draw order.
  EXPECT_EQ(s.lost, 1001u);
  EXPECT_EQ(s.corrupted, 1917u);
  EXPECT_EQ(s.duplicated, 2973u);
  EXPECT_EQ(s.reordered, 4009u);
}

TEST(FaultInjector, GilbertElliottThatNeverEntersItsBadStateIsBernoulliLoss) {
  constexpr int kFrames = 20000;
  FaultConfig bernoulli = with_seed(99);
  bernoulli.loss_rate = 0.1;
  FaultConfig never_bad = bernoulli;
  never_bad.burst_enter_rate = 0;
  never_bad.burst_exit_rate = 0.3;
  never_bad.burst_loss_rate = 0.9;
  EXPECT_EQ(decisions(never_bad, kFrames), decisions(bernoulli, kFrames));
  // And Bernoulli loss is one draw per frame from the raw generator.
  std::mt19937_64 reference(99);
  FaultInjector injector("a_to_b", bernoulli);
  const Transfer frame = roce_frame(kWriteOnly, 17, 1);
  for (int i = 0; i < kFrames; ++i) {
    const bool lost = static_cast<double>(reference() >> 11) * 0x1.0p-53 < 0.1;
    ASSERT_EQ(injector.inject(frame, 0).delivered, !lost) << i;
  }
}

TEST(FaultInjector, BurstLossesComeInBurstsAtTheChainsRate) {
  FaultConfig c = with_seed(7);
  c.burst_enter_rate = 0.01;
  c.burst_exit_rate = 0.25;
  c.burst_loss_rate = 1;
  FaultInjector injector("a_to_b", c);
  const Transfer frame = roce_frame(kWriteOnly, 17, 1);
  constexpr std::uint64_t kFrames = 200000;
  std::uint64_t bursts = 0;
  bool previous_lost = false;
  for (std::uint64_t i = 0; i < kFrames; ++i) {
    const bool lost = !injector.inject(frame, 0).delivered;
    if (lost && !previous_lost) ++bursts;
    previous_lost = lost;
  }
  const FaultStats& s = injector.stats();
  EXPECT_EQ(s.burst_lost, s.lost);  // the good state loses nothing
  // The bad state's share is enter / (enter + exit) = 3.85 %; runs of losses
  // are geometric with mean 1 / exit = 4 frames. Losses are correlated, so
  // the binomial bound does not apply: about 1,900 bursts give a relative
  // sd near 3 % for the loss count (sd of a sum of geometric runs) and 2 %
  // for the mean run; 15 % is beyond 5 sd of either.
  EXPECT_NEAR(static_cast<double>(s.lost) / kFrames, 0.01 / 0.26, 0.15 * 0.01 / 0.26);
  EXPECT_NEAR(static_cast<double>(s.lost) / bursts, 4.0, 0.6);
}

TEST(FaultInjector, CorruptionBeforeTheFcsIsDroppedByTheReceiversMac) {
  FaultConfig c = with_seed(3);
  c.corrupt_rate = 1;
  c.corrupt_bits = 3;
  FaultInjector injector("a_to_b", c);
  for (std::uint32_t psn = 0; psn < 500; ++psn) {
    const Transfer frame = roce_frame(psn % 2 ? kSendOnly : kAcknowledge, 4, psn);
    const Bytes original = *frame.bytes();
    const FaultDecision d = injector.inject(frame, 0);
    EXPECT_FALSE(d.delivered);
    ASSERT_TRUE(d.corrupted_bytes);
    std::size_t flipped = 0;
    for (std::size_t i = 0; i < original.size(); ++i) {
      flipped += __builtin_popcount(original[i] ^ (*d.corrupted_bytes)[i]);
    }
    EXPECT_EQ(flipped, 3u);
    EXPECT_EQ(*frame.bytes(), original);  // the sender's bytes are untouched
  }
  EXPECT_EQ(injector.stats().corrupted, 500u);
  EXPECT_EQ(injector.stats().fcs_errors, 500u);
}

// Bytes of a frame the ICRC covers and does not mask, computed here from the
// header layout (the injector reads the ICRC's own mask).
std::set<std::size_t> unmasked_icrc_bytes(const Bytes& frame) {
  const auto where = packet::locate_icrc(frame.data(), frame.size());
  const std::size_t ip = where->ip_offset;
  const bool ipv6 = (frame[ip] >> 4) == 6;
  const std::size_t ip_size = ipv6 ? 40 : 20;
  std::set<std::size_t> masked;
  if (ipv6) {
    masked = {ip, ip + 1, ip + 2, ip + 3, ip + 7};
  } else {
    masked = {ip + 1, ip + 8, ip + 10, ip + 11};
  }
  masked.insert({ip + ip_size + 6, ip + ip_size + 7, ip + ip_size + 8 + 4});
  std::set<std::size_t> covered;
  for (std::size_t i = ip; i < where->icrc_offset; ++i) {
    if (masked.count(i) == 0) covered.insert(i);
  }
  return covered;
}

TEST(FaultInjector, CorruptionAfterTheFcsOnlyHitsTheIcrcAndTheIcrcCatchesIt) {
  FaultConfig c = with_seed(5);
  c.corrupt_rate = 1;
  c.corrupt_mode = CorruptMode::kAfterFcs;
  FaultInjector injector("a_to_b", c);
  std::mt19937_64 rng(11);
  const std::vector<std::uint8_t> opcodes = testbench::supported_opcodes();
  int icrc_mismatches = 0;
  for (int i = 0; i < 2000; ++i) {
    const std::uint8_t opcode = opcodes[i % opcodes.size()];
    const packet::RocePacket headers = testbench::random_headers(opcode, i % 2, i % 3 == 0, rng);
    const packet::OpcodeInfo* info = packet::find_opcode(opcode);
    std::size_t payload = 1 + i % 300;
    if (info->payload == packet::PayloadRule::kNone) payload = 0;
    if (info->payload == packet::PayloadRule::kExactlyPmtu) payload = 256;
    const std::vector<std::uint8_t> data = testbench::random_bytes(rng, payload);
    auto bytes = std::make_shared<const Bytes>(packet::build_frame(headers, data.data(), payload));
    const Transfer frame(0, bytes->size() * 8, sc_core::SC_ZERO_TIME, bytes);
    const FaultDecision d = injector.inject(frame, 0);
    ASSERT_TRUE(d.delivered) << i;  // a fresh FCS: the MAC passes it
    ASSERT_TRUE(d.corrupted_bytes) << i;
    const Bytes& corrupted = *d.corrupted_bytes;
    const std::set<std::size_t> allowed = unmasked_icrc_bytes(*bytes);
    for (std::size_t b = 0; b < bytes->size(); ++b) {
      if ((*bytes)[b] != corrupted[b]) {
        EXPECT_EQ(allowed.count(b), 1u) << "frame " << i << " byte " << b;
      }
    }
    // The receive path rejects the frame: by its ICRC, unless the bit broke
    // a header check that comes first (IP version, lengths, checksum, ports).
    const packet::ParseResult parsed = packet::parse_frame(corrupted.data(), corrupted.size());
    ASSERT_FALSE(parsed.ok()) << i;
    if (*parsed.error == packet::ParseError::kIcrcMismatch) ++icrc_mismatches;
    // Where the frame still holds together, its ICRC no longer matches.
    if (const auto where = packet::locate_icrc(corrupted.data(), corrupted.size())) {
      EXPECT_NE(packet::compute_icrc(corrupted.data() + where->ip_offset,
                                     where->icrc_offset - where->ip_offset),
                packet::load_icrc(corrupted.data() + where->icrc_offset))
          << i;
    }
  }
  // Most covered bytes are BTH, extended headers and payload.
  EXPECT_GT(icrc_mismatches, 1000);
  EXPECT_EQ(injector.stats().corrupted, 2000u);
  EXPECT_EQ(injector.stats().fcs_errors, 0u);
}

TEST(FaultInjector, CorruptionAfterTheFcsLeavesAFrameThatIsNotRoceAlone) {
  FaultConfig c = with_seed(5);
  c.corrupt_rate = 1;
  c.corrupt_mode = CorruptMode::kAfterFcs;
  FaultInjector injector("a_to_b", c);
  auto bytes = std::make_shared<const Bytes>(Bytes(100, 0x42));
  const FaultDecision d = injector.inject(Transfer(0, 800, sc_core::SC_ZERO_TIME, bytes), 0);
  EXPECT_TRUE(d.delivered);
  EXPECT_FALSE(d.corrupted_bytes);
  EXPECT_EQ(injector.stats().corrupted, 0u);
}

TEST(FaultInjector, OnlyAConfiguredFaultNeedsAnInjector) {
  FaultConfig none;
  EXPECT_FALSE(none.any());
  none.burst_enter_rate = 0.1;
  none.burst_loss_rate = 0;
  EXPECT_FALSE(none.any());  // a chain whose bad state loses nothing
  FaultConfig scripted;
  scripted.script = parse_fault_script("duplicate:psn=1");
  EXPECT_TRUE(scripted.any());
  EXPECT_FALSE(scripted.corrupts());
}

// The loaded configuration's error for one --set.
std::string config_error(const std::string& assignment) {
  try {
    config::load_config(std::string(RNICSIM_SOURCE_DIR) + "/configs/cx5_100g.json", {assignment},
                        rnicsim_schema());
  } catch (const config::ConfigError& e) {
    return e.what();
  }
  return "no error";
}

TEST(FaultConfig, ABadValueOrScriptIsOneErrorNamingTheKey) {
  EXPECT_EQ(config_error("faults.loss_rate=1.5"),
            "--set faults.loss_rate=1.5: faults.loss_rate: must be <= 1 (got 1.5)");
  EXPECT_EQ(config_error("nodes.a.faults.corrupt_mode=sometimes"),
            "--set nodes.a.faults.corrupt_mode=sometimes: nodes.a.faults.corrupt_mode: must be "
            "one of \"before_fcs\", \"after_fcs\" (got \"sometimes\")");
  EXPECT_EQ(config_error("faults.script=drop:qp=1;drop:opcode=reads"),
            "--set faults.script=drop:qp=1;drop:opcode=reads: faults.script: bad entry "
            "\"drop:opcode=reads\": opcode must be a number 0-255 or one of request, response, "
            "ack, nak, read_request, read_response, atomic, send, write, got \"reads\"");
  EXPECT_EQ(config_error("nodes.b.faults.script=delay:qp=1"),
            "--set nodes.b.faults.script=delay:qp=1: nodes.b.faults.script: bad entry "
            "\"delay:qp=1\": a delay entry needs ns=<nanoseconds>");
}

}  // namespace
}  // namespace rnicsim
