// The RTL translation cache (rtl/translation_cache) against its model twin,
// TranslationCache<std::uint64_t> with LRU replacement
// (model/nic/translation/translation_cache.hpp). The RTL takes lookups, fills and
// invalidates on three streams, one per cycle in a fixed priority; the
// scoreboard replays the operations in the order the RTL took them into the
// model and compares every lookup response (hit, value) and every miss the
// RTL sends its walker, every probe (the model's peek) taken between
// operations, and the hit and miss counts.
//
// RNICSIM_COSIM_MODE (cosim/mode.hpp) picks the sides: "model" runs the
// stimulus generator with the model alone in the RTL's place (ModelCache;
// the operations then follow the model's answers, so they are not the RTL
// run's), "rtl" the RTL alone (TranslationCacheRtl, coverage from its own answers),
// "cross" (the default) both, compared by the Scoreboard. The directed tests hold each side that
// runs to values worked out by hand.
//
// Stimulus: seeded random lookups, fills and invalidates over four times as
// many indices as the cache has lines (a hot quarter looked up more often),
// a walker answering each miss with a fill after a random delay, random
// stalls on every stream; corners by hand; the cycle timing without stalls;
// and a test-only fault the scoreboard must catch.
//
// RNICSIM_COSIM_VCD=<folder> writes a VCD per test into that folder.
#include <gtest/gtest.h>
#include <verilated.h>
#include <verilated_vcd_c.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <deque>
#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <random>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "Vmtt_cache_nic.h"
#include "Vtranslation_cache.h"
#include "Vtranslation_cache_direct.h"
#include "Vtranslation_cache_fault.h"
#include "Vtranslation_cache_one_set.h"
#include "cosim/mode.hpp"
#include "cosim/stalls.hpp"
#include "cosim/test_vcd.hpp"
#include "nic/translation/translation_cache.hpp"

namespace rnicsim::cosim {
namespace {

// The geometries rtl/CMakeLists.txt verilates.
constexpr CacheGeometry kFourWay{
    64, 4, Replacement::kLru};  // Vtranslation_cache, Vtranslation_cache_fault
constexpr CacheGeometry kDirect{16, 1, Replacement::kLru};  // Vtranslation_cache_direct
constexpr CacheGeometry kOneSet{8, 8, Replacement::kLru};   // Vtranslation_cache_one_set
constexpr CacheGeometry kNic{4096, 8, Replacement::kLru};   // Vmtt_cache_nic
constexpr std::uint64_t kIndexMask = 0xFFFFFFFF;            // INDEX_BITS = 32

enum class Kind { kLookup, kFill, kInvalidate };

struct Op {
  Kind kind = Kind::kLookup;
  std::uint64_t index = 0;
  std::uint64_t value = 0;  // fills only
};

Op lookup(std::uint64_t index) { return {Kind::kLookup, index, 0}; }
Op fill(std::uint64_t index, std::uint64_t value) { return {Kind::kFill, index, value}; }
Op invalidate(std::uint64_t index) { return {Kind::kInvalidate, index, 0}; }

// A lookup's answer as the RTL's response port gives it: value 0 on a miss.
struct Response {
  bool hit = false;
  std::uint64_t value = 0;
  bool operator==(const Response& o) const { return hit == o.hit && value == o.value; }
};

Response hit(std::uint64_t value) { return {true, value}; }
constexpr Response kMiss{false, 0};

std::string describe(const Op& op) {
  std::ostringstream out;
  switch (op.kind) {
    case Kind::kLookup:
      out << "lookup ";
      break;
    case Kind::kFill:
      out << "fill ";
      break;
    case Kind::kInvalidate:
      out << "invalidate ";
      break;
  }
  out << op.index;
  if (op.kind == Kind::kFill) out << " = 0x" << std::hex << op.value;
  return out.str();
}

std::string describe(const Response& r) {
  if (!r.hit) return r.value == 0 ? "miss" : "miss with a value";
  std::ostringstream out;
  out << "hit 0x" << std::hex << r.value;
  return out.str();
}

void PrintTo(const Response& r, std::ostream* out) { *out << describe(r); }

// ---------------------------------------------------------------------------
// Model only: the operations, in order, through TranslationCache.

struct ModelRun {
  std::vector<Response> responses;    // one per lookup
  std::vector<Response> peeks;        // one per probe
  std::vector<std::uint64_t> misses;  // the index of each lookup that missed
  std::uint64_t hits = 0;             // the model's own counts
  std::uint64_t miss_count = 0;
  // What the operations exercised, for the tests to show their reach.
  std::size_t evictions = 0;  // a fill that pushed out a valid entry
  std::size_t refills = 0;    // a fill of a present entry
  std::size_t invalidated_present = 0;
  std::size_t invalidated_absent = 0;
  // The evictions by the way they happened in: each way must see some.
  std::vector<std::size_t> evictions_by_way;
};

// A look at one index between operations, the RTL's probe port: after the
// first `taken_before` operations.
struct Probe {
  std::size_t taken_before = 0;
  std::uint64_t index = 0;
};

ModelRun replay(const std::vector<Op>& ops, const CacheGeometry& geometry,
                const std::vector<Probe>& probes = {}) {
  TranslationCache<std::uint64_t> cache(geometry, 0);
  const std::uint64_t sets = geometry.entries / geometry.ways;
  // The index each line holds, empty while invalid, mirrored from outside
  // the model: way w of set s is line s x ways + w, as the model lays them out.
  std::vector<std::optional<std::uint64_t>> lines(geometry.entries);
  const auto set_of = [&](std::uint64_t index) { return &lines[(index % sets) * geometry.ways]; };
  ModelRun run;
  run.evictions_by_way.assign(geometry.ways, 0);
  std::size_t next_probe = 0;
  const auto peek_until = [&](std::size_t taken) {
    for (; next_probe < probes.size() && probes[next_probe].taken_before <= taken; ++next_probe) {
      const std::optional<std::uint64_t> value = cache.peek(probes[next_probe].index);
      run.peeks.push_back(value ? hit(*value) : kMiss);
    }
  };
  for (std::size_t i = 0; i < ops.size(); ++i) {
    peek_until(i);
    const Op& op = ops[i];
    switch (op.kind) {
      case Kind::kLookup: {
        const std::optional<std::uint64_t> value = cache.lookup(op.index);
        run.responses.push_back(value ? hit(*value) : kMiss);
        if (!value) run.misses.push_back(op.index);
        break;
      }
      case Kind::kFill: {
        const bool present = cache.peek(op.index).has_value();
        cache.insert(op.index, op.value);
        if (present) {
          ++run.refills;
          break;
        }
        // The way it took: the first invalid one, else the one whose entry
        // the model pushed out.
        std::optional<std::uint64_t>* set = set_of(op.index);
        std::uint32_t way = 0;
        while (way < geometry.ways && set[way]) ++way;
        if (way == geometry.ways) {
          way = 0;
          while (way < geometry.ways && cache.peek(*set[way])) ++way;
          if (way == geometry.ways) throw std::logic_error("the replay lost the model's ways");
          ++run.evictions;
          ++run.evictions_by_way[way];
        }
        set[way] = op.index;
        break;
      }
      case Kind::kInvalidate:
        if (cache.peek(op.index)) {
          ++run.invalidated_present;
          std::optional<std::uint64_t>* set = set_of(op.index);
          for (std::uint32_t w = 0; w < geometry.ways; ++w) {
            if (set[w] == op.index) set[w].reset();
          }
        } else {
          ++run.invalidated_absent;
        }
        cache.invalidate(op.index);
        break;
    }
  }
  peek_until(ops.size());
  run.hits = cache.hits();
  run.miss_count = cache.misses();
  return run;
}

// ---------------------------------------------------------------------------
// RTL only: a verilated translation_cache driven cycle by cycle.

struct Taken {
  Op op;
  std::uint64_t cycle = 0;
};

struct RtlResponse {
  Response response;
  std::uint64_t cycle = 0;  // the cycle of its handshake
};

struct RtlMiss {
  std::uint64_t index = 0;
  std::uint64_t cycle = 0;
};

struct ProbeAnswer {
  Probe probe;
  Response response;
};

// What the cache did, cycles counted from the first cycle after reset.
struct CacheRun {
  std::vector<Taken> taken;  // operations in the order the cache took them
  std::vector<RtlResponse> responses;
  std::vector<RtlMiss> misses;
  std::vector<ProbeAnswer> probes;  // one per cycle, between operations
};

// Each request stream is a queue its source offers from: once an operation
// is offered it stays offered until taken (valid/ready), and between
// operations the source idles with probability stalls.source_idle. Each
// result stream's sink refuses with probability stalls.sink_busy; the miss
// sink (the walker) can also be held refusing.
template <typename Top>
class TranslationCacheRtl {
 public:
  TranslationCacheRtl(std::uint64_t seed, Stalls stalls) : rng_(seed), stalls_(stalls) {
    vcd_ = open_test_vcd(top_);
    reset();
  }
  ~TranslationCacheRtl() {
    if (vcd_) vcd_->close();
    top_.final();
  }
  TranslationCacheRtl(const TranslationCacheRtl&) = delete;
  TranslationCacheRtl& operator=(const TranslationCacheRtl&) = delete;

  void push(const Op& op) { stream(op.kind).queue.push_back(op); }

  // One cycle: inputs set and settled at clock low, handshakes read, edge.
  void cycle() {
    for (Stream* s : {&lookups_, &fills_, &invalidates_}) {
      if (!s->offered && !s->queue.empty() && !chance(rng_, stalls_.source_idle)) {
        s->offered = true;
      }
    }
    // Idle streams carry random data, which the RTL must not take.
    const Op l = offer(lookups_), f = offer(fills_), v = offer(invalidates_);
    top_.s_lookup_valid_i = lookups_.offered;
    top_.s_lookup_index_i = static_cast<std::uint32_t>(l.index);
    top_.s_fill_valid_i = fills_.offered;
    top_.s_fill_index_i = static_cast<std::uint32_t>(f.index);
    top_.s_fill_value_i = f.value;
    top_.s_invalidate_valid_i = invalidates_.offered;
    top_.s_invalidate_index_i = static_cast<std::uint32_t>(v.index);
    top_.m_lookup_ready_i = !chance(rng_, stalls_.sink_busy);
    top_.m_miss_ready_i = !hold_misses && !chance(rng_, stalls_.sink_busy);
    // The probe looks at an index some operation used, so that it often hits.
    const Probe probe{run_.taken.size(), probe_index ? *probe_index
                                         : run_.taken.empty()
                                             ? rng_() & kIndexMask
                                             : run_.taken[rng_() % run_.taken.size()].op.index};
    top_.probe_index_i = static_cast<std::uint32_t>(probe.index);
    top_.clk_i = 0;
    top_.eval();
    dump();
    run_.probes.push_back({probe, {top_.probe_hit_o != 0, top_.probe_value_o}});

    int taken_now = 0;
    if (take(invalidates_, top_.s_invalidate_ready_o)) ++taken_now;
    if (take(fills_, top_.s_fill_ready_o)) ++taken_now;
    if (take(lookups_, top_.s_lookup_ready_o)) ++taken_now;
    if (taken_now > 1) {
      ADD_FAILURE() << taken_now << " operations taken in cycle " << cycle_
                    << ": their order is not defined";
    }
    if (top_.m_lookup_valid_o && top_.m_lookup_ready_i) {
      run_.responses.push_back({{top_.m_lookup_hit_o != 0, top_.m_lookup_value_o}, cycle_});
    }
    if (top_.m_miss_valid_o && top_.m_miss_ready_i) {
      run_.misses.push_back({top_.m_miss_index_o, cycle_});
    }
    top_.clk_i = 1;
    top_.eval();
    ++time_;
    dump();
    ++time_;
    ++cycle_;
  }

  bool queued() const {
    return !lookups_.queue.empty() || !fills_.queue.empty() || !invalidates_.queue.empty();
  }
  // No operation queued and every response handed over (a held miss may wait).
  bool settled() const { return !queued() && !top_.m_lookup_valid_o; }
  bool miss_pending() const { return top_.m_miss_valid_o != 0; }

  // Cycles until settled (and the misses gone, unless held); false if the
  // RTL stops moving within the budget.
  bool settle(std::uint64_t budget = 10000) {
    for (std::uint64_t i = 0; i < budget; ++i) {
      if (settled() && (hold_misses || !miss_pending())) return true;
      cycle();
    }
    ADD_FAILURE() << "the RTL stopped: still busy after " << budget << " cycles";
    return false;
  }

  // One operation alone, waited out: a script in exactly its order.
  void apply(const Op& op) {
    push(op);
    settle();
  }

  const CacheRun& run() const { return run_; }
  std::uint64_t now() const { return cycle_; }

  bool hold_misses = false;  // the walker refuses every miss
  // The index every cycle probes; unset, an index some operation used.
  std::optional<std::uint64_t> probe_index;

 private:
  struct Stream {
    std::deque<Op> queue;
    bool offered = false;
  };

  Stream& stream(Kind kind) {
    return kind == Kind::kLookup ? lookups_ : kind == Kind::kFill ? fills_ : invalidates_;
  }

  Op offer(const Stream& s) {
    if (s.offered) return s.queue.front();
    return {Kind::kLookup, rng_() & kIndexMask, rng_()};
  }

  bool take(Stream& s, std::uint8_t ready) {
    if (!s.offered || !ready) return false;
    run_.taken.push_back({s.queue.front(), cycle_});
    s.queue.pop_front();
    s.offered = false;
    return true;
  }

  void reset() {
    top_.rst_ni = 0;
    top_.s_lookup_valid_i = 0;
    top_.s_fill_valid_i = 0;
    top_.s_invalidate_valid_i = 0;
    top_.m_lookup_ready_i = 0;
    top_.m_miss_ready_i = 0;
    top_.probe_index_i = 0;
    for (int i = 0; i < 2; ++i) {
      top_.clk_i = 0;
      top_.eval();
      dump();
      ++time_;
      top_.clk_i = 1;
      top_.eval();
      dump();
      ++time_;
    }
    top_.rst_ni = 1;
  }

  void dump() {
    if (vcd_) vcd_->dump(time_);
  }

  Top top_;
  std::mt19937_64 rng_;
  Stalls stalls_;
  Stream lookups_, fills_, invalidates_;
  CacheRun run_;
  std::unique_ptr<VerilatedVcdC> vcd_;
  std::uint64_t cycle_ = 0;
  std::uint64_t time_ = 0;  // VCD time: two steps per cycle
};

// ---------------------------------------------------------------------------
// Model only: the stimulus drives TranslationCache in place of the RTL. One
// operation a cycle, invalidate before fill before lookup as the RTL takes
// them, answered at once and never stalled: the model has no cycle timing
// of its own (rtl/translation_cache/README.md), so these cycles only pace the
// stimulus. No probes: the scoreboard's replay peeks where the RTL probes.

class ModelCache {
 public:
  explicit ModelCache(const CacheGeometry& geometry) : cache_(geometry, 0) {}

  void push(const Op& op) { queue(op.kind).push_back(op); }
  void cycle() {
    for (std::deque<Op>* q : {&invalidates_, &fills_, &lookups_}) {
      if (q->empty()) continue;
      apply(q->front());
      q->pop_front();
      break;
    }
    ++cycle_;
  }
  bool queued() const { return !lookups_.empty() || !fills_.empty() || !invalidates_.empty(); }
  bool settled() const { return !queued(); }
  bool miss_pending() const { return false; }
  const CacheRun& run() const { return run_; }
  std::uint64_t now() const { return cycle_; }

 private:
  std::deque<Op>& queue(Kind kind) {
    return kind == Kind::kLookup ? lookups_ : kind == Kind::kFill ? fills_ : invalidates_;
  }
  void apply(const Op& op) {
    run_.taken.push_back({op, cycle_});
    if (op.kind == Kind::kFill) return cache_.insert(op.index, op.value);
    if (op.kind == Kind::kInvalidate) return cache_.invalidate(op.index);
    const std::optional<std::uint64_t> value = cache_.lookup(op.index);
    run_.responses.push_back({value ? hit(*value) : kMiss, cycle_ + 1});
    if (!value) run_.misses.push_back({op.index, cycle_ + 1});
  }

  TranslationCache<std::uint64_t> cache_;
  std::deque<Op> lookups_, fills_, invalidates_;
  CacheRun run_;
  std::uint64_t cycle_ = 0;
};

// ---------------------------------------------------------------------------
// Cross-check: the RTL's operations, in its order, through the model.

struct Scoreboard {
  ModelRun model;
  std::size_t lookups = 0;
  std::uint64_t rtl_hits = 0;
  std::uint64_t rtl_misses = 0;
  std::uint64_t probe_hits = 0;
  std::vector<std::string> mismatches;

  Scoreboard(const CacheRun& rtl, const CacheGeometry& geometry) {
    std::vector<Op> ops;
    std::vector<std::size_t> lookup_at;  // position in ops of each lookup
    for (const Taken& t : rtl.taken) {
      if (t.op.kind == Kind::kLookup) lookup_at.push_back(ops.size());
      ops.push_back(t.op);
    }
    std::vector<Probe> probes;
    for (const ProbeAnswer& p : rtl.probes) probes.push_back(p.probe);
    model = replay(ops, geometry, probes);
    lookups = model.responses.size();
    for (std::size_t i = 0; i < rtl.probes.size(); ++i) {
      const ProbeAnswer& p = rtl.probes[i];
      if (p.response.hit) ++probe_hits;
      if (p.response == model.peeks[i]) continue;
      mismatches.push_back("probe " + std::to_string(i) + " (index " +
                           std::to_string(p.probe.index) + " after " +
                           std::to_string(p.probe.taken_before) + " operations): model " +
                           describe(model.peeks[i]) + ", RTL " + describe(p.response));
    }
    for (std::size_t i = 0; i < std::max(lookups, rtl.responses.size()); ++i) {
      if (i < rtl.responses.size()) (rtl.responses[i].response.hit ? rtl_hits : rtl_misses) += 1;
      const bool both = i < lookups && i < rtl.responses.size();
      if (both && rtl.responses[i].response == model.responses[i]) continue;
      std::ostringstream out;
      out << "lookup " << i;
      if (i < lookups) {
        out << " (" << describe(ops[lookup_at[i]]) << ", operation " << lookup_at[i] << "): model "
            << describe(model.responses[i]);
      }
      out << ", RTL " << (i < rtl.responses.size() ? describe(rtl.responses[i].response) : "none");
      mismatches.push_back(out.str());
    }
    for (std::size_t i = 0; i < std::max(model.misses.size(), rtl.misses.size()); ++i) {
      const bool both = i < model.misses.size() && i < rtl.misses.size();
      if (both && rtl.misses[i].index == model.misses[i]) continue;
      std::ostringstream out;
      out << "miss " << i << ": model "
          << (i < model.misses.size() ? std::to_string(model.misses[i]) : "none") << ", RTL "
          << (i < rtl.misses.size() ? std::to_string(rtl.misses[i].index) : "none");
      mismatches.push_back(out.str());
    }
    if (rtl_hits != model.hits || rtl_misses != model.miss_count) {
      mismatches.push_back("counts: model " + std::to_string(model.hits) + " hits " +
                           std::to_string(model.miss_count) + " misses, RTL " +
                           std::to_string(rtl_hits) + " hits " + std::to_string(rtl_misses) +
                           " misses");
    }
  }

  std::string report() const {
    std::ostringstream out;
    out << mismatches.size() << " mismatches in " << lookups << " lookups";
    for (std::size_t i = 0; i < mismatches.size() && i < 10; ++i) out << "\n  " << mismatches[i];
    return out.str();
  }
};

// ---------------------------------------------------------------------------
// Random traffic: lookups, spontaneous fills (as a walk's prefetched
// neighbours would be), invalidates, and a walker that answers each miss
// with a fill of the table's current value after a random delay. An
// invalidated index gets a new table value (the driver changed the entry).

struct Traffic {
  double lookup = 0.6;  // per cycle, when that stream's queue is empty
  double fill = 0.1;
  double invalidate = 0.08;
  int walker_delay_max = 20;
};

template <typename Cache>
CacheRun drive(Cache& dut, const CacheGeometry& geometry, std::size_t operations,
               std::mt19937_64& rng, const Traffic& traffic) {
  // Four times as many indices as lines: half small numbers, half anywhere
  // in the 32 bits, so that tags differ in their high bits too.
  std::vector<std::uint64_t> pool;
  for (std::uint32_t i = 0; i < 4 * geometry.entries; ++i) {
    pool.push_back(i % 2 == 0 ? i : rng() & kIndexMask);
  }
  const auto pick = [&] {
    // A hot quarter gets half the picks, so that hits and recency matter.
    return pool[rng() % 2 == 0 ? rng() % (pool.size() / 4) : rng() % pool.size()];
  };
  std::map<std::uint64_t, std::uint64_t> table;
  const auto table_value = [&](std::uint64_t index) {
    auto [it, added] = table.try_emplace(index, 0);
    if (added) it->second = rng();
    return it->second;
  };
  struct Walk {
    std::uint64_t due = 0;
    std::uint64_t index = 0;
  };
  std::deque<Walk> walks;
  std::size_t misses_seen = 0;
  std::size_t pushed = 0;
  for (std::uint64_t guard = 0; guard < 100 * operations; ++guard) {
    const CacheRun& run = dut.run();
    for (; misses_seen < run.misses.size(); ++misses_seen) {
      const int delay = static_cast<int>(rng() % (traffic.walker_delay_max + 1));
      walks.push_back({dut.now() + delay, run.misses[misses_seen].index});
    }
    std::sort(walks.begin(), walks.end(),
              [](const Walk& a, const Walk& b) { return a.due < b.due; });
    while (!walks.empty() && walks.front().due <= dut.now()) {
      dut.push(fill(walks.front().index, table_value(walks.front().index)));
      walks.pop_front();
    }
    if (pushed < operations && !dut.queued()) {
      if (chance(rng, traffic.lookup)) {
        dut.push(lookup(pick()));
        ++pushed;
      }
      if (chance(rng, traffic.fill)) {
        const std::uint64_t index = pick();
        dut.push(fill(index, table_value(index)));
        ++pushed;
      }
      if (chance(rng, traffic.invalidate)) {
        const std::uint64_t index = pick();
        table[index] = rng();
        dut.push(invalidate(index));
        ++pushed;
      }
    }
    if (pushed >= operations && walks.empty() && dut.settled() && !dut.miss_pending() &&
        misses_seen == run.misses.size()) {
      return run;
    }
    dut.cycle();
  }
  ADD_FAILURE() << "the random run did not finish";
  return dut.run();
}

// The random traffic through the RTL (top `Top`, under `stalls`), or with
// RNICSIM_COSIM_MODE=model the same generator and seed driving the model alone.
template <typename Top>
CacheRun random_run(const CacheGeometry& geometry, std::size_t operations, std::uint64_t seed,
                    Stalls stalls, const Traffic& traffic = {}) {
  std::mt19937_64 rng(seed);
  const std::uint64_t rtl_seed = rng();
  if (runs_rtl(cosim_mode())) {
    TranslationCacheRtl<Top> rtl(rtl_seed, stalls);
    return drive(rtl, geometry, operations, rng, traffic);
  }
  ModelCache model(geometry);
  return drive(model, geometry, operations, rng, traffic);
}

// A random run judged by the sides that ran: both, by the scoreboard; the
// model alone, by its replay's counts (its answers are the replay's); the
// RTL alone, by the hits and misses it answered (evictions and the like are
// the model's to count).
struct Verdict {
  std::uint64_t hits = 0;
  std::uint64_t misses = 0;
  std::optional<ModelRun> model;
  std::vector<std::string> mismatches;
  std::string report;
};

Verdict judge(const CacheRun& run, const CacheGeometry& geometry) {
  Verdict verdict;
  if (!runs_model(cosim_mode())) {
    for (const RtlResponse& r : run.responses)
      (r.response.hit ? verdict.hits : verdict.misses) += 1;
    return verdict;
  }
  const Scoreboard board(run, geometry);
  verdict.hits = board.model.hits;
  verdict.misses = board.model.miss_count;
  verdict.model = board.model;
  verdict.mismatches = board.mismatches;
  verdict.report = board.report();
  return verdict;
}

// A full set's victim can be any of its ways, and the run must have evicted
// from each (the LRU order, not one fixed way, picks it).
void expect_evictions_in_every_way(const ModelRun& run) {
  for (std::size_t w = 0; w < run.evictions_by_way.size(); ++w) {
    EXPECT_GT(run.evictions_by_way[w], 0u) << "no eviction from way " << w;
  }
}

// ---------------------------------------------------------------------------

TEST(TranslationCacheCosim, RandomOperationsUnderRandomStallsAgreeWithTheModel) {
  const CacheRun run = random_run<Vtranslation_cache>(kFourWay, 10000, 0x3C0FFEE, Stalls{0.3, 0.3});
  const Verdict verdict = judge(run, kFourWay);
  EXPECT_TRUE(verdict.mismatches.empty()) << verdict.report;
  // Every operation pushed and every walker fill, taken, and each lookup answered.
  EXPECT_GE(run.taken.size(), 10000u);
  EXPECT_EQ(run.responses.size(), verdict.hits + verdict.misses);
  // The stimulus reaches what it is meant to.
  EXPECT_GT(verdict.hits, 2000u);
  EXPECT_GT(verdict.misses, 2000u);
  if (verdict.model) {
    EXPECT_GT(verdict.model->evictions, 1000u);
    expect_evictions_in_every_way(*verdict.model);
    EXPECT_GT(verdict.model->refills, 300u);
    EXPECT_GT(verdict.model->invalidated_present, 100u);
    EXPECT_GT(verdict.model->invalidated_absent, 300u);
  }
  if (runs_rtl(cosim_mode())) {
    // A probe every cycle, between the operations, more than a quarter on a present entry.
    EXPECT_GT(run.probes.size(), run.taken.size());
    std::size_t present = 0;
    for (const ProbeAnswer& p : run.probes) present += p.response.hit ? 1 : 0;
    EXPECT_GT(present, run.probes.size() / 4);
  }
}

TEST(TranslationCacheCosim, DirectMappedAndOneSetCachesAgreeWithTheModel) {
  const CacheRun direct =
      random_run<Vtranslation_cache_direct>(kDirect, 4000, 0xD1, Stalls{0.3, 0.3});
  const Verdict direct_verdict = judge(direct, kDirect);
  EXPECT_TRUE(direct_verdict.mismatches.empty()) << direct_verdict.report;
  if (direct_verdict.model) {
    EXPECT_GT(direct_verdict.model->evictions, 300u);
    expect_evictions_in_every_way(*direct_verdict.model);
  }

  const CacheRun one_set =
      random_run<Vtranslation_cache_one_set>(kOneSet, 4000, 0x5E7, Stalls{0.3, 0.3});
  const Verdict one_set_verdict = judge(one_set, kOneSet);
  EXPECT_TRUE(one_set_verdict.mismatches.empty()) << one_set_verdict.report;
  if (one_set_verdict.model) {
    EXPECT_GT(one_set_verdict.model->evictions, 300u);
    expect_evictions_in_every_way(*one_set_verdict.model);
  }
}

// The geometry the NIC swaps in (translation.mtt_cache_impl rtl): 512 sets of 8.
// More fills than lines, so that sets fill and evict.
TEST(TranslationCacheCosim, TheNicsGeometryAgreesWithTheModel) {
  const Traffic fill_heavy{0.6, 0.4, 0.05, 20};
  const CacheRun run =
      random_run<Vmtt_cache_nic>(kNic, 30000, 0x4096, Stalls{0.3, 0.3}, fill_heavy);
  const Verdict verdict = judge(run, kNic);
  EXPECT_TRUE(verdict.mismatches.empty()) << verdict.report;
  EXPECT_GT(verdict.hits, 3000u);
  EXPECT_GT(verdict.misses, 3000u);
  if (verdict.model) {
    EXPECT_GT(verdict.model->evictions, 1000u);
    expect_evictions_in_every_way(*verdict.model);
  }
}

// Stalls from none to most cycles, each side alone and both.
TEST(TranslationCacheCosim, AgreesWithTheModelAtEveryStallRate) {
  const Stalls rates[] = {{0, 0}, {0.8, 0}, {0, 0.8}, {0.6, 0.6}};
  std::uint64_t seed = 0x57A1;
  for (const Stalls& stalls : rates) {
    const CacheRun run = random_run<Vtranslation_cache>(kFourWay, 2000, seed++, stalls);
    const Verdict verdict = judge(run, kFourWay);
    EXPECT_TRUE(verdict.mismatches.empty())
        << "stalls " << stalls.source_idle << "/" << stalls.sink_busy << ": " << verdict.report;
    if (verdict.model) {
      EXPECT_GT(verdict.model->evictions, 100u);
    }
  }
}

// Directed scripts, one operation at a time: both sides against the values
// worked out by hand, then against each other.
template <typename Top>
void expect_script(const CacheGeometry& geometry, const std::vector<Op>& script,
                   const std::vector<Response>& expected) {
  const CosimMode mode = cosim_mode();
  if (runs_model(mode)) {
    std::vector<Response> model_responses = replay(script, geometry).responses;
    EXPECT_EQ(model_responses, expected) << "model";
  }
  if (!runs_rtl(mode)) return;

  TranslationCacheRtl<Top> rtl(7, Stalls{0.5, 0.5});
  for (const Op& op : script) rtl.apply(op);
  std::vector<Response> rtl_responses;
  for (const RtlResponse& r : rtl.run().responses) rtl_responses.push_back(r.response);
  EXPECT_EQ(rtl_responses, expected) << "RTL";

  if (mode != CosimMode::kCrossCheck) return;
  const Scoreboard board(rtl.run(), geometry);
  EXPECT_TRUE(board.mismatches.empty()) << board.report();
}

// Set 5 of the 4-way cache (16 sets): indices 5 + 16k.
constexpr std::uint64_t A = 5, B = 21, C = 37, D = 53, E = 69, F = 85;

TEST(TranslationCacheCosim, ConflictMissesEvictTheLeastRecentlyUsedWay) {
  expect_script<Vtranslation_cache>(
      kFourWay,
      {fill(A, 0xA), fill(B, 0xB), fill(C, 0xC), fill(D, 0xD),  // the set full
       lookup(A),                                               // order now B C D A
       fill(E, 0xE),                                            // evicts B: C D A E
       lookup(B), lookup(C),                                    // C D A E -> D A E C
       fill(F, 0xF),                                            // evicts D: A E C F
       lookup(D), lookup(A), lookup(E), lookup(C), lookup(F),
       fill(B, 0xB2),  // evicts A (used first above)
       lookup(A), lookup(B), lookup(E)},
      {hit(0xA), kMiss, hit(0xC), kMiss, hit(0xA), hit(0xE), hit(0xC), hit(0xF), kMiss, hit(0xB2),
       hit(0xE)});
}

TEST(TranslationCacheCosim, RefillUpdatesThePresentEntryAndMakesItMostRecent) {
  expect_script<Vtranslation_cache>(
      kFourWay,
      {fill(A, 0xA), fill(B, 0xB), fill(C, 0xC), fill(D, 0xD),
       fill(A, 0xA2),  // A present: new value, most recent, no eviction
       fill(E, 0xE),   // evicts B, the least recent now, not A
       lookup(A), lookup(B), lookup(C), lookup(D), lookup(E)},
      {hit(0xA2), kMiss, hit(0xC), hit(0xD), hit(0xE)});
}

TEST(TranslationCacheCosim, InvalidateDropsAPresentEntryAndIgnoresAnAbsentOne) {
  expect_script<Vtranslation_cache>(
      kFourWay,
      {fill(A, 0xA), fill(B, 0xB), fill(C, 0xC), fill(D, 0xD),
       invalidate(E),                               // absent, same set: nothing changes
       lookup(A), lookup(B), lookup(C), lookup(D),  // order A B C D
       invalidate(B),
       lookup(B),     // a miss
       fill(F, 0xF),  // takes B's way, the first invalid, not A's (the LRU)
       lookup(A), lookup(C), lookup(D), lookup(F), lookup(B)},
      {hit(0xA), hit(0xB), hit(0xC), hit(0xD), kMiss, hit(0xA), hit(0xC), hit(0xD), hit(0xF),
       kMiss});
}

TEST(TranslationCacheCosim, DirectMappedAndOneSetCornersAgreeWithTheModel) {
  // 16 sets of one way: 3 and 19 share a set.
  expect_script<Vtranslation_cache_direct>(
      kDirect,
      {fill(3, 0x3), fill(19, 0x19), lookup(3), lookup(19), fill(19, 0x1919), lookup(19),
       invalidate(19), lookup(19), fill(3, 0x33), lookup(3)},
      {kMiss, hit(0x19), hit(0x1919), kMiss, hit(0x33)});
  // One set of 8 ways: the ninth index evicts the least recently used of all.
  std::vector<Op> script;
  for (std::uint64_t i = 0; i < 8; ++i) script.push_back(fill(1000 + i * 0x10000001, i));
  script.push_back(lookup(1000));          // the first fill most recent, the second the LRU
  script.push_back(fill(0xFFFFFFFF, 99));  // evicts the second
  script.push_back(lookup(1000 + 0x10000001));
  script.push_back(lookup(0xFFFFFFFF));
  script.push_back(lookup(1000 + 2 * 0x10000001));
  expect_script<Vtranslation_cache_one_set>(kOneSet, script, {hit(0), kMiss, hit(99), hit(2)});
}

// A lookup misses; its index is invalidated before the walker's fill
// arrives. The cache is the model's TranslationCache: a fill is an insert,
// whenever it comes, so the entry is present afterwards (as insert after
// invalidate leaves it). Throwing away a walk an invalidation made stale is
// the walker's side (MemoryTranslation::complete skips insert for a stale
// walk); then the call sequence is lookup, invalidate, lookup: a second miss.
TEST(TranslationCacheCosim, InvalidateDuringAMissFollowsTheModelsCalls) {
  // The walker took the miss, then invalidate, then its fill.
  expect_script<Vtranslation_cache>(kFourWay, {lookup(A), invalidate(A), fill(A, 0xA1), lookup(A)},
                                    {kMiss, hit(0xA1)});
  // The walker dropped its stale fill: the next lookup misses again.
  expect_script<Vtranslation_cache>(kFourWay, {lookup(A), invalidate(A), lookup(A)},
                                    {kMiss, kMiss});

  // The miss still waiting for the walker while the invalidate and the fill
  // are taken: they do not wait for it, the next lookup does.
  if (!runs_rtl(cosim_mode())) return;  // the RTL's timing
  TranslationCacheRtl<Vtranslation_cache> rtl(11, Stalls{});
  rtl.hold_misses = true;
  rtl.apply(lookup(A));
  ASSERT_TRUE(rtl.miss_pending());
  rtl.apply(invalidate(A));
  rtl.apply(fill(A, 0xA1));
  EXPECT_EQ(rtl.run().taken.size(), 3u);
  rtl.push(lookup(A));
  for (int i = 0; i < 5; ++i) rtl.cycle();
  EXPECT_EQ(rtl.run().taken.size(), 3u) << "a lookup taken while its miss had no room";
  EXPECT_TRUE(rtl.run().misses.empty());
  rtl.hold_misses = false;
  const std::uint64_t released = rtl.now();
  rtl.settle();
  ASSERT_EQ(rtl.run().misses.size(), 1u);
  EXPECT_EQ(rtl.run().misses[0].index, A);
  EXPECT_EQ(rtl.run().misses[0].cycle, released);
  ASSERT_EQ(rtl.run().taken.size(), 4u);
  EXPECT_EQ(rtl.run().taken[3].cycle, released);  // in the cycle the miss leaves
  ASSERT_EQ(rtl.run().responses.size(), 2u);
  EXPECT_EQ(rtl.run().responses[0].response, kMiss);
  EXPECT_EQ(rtl.run().responses[1].response, hit(0xA1));
  const Verdict verdict = judge(rtl.run(), kFourWay);
  EXPECT_TRUE(verdict.mismatches.empty()) << verdict.report;
}

// Without stalls: one operation per cycle, invalidate before fill before
// lookup; a lookup taken in cycle t answers (and misses) in cycle t + 1; a
// fill taken in cycle t is seen by a lookup taken in cycle t + 1.
TEST(TranslationCacheCosim, OneOperationPerCycleAndLookupsAnswerTheNextCycle) {
  if (!runs_rtl(cosim_mode())) GTEST_SKIP() << "RNICSIM_COSIM_MODE=model runs no RTL";
  TranslationCacheRtl<Vtranslation_cache> rtl(3, Stalls{});
  // Offered together: the four fills first, then back-to-back lookups.
  for (const Op& op : {fill(A, 0xA), fill(B, 0xB), fill(C, 0xC), fill(D, 0xD), lookup(A), lookup(B),
                       lookup(C), lookup(D), lookup(E), lookup(A)}) {
    rtl.push(op);
  }
  const std::uint64_t start = rtl.now();
  rtl.settle();
  const CacheRun& run = rtl.run();
  ASSERT_EQ(run.taken.size(), 10u);
  for (std::size_t i = 0; i < 10; ++i) {
    EXPECT_EQ(run.taken[i].cycle, start + i) << "operation " << i;
    EXPECT_EQ(run.taken[i].op.kind, i < 4 ? Kind::kFill : Kind::kLookup) << "operation " << i;
  }
  ASSERT_EQ(run.responses.size(), 6u);
  for (std::size_t i = 0; i < 6; ++i) {
    EXPECT_EQ(run.responses[i].cycle, run.taken[4 + i].cycle + 1) << "lookup " << i;
  }
  EXPECT_EQ(run.responses[3].response, hit(0xD));  // filled 4 cycles before its lookup
  EXPECT_EQ(run.responses[4].response, kMiss);
  EXPECT_EQ(run.responses[5].response, hit(0xA));
  ASSERT_EQ(run.misses.size(), 1u);
  EXPECT_EQ(run.misses[0].cycle, run.taken[8].cycle + 1);

  // Offered in one cycle: the invalidate, then the fill, then the lookup,
  // which sees both, the cycle after the fill.
  rtl.push(lookup(F));
  rtl.push(fill(F, 0xF));
  rtl.push(invalidate(F));
  const std::uint64_t together = rtl.now();
  rtl.settle();
  ASSERT_EQ(run.taken.size(), 13u);
  EXPECT_EQ(run.taken[10].op.kind, Kind::kInvalidate);
  EXPECT_EQ(run.taken[10].cycle, together);
  EXPECT_EQ(run.taken[11].op.kind, Kind::kFill);
  EXPECT_EQ(run.taken[11].cycle, together + 1);
  EXPECT_EQ(run.taken[12].op.kind, Kind::kLookup);
  EXPECT_EQ(run.taken[12].cycle, together + 2);
  ASSERT_EQ(run.responses.size(), 7u);
  EXPECT_EQ(run.responses[6].response, hit(0xF));
  EXPECT_EQ(run.responses[6].cycle, together + 3);

  const Verdict verdict = judge(run, kFourWay);
  EXPECT_TRUE(verdict.mismatches.empty()) << verdict.report;
}

// The probe is combinational: it answers for the state the last edge left,
// in the same cycle, and changes nothing (no count, no LRU touch).
TEST(TranslationCacheCosim, TheProbeSeesTheLastEdgeAndChangesNothing) {
  if (!runs_rtl(cosim_mode())) GTEST_SKIP() << "RNICSIM_COSIM_MODE=model runs no RTL";
  TranslationCacheRtl<Vtranslation_cache> rtl(5, Stalls{});
  // Every cycle probes A, from before its fill: the fill is taken in the
  // first cycle, so the first probe misses and every later one sees it.
  rtl.probe_index = A;
  for (const Op& op : {fill(A, 0xA), fill(B, 0xB), fill(C, 0xC), fill(D, 0xD)}) rtl.push(op);
  rtl.settle();
  for (int i = 0; i < 3; ++i) rtl.cycle();  // idle cycles, probed all the same
  const CacheRun& run = rtl.run();
  ASSERT_GE(run.probes.size(), 7u);
  for (const ProbeAnswer& p : run.probes) {
    EXPECT_EQ(p.response, p.probe.taken_before >= 1 ? hit(0xA) : kMiss)
        << "probe after " << p.probe.taken_before << " operations";
  }
  EXPECT_EQ(run.probes.front().probe.taken_before, 0u);
  rtl.probe_index.reset();
  // The probes of A did not make it recent: A is still the set's LRU way, and E evicts it.
  rtl.apply(fill(E, 0xE));
  rtl.apply(lookup(A));
  rtl.apply(lookup(B));
  ASSERT_EQ(run.responses.size(), 2u);
  EXPECT_EQ(run.responses[0].response, kMiss);
  EXPECT_EQ(run.responses[1].response, hit(0xB));
  // Nor did they count: the RTL sent its walker one miss, for the lookup of A.
  ASSERT_EQ(run.misses.size(), 1u);
  EXPECT_EQ(run.misses[0].index, A);
  const Verdict verdict = judge(run, kFourWay);
  EXPECT_TRUE(verdict.mismatches.empty()) << verdict.report;
}

// The test-only fault (a full set evicts way 0, not its LRU way) must show.
TEST(TranslationCacheCosimFault, TheScoreboardCatchesTheWrongVictim) {
  if (cosim_mode() != CosimMode::kCrossCheck) GTEST_SKIP() << "needs both sides";
  const CacheRun rtl =
      random_run<Vtranslation_cache_fault>(kFourWay, 3000, 0xFA17, Stalls{0.3, 0.3});
  const Scoreboard board(rtl, kFourWay);
  EXPECT_GT(board.mismatches.size(), 50u) << board.report();
}

}  // namespace
}  // namespace rnicsim::cosim
