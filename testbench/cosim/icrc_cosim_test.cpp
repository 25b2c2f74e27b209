// The RTL ICRC engine (rtl/icrc) against its model twin, the ICRC the model's
// ICRC blocks compute (locate_icrc and compute_icrc): the same frames through
// both, a scoreboard comparing each frame's result, and the RTL's cycle
// timing against the model's clocked-stage timing. Both datapath widths
// issue 11 names (8 and 64 bytes per cycle) run every test.
//
// Stimulus: the 20 ICRC vectors and every frame of the real captures in
// testbench/data/roce, our own frames (VLAN, IPv6, odd header bits), and
// seeded random frames of every supported opcode, many of them damaged on
// purpose (a flipped bit inside or outside the ICRC's coverage, in a masked
// field, Ethernet padding, IPv4 options, a cut frame, a wrong port, type,
// version, protocol or length). Random stalls on both sides of the block.
//
// RNICSIM_COSIM_VCD=<folder> writes a VCD per test into that folder.
#include <gtest/gtest.h>
#include <verilated.h>
#include <verilated_vcd_c.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <random>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "Vicrc_w64.h"
#include "Vicrc_w8.h"
#include "Vicrc_w8_fault.h"
#include "common/clock_domain.hpp"
#include "common/stage_timing.hpp"
#include "cosim/stalls.hpp"
#include "own_frames.hpp"
#include "packet/frame.hpp"
#include "packet/headers.hpp"
#include "packet/icrc.hpp"
#include "packet/opcodes.hpp"
#include "packet/pcap.hpp"
#include "random_packets.hpp"
#include "rtl_bridge/verilated_ports.hpp"

namespace rnicsim::cosim {
namespace {

using Bytes = std::vector<std::uint8_t>;
using packet::IcrcLocation;
using rtl_bridge::set_bytes;
using rtl_bridge::set_low_ones;
using rtl_bridge::set_random;

struct Frame {
  std::string name;
  Bytes bytes;  // Ethernet header first, no FCS
};

// One frame's result, as the RTL's result port gives it.
struct IcrcResult {
  bool roce = false;
  std::uint32_t icrc = 0;
  bool match = false;
};

// icrc and match mean something only for a RoCEv2 frame.
bool same_result(const IcrcResult& a, const IcrcResult& b) {
  return a.roce == b.roce && (!a.roce || (a.icrc == b.icrc && a.match == b.match));
}

std::string describe(const IcrcResult& r) {
  if (!r.roce) return "not RoCEv2";
  std::ostringstream out;
  out << "icrc 0x" << std::hex << r.icrc << (r.match ? " (matches)" : " (differs)");
  return out.str();
}

// The model twin.
IcrcResult model_result(const Bytes& frame) {
  const std::optional<IcrcLocation> at = packet::locate_icrc(frame.data(), frame.size());
  if (!at) return {};
  const std::uint32_t icrc =
      packet::compute_icrc(frame.data() + at->ip_offset, at->icrc_offset - at->ip_offset);
  return {true, icrc, icrc == packet::load_icrc(frame.data() + at->icrc_offset)};
}

// What the RTL gave for one frame, and when (cycles counted from reset).
struct RtlOutcome {
  IcrcResult result;
  std::uint64_t first_beat_cycle = 0;
  std::uint64_t last_beat_cycle = 0;
  std::uint64_t result_cycle = 0;
};

// Drives a verilated icrc engine: frames in as beats of kDataBytes, results
// out, one cycle per loop turn (inputs set, settle at clock low, handshakes
// read, rising edge).
template <typename Top, std::size_t kDataBytes>
class IcrcRtlDriver {
 public:
  IcrcRtlDriver(std::uint64_t seed, Stalls stalls) : rng_(seed), stalls_(stalls) {
    if (const char* folder = std::getenv("RNICSIM_COSIM_VCD")) {
      Verilated::traceEverOn(true);
      vcd_ = std::make_unique<VerilatedVcdC>();
      top_.trace(vcd_.get(), 99);
      const testing::TestInfo* test = testing::UnitTest::GetInstance()->current_test_info();
      std::string file = std::string(test->test_suite_name()) + "." + test->name() + ".vcd";
      std::replace(file.begin(), file.end(), '/', '_');
      vcd_->open((std::filesystem::path(folder) / file).c_str());
    }
  }
  ~IcrcRtlDriver() {
    if (vcd_) vcd_->close();
    top_.final();
  }

  std::vector<RtlOutcome> run(const std::vector<Frame>& frames) {
    std::vector<RtlOutcome> outcomes(frames.size());
    reset();
    std::size_t frame = 0;   // the frame whose beats go in
    std::size_t offset = 0;  // its next byte
    std::size_t results = 0;
    // Enough for every beat and result at the worst stall rates used here.
    std::uint64_t budget = 1000;
    for (const Frame& f : frames) budget += 20 * (f.bytes.size() / kDataBytes + 2);
    while (results < frames.size()) {
      if (cycle_ > budget) {
        ADD_FAILURE() << "the RTL stopped: " << results << " of " << frames.size()
                      << " results after " << cycle_ << " cycles";
        break;
      }
      const bool offer = frame < frames.size() && !chance(rng_, stalls_.source_idle);
      std::size_t lanes = 0;
      if (offer) {
        const Bytes& bytes = frames[frame].bytes;
        lanes = std::min(kDataBytes, bytes.size() - offset);
        set_bytes(top_.s_frame_tdata_i, bytes.data() + offset, lanes);
        set_low_ones(top_.s_frame_tkeep_i, lanes);
        top_.s_frame_tlast_i = offset + lanes == bytes.size();
        top_.s_frame_tvalid_i = 1;
      } else {
        set_random(top_.s_frame_tdata_i, rng_);
        set_random(top_.s_frame_tkeep_i, rng_);
        top_.s_frame_tlast_i = rng_() & 1;
        top_.s_frame_tvalid_i = 0;
      }
      top_.m_result_ready_i = !chance(rng_, stalls_.sink_busy);
      top_.clk_i = 0;
      top_.eval();
      dump();

      if (top_.s_frame_tvalid_i && top_.s_frame_tready_o) {
        if (offset == 0) outcomes[frame].first_beat_cycle = cycle_;
        offset += lanes;
        if (top_.s_frame_tlast_i) {
          outcomes[frame].last_beat_cycle = cycle_;
          ++frame;
          offset = 0;
        }
      }
      if (top_.m_result_valid_o && top_.m_result_ready_i) {
        if (results < frame) {
          outcomes[results].result = {top_.m_result_roce_o != 0, top_.m_result_icrc_o,
                                      top_.m_result_match_o != 0};
          outcomes[results].result_cycle = cycle_;
        } else {
          ADD_FAILURE() << "a result before its frame's last beat, at cycle " << cycle_;
        }
        ++results;
      }
      tick();
    }
    return outcomes;
  }

 private:
  void reset() {
    top_.rst_ni = 0;
    top_.s_frame_tvalid_i = 0;
    top_.m_result_ready_i = 0;
    for (int i = 0; i < 2; ++i) {
      top_.clk_i = 0;
      top_.eval();
      dump();
      tick();
    }
    top_.rst_ni = 1;
  }

  void tick() {
    top_.clk_i = 1;
    top_.eval();
    ++time_;
    dump();
    ++time_;
    ++cycle_;
  }

  void dump() {
    if (vcd_) vcd_->dump(time_);
  }

  Top top_;
  std::mt19937_64 rng_;
  Stalls stalls_;
  std::unique_ptr<VerilatedVcdC> vcd_;
  std::uint64_t cycle_ = 0;
  std::uint64_t time_ = 0;  // VCD time: two steps per cycle
};

// The scoreboard: every frame's RTL result against the model's, all
// mismatches gathered before the test fails.
struct Scoreboard {
  std::size_t compared = 0;
  std::size_t roce_frames = 0;
  std::size_t matching_icrcs = 0;
  std::vector<std::string> mismatches;

  void compare(const std::vector<Frame>& frames, const std::vector<RtlOutcome>& rtl) {
    for (std::size_t i = 0; i < frames.size() && i < rtl.size(); ++i) {
      const IcrcResult expected = model_result(frames[i].bytes);
      ++compared;
      if (expected.roce) ++roce_frames;
      if (expected.roce && expected.match) ++matching_icrcs;
      if (!same_result(expected, rtl[i].result)) {
        mismatches.push_back(frames[i].name + " (" + std::to_string(frames[i].bytes.size()) +
                             " bytes): model " + describe(expected) + ", RTL " +
                             describe(rtl[i].result));
      }
    }
  }

  std::string report() const {
    std::ostringstream out;
    out << mismatches.size() << " mismatches in " << compared << " frames";
    for (std::size_t i = 0; i < mismatches.size() && i < 10; ++i) out << "\n  " << mismatches[i];
    return out.str();
  }
};

// --- stimulus ---------------------------------------------------------------

Bytes from_hex(const std::string& hex) {
  Bytes bytes(hex.size() / 2);
  for (std::size_t i = 0; i < bytes.size(); ++i) {
    bytes[i] = static_cast<std::uint8_t>(std::stoul(hex.substr(2 * i, 2), nullptr, 16));
  }
  return bytes;
}

struct IcrcVector {
  Frame frame;
  std::uint32_t icrc = 0;
};

// The repository's vectors, or the file RNICSIM_ICRC_VECTORS names (a larger
// collection whose licences keep it out of the repository, say).
std::vector<IcrcVector> icrc_vectors() {
  const char* other = std::getenv("RNICSIM_ICRC_VECTORS");
  std::ifstream in(other ? std::string(other)
                         : std::string(RNICSIM_TEST_DATA_DIR) + "/roce/icrc_test_vectors.json");
  const nlohmann::json vectors = nlohmann::json::parse(in);
  std::vector<IcrcVector> out;
  for (const nlohmann::json& v : vectors) {
    out.push_back({{v.at("name").get<std::string>(), from_hex(v.at("frame_hex"))},
                   static_cast<std::uint32_t>(
                       std::stoul(v.at("crc32_value").get<std::string>(), nullptr, 16))});
  }
  return out;
}

// Every record of every capture: RoCEv2 frames and whatever else was on the
// wire with them (rdma_cm and rping carry connection set-up).
std::vector<Frame> captured_frames() {
  std::vector<std::filesystem::path> files;
  for (const auto& entry :
       std::filesystem::directory_iterator(std::string(RNICSIM_TEST_DATA_DIR) + "/roce/captures")) {
    if (entry.path().extension() == ".pcap") files.push_back(entry.path());
  }
  std::sort(files.begin(), files.end());
  std::vector<Frame> frames;
  for (const auto& file : files) {
    packet::PcapReader reader(file.string());
    packet::PcapRecord record;
    for (int n = 1; reader.next(record); ++n) {
      if (record.data.empty()) continue;
      frames.push_back({file.filename().string() + " #" + std::to_string(n), record.data});
    }
  }
  return frames;
}

std::vector<Frame> own_frames() {
  std::vector<Frame> frames;
  for (const testbench::OwnFrame& f : testbench::own_frames()) frames.push_back({f.name, f.bytes});
  return frames;
}

// A well-formed RoCEv2 frame of a random supported opcode and legal size.
Bytes random_roce_frame(std::mt19937_64& rng) {
  static const std::vector<std::uint8_t> opcodes = testbench::supported_opcodes();
  static constexpr std::uint32_t kPmtus[] = {256, 512, 1024, 2048, 4096};
  const std::uint8_t opcode = opcodes[rng() % opcodes.size()];
  const packet::OpcodeInfo& info = *packet::find_opcode(opcode);
  const std::uint32_t pmtu = kPmtus[rng() % 5];
  std::size_t size = 0;
  do {
    size = rng() % (pmtu + 1);
  } while (!packet::payload_length_ok(info.payload, size, pmtu));
  const Bytes payload = testbench::random_bytes(rng, size);
  return packet::build_frame(testbench::random_headers(opcode, rng() % 2 == 0, rng() % 4 == 0, rng),
                             payload.data(), payload.size());
}

std::size_t ip_offset_of(const Bytes& frame) {
  return packet::load_be16(frame.data() + 12) == packet::kEtherTypeVlan ? 18 : 14;
}

// IPv4 options: `words` x 4 random bytes after the fixed header, with IHL,
// total length and the ICRC made right again.
void add_ipv4_options(Bytes& frame, std::size_t words, std::mt19937_64& rng) {
  const std::size_t ip = ip_offset_of(frame);
  if (frame[ip] >> 4 != 4) return;
  const Bytes options = testbench::random_bytes(rng, 4 * words);
  frame.insert(frame.begin() + static_cast<std::ptrdiff_t>(ip + packet::Ipv4Header::kSize),
               options.begin(), options.end());
  frame[ip] = static_cast<std::uint8_t>(0x40 | (5 + words));
  packet::store_be16(
      static_cast<std::uint16_t>(packet::load_be16(frame.data() + ip + 2) + 4 * words),
      frame.data() + ip + 2);
  if (const std::optional<IcrcLocation> at = packet::locate_icrc(frame.data(), frame.size())) {
    packet::store_icrc(
        packet::compute_icrc(frame.data() + at->ip_offset, at->icrc_offset - at->ip_offset),
        frame.data() + at->icrc_offset);
  }
}

// `count` random bytes just before the ICRC field, with the IP and UDP
// lengths and the ICRC made right again: the field then lies at any offset
// within a beat (build_frame's frames keep it 2 past a multiple of 4), and
// may straddle two beats.
void grow_before_icrc(Bytes& frame, std::size_t count, std::mt19937_64& rng) {
  const std::optional<IcrcLocation> at = packet::locate_icrc(frame.data(), frame.size());
  if (!at) return;
  const Bytes more = testbench::random_bytes(rng, count);
  frame.insert(frame.begin() + static_cast<std::ptrdiff_t>(at->icrc_offset), more.begin(),
               more.end());
  const std::size_t ip = at->ip_offset;
  const bool ipv6 = frame[ip] >> 4 == 6;
  const std::size_t udp = ip + (ipv6 ? packet::Ipv6Header::kSize : 4u * (frame[ip] & 0xFu));
  for (const std::size_t length_at : {ip + (ipv6 ? 4 : 2), udp + 4}) {
    packet::store_be16(
        static_cast<std::uint16_t>(packet::load_be16(frame.data() + length_at) + count),
        frame.data() + length_at);
  }
  const std::optional<IcrcLocation> moved = packet::locate_icrc(frame.data(), frame.size());
  packet::store_icrc(
      packet::compute_icrc(frame.data() + moved->ip_offset, moved->icrc_offset - moved->ip_offset),
      frame.data() + moved->icrc_offset);
}

// One of the ways a frame can go wrong (or stay right), chosen at random.
Frame random_frame(std::size_t index, std::mt19937_64& rng) {
  Bytes frame = random_roce_frame(rng);
  const std::size_t ip = ip_offset_of(frame);
  const bool ipv6 = frame[ip] >> 4 == 6;
  const std::size_t udp = ip + (ipv6 ? 40 : 20);
  std::string how;
  const std::size_t choice = rng() % 16;
  switch (choice) {
    case 0:
    case 1:
    case 2:
      how = "intact";
      break;
    case 3:  // anywhere, masked fields and the ICRC itself included
      frame[rng() % frame.size()] ^= static_cast<std::uint8_t>(1u << (rng() % 8));
      how = "bit flipped";
      break;
    case 4: {  // a variant field: the ICRC must not notice
      const std::size_t v4[] = {1, 8, 10, 11};
      const std::size_t v6[] = {0, 1, 2, 3, 7};
      const std::size_t at = ipv6 ? v6[rng() % 5] : v4[rng() % 4];
      // IPv6 byte 0: only its low nibble (the traffic class's high one) is variant.
      const unsigned bits = ipv6 && at == 0 ? 0x0Fu : 0xFFu;
      frame[ip + at] ^= static_cast<std::uint8_t>((rng() & bits) | 1);
      frame[udp + (rng() % 2 == 0 ? 6 : 7)] ^= static_cast<std::uint8_t>(rng() | 1);
      frame[udp + 8 + 4] ^= static_cast<std::uint8_t>(rng() | 1);
      how = "variant fields changed";
      break;
    }
    case 5: {
      const Bytes pad = testbench::random_bytes(rng, 1 + rng() % 80);
      frame.insert(frame.end(), pad.begin(), pad.end());
      how = "Ethernet padding";
      break;
    }
    case 6:
      add_ipv4_options(frame, 1 + rng() % 10, rng);
      how = "IPv4 options";
      break;
    case 7:
      frame.resize(1 + rng() % frame.size());
      how = "cut short";
      break;
    case 8:
    case 9:
      grow_before_icrc(frame, 1 + rng() % 63, rng);
      how = "ICRC field moved";
      if (rng() % 2 == 0) {
        frame.resize(frame.size() + 1 + rng() % 40, 0);
        how += ", padded";
      }
      break;
    default: {  // one bit of a header field the ICRC engine reads
      struct Field {
        const char* name;
        std::size_t at;
        std::size_t bytes;
      };
      const Field fields[] = {{"EtherType", ip - 2, 2},
                              {"IP version or IHL", ip, 1},
                              {"IP length", ip + (ipv6 ? 4 : 2), 2},
                              {"IP protocol", ip + (ipv6 ? 6 : 9), 1},
                              {"UDP port", udp + 2, 2},
                              {"UDP length", udp + 4, 2}};
      const Field& field = fields[choice - 10];
      frame[field.at + rng() % field.bytes] ^= static_cast<std::uint8_t>(1u << (rng() % 8));
      how = field.name;
      break;
    }
  }
  return {"random #" + std::to_string(index) + " (" + how + ")", std::move(frame)};
}

std::vector<Frame> random_frames(std::size_t count, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<Frame> frames;
  for (std::size_t i = 0; i < count; ++i) frames.push_back(random_frame(i, rng));
  return frames;
}

// Directed corners, from one small frame of each header layout (IPv4, IPv6,
// each with and without VLAN, IPv4 with 40 bytes of options): the frame cut
// at every length; IPv4 IHL 0 to 4 and UDP lengths 8 to 27 with the other
// lengths made to agree, so that only that one check can refuse them; and
// the ICRC field moved byte by byte across two beats of the widest engine.
std::vector<Frame> header_corners() {
  std::mt19937_64 rng(0xC0DE);
  const Bytes payload = testbench::random_bytes(rng, 24);
  std::vector<std::pair<std::string, Bytes>> layouts;
  for (const bool ipv6 : {false, true}) {
    for (const bool vlan : {false, true}) {
      layouts.emplace_back(std::string(ipv6 ? "IPv6" : "IPv4") + (vlan ? " VLAN" : ""),
                           packet::build_frame(testbench::random_headers(0x04, ipv6, vlan, rng),
                                               payload.data(), payload.size()));
    }
  }
  Bytes options = layouts.front().second;
  add_ipv4_options(options, 10, rng);
  layouts.emplace_back("IPv4 options", options);

  std::vector<Frame> frames;
  for (const auto& [name, frame] : layouts) {
    for (std::size_t cut = 1; cut <= frame.size(); ++cut) {
      frames.push_back({name + " cut to " + std::to_string(cut),
                        Bytes(frame.begin(), frame.begin() + static_cast<std::ptrdiff_t>(cut))});
    }
    for (std::size_t grow = 0; grow < 128; ++grow) {
      Bytes moved = frame;
      grow_before_icrc(moved, grow, rng);
      frames.push_back({name + " ICRC moved by " + std::to_string(grow), std::move(moved)});
    }
  }
  const Bytes& ipv4 = layouts.front().second;
  const std::size_t ip = 14;
  for (std::size_t ihl = 0; ihl < 5; ++ihl) {
    Bytes frame = ipv4;
    const std::size_t removed = 4 * (5 - ihl);
    frame.erase(frame.begin() + static_cast<std::ptrdiff_t>(ip + 4 * ihl),
                frame.begin() + static_cast<std::ptrdiff_t>(ip + 20));
    frame[ip] = static_cast<std::uint8_t>(0x40 | ihl);
    packet::store_be16(
        static_cast<std::uint16_t>(packet::load_be16(frame.data() + ip + 2) - removed),
        frame.data() + ip + 2);
    frames.push_back({"IPv4 IHL " + std::to_string(ihl), std::move(frame)});
  }
  for (std::uint16_t udp_length = 8; udp_length < 28; ++udp_length) {
    Bytes frame = ipv4;
    frame.resize(ip + 20 + udp_length);
    packet::store_be16(static_cast<std::uint16_t>(20 + udp_length), frame.data() + ip + 2);
    packet::store_be16(udp_length, frame.data() + ip + 20 + 4);
    frames.push_back({"UDP length " + std::to_string(udp_length), std::move(frame)});
  }
  return frames;
}

// --- the tests, at both widths ------------------------------------------------

template <typename Top, std::size_t kBytes>
struct Width {
  using Driver = IcrcRtlDriver<Top, kBytes>;
  static constexpr std::size_t kDataBytes = kBytes;
};
using Widths = testing::Types<Width<Vicrc_w8, 8>, Width<Vicrc_w64, 64>>;

class WidthNames {
 public:
  template <typename T>
  static std::string GetName(int) {
    return "bytes_per_cycle_" + std::to_string(T::kDataBytes);
  }
};

template <typename T>
class IcrcCosim : public testing::Test {};
TYPED_TEST_SUITE(IcrcCosim, Widths, WidthNames);

constexpr Stalls kBusy{0.3, 0.3};

template <typename W>
Scoreboard cross_check(const std::vector<Frame>& frames, std::uint64_t seed, Stalls stalls) {
  typename W::Driver rtl(seed, stalls);
  Scoreboard board;
  const std::vector<RtlOutcome> outcomes = rtl.run(frames);
  board.compare(frames, outcomes);
  return board;
}

TYPED_TEST(IcrcCosim, VectorsGiveTheirPublishedIcrc) {
  const std::vector<IcrcVector> vectors = icrc_vectors();
  // The ten whose licences let them live here (testbench/data/roce/SOURCES.md).
  if (std::getenv("RNICSIM_ICRC_VECTORS") == nullptr) {
    ASSERT_EQ(vectors.size(), 10u);
  }
  ASSERT_FALSE(vectors.empty());
  std::vector<Frame> frames;
  for (const IcrcVector& v : vectors) frames.push_back(v.frame);
  typename TypeParam::Driver rtl(1, kBusy);
  const std::vector<RtlOutcome> outcomes = rtl.run(frames);
  for (std::size_t i = 0; i < vectors.size(); ++i) {
    SCOPED_TRACE(vectors[i].frame.name);
    EXPECT_TRUE(outcomes[i].result.roce);
    EXPECT_EQ(outcomes[i].result.icrc, vectors[i].icrc);
    EXPECT_TRUE(outcomes[i].result.match);
  }
}

TYPED_TEST(IcrcCosim, CapturedAndOwnFramesAgreeWithTheModel) {
  std::vector<Frame> frames = captured_frames();
  const std::vector<Frame> own = own_frames();
  frames.insert(frames.end(), own.begin(), own.end());
  const Scoreboard board = cross_check<TypeParam>(frames, 2, kBusy);
  EXPECT_TRUE(board.mismatches.empty()) << board.report();
  // The captures are mostly RoCEv2 with good ICRCs, so the check has teeth.
  EXPECT_GT(board.matching_icrcs, board.compared / 2) << board.report();
}

TYPED_TEST(IcrcCosim, HeaderCornersAgreeWithTheModel) {
  const std::vector<Frame> frames = header_corners();
  const Scoreboard board = cross_check<TypeParam>(frames, 8, kBusy);
  EXPECT_TRUE(board.mismatches.empty()) << board.report();
  // Every moved field still gives a good ICRC (5 layouts x 128), besides the
  // whole frames among the cuts; UDP lengths 24 to 27 are RoCEv2 too.
  EXPECT_GE(board.matching_icrcs, 5u * 128u + 5u);
  EXPECT_GE(board.roce_frames, board.matching_icrcs + 4u);
}

TYPED_TEST(IcrcCosim, RandomFramesUnderRandomStallsAgreeWithTheModel) {
  const std::vector<Frame> frames = random_frames(10000, 0x1C4C);
  const Scoreboard board = cross_check<TypeParam>(frames, 3, kBusy);
  EXPECT_EQ(board.compared, 10000u);
  EXPECT_TRUE(board.mismatches.empty()) << board.report();
  // Both outcomes occur often: frames whose ICRC matches and damaged ones.
  EXPECT_GT(board.matching_icrcs, 2000u);
  EXPECT_GT(board.roce_frames - board.matching_icrcs, 300u);
  EXPECT_GT(board.compared - board.roce_frames, 1000u);
}

// Without stalls a frame takes ceil(bytes / width) cycles, frames follow
// each other with no idle cycle, and the result is there the cycle after the
// last beat: the model's clocked-stage timing with latency_cycles = 0.
TYPED_TEST(IcrcCosim, TakesOneBeatPerCycleAndAnswersAfterTheLastBeat) {
  const std::vector<Frame> frames = random_frames(500, 0x7117);
  typename TypeParam::Driver rtl(4, Stalls{});
  const std::vector<RtlOutcome> outcomes = rtl.run(frames);
  const ClockDomain clock(1000);  // 1 ns per cycle
  const StageTiming model = StageTiming::clocked(clock, 0, TypeParam::kDataBytes, 1);
  for (std::size_t i = 0; i < frames.size(); ++i) {
    SCOPED_TRACE(frames[i].name);
    const std::uint64_t model_cycles = static_cast<std::uint64_t>(
        model.service_time(8 * frames[i].bytes.size()) / clock.cycles(1));
    EXPECT_EQ(outcomes[i].last_beat_cycle - outcomes[i].first_beat_cycle + 1, model_cycles);
    EXPECT_EQ(outcomes[i].result_cycle, outcomes[i].last_beat_cycle + 1);
    if (i > 0) {
      EXPECT_EQ(outcomes[i].first_beat_cycle, outcomes[i - 1].last_beat_cycle + 1);
    }
  }
}

// Past 2^18 - 2 x width bytes the RTL stops counting positions; the ICRC of a
// RoCEv2 packet lies far before that, and the frame is long enough for any
// length its headers give, so the result is the model's.
TYPED_TEST(IcrcCosim, AFrameLongerThanTheCounterStillGivesTheModelsResult) {
  std::mt19937_64 rng(5);
  std::vector<Frame> frames;
  for (int i = 0; i < 3; ++i) {
    Bytes frame = random_roce_frame(rng);
    frame.resize(300 * 1024 + static_cast<std::size_t>(i) * 7, 0x5A);
    frames.push_back({"long frame " + std::to_string(i), std::move(frame)});
  }
  frames.push_back({"after the long ones", random_roce_frame(rng)});
  const Scoreboard board = cross_check<TypeParam>(frames, 6, Stalls{});
  EXPECT_TRUE(board.mismatches.empty()) << board.report();
  EXPECT_EQ(board.matching_icrcs, 4u);
}

// The test-only fault (BTH byte 4 read as it is, not as ones) must show: a
// scoreboard that missed it would be missing the masks' purpose.
TEST(IcrcCosimFault, TheScoreboardCatchesAnUnmaskedBthByte) {
  const std::vector<Frame> frames = random_frames(400, 0xFA17);
  IcrcRtlDriver<Vicrc_w8_fault, 8> rtl(7, kBusy);
  Scoreboard board;
  board.compare(frames, rtl.run(frames));
  ASSERT_GT(board.roce_frames, 150u);
  // BTH byte 4 is random in these frames, so all but about 1 in 256 RoCEv2
  // results differ.
  EXPECT_GT(board.mismatches.size(), board.roce_frames * 9 / 10) << board.report();
}

}  // namespace
}  // namespace rnicsim::cosim
