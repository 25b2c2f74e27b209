// Memory registration and translation end to end on one host: the driver
// writes the tables into host memory, the NIC's translation unit walks them.
#include "nic/translation/memory_translation.hpp"

#include <gtest/gtest.h>

#include <cerrno>
#include <optional>
#include <ostream>
#include <stdexcept>
#include <systemc>
#include <vector>

#include "block/impl_param.hpp"
#include "common/time_units.hpp"
#include "host/driver/address_space.hpp"
#include "host/driver/verbs.hpp"
#include "host/memory/host_memory.hpp"
#include "host/memory/page_allocator.hpp"
#include "nic/dma/dma_engine.hpp"
#include "nic/dma/request_splitter.hpp"
#include "nic/translation/translation_cache_rtl.hpp"
#include "pcie/pcie_link.hpp"

namespace rnicsim {
namespace {

using sc_core::sc_time;

constexpr std::uint64_t kIcm = 1ULL << 20;

MemoryTranslationConfig translation_config(std::uint32_t mtt_entries, std::uint32_t mtt_ways,
                                           std::uint32_t prefetch = 0) {
  MemoryTranslationConfig c;
  c.icm = IcmLayout{kIcm, 64, kIcm + 64 * kMptEntryBytes, 4096};
  c.mpt_cache = {16, 4, Replacement::kLru};
  c.mtt_cache = {mtt_entries, mtt_ways, Replacement::kLru};
  c.clock_mhz = 250;  // 4 ns cycles
  c.hit_cycles = 3;
  c.prefetch_entries = prefetch;
  return c;
}

// Host memory, a scattered page pool, one address space, the driver, and the
// NIC's translation unit walking host memory directly (walks cost `walk_ns`),
// its MPT and MTT caches the model's or the verilated rtl/translation_cache.
struct Host {
  explicit Host(MemoryTranslationConfig config, BlockImpl caches = BlockImpl::kModel,
                double walk_ns = 100)
      : memory("memory", HostMemoryConfig{1ULL << 32, nanoseconds(walk_ns)}),
        allocator(16ULL << 20, 64ULL << 20, 4096, 1.0, 11),
        space(allocator, 1ULL << 40),
        driver(memory, space, config.icm, ibv_port_attr{}),  // no NIC port: it only registers
        unit("translation", config, rtl_bridge::make_entry_cache_makers(caches, caches)) {
    unit.walker2dma.socket.bind(memory.socket);
    driver.on_invalidate([this](std::uint32_t i, std::uint64_t f, std::uint32_t p) {
      unit.invalidate(i, f, p);
    });
  }
  HostMemory memory;
  PageAllocator allocator;
  AddressSpace space;
  VerbsDriver driver;
  MemoryTranslation unit;
};

// The tests of these two suites run with the model's caches and with the
// verilated rtl/translation_cache as both (MPT 16 x 4, MTT 64 x 4, geometries it is
// verilated at): the unit gives the same answers at the same times with
// either.
class TranslationUnit : public ::testing::TestWithParam<BlockImpl> {};
class TranslationPort : public ::testing::TestWithParam<BlockImpl> {};
INSTANTIATE_TEST_SUITE_P(TranslationCache, TranslationUnit, every_impl(), impl_param_name);
INSTANTIATE_TEST_SUITE_P(TranslationCache, TranslationPort, every_impl(), impl_param_name);

TEST_P(TranslationUnit, AScatteredBufferTranslatesToExactlyItsPhysicalBytes) {
  Host host(translation_config(64, 4), GetParam());
  ibv_pd* pd = host.driver.ibv_alloc_pd();
  const std::uint64_t length = 5 * 4096 + 100;
  const std::uint64_t va = host.space.allocate(length);
  ibv_mr* mr = host.driver.ibv_reg_mr(pd, va + 10, length - 10,
                                      IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE);
  ASSERT_NE(mr, nullptr);

  std::vector<TranslationResult> results;
  // The whole MR, then a range across one page boundary, its first and its last byte.
  const std::vector<std::pair<std::uint64_t, std::uint64_t>> ranges{
      {va + 10, length - 10}, {va + 4090, 12}, {va + 10, 1}, {va + length - 1, 1}};
  sc_core::sc_spawn([&] {
    for (const auto& [at, n] : ranges) {
      results.push_back(host.unit.translate(mr->rkey, at, n, IBV_ACCESS_REMOTE_WRITE, pd->handle));
    }
  });
  sc_core::sc_start();
  ASSERT_EQ(results.size(), ranges.size());
  for (std::size_t r = 0; r < ranges.size(); ++r) {
    ASSERT_EQ(results[r].status, TranslationStatus::kOk) << r;
    // Write a pattern through the translation (as the NIC's DMA would), read it back by VA.
    std::vector<std::uint8_t> pattern(ranges[r].second);
    for (std::size_t i = 0; i < pattern.size(); ++i) pattern[i] = static_cast<std::uint8_t>(i * 13 + r);
    std::uint64_t offset = 0;
    for (const PhysicalSegment& s : results[r].segments) {
      host.memory.write_bytes(s.address, pattern.data() + offset, s.length);
      offset += s.length;
    }
    ASSERT_EQ(offset, pattern.size());
    std::vector<std::uint8_t> back(pattern.size());
    host.space.read(host.memory, ranges[r].first, back.data(), back.size());
    EXPECT_EQ(back, pattern) << r;
  }
  // Six pages from a fully fragmented pool: not one contiguous segment.
  EXPECT_GT(results[0].segments.size(), 1u);
  EXPECT_EQ(results[1].segments.size(), host.space.physical(va + 4096) ==
                                                host.space.physical(va + 4095) + 1
                                            ? 1u
                                            : 2u);
}

TEST_P(TranslationUnit, EveryErrorHasItsOwnStatus) {
  Host host(translation_config(64, 4), GetParam());
  ibv_pd* pd = host.driver.ibv_alloc_pd();
  ibv_pd* other_pd = host.driver.ibv_alloc_pd();
  const std::uint64_t va = host.space.allocate(8192);
  ibv_mr* local_only = host.driver.ibv_reg_mr(pd, va, 4096, IBV_ACCESS_LOCAL_WRITE);
  ibv_mr* old = host.driver.ibv_reg_mr(pd, va + 4096, 4096, IBV_ACCESS_LOCAL_WRITE);
  ASSERT_NE(local_only, nullptr);
  ASSERT_NE(old, nullptr);
  const std::uint32_t old_key = old->rkey;
  ASSERT_EQ(host.driver.ibv_dereg_mr(old), 0);
  ibv_mr* reused = host.driver.ibv_reg_mr(pd, va + 4096, 4096,
                                          IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_READ);
  ASSERT_NE(reused, nullptr);
  EXPECT_EQ(key_index(reused->rkey), key_index(old_key));  // same MPT slot, new variant
  EXPECT_NE(reused->rkey, old_key);

  std::vector<TranslationStatus> got;
  const auto run = [&](std::uint32_t key, std::uint64_t at, std::uint64_t n, std::uint32_t access,
                       std::uint32_t pd_handle) {
    got.push_back(host.unit.translate(key, at, n, access, pd_handle).status);
  };
  const std::uint32_t k = local_only->lkey;
  const std::uint32_t p = pd->handle;
  sc_core::sc_spawn([&] {
    run(make_key(1000, 0), va, 8, 0, p);                       // index beyond the MPT
    run(make_key(7, 0), va, 8, 0, p);                          // never registered
    run(old_key, va + 4096, 8, 0, p);                          // deregistered, slot reused
    run(k, va, 8, 0, other_pd->handle);                        // wrong PD
    run(k, va, 8, IBV_ACCESS_REMOTE_WRITE, p);                 // not granted
    run(reused->rkey, va + 4096, 8, IBV_ACCESS_REMOTE_READ, p);  // granted
    run(k, va - 1, 8, 0, p);                                   // starts before the MR
    run(k, va + 4090, 8, 0, p);                                // ends after it
    run(k, va, 4097, 0, p);                                    // longer than it
    run(k, va + 4095, 1, 0, p);                                // its last byte
    run(make_key(1000, 0), 0, 0, 0, 0);                        // zero length needs no key
  });
  sc_core::sc_start();
  using S = TranslationStatus;
  EXPECT_EQ(got, (std::vector<S>{S::kInvalidKey, S::kInvalidKey, S::kStaleKey, S::kPdMismatch,
                                 S::kAccessDenied, S::kOk, S::kOutOfBounds, S::kOutOfBounds,
                                 S::kOutOfBounds, S::kOk, S::kOk}));
  EXPECT_EQ(host.unit.stats().errors, 8u);
}

TEST_P(TranslationUnit, RegistrationRefusesRemoteWriteWithoutLocalWrite) {
  Host host(translation_config(64, 4), GetParam());
  ibv_pd* pd = host.driver.ibv_alloc_pd();
  const std::uint64_t va = host.space.allocate(4096);
  EXPECT_EQ(host.driver.ibv_reg_mr(pd, va, 4096, IBV_ACCESS_REMOTE_WRITE), nullptr);
  EXPECT_EQ(host.driver.last_error(), EINVAL);
  EXPECT_EQ(host.driver.ibv_reg_mr(pd, va, 4096, IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_ATOMIC) == nullptr, false);
  EXPECT_EQ(host.driver.ibv_reg_mr(pd, va + 8192, 16, IBV_ACCESS_LOCAL_WRITE), nullptr);  // unmapped
  EXPECT_EQ(host.driver.last_error(), EINVAL);
}

TEST_P(TranslationUnit, DirectedPatternsGiveExactHitAndMissCounts) {
  // A 64-entry 4-way LRU MTT cache (16 sets); one 65-page MR; 8-byte reads
  // of pages 16 apart, whose MTT entries share one set.
  Host host(translation_config(64, 4), GetParam());
  ibv_pd* pd = host.driver.ibv_alloc_pd();
  const std::uint64_t va = host.space.allocate(65 * 4096);
  ibv_mr* mr = host.driver.ibv_reg_mr(pd, va, 65 * 4096, IBV_ACCESS_LOCAL_WRITE);
  sc_core::sc_spawn([&] {
    // In units of 16 pages: 0 1 2 3 | 0 (hit) | 4 (evicts 1, the LRU; FIFO would evict 0) |
    // 1 (miss, evicts 2) | 3 0 4 1 (hits) | 2 (miss)
    for (int page : {0, 1, 2, 3, 0, 4, 1, 3, 0, 4, 1, 2}) {
      host.unit.translate(mr->lkey, va + page * 16 * 4096 + 8, 8, 0, pd->handle);
    }
  });
  sc_core::sc_start();
  EXPECT_EQ(host.unit.mtt_cache().misses(), 7u);
  EXPECT_EQ(host.unit.mtt_cache().hits(), 5u);
  EXPECT_EQ(host.unit.mpt_cache().misses(), 1u);
  EXPECT_EQ(host.unit.mpt_cache().hits(), 11u);
  EXPECT_EQ(host.unit.stats().mtt_walks, 7u);
  // A verilated cache runs one cycle per lookup and per fill; the model none.
  const bool rtl = GetParam() == BlockImpl::kRtl;
  EXPECT_EQ(host.unit.mtt_cache().rtl_cycles(), rtl ? 12u + 7u : 0u);
  EXPECT_EQ(host.unit.mpt_cache().rtl_cycles(), rtl ? 12u + 1u : 0u);
}

TEST_P(TranslationUnit, PrefetchBringsTheFollowingEntriesOfTheSameMr) {
  Host host(translation_config(64, 4, 3), GetParam());
  ibv_pd* pd = host.driver.ibv_alloc_pd();
  const std::uint64_t va = host.space.allocate(6 * 4096);
  ibv_mr* mr = host.driver.ibv_reg_mr(pd, va, 6 * 4096, IBV_ACCESS_LOCAL_WRITE);
  sc_core::sc_spawn([&] {
    // Page 0 misses and brings 0-3; 1-3 hit; page 4 misses and brings 4-5 (the MR ends); 5 hits.
    for (int page = 0; page < 6; ++page) host.unit.translate(mr->lkey, va + page * 4096, 8, 0, pd->handle);
  });
  sc_core::sc_start();
  EXPECT_EQ(host.unit.stats().mtt_walks, 2u);
  EXPECT_EQ(host.unit.mtt_cache().hits(), 4u);
}

TEST_P(TranslationUnit, DeregistrationDropsCachedEntries) {
  Host host(translation_config(64, 4), GetParam());
  ibv_pd* pd = host.driver.ibv_alloc_pd();
  const std::uint64_t va = host.space.allocate(4096);
  ibv_mr* mr = host.driver.ibv_reg_mr(pd, va, 4096, IBV_ACCESS_LOCAL_WRITE);
  const std::uint32_t key = mr->lkey;
  std::vector<TranslationStatus> got;
  sc_core::sc_spawn([&] {
    got.push_back(host.unit.translate(key, va, 8, 0, pd->handle).status);
    host.driver.ibv_dereg_mr(mr);
    got.push_back(host.unit.translate(key, va, 8, 0, pd->handle).status);
  });
  sc_core::sc_start();
  EXPECT_EQ(got, (std::vector<TranslationStatus>{TranslationStatus::kOk, TranslationStatus::kInvalidKey}));
}

TEST_P(TranslationUnit, AMissCostsTheHitLatencyPlusTheWalkersDmaTime) {
  // The walker goes through the DMA engine and a Gen3 x8 link; memory is free.
  MemoryTranslationConfig config = translation_config(64, 4);
  pcie::PcieConfig link_config;
  link_config.link_latency = nanoseconds(20);
  link_config.root_complex_latency = nanoseconds(500);
  link_config.ack_every_bytes = 203;
  link_config.fc_update_every_bytes = 203;
  link_config.iotlb_entries = 1;
  Host host(config, GetParam(), 0);
  // Rebind is not possible after construction, so use a second unit on the PCIe path.
  pcie::PcieLink link("pcie", link_config);
  RequestSplitter splitter("request_splitter", RequestSplitterConfig{BlockImpl::kModel, 512, 256});
  DmaEngine engine("dma_engine", DmaEngineConfig{8, 16, 8});
  MemoryTranslation unit("translation_over_pcie", config,
                         rtl_bridge::make_entry_cache_makers(GetParam(), GetParam()));
  link.pcie2mem.bind(host.memory.socket);
  splitter.split2pcie.bind(link.nic2pcie);
  engine.dma2split.bind(splitter.dma2split);
  unit.walker2dma.socket.bind(engine.nic2dma);
  std::vector<sc_time> walks;
  unit.set_walk_observer([&walks](const sc_time& walk) { walks.push_back(walk); });

  ibv_pd* pd = host.driver.ibv_alloc_pd();
  const std::uint64_t va = host.space.allocate(4096);
  ibv_mr* mr = host.driver.ibv_reg_mr(pd, va, 4096, IBV_ACCESS_LOCAL_WRITE);
  std::vector<sc_time> took;
  sc_core::sc_spawn([&] {
    for (int i = 0; i < 2; ++i) {
      const sc_time start = sc_core::sc_time_stamp();
      unit.translate(mr->lkey, va + 64, 8, 0, pd->handle);
      took.push_back(sc_core::sc_time_stamp() - start);
    }
  });
  sc_core::sc_start();
  const auto wire = [&](std::uint32_t bytes) {
    return serialization_time(8ULL * bytes, link_config.link_gbps());
  };
  const sc_time hit = nanoseconds(12);  // 3 cycles at 250 MHz
  // The tables sit below 4 GiB, so each walk's MRd is 20 B. MPT walk: a 64 B
  // read (one 84 B completion); MTT walk: an 8 B read (28 B completion).
  const sc_time mpt_walk = wire(20) + nanoseconds(540) + wire(84);
  const sc_time mtt_walk = wire(20) + nanoseconds(540) + wire(28);
  ASSERT_EQ(took.size(), 2u);
  EXPECT_EQ(took[0], hit + mpt_walk + mtt_walk);
  EXPECT_EQ(took[1], hit);
  ASSERT_EQ(walks.size(), 2u);
  EXPECT_EQ(walks[0], mpt_walk);
  EXPECT_EQ(walks[1], mtt_walk);
  EXPECT_EQ(unit.stats().walk_time, mpt_walk + mtt_walk);
}

// The request port: responses carry the requester's tag and may come out of
// order. With walks straight to host memory every walk takes 100 ns, lookups
// 3 cycles of 4 ns (12 ns); the unit accepts one request per interval.

struct Answer {
  std::uint64_t tag;
  sc_time at;
  TranslationStatus status;
  std::vector<PhysicalSegment> segments;
  bool operator==(const Answer& o) const {
    return tag == o.tag && at == o.at && status == o.status && segments == o.segments;
  }
};

std::ostream& operator<<(std::ostream& out, const Answer& a) {
  out << "{tag " << a.tag << " at " << a.at << " " << to_string(a.status) << " [";
  for (const PhysicalSegment& s : a.segments) out << " " << s.address << "+" << s.length;
  return out << " ]}";
}

struct Recorder final : TranslationRequester {
  void translation_done(const TranslationResponse& r) override {
    answers.push_back({r.tag, sc_core::sc_time_stamp(), r.result.status, r.result.segments});
  }
  std::vector<Answer> answers;
};

MemoryTranslationConfig port_config(std::uint32_t interval, std::uint32_t walkers) {
  MemoryTranslationConfig c = translation_config(64, 4);
  c.initiation_interval_cycles = interval;
  c.walker_outstanding = walkers;
  return c;
}

const sc_time kLookup = nanoseconds(12);
const sc_time kWalk = nanoseconds(100);
const sc_time kCycle = nanoseconds(4);

// One MR of `pages` pages, registered for local write.
struct Region {
  Region(Host& host, std::uint32_t pages) : pd(host.driver.ibv_alloc_pd()) {
    va = host.space.allocate(pages * 4096ULL);
    mr = host.driver.ibv_reg_mr(pd, va, pages * 4096ULL, IBV_ACCESS_LOCAL_WRITE);
  }
  TranslationRequest on_page(std::uint64_t tag, std::uint32_t page, std::uint64_t offset = 8) const {
    return TranslationRequest{tag, mr->lkey, va + page * 4096ULL + offset, 8, 0, pd->handle};
  }
  ibv_pd* pd;
  std::uint64_t va = 0;
  ibv_mr* mr = nullptr;
};

// Where a request on `page` lands, for the expected segments.
std::vector<PhysicalSegment> where(Host& host, const TranslationRequest& r) {
  return {{host.space.physical(r.va), r.length}};
}

TEST_P(TranslationPort, BackToBackHitsCompleteOneIntervalApart) {
  Host host(port_config(2, 4), GetParam());  // one request per 8 ns
  Region region(host, 4);
  Recorder recorder;
  std::vector<sc_time> accepted;
  const sc_time t0 = nanoseconds(1000);
  sc_core::sc_spawn([&] {
    host.unit.translate(region.mr->lkey, region.va, 4 * 4096, 0, region.pd->handle);  // warm
    sc_core::wait(t0 - sc_core::sc_time_stamp());
    for (std::uint64_t i = 0; i < 6; ++i) {
      host.unit.nic2mtt->submit(recorder, region.on_page(i, i % 4));
      accepted.push_back(sc_core::sc_time_stamp());
    }
  });
  sc_core::sc_start();
  std::vector<Answer> expected;
  for (std::uint64_t i = 0; i < 6; ++i) {
    EXPECT_EQ(accepted[i], t0 + 2 * kCycle * static_cast<double>(i)) << i;
    expected.push_back({i, t0 + 2 * kCycle * static_cast<double>(i) + kLookup,
                        TranslationStatus::kOk, where(host, region.on_page(i, i % 4))});
  }
  EXPECT_EQ(recorder.answers, expected);
  EXPECT_EQ(host.unit.stats().translations, 7u);
  EXPECT_EQ(host.unit.mtt_cache().hits(), 6u);
  EXPECT_EQ(host.unit.stats().mtt_walks, 4u);  // the warm-up's only
  EXPECT_EQ(host.unit.stats().peak_requests_in_flight, 2u);  // 12 ns of lookup, one per 8 ns
}

// A blocking translate() looks its own request up; port requests queued
// behind or ahead of it must still be looked up at their times, in order.
TEST_P(TranslationPort, BlockingCallsAndPortRequestsShareOneLookupOrder) {
  Host host(port_config(2, 4), GetParam());  // one request per 8 ns
  Region region(host, 4);
  Recorder recorder;
  std::vector<sc_time> returned;  // when the blocking calls returned
  const sc_time t0 = nanoseconds(1000);
  const sc_time t1 = nanoseconds(2000);
  auto blocking = [&](std::uint32_t page) {
    const TranslationRequest r = region.on_page(0, page);
    EXPECT_EQ(host.unit.translate(r.key, r.va, r.length, 0, r.pd).status, TranslationStatus::kOk);
    returned.push_back(sc_core::sc_time_stamp());
  };
  sc_core::sc_spawn([&] {
    host.unit.translate(region.mr->lkey, region.va, 4 * 4096, 0, region.pd->handle);  // warm
    // At t0 three port requests are booked at t0, t0 + 8 and (called at
    // t0 + 8, after the blocking call booked t0 + 16) t0 + 24.
    sc_core::wait(t0 - sc_core::sc_time_stamp());
    for (std::uint64_t i = 0; i < 3; ++i) host.unit.nic2mtt->submit(recorder, region.on_page(i, i));
    // At t1 a port request is accepted while the blocking call's is the only one queued.
    sc_core::wait(t1 + nanoseconds(1) - sc_core::sc_time_stamp());
    host.unit.nic2mtt->submit(recorder, region.on_page(3, 3));
  });
  sc_core::sc_spawn([&] {
    sc_core::wait(t0 + nanoseconds(4));
    blocking(1);  // accepted at t0 + 16
    sc_core::wait(t1 - sc_core::sc_time_stamp());
    blocking(2);  // accepted at t1, alone
  });
  sc_core::sc_start();
  EXPECT_EQ(returned, (std::vector<sc_time>{t0 + 2 * kCycle * 2.0 + kLookup, t1 + kLookup}));
  const std::vector<Answer> expected{
      {0, t0 + kLookup, TranslationStatus::kOk, where(host, region.on_page(0, 0))},
      {1, t0 + 2 * kCycle + kLookup, TranslationStatus::kOk, where(host, region.on_page(1, 1))},
      {2, t0 + 2 * kCycle * 3.0 + kLookup, TranslationStatus::kOk,
       where(host, region.on_page(2, 2))},
      {3, t1 + 2 * kCycle + kLookup, TranslationStatus::kOk, where(host, region.on_page(3, 3))}};
  EXPECT_EQ(recorder.answers, expected);
  EXPECT_EQ(host.unit.mtt_cache().hits(), 6u);
}

// translate_cached(): a lookup that cannot wait on anything is answered at
// once, with what translate() answers a hit latency later; anything that
// could change that answer (a busy port, a queued lookup, an open walk, an
// entry not cached) declines it, and then nothing happens.
TEST_P(TranslationPort, ACachedLookupAnswersAtOnceOrDeclinesWithoutEffect) {
  Host host(port_config(2, 4), GetParam());  // one request per 8 ns
  Region warm(host, 4);
  Region cold(host, 1);
  Recorder recorder;
  const sc_time t0 = nanoseconds(1000);
  const sc_time t1 = nanoseconds(2000);
  // Across the boundary of pages 1 and 2: two MTT entries.
  const TranslationRequest across{0, warm.mr->lkey, warm.va + 4096 + 4000, 200, 0, warm.pd->handle};
  std::vector<PhysicalSegment> fast;
  TranslationStatus fast_status = TranslationStatus::kInvalidKey;
  std::vector<PhysicalSegment> slow;
  std::vector<bool> took;  // what translate_cached() returned, in call order
  sc_time fast_returned;
  std::uint64_t translations_before = 0;
  std::uint64_t hits_before = 0;
  std::vector<std::uint64_t> translations_after_declines;
  TranslationStatus wrong_pd = TranslationStatus::kOk;
  std::vector<PhysicalSegment> untouched;
  sc_core::sc_spawn([&] {
    host.unit.translate(warm.mr->lkey, warm.va, 4 * 4096, 0, warm.pd->handle);
    sc_core::wait(t0 - sc_core::sc_time_stamp());
    translations_before = host.unit.stats().translations;
    hits_before = host.unit.mtt_cache().hits();
    took.push_back(host.unit.translate_cached(across.key, across.va, across.length, 0, across.pd,
                                              fast, fast_status));
    fast_returned = sc_core::sc_time_stamp();
    // The port is booked until t0 + 8: a second shortcut is declined, and
    // a port request waits for it (returning at t0 + 8).
    TranslationStatus ignored;
    took.push_back(host.unit.translate_cached(across.key, across.va, across.length, 0, across.pd,
                                              untouched, ignored));
    host.unit.nic2mtt->submit(recorder, warm.on_page(7, 3));
    translations_after_declines.push_back(host.unit.stats().translations);
    // The port is free at t0 + 16, but a lookup is queued (the port
    // request's, due at t0 + 20): declined.
    sc_core::wait(nanoseconds(8));
    took.push_back(host.unit.translate_cached(across.key, across.va, across.length, 0, across.pd,
                                              untouched, ignored));
    // Nothing queued, but the cold region's MPT entry is not cached: declined.
    sc_core::wait(t1 - sc_core::sc_time_stamp());
    const TranslationRequest c = cold.on_page(0, 0);
    took.push_back(host.unit.translate_cached(c.key, c.va, c.length, 0, c.pd, untouched, ignored));
    translations_after_declines.push_back(host.unit.stats().translations);
    // A walk open (the cold request's, looked up at t1 + 12): declined.
    host.unit.nic2mtt->submit(recorder, cold.on_page(8, 0));
    sc_core::wait(nanoseconds(20));
    took.push_back(host.unit.translate_cached(across.key, across.va, across.length, 0, across.pd,
                                              untouched, ignored));
    translations_after_declines.push_back(host.unit.stats().translations);
    // After the walk: an error its MPT entry shows is answered at once.
    sc_core::wait(nanoseconds(400));
    took.push_back(host.unit.translate_cached(across.key, across.va, across.length, 0,
                                              cold.pd->handle, untouched, wrong_pd));
    // The blocking call gives the same segments.
    slow.clear();
    EXPECT_EQ(host.unit.translate(across.key, across.va, across.length, 0, across.pd, slow),
              TranslationStatus::kOk);
  });
  sc_core::sc_start();
  EXPECT_EQ(took, (std::vector<bool>{true, false, false, false, false, true}));
  EXPECT_EQ(fast_status, TranslationStatus::kOk);
  EXPECT_EQ(fast_returned, t0);
  EXPECT_EQ(fast, slow);
  ASSERT_EQ(fast.size(), 2u);  // scattered pages: two physical runs
  EXPECT_EQ(fast[0].length + fast[1].length, 200u);
  EXPECT_TRUE(untouched.empty());
  EXPECT_EQ(wrong_pd, TranslationStatus::kPdMismatch);
  // The shortcut counted as one translation and two hits; declines counted nothing.
  EXPECT_EQ(translations_after_declines,
            (std::vector<std::uint64_t>{translations_before + 2, translations_before + 2,
                                        translations_before + 3}));
  EXPECT_EQ(recorder.answers,
            (std::vector<Answer>{
                {7, t0 + 2 * kCycle + kLookup, TranslationStatus::kOk, where(host, warm.on_page(7, 3))},
                {8, t1 + kLookup + 2 * kWalk, TranslationStatus::kOk, where(host, cold.on_page(8, 0))}}));
  EXPECT_GE(host.unit.mtt_cache().hits(), hits_before + 2);
  // The shortcut's request stays in flight for its hit latency: the port
  // request accepted at t0 + 8 makes two.
  EXPECT_EQ(host.unit.stats().peak_requests_in_flight, 2u);
}

// The shortcut reads the caches when the request is accepted: an invalidate
// within its hit latency is seen by the requests after it, not by it.
TEST_P(TranslationPort, ACachedLookupReadsTheCachesWhenAccepted) {
  Host host(port_config(2, 4), GetParam());
  Region region(host, 1);
  const TranslationRequest r = region.on_page(0, 0);
  bool took = false;
  TranslationStatus shortcut = TranslationStatus::kInvalidKey;
  TranslationStatus after = TranslationStatus::kOk;
  std::vector<PhysicalSegment> segments;
  sc_core::sc_spawn([&] {
    host.unit.translate(r.key, r.va, r.length, 0, r.pd);  // warm
    sc_core::wait(nanoseconds(1000));
    took = host.unit.translate_cached(r.key, r.va, r.length, 0, r.pd, segments, shortcut);
    sc_core::wait(nanoseconds(4));  // within the 12 ns hit latency
    host.driver.ibv_dereg_mr(region.mr);
    after = host.unit.translate(r.key, r.va, r.length, 0, r.pd).status;
  });
  sc_core::sc_start();
  EXPECT_TRUE(took);
  EXPECT_EQ(shortcut, TranslationStatus::kOk);
  EXPECT_EQ(segments, where(host, r));
  EXPECT_EQ(after, TranslationStatus::kInvalidKey);
}

TEST_P(TranslationPort, TwoMissesOnOneEntryMakeOneWalkAndBothCompleteAtItsEnd) {
  Host host(port_config(1, 4), GetParam());
  Region region(host, 4);
  Recorder recorder;
  sc_core::sc_spawn([&] {
    host.unit.nic2mtt->submit(recorder, region.on_page(0, 2, 8));
    host.unit.nic2mtt->submit(recorder, region.on_page(1, 2, 64));
  });
  sc_core::sc_start();
  // The first looks up at 12 ns and walks the MPT, then the MTT entry; the
  // second misses both 4 ns later and joins each walk.
  const sc_time end = kLookup + 2 * kWalk;
  EXPECT_EQ(recorder.answers,
            (std::vector<Answer>{{0, end, TranslationStatus::kOk, where(host, region.on_page(0, 2, 8))},
                                 {1, end, TranslationStatus::kOk, where(host, region.on_page(1, 2, 64))}}));
  const MemoryTranslationStats& s = host.unit.stats();
  EXPECT_EQ(s.mpt_walks, 1u);
  EXPECT_EQ(s.mtt_walks, 1u);
  EXPECT_EQ(s.mpt_merges, 1u);
  EXPECT_EQ(s.mtt_merges, 1u);
  EXPECT_EQ(host.unit.mpt_cache().misses(), 2u);
  EXPECT_EQ(host.unit.mtt_cache().misses(), 2u);
  EXPECT_EQ(s.walk_time, 2 * kWalk);
  EXPECT_EQ(s.peak_walks_in_flight, 1u);
}

TEST_P(TranslationPort, AHitIssuedDuringAMissCompletesFirst) {
  Host host(port_config(1, 4), GetParam());
  Region region(host, 4);
  Recorder recorder;
  const sc_time t0 = nanoseconds(1000);
  sc_core::sc_spawn([&] {
    host.unit.translate(region.mr->lkey, region.va, 8, 0, region.pd->handle);  // MPT and page 0
    sc_core::wait(t0 - sc_core::sc_time_stamp());
    host.unit.nic2mtt->submit(recorder, region.on_page(7, 1));  // misses page 1
    host.unit.nic2mtt->submit(recorder, region.on_page(8, 0));  // hits
  });
  sc_core::sc_start();
  EXPECT_EQ(recorder.answers,
            (std::vector<Answer>{
                {8, t0 + kCycle + kLookup, TranslationStatus::kOk, where(host, region.on_page(8, 0))},
                {7, t0 + kLookup + kWalk, TranslationStatus::kOk, where(host, region.on_page(7, 1))}}));
}

TEST_P(TranslationPort, WalkerOutstandingBoundsTheWalksInFlight) {
  // Two units on the same memory: two walk slots and three.
  Host host(port_config(1, 2), GetParam());
  MemoryTranslation three("translation_three_walkers", port_config(1, 3),
                          rtl_bridge::make_entry_cache_makers(GetParam(), GetParam()));
  three.walker2dma.socket.bind(host.memory.socket);
  Region region(host, 4);
  Recorder two_slots;
  Recorder three_slots;
  const sc_time t0 = nanoseconds(1000);
  for (auto [unit, recorder] : {std::pair{&host.unit, &two_slots}, std::pair{&three, &three_slots}}) {
    sc_core::sc_spawn([&, unit = unit, recorder = recorder] {
      unit->translate(region.mr->lkey, region.va, 8, 0, region.pd->handle);  // MPT and page 0
      sc_core::wait(t0 - sc_core::sc_time_stamp());
      for (std::uint32_t page = 1; page <= 3; ++page) unit->nic2mtt->submit(*recorder, region.on_page(page, page));
    });
  }
  sc_core::sc_start();
  // Lookups at t0 + 12, 16 and 20 ns. With two slots the third walk waits for
  // the first to end (t0 + 112 ns) and ends 100 ns later.
  const auto times = [](const Recorder& r) {
    std::vector<std::pair<std::uint64_t, sc_time>> got;
    for (const Answer& a : r.answers) got.emplace_back(a.tag, a.at);
    return got;
  };
  using Times = std::vector<std::pair<std::uint64_t, sc_time>>;
  EXPECT_EQ(times(two_slots), (Times{{1, t0 + kLookup + kWalk},
                                     {2, t0 + kCycle + kLookup + kWalk},
                                     {3, t0 + kLookup + 2 * kWalk}}));
  EXPECT_EQ(times(three_slots), (Times{{1, t0 + kLookup + kWalk},
                                       {2, t0 + kCycle + kLookup + kWalk},
                                       {3, t0 + 2 * kCycle + kLookup + kWalk}}));
  EXPECT_EQ(host.unit.stats().peak_walks_in_flight, 2u);
  EXPECT_EQ(three.stats().peak_walks_in_flight, 3u);
  EXPECT_EQ(host.unit.stats().walk_queue_time, kWalk - 2 * kCycle);
  EXPECT_EQ(three.stats().walk_queue_time, sc_core::SC_ZERO_TIME);
  EXPECT_EQ(host.unit.stats().mtt_walks, 4u);
}

TEST_P(TranslationPort, ErrorsKeepTheirOrderAndStatus) {
  Host host(port_config(1, 4), GetParam());
  Region region(host, 2);
  ibv_pd* other_pd = host.driver.ibv_alloc_pd();
  Recorder recorder;
  const sc_time t0 = nanoseconds(1000);
  const TranslationRequest hit = region.on_page(0, 0);
  const auto with = [&hit](std::uint64_t tag, auto change) {
    TranslationRequest r = hit;
    r.tag = tag;
    change(r);
    return r;
  };
  const std::vector<TranslationRequest> requests{
      hit,
      with(1, [](TranslationRequest& r) { r.key = make_key(1000, 0); }),        // beyond the MPT
      with(2, [](TranslationRequest& r) { r.va += 2 * 4096; }),                 // after the MR
      with(3, [&](TranslationRequest& r) { r.pd = other_pd->handle; }),         // wrong PD
      with(4, [](TranslationRequest& r) { r.access = IBV_ACCESS_REMOTE_WRITE; }),  // not granted
      with(5, [](TranslationRequest& r) { r.key = make_key(1000, 0); r.length = 0; }),  // needs no key
      with(6, [](TranslationRequest& r) { r.key = make_key(7, 0); }),           // MPT walk: never registered
      with(7, [](TranslationRequest&) {}),
  };
  sc_core::sc_spawn([&] {
    host.unit.translate(hit.key, hit.va, 8, 0, hit.pd);  // MPT and page 0
    sc_core::wait(t0 - sc_core::sc_time_stamp());
    for (const TranslationRequest& r : requests) host.unit.nic2mtt->submit(recorder, r);
  });
  sc_core::sc_start();
  using S = TranslationStatus;
  const auto at = [&](int slot) { return t0 + kCycle * static_cast<double>(slot) + kLookup; };
  const std::vector<PhysicalSegment> none;
  EXPECT_EQ(recorder.answers, (std::vector<Answer>{{0, at(0), S::kOk, where(host, hit)},
                                                   {1, at(1), S::kInvalidKey, none},
                                                   {2, at(2), S::kOutOfBounds, none},
                                                   {3, at(3), S::kPdMismatch, none},
                                                   {4, at(4), S::kAccessDenied, none},
                                                   {5, at(5), S::kOk, none},
                                                   {7, at(7), S::kOk, where(host, hit)},
                                                   {6, at(6) + kWalk, S::kInvalidKey, none}}));
  EXPECT_EQ(host.unit.stats().errors, 5u);
  EXPECT_EQ(host.unit.stats().translations, 9u);
}

TEST_P(TranslationPort, NbSubmitRefusesWithinTheIntervalAndSaysWhenItWouldAccept) {
  Host host(port_config(3, 4), GetParam());  // one request per 12 ns
  Region region(host, 1);
  Recorder recorder;
  std::vector<std::pair<bool, sc_time>> tries;
  sc_core::sc_spawn([&] {
    for (std::uint64_t tag = 0; tag < 2; ++tag) {
      tries.emplace_back(host.unit.nic2mtt->nb_submit(recorder, region.on_page(tag, 0)),
                         sc_core::sc_time_stamp());
    }
    sc_core::wait(host.unit.nic2mtt->ready_event());
    tries.emplace_back(host.unit.nic2mtt->nb_submit(recorder, region.on_page(1, 0)),
                       sc_core::sc_time_stamp());
  });
  sc_core::sc_start();
  const sc_time interval = 3 * kCycle;
  EXPECT_EQ(tries, (std::vector<std::pair<bool, sc_time>>{
                       {true, sc_time()}, {false, sc_time()}, {true, interval}}));
  ASSERT_EQ(recorder.answers.size(), 2u);
  EXPECT_EQ(recorder.answers[1].tag, 1u);
  // The second joined the first's MPT and MTT walks.
  EXPECT_EQ(recorder.answers[1].at, kLookup + 2 * kWalk);
  EXPECT_EQ(host.unit.stats().translations, 2u);
}

TEST_P(TranslationPort, AnInvalidateDuringAWalkInstallsNothingAndIsNotJoined) {
  Host host(port_config(1, 4), GetParam());
  Region region(host, 1);
  const TranslationRequest a = region.on_page(0, 0);
  const std::uint32_t index = key_index(a.key);
  const std::uint64_t first_mtt = region.mr->first_mtt;
  Recorder recorder;
  std::optional<MptEntry> cached_at_150;
  sc_core::sc_spawn([&] {
    host.unit.nic2mtt->submit(recorder, a);  // MPT walk 12..112 ns reads the valid entry
    sc_core::wait(nanoseconds(50));
    host.driver.ibv_dereg_mr(region.mr);     // writes the entry invalid, then invalidates
    sc_core::wait(nanoseconds(10));
    TranslationRequest b = a;
    b.tag = 1;
    host.unit.nic2mtt->submit(recorder, b);  // at 60 ns: its own walk 72..172 ns
    sc_core::wait(nanoseconds(90));
    cached_at_150 = host.unit.mpt_cache().peek(index);
    sc_core::wait(nanoseconds(150));
    TranslationRequest c = a;
    c.tag = 2;
    host.unit.nic2mtt->submit(recorder, c);  // at 300 ns: hits b's entry
  });
  sc_core::sc_start();
  using S = TranslationStatus;
  const std::vector<PhysicalSegment> none;
  // a was looked up before the change and completes with what it read: the
  // entry, then (its MTT walk, 112..212 ns) the page.
  EXPECT_EQ(recorder.answers,
            (std::vector<Answer>{{1, nanoseconds(72) + kWalk, S::kInvalidKey, none},
                                 {0, kLookup + 2 * kWalk, S::kOk, where(host, a)},
                                 {2, nanoseconds(312), S::kInvalidKey, none}}));
  EXPECT_FALSE(cached_at_150.has_value());
  EXPECT_FALSE(host.unit.mtt_cache().peek(first_mtt).has_value());
  const MemoryTranslationStats& s = host.unit.stats();
  EXPECT_EQ(s.mpt_walks, 2u);
  EXPECT_EQ(s.mtt_walks, 1u);
  EXPECT_EQ(s.mpt_merges, 0u);
  EXPECT_EQ(s.stale_walks, 2u);  // a's MPT walk, and its MTT walk on the old entry
}

TEST_P(TranslationPort, RestartRefusesWhileATranslationIsInFlight) {
  Host host(port_config(1, 4), GetParam());
  Region region(host, 1);
  Recorder recorder;
  bool refused = false;
  bool restarted = false;
  sc_core::sc_spawn([&] {
    host.unit.nic2mtt->submit(recorder, region.on_page(0, 0));  // walks until 212 ns
    sc_core::wait(nanoseconds(100));
    try {
      host.unit.restart({64, 4, Replacement::kLru});
    } catch (const std::logic_error&) {
      refused = true;
    }
    sc_core::wait(nanoseconds(200));
    host.unit.restart({64, 4, Replacement::kLru});
    restarted = true;
  });
  sc_core::sc_start();
  EXPECT_TRUE(refused);
  EXPECT_TRUE(restarted);
  ASSERT_EQ(recorder.answers.size(), 1u);
  EXPECT_EQ(recorder.answers[0].at, kLookup + 2 * kWalk);
  EXPECT_FALSE(host.unit.mtt_cache().peek(region.mr->first_mtt).has_value());  // emptied
}

// A sweep's restart makes new caches at the new MTT geometry; a geometry the
// RTL has no twin at is refused, and the unit goes on as it was.
TEST_P(TranslationPort, RestartMakesNewCachesOrRefusesAndChangesNothing) {
  Host host(port_config(1, 4), GetParam());
  Region region(host, 1);
  const bool rtl = GetParam() == BlockImpl::kRtl;
  bool refused = false;
  bool cached_after_refusal = false;
  bool cached_after_restart = true;
  std::vector<TranslationStatus> got;
  sc_core::sc_spawn([&] {
    const auto translate = [&] {
      got.push_back(
          host.unit.translate(region.mr->lkey, region.va, 8, 0, region.pd->handle).status);
    };
    translate();  // brings the MPT entry and page 0 into the caches
    try {
      host.unit.restart({128, 8, Replacement::kLru});
    } catch (const std::invalid_argument&) {
      refused = true;
    }
    cached_after_refusal = host.unit.mtt_cache().peek(region.mr->first_mtt).has_value();
    host.unit.restart({4096, 8, Replacement::kLru});  // both implementations have it
    cached_after_restart = host.unit.mtt_cache().peek(region.mr->first_mtt).has_value();
    translate();
  });
  sc_core::sc_start();
  EXPECT_EQ(refused, rtl);
  EXPECT_EQ(cached_after_refusal, rtl);  // the model restarted, empty; the RTL's cache kept
  EXPECT_FALSE(cached_after_restart);
  EXPECT_EQ(got, (std::vector<TranslationStatus>{TranslationStatus::kOk, TranslationStatus::kOk}));
  EXPECT_EQ(host.unit.mtt_cache().misses(), 1u);  // counted anew since the restart
}

}  // namespace
}  // namespace rnicsim
