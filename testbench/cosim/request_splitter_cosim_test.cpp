// The RTL DMA request splitter (rtl/request_splitter) against its model twin, the
// splitting rule the model's RequestSplitter applies (cut_into_tlps): the
// same requests through both, a scoreboard comparing every request's TLPs
// (address, length, which is last), random stalls on both sides, the cycle
// timing without stalls, and a test-only fault the scoreboard must catch.
//
// Stimulus: every MPS and MRRS from 128 to 4096 bytes; addresses biased
// towards 4 KiB and size boundaries; lengths from 1 byte to 64 KiB, biased
// towards multiples of the sizes and their neighbours; TLP budgets from 1 to
// unlimited; and corners by hand, among them an address across 2^63 and the
// longest length the port takes.
#include <gtest/gtest.h>
#include <verilated.h>

#include <cstdint>
#include <memory>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "Vrequest_splitter.h"
#include "Vrequest_splitter_fault.h"
#include "cosim/mode.hpp"
#include "cosim/stalls.hpp"
#include "cosim/test_vcd.hpp"
#include "nic/dma/request_splitter.hpp"
#include "nic/rtl_bridge/clocking.hpp"

namespace rnicsim::cosim {
namespace {

struct Request {
  bool write = false;
  std::uint64_t address = 0;
  std::uint32_t length = 0;    // at least 1
  std::uint32_t max_tlps = 0;  // 1 to 65535
};

struct TlpOut {
  std::uint64_t address = 0;
  std::uint32_t length = 0;
  bool last = false;
  bool operator==(const TlpOut& o) const {
    return address == o.address && length == o.length && last == o.last;
  }
};

struct Sizes {
  std::uint32_t mps = 0;
  std::uint32_t mrrs = 0;
};

// The model twin: the TLPs of one request, the last one marked.
std::vector<TlpOut> model_tlps(const Request& r, const Sizes& sizes) {
  std::vector<TlpOut> tlps;
  cut_into_tlps(r.address, r.length, r.write ? sizes.mps : sizes.mrrs, r.max_tlps,
                [&](std::uint64_t address, std::uint32_t length) {
                  tlps.push_back({address, length, false});
                });
  if (!tlps.empty()) tlps.back().last = true;
  return tlps;
}

// What the RTL gave: every TLP in order, with the cycle it left in, and the
// cycle each request was taken in.
struct RtlRun {
  std::vector<TlpOut> tlps;
  std::vector<std::uint64_t> tlp_cycles;
  std::vector<std::uint64_t> request_cycles;
};

// Runs until every request is taken and the RTL offers no TLP.
template <typename Top>
RtlRun run_rtl(const std::vector<Request>& requests, const Sizes& sizes, std::uint64_t seed,
               Stalls stalls, std::size_t expected_tlps) {
  Top top;
  const std::unique_ptr<VerilatedVcdC> vcd = open_test_vcd(top);
  std::uint64_t vcd_time = 0;  // two steps per cycle
  const auto dump = [&vcd, &vcd_time] {
    if (vcd) vcd->dump(vcd_time++);
  };
  std::mt19937_64 rng(seed);
  top.cfg_mps_bytes_i = static_cast<std::uint16_t>(sizes.mps);
  top.cfg_mrrs_bytes_i = static_cast<std::uint16_t>(sizes.mrrs);
  top.s_req_valid_i = 0;
  top.m_tlp_ready_i = 0;
  rtl_bridge::reset(top, 2);

  RtlRun run;
  std::size_t next = 0;
  // Enough at the stall rates used here; a stuck RTL fails rather than hangs.
  const std::uint64_t budget = 100 + 20 * (expected_tlps + requests.size());
  for (std::uint64_t cycle = 0;; ++cycle) {
    if (cycle > budget) {
      ADD_FAILURE() << "the RTL stopped: " << run.tlps.size() << " of " << expected_tlps
                    << " TLPs after " << cycle << " cycles";
      break;
    }
    const bool offer = next < requests.size() && !chance(rng, stalls.source_idle);
    // Idle cycles carry random requests, which the RTL must not take.
    const Request noise{(rng() & 1) != 0, rng(), static_cast<std::uint32_t>(rng()),
                        static_cast<std::uint32_t>(rng() & 0xFFFF)};
    const Request& r = offer ? requests[next] : noise;
    top.s_req_valid_i = offer;
    top.s_req_write_i = r.write;
    top.s_req_address_i = r.address;
    top.s_req_length_i = r.length;
    top.s_req_max_tlps_i = static_cast<std::uint16_t>(r.max_tlps);
    top.m_tlp_ready_i = !chance(rng, stalls.sink_busy);
    top.clk_i = 0;
    top.eval();
    dump();
    if (top.m_tlp_valid_o && top.m_tlp_ready_i) {
      run.tlps.push_back({top.m_tlp_address_o, top.m_tlp_length_o, top.m_tlp_last_o != 0});
      run.tlp_cycles.push_back(cycle);
    }
    const bool done = next == requests.size() && !top.m_tlp_valid_o;
    if (top.s_req_valid_i && top.s_req_ready_o) {
      run.request_cycles.push_back(cycle);
      ++next;
    }
    rtl_bridge::rise(top);
    dump();
    if (done) break;
  }
  if (vcd) vcd->close();
  top.final();
  return run;
}

// The RTL's run without the model (RNICSIM_COSIM_MODE=model): nothing.
template <typename Top>
RtlRun run_rtl_unless_model_only(const std::vector<Request>& requests, const Sizes& sizes,
                                 std::uint64_t seed, Stalls stalls, std::size_t expected_tlps) {
  if (!runs_rtl(cosim_mode())) return {};
  return run_rtl<Top>(requests, sizes, seed, stalls, expected_tlps);
}

// The RTL's TLPs, one list per request: up to each one marked last.
std::vector<std::vector<TlpOut>> per_request(const RtlRun& rtl) {
  std::vector<std::vector<TlpOut>> requests(1);
  for (const TlpOut& t : rtl.tlps) {
    requests.back().push_back(t);
    if (t.last) requests.emplace_back();
  }
  requests.pop_back();
  return requests;
}

// The scoreboard: the RTL's TLPs, request by request, against the model's;
// every mismatch gathered before the test fails. With one side off
// (cosim/mode.hpp) the counts come from the other and nothing is compared.
struct Scoreboard {
  CosimMode mode = cosim_mode();
  std::size_t requests = 0;
  std::size_t tlps = 0;
  std::size_t cut_by_budget = 0;  // requests whose TLP budget ended them early
  // The cases the RTL tells apart: reads (cut at MRRS) and writes (at MPS),
  // requests ended by their length, and TLPs ended at a size boundary
  // before reaching the size (an unaligned start).
  std::size_t reads = 0;
  std::size_t writes = 0;
  std::size_t ended_by_length = 0;
  std::size_t short_of_a_boundary = 0;
  std::vector<std::string> mismatches;

  void compare(const std::vector<Request>& requests_in, const Sizes& sizes, const RtlRun& rtl) {
    const std::vector<std::vector<TlpOut>> rtl_requests = per_request(rtl);
    std::size_t at = 0;
    for (std::size_t i = 0; i < requests_in.size(); ++i) {
      const Request& r = requests_in[i];
      ++requests;
      const std::vector<TlpOut> want =
          runs_model(mode) ? model_tlps(r, sizes)
                           : (i < rtl_requests.size() ? rtl_requests[i] : std::vector<TlpOut>{});
      std::uint64_t covered = 0;
      for (const TlpOut& t : want) covered += t.length;
      if (covered < r.length) ++cut_by_budget;
      if (covered == r.length) ++ended_by_length;
      ++(r.write ? writes : reads);
      const std::uint32_t size = r.write ? sizes.mps : sizes.mrrs;
      for (const TlpOut& t : want) {
        if (t.length < size && (t.address + t.length) % size == 0 && !t.last) {
          ++short_of_a_boundary;
        }
      }
      tlps += want.size();
      if (mode != CosimMode::kCrossCheck) continue;
      for (const TlpOut& w : want) {
        if (at >= rtl.tlps.size() || !(rtl.tlps[at] == w)) {
          std::ostringstream out;
          out << (r.write ? "write" : "read") << " 0x" << std::hex << r.address << std::dec << " +"
              << r.length << " budget " << r.max_tlps << " (MPS " << sizes.mps << ", MRRS "
              << sizes.mrrs << "): model TLP 0x" << std::hex << w.address << std::dec << " +"
              << w.length << (w.last ? " last" : "");
          if (at < rtl.tlps.size()) {
            out << ", RTL 0x" << std::hex << rtl.tlps[at].address << std::dec << " +"
                << rtl.tlps[at].length << (rtl.tlps[at].last ? " last" : "");
          } else {
            out << ", RTL none";
          }
          mismatches.push_back(out.str());
        }
        ++at;
      }
    }
    if (mode == CosimMode::kCrossCheck && at != rtl.tlps.size()) {
      mismatches.push_back("the RTL gave " + std::to_string(rtl.tlps.size()) + " TLPs, the model " +
                           std::to_string(at));
    }
  }

  std::string report() const {
    std::ostringstream out;
    out << mismatches.size() << " mismatches in " << tlps << " TLPs of " << requests << " requests";
    for (std::size_t i = 0; i < mismatches.size() && i < 10; ++i) out << "\n  " << mismatches[i];
    return out.str();
  }
};

constexpr std::uint32_t kSizes[] = {128, 256, 512, 1024, 2048, 4096};

std::vector<Request> random_requests(std::size_t count, std::mt19937_64& rng) {
  std::vector<Request> requests;
  for (std::size_t i = 0; i < count; ++i) {
    Request r;
    r.write = (rng() & 1) != 0;
    // Below 2^62, so that address + length never wraps; the low bits near a
    // boundary of some size half the time.
    r.address = rng() >> 2;
    if (rng() % 2 == 0) {
      const std::uint64_t size = kSizes[rng() % 6];
      r.address = (r.address & ~(size - 1)) + size - 1 - rng() % 3 + rng() % 5;
    }
    switch (rng() % 4) {
      case 0:
        r.length = 1 + static_cast<std::uint32_t>(rng() % 64);
        break;
      case 1: {  // a multiple of a size, or one off
        const std::uint32_t size = kSizes[rng() % 6];
        r.length = size * (1 + static_cast<std::uint32_t>(rng() % 8));
        r.length += static_cast<std::uint32_t>(rng() % 3) - 1u;
        break;
      }
      default:
        r.length = 1 + static_cast<std::uint32_t>(rng() % 65536);
        break;
    }
    r.max_tlps = rng() % 4 == 0 ? 65535 : 1 + static_cast<std::uint32_t>(rng() % 40);
    requests.push_back(r);
  }
  return requests;
}

std::size_t total_tlps(const std::vector<Request>& requests, const Sizes& sizes) {
  std::size_t n = 0;
  for (const Request& r : requests) n += model_tlps(r, sizes).size();
  return n;
}

// Every MPS with every MRRS, 300 random requests each: 10,800 requests.
TEST(RequestSplitterCosim, RandomRequestsUnderRandomStallsAgreeWithTheModel) {
  std::mt19937_64 rng(0x5B11);
  Scoreboard board;
  for (const std::uint32_t mps : kSizes) {
    for (const std::uint32_t mrrs : kSizes) {
      const Sizes sizes{mps, mrrs};
      const std::vector<Request> requests = random_requests(300, rng);
      board.compare(requests, sizes,
                    run_rtl_unless_model_only<Vrequest_splitter>(
                        requests, sizes, rng(), Stalls{0.3, 0.3}, total_tlps(requests, sizes)));
    }
  }
  EXPECT_EQ(board.requests, 10800u);
  EXPECT_TRUE(board.mismatches.empty()) << board.report();
  // Requests cut short by their TLP budget occur often, and so do long ones.
  EXPECT_GT(board.cut_by_budget, 1000u);
  EXPECT_GT(board.ended_by_length, 1000u);
  EXPECT_GT(board.reads, 1000u);
  EXPECT_GT(board.writes, 1000u);
  EXPECT_GT(board.short_of_a_boundary, 1000u);
  EXPECT_GT(board.tlps, 10u * board.requests);
}

// Corners worked out by hand, at MPS 256 and MRRS 512.
TEST(RequestSplitterCosim, DirectedCornersAgreeWithTheModel) {
  const Sizes sizes{256, 512};
  const std::vector<Request> requests = {
      {false, 0x10010, 1100, 64},  // 496, 512, 92
      {true, 0x10010, 1100, 64},   // 240, 256, 256, 256, 92
      {true, 0x0FFF, 2, 64},       // 1 + 1 across 4 KiB
      {false, 0x1000, 512, 64},    // exactly one
      {false, 0x1000, 513, 64},    // one and one byte
      {true, 0x1001, 4096, 2},     // cut by the budget after two
      {false, 0x3FFFFFFFFFFFF000, 4096, 65535},
      {true, 0x7, 1, 1},
      {true, 0x7FFFFFFFFFFFFF80, 600, 64},  // 128, 256, 216 across 2^63: the top address bit
      {false, 0x2000, 0xFFFFFFFF, 3},       // the longest length, cut by its budget
  };
  const RtlRun rtl = run_rtl_unless_model_only<Vrequest_splitter>(
      requests, sizes, 1, Stalls{0.5, 0.5}, total_tlps(requests, sizes));
  Scoreboard board;
  board.compare(requests, sizes, rtl);
  EXPECT_TRUE(board.mismatches.empty()) << board.report();
  EXPECT_EQ(model_tlps(requests[0], sizes).size(), 3u);
  EXPECT_EQ(model_tlps(requests[1], sizes).size(), 5u);
  EXPECT_EQ(model_tlps(requests[5], sizes).size(), 2u);
}

// Without stalls a request is taken in the cycle after its predecessor's
// last TLP, its first TLP leaves the cycle after that, and the rest follow
// one per cycle.
TEST(RequestSplitterCosim, OneTlpPerCycleAfterTheCycleThatTakesTheRequest) {
  if (!runs_rtl(cosim_mode())) GTEST_SKIP() << "RNICSIM_COSIM_MODE=model runs no RTL";
  std::mt19937_64 rng(0x7111);
  const Sizes sizes{256, 512};
  const std::vector<Request> requests = random_requests(500, rng);
  const RtlRun rtl =
      run_rtl<Vrequest_splitter>(requests, sizes, 2, Stalls{}, total_tlps(requests, sizes));
  ASSERT_EQ(rtl.request_cycles.size(), requests.size());
  const std::vector<std::vector<TlpOut>> rtl_requests = per_request(rtl);
  ASSERT_EQ(rtl_requests.size(), requests.size());
  std::size_t tlp = 0;
  for (std::size_t i = 0; i < requests.size(); ++i) {
    const std::size_t n = rtl_requests[i].size();
    ASSERT_LE(tlp + n, rtl.tlp_cycles.size());
    for (std::size_t k = 0; k < n; ++k) {
      EXPECT_EQ(rtl.tlp_cycles[tlp + k], rtl.request_cycles[i] + 1 + k) << "request " << i;
    }
    if (i + 1 < requests.size()) {
      EXPECT_EQ(rtl.request_cycles[i + 1], rtl.tlp_cycles[tlp + n - 1] + 1) << "request " << i;
    }
    tlp += n;
  }
}

// The test-only fault (cut at the size alone, ignoring its boundaries) must
// show on unaligned requests.
TEST(RequestSplitterCosimFault, TheScoreboardCatchesCutsAcrossBoundaries) {
  if (cosim_mode() != CosimMode::kCrossCheck) GTEST_SKIP() << "needs both sides";
  std::mt19937_64 rng(0xFA17);
  const Sizes sizes{256, 512};
  const std::vector<Request> requests = random_requests(300, rng);
  Scoreboard board;
  board.compare(requests, sizes,
                run_rtl<Vrequest_splitter_fault>(requests, sizes, 3, Stalls{0.3, 0.3},
                                                 total_tlps(requests, sizes)));
  EXPECT_GT(board.mismatches.size(), 100u) << board.report();
}

}  // namespace
}  // namespace rnicsim::cosim
