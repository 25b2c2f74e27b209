// Data integrity over RC: the covering set of rc_integrity_points.hpp (every
// verb with every size class, every PMTU, 1 and 64 QPs, several messages per
// QP in flight, several SGEs, buffers on physically scattered pages: the
// default host.fragmentation) and the error cases. Each point checks that
//   - every registered region, and the canary bytes around it on its pages,
//     holds exactly the bytes expected (a distinct pattern per message);
//   - every signaled WQE and every consumed receive completes exactly once, in
//     order on its QP, with the right status, opcode, byte_len and imm, and
//     nothing more arrives on any CQ;
//   - no byte of either host's memory outside the registered regions and the
//     rings the driver and the NIC share changed (MemorySnapshot), the
//     NIC's tables, contexts and command mailbox included.
#include <algorithm>
#include <cstring>
#include <map>
#include <optional>
#include <ostream>
#include <set>
#include <sstream>

#include "system/memory_snapshot.hpp"
#include "system/rc_bench.hpp"
#include "system/rc_integrity_points.hpp"

namespace rnicsim {
namespace testing {

// gtest prints a failing point's parameter with this.
void PrintTo(const IntegrityPoint& point, std::ostream* out) { *out << point_name(point); }

}  // namespace testing

namespace {

using testing::IntegrityPoint;
using testing::MemorySnapshot;
using testing::RangeSet;
using testing::RcBench;
using testing::Verb;

using testing::kAllAccess;
constexpr std::uint64_t kBlock = 1u << 20;  // fill and check regions this much at a time

std::uint64_t mix(std::uint64_t x) {  // splitmix64's finalizer
  x += 0x9E3779B97F4A7C15ULL;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ULL;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBULL;
  return x ^ (x >> 31);
}

// Bytes [from, from + n) of the pseudo-random stream `seed`: its word i / 8
// holds byte i. Whole words are copied at once, which the sanitizer build
// (unoptimized) needs to fill and check 8 MiB regions in reasonable time.
void stream_bytes(std::uint64_t seed, std::uint64_t from, std::uint8_t* out, std::uint64_t n) {
  const std::uint64_t key = seed * 0x100000001B3ULL;
  std::uint64_t k = 0;
  while (k < n) {
    const std::uint64_t i = from + k;
    const std::uint64_t word = mix(key ^ (i / 8));
    const std::uint64_t skip = i % 8;
    const std::uint64_t take = std::min<std::uint64_t>(8 - skip, n - k);
    if (take == 8) {
      std::memcpy(out + k, &word, 8);
    } else {
      std::uint8_t bytes[8];
      std::memcpy(bytes, &word, 8);
      std::memcpy(out + k, bytes + skip, take);
    }
    k += take;
  }
}

std::vector<std::uint8_t> little_endian(std::uint64_t value) {
  std::vector<std::uint8_t> out(8);
  for (int i = 0; i < 8; ++i)
    out[static_cast<std::size_t>(i)] = static_cast<std::uint8_t>(value >> (8 * i));
  return out;
}

std::string hex_bytes(const std::uint8_t* p, std::size_t n) {
  std::ostringstream out;
  out << std::hex;
  for (std::size_t i = 0; i < std::min<std::size_t>(n, 8); ++i)
    out << (p[i] < 16 ? "0" : "") << static_cast<unsigned>(p[i]);
  return out.str();
}

// Bytes of a region's span: a stream, or literal bytes (atomic values).
struct Piece {
  std::uint64_t offset = 0;  // into the span
  std::uint64_t length = 0;
  std::uint64_t seed = 0;  // stream `seed` from byte `from`
  std::uint64_t from = 0;
  std::vector<std::uint8_t> literal;  // these instead, when not empty
};

// Pages of one node's process with one MR inside them. The whole span starts
// as a canary stream; `before` lays the initial contents over it, and `after`
// what the traffic must have written over those.
struct Region {
  std::size_t node = 0;
  std::string what;
  std::uint64_t va = 0;
  std::uint64_t span = 0;
  std::uint64_t mr_offset = 0;
  std::uint64_t mr_length = 0;
  ibv_mr* mr = nullptr;
  std::uint64_t canary = 0;
  std::vector<Piece> before;
  std::vector<Piece> after;
  bool may_change = true;  // the snapshot ignores its MR
  bool checked = true;     // check_memory compares its span with its image

  std::uint64_t mr_va() const { return va + mr_offset; }
  // Bytes [offset, offset + n) of the span, before or after the traffic, into `out`.
  void image(std::uint64_t offset, std::uint64_t n, bool traffic_done, std::uint8_t* out) const {
    stream_bytes(canary, offset, out, n);
    auto lay = [&](const Piece& p) {
      const std::uint64_t first = std::max(offset, p.offset);
      const std::uint64_t end = std::min(offset + n, p.offset + p.length);
      if (first >= end) return;
      std::uint8_t* to = out + (first - offset);
      if (p.literal.empty()) {
        stream_bytes(p.seed, p.from + (first - p.offset), to, end - first);
      } else {
        std::copy(p.literal.begin() + static_cast<std::ptrdiff_t>(first - p.offset),
                  p.literal.begin() + static_cast<std::ptrdiff_t>(end - p.offset), to);
      }
    };
    for (const Piece& p : before) lay(p);
    if (traffic_done)
      for (const Piece& p : after) lay(p);
  }
};

// What a completion must say.
struct Expected {
  std::size_t qp = 0;       // QP index
  std::uint32_t order = 0;  // its place among its QP's completions on this CQ
  std::uint32_t qp_num = 0;
  ibv_wc_status status = IBV_WC_SUCCESS;
  ibv_wc_opcode opcode = IBV_WC_SEND;
  std::optional<std::uint32_t> byte_len;
  std::optional<std::uint32_t> imm;  // and IBV_WC_WITH_IMM set
};

// One CQ's completions: each expected wr_id exactly once, in order per QP,
// with its fields; everything else is a failure. The first few failures are
// spelled out (flush), then counted.
class CompletionCheck {
 public:
  CompletionCheck(std::string cq, std::size_t qps) : cq_(std::move(cq)), next_(qps, 0) {}

  void expect(std::uint64_t wr_id, Expected e) {
    e.order = counts_[e.qp]++;
    expected_.emplace(wr_id, e);
  }
  std::size_t missing() const { return expected_.size() - seen_.size(); }

  void take(const ibv_wc& wc) {
    const auto it = expected_.find(wc.wr_id);
    if (it == expected_.end()) {
      fail() << "a completion nobody asked for: wr_id " << wc.wr_id << " status "
             << ibv_wc_status_str(wc.status) << " qp_num " << wc.qp_num;
      return;
    }
    if (!seen_.insert(wc.wr_id).second) {
      fail() << "wr_id " << wc.wr_id << " completed twice";
      return;
    }
    const Expected& e = it->second;
    if (e.order != next_[e.qp])
      fail() << "wr_id " << wc.wr_id << " completed as number " << next_[e.qp] << " of QP " << e.qp
             << ", posted as number " << e.order;
    next_[e.qp] = e.order + 1;
    if (wc.status != e.status)
      fail() << "wr_id " << wc.wr_id << ": status " << ibv_wc_status_str(wc.status) << ", expected "
             << ibv_wc_status_str(e.status);
    if (wc.opcode != e.opcode)
      fail() << "wr_id " << wc.wr_id << ": opcode " << static_cast<int>(wc.opcode) << ", expected "
             << static_cast<int>(e.opcode);
    if (wc.qp_num != e.qp_num)
      fail() << "wr_id " << wc.wr_id << ": qp_num " << wc.qp_num << ", expected " << e.qp_num;
    if (e.byte_len && wc.byte_len != *e.byte_len)
      fail() << "wr_id " << wc.wr_id << ": byte_len " << wc.byte_len << ", expected "
             << *e.byte_len;
    const bool with_imm = (wc.wc_flags & IBV_WC_WITH_IMM) != 0;
    if (with_imm != e.imm.has_value())
      fail() << "wr_id " << wc.wr_id << ": IBV_WC_WITH_IMM " << (with_imm ? "set" : "clear");
    if (e.imm && wc.imm_data != *e.imm)
      fail() << "wr_id " << wc.wr_id << ": imm_data " << wc.imm_data << ", expected " << *e.imm;
  }

  void report_missing() {
    for (const auto& [wr_id, e] : expected_)
      if (!seen_.count(wr_id))
        fail() << "wr_id " << wr_id << " (QP " << e.qp << ") never completed";
  }

  void flush() {
    for (const std::string& f : failures_) ADD_FAILURE() << cq_ << ": " << f;
    if (count_ > failures_.size())
      ADD_FAILURE() << cq_ << ": " << count_ << " completion failures in all";
    failures_.clear();
    count_ = 0;
  }

 private:
  // Streams one failure; `flush` reports it.
  class Failure {
   public:
    explicit Failure(CompletionCheck& check) : check_(check) {}
    ~Failure() {
      if (++check_.count_ <= kSpelledOut) check_.failures_.push_back(text_.str());
    }
    template <class T>
    Failure& operator<<(const T& value) {
      text_ << value;
      return *this;
    }

   private:
    CompletionCheck& check_;
    std::ostringstream text_;
  };
  static constexpr std::size_t kSpelledOut = 10;
  Failure fail() { return Failure(*this); }

  std::string cq_;
  std::vector<std::uint32_t> next_;
  std::map<std::size_t, std::uint32_t> counts_;
  std::map<std::uint64_t, Expected> expected_;
  std::set<std::uint64_t> seen_;
  std::vector<std::string> failures_;
  std::size_t count_ = 0;
};

// Two connected nodes with regions laid out in their processes.
class IntegrityBench {
 public:
  explicit IntegrityBench(RcBench& bench) : bench_(bench) {}

  // A region on `node` whose MR is `mr_length` bytes (at least 1) from
  // `mr_offset` into the span; the span ends at least one byte after the MR.
  Region& region(std::size_t node, std::string what, std::uint64_t mr_offset,
                 std::uint64_t mr_length) {
    mr_length = std::max<std::uint64_t>(mr_length, 1);
    HostSoftware& s = bench_.testbed().node(node).software();
    const std::uint64_t page = s.process.page_bytes();
    auto r = std::make_unique<Region>();
    r->node = node;
    r->what = std::move(what);
    r->mr_offset = mr_offset;
    r->mr_length = mr_length;
    r->span = (mr_offset + mr_length + 1 + page - 1) / page * page;
    r->va = s.process.allocate(r->span);
    r->canary = mix(0xCA4A7 + regions_.size());
    const RcSide& side = node == 0 ? bench_.a : bench_.b;
    r->mr = s.driver.ibv_reg_mr(side.pd, r->mr_va(), mr_length, kAllAccess);
    if (r->mr == nullptr) throw std::runtime_error("ibv_reg_mr failed for " + r->what);
    regions_.push_back(std::move(r));
    return *regions_.back();
  }

  // Writes every region's initial contents (the CPU's untimed stores).
  void fill() {
    std::vector<std::uint8_t> bytes(kBlock);
    for (const auto& r : regions_) {
      const AddressSpace& process = bench_.testbed().node(r->node).software().process;
      for (std::uint64_t at = 0; at < r->span; at += kBlock) {
        const std::uint64_t n = std::min(kBlock, r->span - at);
        r->image(at, n, false, bytes.data());
        process.write(bench_.memory(r->node), r->va + at, bytes.data(), n);
      }
    }
  }

  // Page boundaries inside the regions' spans, and how many of them are
  // physically discontiguous (the next page is not the next frame).
  std::pair<std::uint64_t, std::uint64_t> page_breaks() const {
    std::uint64_t boundaries = 0, breaks = 0;
    for (const auto& r : regions_) {
      const AddressSpace& process = bench_.testbed().node(r->node).software().process;
      const std::vector<std::uint64_t> frames = process.frames(r->va, r->span);  // addresses
      for (std::size_t i = 1; i < frames.size(); ++i) {
        ++boundaries;
        breaks += frames[i] != frames[i - 1] + process.page_bytes();
      }
    }
    return {boundaries, breaks};
  }

  // Snapshots both hosts: what may change is every ring of both sides, the
  // MRs of the regions that may change, and `also` (node, va, length).
  void snapshot(
      const std::vector<std::tuple<std::size_t, std::uint64_t, std::uint64_t>>& also = {}) {
    snapshots_.clear();
    for (std::size_t node = 0; node < 2; ++node) {
      RangeSet may_change;
      const RcSide& side = node == 0 ? bench_.a : bench_.b;
      for (const ibv_qp* qp : side.qps) add_queues(may_change, *qp);
      add_queues(may_change, *side.send_cq);
      add_queues(may_change, *side.recv_cq);
      const AddressSpace& process = bench_.testbed().node(node).software().process;
      for (const auto& r : regions_)
        if (r->node == node && r->may_change)
          add_virtual_range(may_change, process, r->mr_va(), r->mr_length);
      for (const auto& [at, va, length] : also)
        if (at == node) add_virtual_range(may_change, process, va, length);
      snapshots_.emplace_back(bench_.memory(node), std::move(may_change));
    }
  }

  // Every region's span against its expected image; both hosts against their snapshots.
  void check_memory() {
    std::size_t reported = 0;
    std::vector<std::uint8_t> want(kBlock), got(kBlock);
    for (const auto& r : regions_) {
      if (!r->checked) continue;
      const AddressSpace& process = bench_.testbed().node(r->node).software().process;
      std::uint64_t wrong = 0, first = 0;
      std::vector<std::uint8_t> got_first, want_first;
      for (std::uint64_t at = 0; at < r->span; at += kBlock) {
        const std::uint64_t n = std::min(kBlock, r->span - at);
        r->image(at, n, true, want.data());
        process.read(bench_.memory(r->node), r->va + at, got.data(), n);
        if (std::memcmp(got.data(), want.data(), n) == 0) continue;
        for (std::uint64_t i = 0; i < n; ++i) {
          if (got[i] == want[i]) continue;
          if (wrong++ == 0) {
            first = at + i;
            const std::uint64_t k = std::min<std::uint64_t>(8, n - i);
            got_first.assign(got.begin() + static_cast<std::ptrdiff_t>(i),
                             got.begin() + static_cast<std::ptrdiff_t>(i + k));
            want_first.assign(want.begin() + static_cast<std::ptrdiff_t>(i),
                              want.begin() + static_cast<std::ptrdiff_t>(i + k));
          }
        }
      }
      if (wrong > 0 && reported++ < 10) {
        ADD_FAILURE() << r->what << " (node "
                      << "ab"[r->node] << "): " << wrong << " bytes differ, the first at MR offset "
                      << static_cast<std::int64_t>(first - r->mr_offset) << " (MR of "
                      << r->mr_length << " bytes): got "
                      << hex_bytes(got_first.data(), got_first.size()) << ", expected "
                      << hex_bytes(want_first.data(), want_first.size());
      }
    }
    if (reported > 10) ADD_FAILURE() << reported << " regions differ in all";
    for (std::size_t node = 0; node < snapshots_.size(); ++node) {
      for (const std::string& change : snapshots_[node].changes(bench_.memory(node)))
        ADD_FAILURE() << "node "
                      << "ab"[node] << " memory: " << change;
    }
  }

 private:
  RcBench& bench_;
  std::vector<std::unique_ptr<Region>> regions_;
  std::vector<MemorySnapshot> snapshots_;
};

// Parts of `total` bytes for `count` SGEs, uneven, none empty (fewer parts
// when there are fewer bytes).
std::vector<std::uint64_t> split(std::uint64_t total, std::uint32_t count) {
  count = static_cast<std::uint32_t>(std::min<std::uint64_t>(count, total));
  std::vector<std::uint64_t> parts;
  std::uint64_t left = total;
  for (std::uint32_t i = 0; i + 1 < count; ++i) {
    const std::uint64_t part = std::max<std::uint64_t>(1, left * (i + 1) / (2 * (i + 2)));
    parts.push_back(part);
    left -= part;
  }
  if (left > 0) parts.push_back(left);
  return parts;
}

// SGEs of `capacities` laid out inside the MR from `start` with `gap` bytes
// between them; returns them, and the pieces a message of `bytes` bytes
// from stream `seed` leaves in them, filling them in order.
std::vector<ibv_sge> scatter(const Region& r, std::uint64_t start, std::uint64_t gap,
                             const std::vector<std::uint64_t>& capacities, std::uint64_t bytes,
                             std::uint64_t seed, std::vector<Piece>* pieces) {
  std::vector<ibv_sge> sges;
  std::uint64_t at = start, placed = 0;
  for (std::uint64_t capacity : capacities) {
    sges.push_back(ibv_sge{r.mr_va() + at, static_cast<std::uint32_t>(capacity), r.mr->lkey});
    const std::uint64_t n = std::min(capacity, bytes - placed);
    if (n > 0) pieces->push_back(Piece{r.mr_offset + at, n, seed, placed, {}});
    placed += n;
    at += capacity + gap;
  }
  return sges;
}

std::uint64_t total_of(const std::vector<std::uint64_t>& parts) {
  std::uint64_t t = 0;
  for (std::uint64_t p : parts) t += p;
  return t;
}

// Bytes an MR needs for these SGEs with `gap` between them.
std::uint64_t scattered_length(const std::vector<std::uint64_t>& parts, std::uint64_t gap) {
  return total_of(parts) + (parts.empty() ? 0 : (parts.size() - 1) * gap);
}

struct Message {
  std::size_t qp = 0;
  std::uint32_t index = 0;
  ibv_send_wr wr;
  std::vector<ibv_sge> sges;
  std::optional<ibv_recv_wr> recv;
  std::vector<ibv_sge> recv_sges;
};

ibv_wr_opcode wr_opcode(Verb verb) {
  switch (verb) {
    case Verb::kWrite:
      return IBV_WR_RDMA_WRITE;
    case Verb::kWriteImm:
      return IBV_WR_RDMA_WRITE_WITH_IMM;
    case Verb::kSend:
      return IBV_WR_SEND;
    case Verb::kSendImm:
      return IBV_WR_SEND_WITH_IMM;
    case Verb::kRead:
      return IBV_WR_RDMA_READ;
    case Verb::kCmpSwap:
      return IBV_WR_ATOMIC_CMP_AND_SWP;
    case Verb::kFetchAdd:
      return IBV_WR_ATOMIC_FETCH_AND_ADD;
  }
  return IBV_WR_SEND;
}

ibv_wc_opcode wc_opcode(Verb verb) {
  switch (verb) {
    case Verb::kWrite:
    case Verb::kWriteImm:
      return IBV_WC_RDMA_WRITE;
    case Verb::kSend:
    case Verb::kSendImm:
      return IBV_WC_SEND;
    case Verb::kRead:
      return IBV_WC_RDMA_READ;
    case Verb::kCmpSwap:
      return IBV_WC_COMP_SWAP;
    case Verb::kFetchAdd:
      return IBV_WC_FETCH_ADD;
  }
  return IBV_WC_SEND;
}

config::Json testbed_config() {
  // A jumbo-frame port, so every PMTU up to 4096 is an active MTU. Pages
  // handed out in random order (the default, written out so that the buffers
  // stay physically scattered if the default changes). The wire never waits
  // (a full receive buffer drops and go-back-N resends), so on the perfect
  // wire each receive buffer holds 1 GiB, more than any point moves in all: 64 QPs of 8 MiB
  // WRITEs at PMTU 4096 outrun the responder (it translates each message whole
  // at its first packet) and overflow the default 4 MiB.
  return config::Json::parse(R"({"nic": {"ethernet_mtu_bytes": 4200},
                                 "host": {"fragmentation": 1.0},
                                 "link": {"rx_buffer_bytes": 1073741824}})");
}

// A CQ of node `first`.
using CqOf = std::pair<std::size_t, ibv_cq*>;

std::vector<CqOf> every_cq(const RcBench& bench) {
  return {{0, bench.a.send_cq}, {0, bench.a.recv_cq}, {1, bench.b.send_cq}, {1, bench.b.recv_cq}};
}

// Takes completions from `checks` (a CQ, its check) until none is missing or
// `deadline`, then lets the NIC go quiet and requires every CQ empty.
void collect(RcBench& bench, const std::vector<std::pair<CqOf, CompletionCheck*>>& checks,
             const sc_core::sc_time& deadline) {
  auto missing = [&] {
    std::size_t n = 0;
    for (const auto& c : checks) n += c.second->missing();
    return n;
  };
  ibv_wc wc[16];
  while (missing() > 0 && sc_core::sc_time_stamp() < deadline) {
    for (const auto& [cq, check] : checks) {
      const int n = bench.driver(cq.first).ibv_poll_cq(cq.second, 16, wc);
      for (int i = 0; i < n; ++i) check->take(wc[i]);
    }
    // Polling takes time, so a CQE may have come while another CQ was polled:
    // wait only when none is there now (as VerbsDriver::wait_cq does).
    sc_core::sc_event_or_list written;
    bool ready = false;
    for (const auto& [cq, check] : checks) {
      const RingLayout& ring = cq.second->ring;
      const std::uint64_t at = ring.address(cq.second->consumer);
      std::uint8_t bytes[kCqeBytes];
      bench.memory(cq.first).read_bytes(at, bytes, kCqeBytes);
      ready |= decode_cqe(bytes).owner == cqe_owner_for(cq.second->consumer, ring.entries);
      written |=
          bench.memory(cq.first).watch(at / ring.page_bytes * ring.page_bytes, ring.page_bytes);
    }
    if (!ready) sc_core::wait(deadline - sc_core::sc_time_stamp(), written);
  }
  for (const auto& c : checks) c.second->report_missing();
  // Whatever the NIC still had to write lands now; nothing more may complete.
  sc_core::wait(100, sc_core::SC_US);
  for (const auto& [node, cq] : every_cq(bench)) {
    const int extra = bench.driver(node).ibv_poll_cq(cq, 16, wc);
    EXPECT_EQ(extra, 0) << "completions left over on a CQ of node "
                        << "ab"[node] << " (first wr_id " << wc[0].wr_id << ", status "
                        << ibv_wc_status_str(wc[0].status) << ")";
  }
  for (const auto& c : checks) c.second->flush();
}

void expect_rts(RcBench& bench) {
  for (std::size_t node = 0; node < 2; ++node) {
    const RcSide& side = node == 0 ? bench.a : bench.b;
    for (std::size_t q = 0; q < side.qps.size(); ++q) {
      const QpContext* qp =
          bench.testbed().node(node).nic.transport.contexts().qp(side.qps[q]->qp_num);
      ASSERT_NE(qp, nullptr);
      EXPECT_EQ(qp->state, IBV_QPS_RTS) << "QP " << q << " of node "
                                        << "ab"[node];
    }
  }
}

// The wire a point runs over: perfect, or faulty in both directions, or a
// fabric of switches between the two hosts.
struct Wire {
  const char* name;
  config::Json faults;  // the config's faults section
  // Whether some point of the set must have retransmitted (a point alone
  // may be lucky: a 1-packet message at 1% loss mostly is).
  bool lossy = false;
  config::Json topology = config::Json::object();  // the config's topology section
};

const Wire kPerfectWire{"Perfect", config::Json::object()};
// Across one switch, and across a leaf-spine (two leaves, two spines: the
// QPs' UDP source ports spread over both spines), PFC on.
const Wire kStar{"Star", config::Json::object(), false,
                 config::Json::parse(R"({"switches": ["s1"], "links": ["a-s1", "b-s1"]})")};
const Wire kLeafSpine{"LeafSpine", config::Json::object(), false,
                      config::Json::parse(R"({"switches": ["leaf1", "leaf2", "spine1", "spine2"],
                          "links": ["a-leaf1", "b-leaf2", "leaf1-spine1", "leaf1-spine2",
                                    "leaf2-spine1", "leaf2-spine2"]})")};
// Two faulty wires, seeded by the run's seed.
const Wire kLossyWire{"Lossy",
                      config::Json::parse(R"({"loss_rate": 0.01, "corrupt_rate": 0.001})"), true};
const Wire kChaoticWire{"Chaotic",
                        config::Json::parse(R"({"loss_rate": 0.05, "duplicate_rate": 0.01,
                                                "reorder_rate": 0.01,
                                                "reorder_delay_ns": 2000})"),
                        true};

// Retransmissions of the points run on a faulty wire in this process, by wire.
std::map<std::string, std::uint64_t>& retransmissions() {
  static std::map<std::string, std::uint64_t> counts;
  return counts;
}

void run_point(const IntegrityPoint& point, const Wire& wire = kPerfectWire) {
  config::Json given = testbed_config();
  if (!wire.faults.empty()) given["faults"] = wire.faults;
  if (!wire.topology.empty()) {
    given["topology"].update(wire.topology);
    given["pfc"]["enabled"] = true;
  }
  RcBench bench(given);
  bench.run([&] {
    RcOptions options;
    options.qps = point.qps;
    options.mtu = ibv_mtu_from_bytes(point.pmtu);
    // Just short of the 24-bit PSN wrap, so the requests of any message of
    // more than a few packets, and their responses, cross it.
    options.first_psn = 0xFFFFF0;
    bench.connect(options);  // timeout 14 (67 ms): perftest's, and ConnectX's default
    IntegrityBench layout(bench);
    const std::uint64_t bytes = testing::message_bytes(point.size, point.pmtu);
    const std::uint32_t per_qp = testing::messages_per_qp(point);
    const Verb verb = point.verb;
    const bool needs_recv =
        verb == Verb::kSend || verb == Verb::kSendImm || verb == Verb::kWriteImm;
    CompletionCheck sends("node a's send CQ", point.qps);
    CompletionCheck recvs("node b's receive CQ", point.qps);
    std::vector<Message> messages;
    messages.reserve(std::size_t{point.qps} * per_qp);
    std::vector<std::uint64_t> word(point.qps);  // atomics: each QP's remote word, as it goes
    std::vector<Region*> words(point.qps, nullptr);
    for (std::uint32_t m = 0; m < per_qp; ++m) {
      for (std::uint32_t q = 0; q < point.qps; ++q) {
        Message msg;
        msg.qp = q;
        msg.index = m;
        const std::uint64_t seed = mix((std::uint64_t{q} << 32) | m);
        const std::string name = "QP " + std::to_string(q) + " message " + std::to_string(m);
        const std::uint64_t lead = (q * 7 + m * 11) % 64;
        const std::uint64_t gap = 3 + m;
        ibv_send_wr& wr = msg.wr;
        wr.wr_id = (std::uint64_t{q} << 32) | (m << 8) | 0x5A;
        wr.opcode = wr_opcode(verb);
        // The middle one of three goes unsignaled: it must not complete.
        const bool signaled = !(per_qp >= 3 && m == 1);
        wr.send_flags = signaled ? std::uint32_t{IBV_SEND_SIGNALED} : 0u;
        if (verb == Verb::kSendImm || verb == Verb::kWriteImm)
          wr.imm_data = static_cast<std::uint32_t>(mix(seed + 1));
        Expected done;
        done.qp = q;
        done.qp_num = bench.a.qps[q]->qp_num;
        done.opcode = wc_opcode(verb);
        switch (verb) {
          case Verb::kWrite:
          case Verb::kWriteImm:
          case Verb::kSend:
          case Verb::kSendImm: {
            const std::vector<std::uint64_t> parts = split(bytes, 1 + (q + m) % 4);
            Region& source = layout.region(0, name + " source", lead, scattered_length(parts, gap));
            msg.sges = scatter(source, 0, gap, parts, bytes, seed, &source.before);
            // Small ones are sometimes inline: the CPU copies them into the WQE.
            if (m == 2 && bytes <= options.cap.max_inline_data) wr.send_flags |= IBV_SEND_INLINE;
            if (verb == Verb::kSend || verb == Verb::kSendImm) {
              // A receive buffer in up to 3 SGEs, sometimes larger than the message.
              const std::uint64_t extra = m % 2 == 0 ? 0 : 5 + m;
              const std::vector<std::uint64_t> room = split(bytes + extra, 1 + (q + m + 1) % 3);
              Region& target =
                  layout.region(1, name + " receive buffer", lead, scattered_length(room, gap));
              msg.recv_sges = scatter(target, 0, gap, room, bytes, seed, &target.after);
            } else {
              // The target starts inside its MR, some bytes after the MR's first.
              const std::uint64_t before = (q + 5 * m) % 13, after = m % 2 ? 3 : 0;
              Region& target = layout.region(1, name + " target", lead, before + bytes + after);
              if (bytes > 0) target.after.push_back(Piece{lead + before, bytes, seed, 0, {}});
              wr.rdma.remote_addr = target.mr_va() + before;
              wr.rdma.rkey = target.mr->rkey;
            }
            break;
          }
          case Verb::kRead: {
            const std::uint64_t before = (q + 5 * m) % 13, after = m % 2 ? 3 : 0;
            Region& source =
                layout.region(1, name + " remote source", lead, before + bytes + after);
            if (bytes > 0) source.before.push_back(Piece{lead + before, bytes, seed, 0, {}});
            wr.rdma.remote_addr = source.mr_va() + before;
            wr.rdma.rkey = source.mr->rkey;
            const std::vector<std::uint64_t> parts = split(bytes, 1 + (q + m) % 4);
            Region& local =
                layout.region(0, name + " local buffer", lead, scattered_length(parts, gap));
            msg.sges = scatter(local, 0, gap, parts, bytes, seed, &local.after);
            done.byte_len = static_cast<std::uint32_t>(bytes);
            break;
          }
          case Verb::kCmpSwap:
          case Verb::kFetchAdd: {
            if (words[q] == nullptr) {
              words[q] = &layout.region(1, "QP " + std::to_string(q) + " remote word",
                                        8 * ((q + 1) % 8), 8);
              word[q] = mix(seed ^ 0xA7);
              words[q]->before.push_back(
                  Piece{words[q]->mr_offset, 8, 0, 0, little_endian(word[q])});
            }
            Region& result = layout.region(0, name + " result", 8 * ((q + m) % 8), 8);
            msg.sges = {ibv_sge{result.mr_va(), 8, result.mr->lkey}};
            result.after.push_back(Piece{result.mr_offset, 8, 0, 0, little_endian(word[q])});
            wr.atomic.remote_addr = words[q]->mr_va();
            wr.atomic.rkey = words[q]->mr->rkey;
            if (verb == Verb::kFetchAdd) {
              wr.atomic.compare_add = mix(seed + 2);
              word[q] += wr.atomic.compare_add;
            } else {
              // Every other compare misses: the word stays.
              const bool hit = m % 2 == 0;
              wr.atomic.compare_add = hit ? word[q] : word[q] ^ 0x10;
              wr.atomic.swap = mix(seed + 3);
              if (hit) word[q] = wr.atomic.swap;
            }
            done.byte_len = 8;
            break;
          }
        }
        if (signaled) sends.expect(wr.wr_id, done);
        if (needs_recv) {
          ibv_recv_wr recv;
          recv.wr_id = wr.wr_id ^ 0xFF;
          msg.recv = recv;
          Expected r;
          r.qp = q;
          r.qp_num = bench.b.qps[q]->qp_num;
          r.opcode = verb == Verb::kWriteImm ? IBV_WC_RECV_RDMA_WITH_IMM : IBV_WC_RECV;
          r.byte_len = static_cast<std::uint32_t>(bytes);
          if (verb != Verb::kSend) r.imm = wr.imm_data;
          recvs.expect(recv.wr_id, r);
        }
        messages.push_back(std::move(msg));
      }
    }
    for (std::uint32_t q = 0; q < point.qps; ++q)
      if (words[q] != nullptr)
        words[q]->after.push_back(Piece{words[q]->mr_offset, 8, 0, 0, little_endian(word[q])});
    // Pointers into `messages`, which no longer moves.
    for (Message& msg : messages) {
      msg.wr.sg_list = msg.sges.data();
      msg.wr.num_sge = static_cast<std::uint32_t>(msg.sges.size());
      if (msg.recv) {
        msg.recv->sg_list = msg.recv_sges.data();
        msg.recv->num_sge = static_cast<std::uint32_t>(msg.recv_sges.size());
      }
    }
    // Buffers of more than a page sit on scattered pages: most page
    // boundaries inside them jump to another frame, so a NIC that took them
    // for contiguous would write the wrong bytes.
    const auto [boundaries, breaks] = layout.page_breaks();
    if (boundaries > 0) {
      EXPECT_GT(2 * breaks, boundaries)
          << breaks << " of " << boundaries << " page boundaries jump to another frame";
    }
    layout.fill();
    layout.snapshot();

    // Receives first, each QP's as one list; then every QP's first message
    // alone (BlueFlame when small), then each QP's others as one list.
    std::vector<std::vector<Message*>> by_qp(point.qps);
    for (Message& msg : messages) by_qp[msg.qp].push_back(&msg);
    if (needs_recv) {
      for (std::uint32_t q = 0; q < point.qps; ++q) {
        for (std::size_t i = 0; i + 1 < by_qp[q].size(); ++i)
          by_qp[q][i]->recv->next = &*by_qp[q][i + 1]->recv;
        ASSERT_EQ(bench.driver(1).ibv_post_recv(bench.b.qps[q], &*by_qp[q].front()->recv, nullptr),
                  0)
            << bench.driver(1).last_error_reason();
      }
    }
    for (std::uint32_t q = 0; q < point.qps; ++q) {
      ASSERT_EQ(bench.driver(0).ibv_post_send(bench.a.qps[q], &by_qp[q].front()->wr, nullptr), 0)
          << bench.driver(0).last_error_reason();
    }
    for (std::uint32_t q = 0; q < point.qps; ++q) {
      if (by_qp[q].size() < 2) continue;
      for (std::size_t i = 1; i + 1 < by_qp[q].size(); ++i)
        by_qp[q][i]->wr.next = &by_qp[q][i + 1]->wr;
      ASSERT_EQ(bench.driver(0).ibv_post_send(bench.a.qps[q], &by_qp[q][1]->wr, nullptr), 0)
          << bench.driver(0).last_error_reason();
    }

    // Generous: every byte at 1 Gbit/s, and a millisecond. On a faulty wire
    // every byte at 50 Mbit/s (go-back-N sends the rest of a window again at
    // each loss), and a 67 ms timeout per 100 packets and 10 more per QP: a
    // retry whose first packet is lost again, or a loss nothing follows,
    // waits for the timer (the responder NAKs a sequence error once). At 5%
    // loss a 1 MiB SEND at PMTU 512 (2,049 packets) meets some ten such
    // timeouts. (Simulated time: waiting costs the test nothing.)
    const double total = static_cast<double>(bytes) * static_cast<double>(messages.size());
    const double packets = static_cast<double>(messages.size()) *
                           static_cast<double>(bytes / point.pmtu + 1);
    const double seconds = wire.lossy ? 1e-3 + total * 8 / 50e6 +
                                            0.0671 * (packets / 100 + 10.0 * point.qps)
                                      : 1e-3 + total * 8 / 1e9;
    const sc_core::sc_time deadline =
        sc_core::sc_time_stamp() + sc_core::sc_time(seconds, sc_core::SC_SEC);
    std::vector<std::pair<CqOf, CompletionCheck*>> checks{{{0, bench.a.send_cq}, &sends}};
    if (needs_recv) checks.push_back({{1, bench.b.recv_cq}, &recvs});
    collect(bench, checks, deadline);
    expect_rts(bench);
    layout.check_memory();
  });
  if (!wire.topology.empty()) {
    // PFC on: the fabric is lossless, no switch and no NIC drops a frame.
    Testbed& testbed = bench.testbed();
    ASSERT_TRUE(testbed.switched());
    for (std::size_t s = 0; s < testbed.switch_count(); ++s)
      EXPECT_EQ(testbed.switch_at(s).dropped(), 0u) << testbed.switch_at(s).name();
    for (std::size_t node = 0; node < 2; ++node)
      EXPECT_EQ(testbed.port_of(node).rx.stats().dropped, 0u);
  }
  if (wire.lossy) {
    for (std::size_t node = 0; node < 2; ++node)
      retransmissions()[wire.name] +=
          bench.testbed().node(node).nic.transport.stats().retransmitted_packets;
  }
}

class RcIntegrity : public ::testing::TestWithParam<IntegrityPoint> {};

TEST_P(RcIntegrity, EveryByteAndEveryCompletion) { run_point(GetParam()); }

// The same points over faulty wires (faults.* in both directions): still
// every byte, every completion exactly once with IBV_WC_SUCCESS, every atomic
// executed once (the remote word's final value), both QPs still in RTS.
class RcIntegrityLossy : public ::testing::TestWithParam<IntegrityPoint> {};
TEST_P(RcIntegrityLossy, EveryByteAndEveryCompletion) { run_point(GetParam(), kLossyWire); }

class RcIntegrityChaotic : public ::testing::TestWithParam<IntegrityPoint> {};
TEST_P(RcIntegrityChaotic, EveryByteAndEveryCompletion) { run_point(GetParam(), kChaoticWire); }

class RcIntegrityStar : public ::testing::TestWithParam<IntegrityPoint> {};
TEST_P(RcIntegrityStar, EveryByteAndEveryCompletion) { run_point(GetParam(), kStar); }

class RcIntegrityLeafSpine : public ::testing::TestWithParam<IntegrityPoint> {};
TEST_P(RcIntegrityLeafSpine, EveryByteAndEveryCompletion) { run_point(GetParam(), kLeafSpine); }

// The faulty wires did lose packets: a point of 64 QPs of 64 KiB WRITEs
// (some 3,000 packets each way) retransmits. Seeded, so this is exact; were
// the seed to change, no loss among 3,000 packets at 1% has a chance of e^-30.
TEST(RcIntegrityFaults, TheLossyWireMakesTheRequesterRetransmit) {
  run_point({Verb::kWrite, testing::SizeClass::k65537, 1024, 64}, kLossyWire);
  EXPECT_GT(retransmissions()[kLossyWire.name], 0u);
}

TEST(RcIntegrityFaults, TheChaoticWireMakesTheRequesterRetransmit) {
  run_point({Verb::kWrite, testing::SizeClass::k65537, 1024, 64}, kChaoticWire);
  EXPECT_GT(retransmissions()[kChaoticWire.name], 0u);
}

std::string name_of(const ::testing::TestParamInfo<IntegrityPoint>& info) {
  return testing::point_name(info.param);
}

// The default run: every pair of parameter values at least once.
INSTANTIATE_TEST_SUITE_P(Pairwise, RcIntegrity, ::testing::ValuesIn(testing::pairwise()), name_of);
INSTANTIATE_TEST_SUITE_P(Pairwise, RcIntegrityLossy, ::testing::ValuesIn(testing::pairwise()),
                         name_of);
INSTANTIATE_TEST_SUITE_P(Pairwise, RcIntegrityChaotic, ::testing::ValuesIn(testing::pairwise()),
                         name_of);
INSTANTIATE_TEST_SUITE_P(Pairwise, RcIntegrityStar, ::testing::ValuesIn(testing::pairwise()),
                         name_of);
INSTANTIATE_TEST_SUITE_P(Pairwise, RcIntegrityLeafSpine, ::testing::ValuesIn(testing::pairwise()),
                         name_of);
// Every point: ctest label "long", which scripts/test and CI leave out
// (ctest -L long runs them).
INSTANTIATE_TEST_SUITE_P(Full, RcIntegrity, ::testing::ValuesIn(testing::full_product()), name_of);

TEST(RcIntegrityPoints, ThePairwiseSetCoversEveryPairOfTheFullProduct) {
  const std::vector<IntegrityPoint> all = testing::full_product();
  EXPECT_EQ(all.size(), 5u * 11 * 5 * 2 + 2u * 1 * 5 * 2);
  std::set<std::tuple<int, int, int>> needed, covered;
  for (const IntegrityPoint& p : all) {
    const auto pairs = testing::pairs_of(p);
    needed.insert(pairs.begin(), pairs.end());
  }
  std::set<std::string> names;
  for (const IntegrityPoint& p : testing::pairwise()) {
    EXPECT_TRUE(testing::valid(p.verb, p.size)) << testing::point_name(p);
    EXPECT_TRUE(names.insert(testing::point_name(p)).second) << testing::point_name(p) << " twice";
    const auto pairs = testing::pairs_of(p);
    covered.insert(pairs.begin(), pairs.end());
  }
  EXPECT_EQ(covered, needed);
  EXPECT_LT(names.size(), all.size() / 5);
}

// Error cases: the failed operation changes nothing it should not.

ibv_send_wr write_request(std::uint64_t wr_id, const ibv_sge* sge, std::uint64_t remote_addr,
                          std::uint32_t rkey) {
  ibv_send_wr wr;
  wr.wr_id = wr_id;
  wr.opcode = IBV_WR_RDMA_WRITE;
  wr.sg_list = sge;
  wr.num_sge = 1;
  wr.send_flags = IBV_SEND_SIGNALED;
  wr.rdma.remote_addr = remote_addr;
  wr.rdma.rkey = rkey;
  return wr;
}

Expected completion(const ibv_qp* qp, std::size_t index, ibv_wc_status status,
                    ibv_wc_opcode opcode) {
  Expected e;
  e.qp = index;
  e.qp_num = qp->qp_num;
  e.status = status;
  e.opcode = opcode;
  return e;
}

// A WRITE whose R_Key names no region changes no byte anywhere, its target
// region included, while a WRITE on another QP lands whole meanwhile.
TEST(RcIntegrityErrors, AWriteWithABadRkeyChangesNoByteOfEitherHost) {
  RcBench bench(testbed_config());
  bench.run([&] {
    RcOptions options;
    options.qps = 2;
    bench.connect(options);
    IntegrityBench layout(bench);
    Region& source = layout.region(0, "source", 5, 3000);
    source.before.push_back(Piece{5, 3000, 77, 0, {}});
    Region& target = layout.region(1, "target of the bad R_Key", 9, 3000);
    target.may_change = false;
    Region& good = layout.region(1, "target of the good WRITE", 9, 3000);
    good.after.push_back(Piece{9, 3000, 77, 0, {}});
    layout.fill();
    layout.snapshot();
    const ibv_sge sge{source.mr_va(), 3000, source.mr->lkey};
    // Another MPT index: no such region.
    const ibv_send_wr bad = write_request(1, &sge, target.mr_va(), target.mr->rkey ^ 0x100);
    const ibv_send_wr fine = write_request(2, &sge, good.mr_va(), good.mr->rkey);
    ASSERT_EQ(bench.driver(0).ibv_post_send(bench.a.qps[0], &bad, nullptr), 0);
    ASSERT_EQ(bench.driver(0).ibv_post_send(bench.a.qps[1], &fine, nullptr), 0);
    CompletionCheck sends("node a's send CQ", 2);
    sends.expect(1, completion(bench.a.qps[0], 0, IBV_WC_REM_ACCESS_ERR, IBV_WC_RDMA_WRITE));
    sends.expect(2, completion(bench.a.qps[1], 1, IBV_WC_SUCCESS, IBV_WC_RDMA_WRITE));
    collect(bench, {{{0, bench.a.send_cq}, &sends}},
            sc_core::sc_time_stamp() + sc_core::sc_time(1, sc_core::SC_MS));
    layout.check_memory();
  });
}

// WRITEs that run past their region (one byte past its end from its start,
// from inside it across its end, from one byte before its start) are refused
// whole: no byte of the region nor of any other memory changes, not even
// where the packets that would have fitted go.
TEST(RcIntegrityErrors, WritesPastTheRegionChangeNoByteOfEitherHost) {
  RcBench bench(testbed_config());
  bench.run([&] {
    RcOptions options;
    options.qps = 3;
    options.mtu = IBV_MTU_1024;
    bench.connect(options);
    IntegrityBench layout(bench);
    Region& source = layout.region(0, "source", 0, 8192);
    source.before.push_back(Piece{0, 8192, 78, 0, {}});
    Region& target = layout.region(1, "target", 100, 4000);
    target.may_change = false;
    layout.fill();
    layout.snapshot();
    struct Case {
      std::uint64_t remote_addr;
      std::uint32_t length;
    };
    const Case cases[3] = {{target.mr_va(), 4001},         // 4 packets
                           {target.mr_va() + 3000, 1025},  // 2 packets
                           {target.mr_va() - 1, 2048}};    // 2 packets
    CompletionCheck sends("node a's send CQ", 3);
    std::vector<ibv_sge> sges(3);
    for (std::size_t q = 0; q < 3; ++q) {
      sges[q] = ibv_sge{source.mr_va(), cases[q].length, source.mr->lkey};
      const ibv_send_wr wr = write_request(10 + q, &sges[q], cases[q].remote_addr, target.mr->rkey);
      ASSERT_EQ(bench.driver(0).ibv_post_send(bench.a.qps[q], &wr, nullptr), 0);
      sends.expect(wr.wr_id,
                   completion(bench.a.qps[q], q, IBV_WC_REM_ACCESS_ERR, IBV_WC_RDMA_WRITE));
    }
    collect(bench, {{{0, bench.a.send_cq}, &sends}},
            sc_core::sc_time_stamp() + sc_core::sc_time(1, sc_core::SC_MS));
    layout.check_memory();
  });
}

// A SEND longer than its receive buffer (two SGEs with a gap, in an MR that
// goes on past them) fails at its third packet. The packets before may have
// landed in the receive buffer, which the IB spec leaves undefined; nothing
// else may change: not the gap, not the MR's bytes past the buffer, not any
// other byte of either host.
TEST(RcIntegrityErrors, ASendLongerThanItsReceiveChangesNothingOutsideTheReceiveBuffer) {
  RcBench bench(testbed_config());
  bench.run([&] {
    RcOptions options;
    options.mtu = IBV_MTU_1024;
    bench.connect(options);
    IntegrityBench layout(bench);
    Region& source = layout.region(0, "source", 0, 3000);
    source.before.push_back(Piece{0, 3000, 79, 0, {}});
    Region& target = layout.region(1, "receive region", 0, 4096);
    target.may_change = false;
    target.checked = false;  // below: its receive buffer may hold either
    layout.fill();
    const ibv_sge recv_sges[2] = {{target.mr_va(), 1500, target.mr->lkey},
                                  {target.mr_va() + 1507, 1000, target.mr->lkey}};
    layout.snapshot(
        {{1, recv_sges[0].addr, recv_sges[0].length}, {1, recv_sges[1].addr, recv_sges[1].length}});
    ibv_recv_wr recv;
    recv.wr_id = 5;
    recv.sg_list = recv_sges;
    recv.num_sge = 2;
    ASSERT_EQ(bench.driver(1).ibv_post_recv(bench.b.qps[0], &recv, nullptr), 0);
    const ibv_sge sge{source.mr_va(), 3000, source.mr->lkey};
    ibv_send_wr send = write_request(6, &sge, 0, 0);
    send.opcode = IBV_WR_SEND;
    ASSERT_EQ(bench.driver(0).ibv_post_send(bench.a.qps[0], &send, nullptr), 0);
    CompletionCheck sends("node a's send CQ", 1), recvs("node b's receive CQ", 1);
    sends.expect(6, completion(bench.a.qps[0], 0, IBV_WC_REM_INV_REQ_ERR, IBV_WC_SEND));
    recvs.expect(5, completion(bench.b.qps[0], 0, IBV_WC_LOC_LEN_ERR, IBV_WC_RECV));
    collect(bench, {{{0, bench.a.send_cq}, &sends}, {{1, bench.b.recv_cq}, &recvs}},
            sc_core::sc_time_stamp() + sc_core::sc_time(1, sc_core::SC_MS));
    // Each byte of the receive buffer holds its canary or the message's byte.
    std::vector<std::uint8_t> got(target.span);
    bench.testbed().node(1).software().process.read(bench.memory(1), target.va, got.data(),
                                                    got.size());
    std::vector<std::uint8_t> canary(target.span);
    target.image(0, target.span, false, canary.data());
    std::vector<std::uint8_t> sent(3000);
    stream_bytes(79, 0, sent.data(), sent.size());
    std::uint64_t wrong = 0;
    for (std::uint64_t i = 0; i < 2507; ++i) {
      const bool in_first = i < 1500, in_second = i >= 1507;
      const std::uint64_t message_byte = in_first ? i : i - 7;
      if (got[i] != canary[i] && !((in_first || in_second) && got[i] == sent[message_byte]))
        ++wrong;
    }
    EXPECT_EQ(wrong, 0u) << "bytes of the receive buffer hold neither canary nor message";
    layout.check_memory();
  });
}

}  // namespace
}  // namespace rnicsim
