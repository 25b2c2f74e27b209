// Memory registration and translation end to end on one host: the driver
// writes the tables into host memory, the NIC's translation unit walks them.
#include <gtest/gtest.h>

#include <cerrno>
#include <systemc>
#include <vector>

#include "common/time_units.hpp"
#include "dma/dma_engine.hpp"
#include "dma/request_splitter.hpp"
#include "driver/address_space.hpp"
#include "driver/verbs.hpp"
#include "host_memory/host_memory.hpp"
#include "host_memory/page_allocator.hpp"
#include "mtt/memory_translation.hpp"
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
// NIC's translation unit walking host memory directly (walks cost `walk_ns`).
struct Host {
  explicit Host(MemoryTranslationConfig config, double walk_ns = 100)
      : memory("memory", HostMemoryConfig{1ULL << 32, nanoseconds(walk_ns)}),
        allocator(16ULL << 20, 64ULL << 20, 4096, 1.0, 11),
        space(allocator, 1ULL << 40),
        driver(memory, space, config.icm),
        unit("translation", config) {
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

TEST(MemoryTranslation, AScatteredBufferTranslatesToExactlyItsPhysicalBytes) {
  Host host(translation_config(64, 4));
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

TEST(MemoryTranslation, EveryErrorHasItsOwnStatus) {
  Host host(translation_config(64, 4));
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

TEST(MemoryTranslation, RegistrationRefusesRemoteWriteWithoutLocalWrite) {
  Host host(translation_config(64, 4));
  ibv_pd* pd = host.driver.ibv_alloc_pd();
  const std::uint64_t va = host.space.allocate(4096);
  EXPECT_EQ(host.driver.ibv_reg_mr(pd, va, 4096, IBV_ACCESS_REMOTE_WRITE), nullptr);
  EXPECT_EQ(host.driver.last_error(), EINVAL);
  EXPECT_EQ(host.driver.ibv_reg_mr(pd, va, 4096, IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_ATOMIC) == nullptr, false);
  EXPECT_EQ(host.driver.ibv_reg_mr(pd, va + 8192, 16, IBV_ACCESS_LOCAL_WRITE), nullptr);  // unmapped
  EXPECT_EQ(host.driver.last_error(), EINVAL);
}

TEST(MemoryTranslation, DirectedPatternsGiveExactHitAndMissCounts) {
  // A 4-entry, fully associative LRU MTT cache; one 8-page MR; 8-byte reads.
  Host host(translation_config(4, 4));
  ibv_pd* pd = host.driver.ibv_alloc_pd();
  const std::uint64_t va = host.space.allocate(8 * 4096);
  ibv_mr* mr = host.driver.ibv_reg_mr(pd, va, 8 * 4096, IBV_ACCESS_LOCAL_WRITE);
  sc_core::sc_spawn([&] {
    // Pages 0 1 2 3 | 0 (hit) | 4 (evicts 1) | 1 (miss, evicts 2) | 3 0 4 1 (hits) | 2 (miss)
    for (int page : {0, 1, 2, 3, 0, 4, 1, 3, 0, 4, 1, 2}) {
      host.unit.translate(mr->lkey, va + page * 4096 + 8, 8, 0, pd->handle);
    }
  });
  sc_core::sc_start();
  EXPECT_EQ(host.unit.mtt_cache().misses(), 7u);
  EXPECT_EQ(host.unit.mtt_cache().hits(), 5u);
  EXPECT_EQ(host.unit.mpt_cache().misses(), 1u);
  EXPECT_EQ(host.unit.mpt_cache().hits(), 11u);
  EXPECT_EQ(host.unit.stats().mtt_walks, 7u);
}

TEST(MemoryTranslation, PrefetchBringsTheFollowingEntriesOfTheSameMr) {
  Host host(translation_config(16, 4, 3));
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

TEST(MemoryTranslation, DeregistrationDropsCachedEntries) {
  Host host(translation_config(64, 4));
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

TEST(MemoryTranslation, AMissCostsTheHitLatencyPlusTheWalkersDmaTime) {
  // The walker goes through the DMA engine and a Gen3 x8 link; memory is free.
  MemoryTranslationConfig config = translation_config(64, 4);
  pcie::PcieConfig link_config;
  link_config.link_latency = nanoseconds(20);
  link_config.root_complex_latency = nanoseconds(500);
  link_config.ack_every_bytes = 203;
  link_config.fc_update_every_bytes = 203;
  link_config.iotlb_entries = 1;
  Host host(config, 0);
  // Rebind is not possible after construction, so use a second unit on the PCIe path.
  pcie::PcieLink link("pcie", link_config);
  RequestSplitter splitter("request_split", RequestSplitterConfig{"model", 512, 256});
  DmaEngine engine("dma_engine", DmaEngineConfig{8, 16});
  MemoryTranslation unit("translation_over_pcie", config);
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

}  // namespace
}  // namespace rnicsim
