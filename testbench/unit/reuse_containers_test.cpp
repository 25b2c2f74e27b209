// The containers that let a packet's path run without allocating: InlineVector
// (bounded, held inline), SlotRing (popped items keep their storage) and
// BytePool (buffers and their control blocks come back).
#include <gtest/gtest.h>

#include <cstdint>
#include <stdexcept>
#include <vector>

#include "common/byte_pool.hpp"
#include "common/inline_vector.hpp"
#include "common/slot_ring.hpp"

namespace rnicsim {
namespace {

TEST(InlineVector, BehavesAsAVectorUpToItsCapacityAndRefusesMore) {
  InlineVector<std::uint32_t, 4> v;
  EXPECT_TRUE(v.empty());
  v.push_back(1);
  v.push_back(2);
  v.resize(4);  // new elements are zero
  EXPECT_EQ(std::vector<std::uint32_t>(v.begin(), v.end()),
            (std::vector<std::uint32_t>{1, 2, 0, 0}));
  EXPECT_THROW(v.push_back(5), std::length_error);
  EXPECT_THROW(v.resize(5), std::length_error);
  const std::uint32_t more[] = {1, 2, 3, 4, 5};
  EXPECT_THROW(v.assign(more, more + 5), std::length_error);
  v.assign(more + 1, more + 3);
  EXPECT_EQ(v.size(), 2u);
  EXPECT_EQ(v[0], 2u);
  EXPECT_EQ(v.back(), 3u);
  const InlineVector<std::uint32_t, 4> copy = v;
  EXPECT_EQ(copy, v);
  v.clear();
  EXPECT_NE(copy, v);
}

TEST(SlotRing, PoppedItemsKeepTheirStorageForTheNextPushToTheirSlot) {
  SlotRing<std::vector<int>> ring;
  std::vector<int>& first = ring.push_back_slot();
  first.assign(100, 7);
  const int* storage = first.data();
  ring.pop_front();
  EXPECT_TRUE(ring.empty());
  // The ring has 4 slots: the push that comes round to slot 0 gets the old item back.
  for (int i = 0; i < 3; ++i) ring.push_back_slot().clear();
  std::vector<int>& again = ring.push_back_slot();
  EXPECT_EQ(again.data(), storage);
  EXPECT_EQ(again.size(), 100u);  // as its previous item left it: the caller sets it
}

TEST(SlotRing, ItemsKeepOrderAndAddressesAsTheRingGrows) {
  SlotRing<int> ring;
  for (int i = 0; i < 3; ++i) ring.push_back_slot() = i;
  ring.pop_front();
  const int* second = &ring.front();
  for (int i = 3; i < 20; ++i) ring.push_back_slot() = i;  // grows twice
  EXPECT_EQ(&ring.front(), second);
  std::vector<int> items;
  for (int item : ring) items.push_back(item);
  std::vector<int> expected;
  for (int i = 1; i < 20; ++i) expected.push_back(i);
  EXPECT_EQ(items, expected);
  EXPECT_EQ(ring.size(), 19u);
  EXPECT_EQ(ring.back(), 19);
  EXPECT_EQ(ring[2], 3);
}

TEST(BytePool, ABufferComesBackWhenItsLastHolderLetsGo) {
  BytePool pool;
  std::shared_ptr<Bytes> a = pool.take(64);
  const Bytes* buffer = a.get();
  std::shared_ptr<const void> held = a;  // a DMA's keep-alive shares the same buffer
  a.reset();
  std::shared_ptr<Bytes> b = pool.take(64);
  EXPECT_NE(b.get(), buffer);  // still held
  held.reset();
  std::shared_ptr<Bytes> c = pool.take(32);
  EXPECT_EQ(c.get(), buffer);
  EXPECT_EQ(c->size(), 32u);
}

TEST(BytePool, ABufferMayOutliveItsPool) {
  std::shared_ptr<Bytes> kept;
  {
    BytePool pool;
    kept = pool.take(16);
    pool.take(8);  // returned at once, to a pool about to go
  }
  (*kept)[15] = 1;
  EXPECT_EQ(kept->size(), 16u);
  kept.reset();  // the free lists go with the last buffer
}

}  // namespace
}  // namespace rnicsim
