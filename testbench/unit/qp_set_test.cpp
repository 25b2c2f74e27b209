// QpSet (the requester's candidates) and LatencyHistogram (context-miss and
// walk latencies): exact behaviour at word boundaries and bin edges.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <functional>
#include <random>
#include <set>
#include <vector>

#include "common/latency_histogram.hpp"
#include "nic/transport/rc_contexts.hpp"

namespace rnicsim {
namespace {

TEST(QpSet, FindsTheNextMemberAcrossWordsAndLevels) {
  QpSet set;
  EXPECT_TRUE(set.empty());
  EXPECT_EQ(set.first(), QpSet::kNone);
  for (std::uint32_t qpn : {0u, 63u, 64u, 4095u, 4096u, 262143u}) set.insert(qpn);
  set.insert(64);  // twice: still one member
  EXPECT_EQ(set.size(), 6U);
  EXPECT_EQ(set.first(), 0U);
  EXPECT_EQ(set.next_from(1), 63U);
  EXPECT_EQ(set.next_from(64), 64U);
  EXPECT_EQ(set.next_from(65), 4095U);
  EXPECT_EQ(set.next_from(4096), 4096U);
  EXPECT_EQ(set.next_from(4097), 262143U);
  EXPECT_EQ(set.next_from(262144), QpSet::kNone);
  set.erase(4096);
  set.erase(4096);  // not a member any more: nothing changes
  EXPECT_EQ(set.size(), 5U);
  EXPECT_EQ(set.next_from(4096), 262143U);
  set.erase(262143);
  EXPECT_EQ(set.next_from(4096), QpSet::kNone);
  EXPECT_FALSE(set.contains(262143));
  EXPECT_TRUE(set.contains(63));
}

TEST(QpSet, GrowsToTheNumbersInsertedAndKeepsItsMembers) {
  QpSet set;
  // Nothing covered yet: no member, no next, erase changes nothing.
  EXPECT_FALSE(set.contains(5));
  EXPECT_EQ(set.next_from(0), QpSet::kNone);
  set.erase(5);
  EXPECT_TRUE(set.empty());
  set.insert(5);
  EXPECT_EQ(set.next_from(6), QpSet::kNone);       // past the member, inside the covered words
  EXPECT_EQ(set.next_from(100000), QpSet::kNone);  // past the covered words
  // A number far beyond the words covered: they grow, 5 stays, both are found.
  set.insert(200000);
  EXPECT_TRUE(set.contains(5));
  EXPECT_EQ(set.first(), 5U);
  EXPECT_EQ(set.next_from(6), 200000U);
  EXPECT_EQ(set.next_from(200001), QpSet::kNone);
  set.insert(kMaxQps - 1);  // the last number a NIC has
  EXPECT_EQ(set.next_from(200001), kMaxQps - 1);
  EXPECT_EQ(set.next_from(kMaxQps), QpSet::kNone);
  EXPECT_EQ(set.size(), 3U);
}

// Puts a QpSet and a std::set through the same 20,000 random changes (an
// erase one time in three, else an insert) of the QP number `qpn(step)`
// draws, and after each asks both for the next member from the number
// `from(step)` draws and whether they hold it.
void expect_agrees_with_an_ordered_set(
    std::uint32_t seed, const std::function<std::uint32_t(std::uint32_t, std::mt19937&)>& qpn,
    const std::function<std::uint32_t(std::uint32_t, std::mt19937&)>& from) {
  QpSet set;
  std::set<std::uint32_t> reference;
  std::mt19937 random(seed);
  for (std::uint32_t step = 0; step < 20000; ++step) {
    const std::uint32_t changed = qpn(step, random);
    if (random() % 3 == 0) {
      set.erase(changed);
      reference.erase(changed);
    } else {
      set.insert(changed);
      reference.insert(changed);
    }
    const std::uint32_t asked = from(step, random);
    const auto expected = reference.lower_bound(asked);
    ASSERT_EQ(set.next_from(asked), expected == reference.end() ? QpSet::kNone : *expected);
    ASSERT_EQ(set.contains(asked), reference.count(asked) == 1);
  }
  EXPECT_EQ(set.size(), reference.size());
}

TEST(QpSet, AgreesWithAnOrderedSetOverRandomChanges) {
  expect_agrees_with_an_ordered_set(
      7, [](std::uint32_t, std::mt19937& random) { return random() % 300000 % kMaxQps; },
      [](std::uint32_t, std::mt19937& random) { return random() % kMaxQps; });
}

TEST(QpSet, AgreesWithAnOrderedSetWhileItsWordsGrow) {
  // QP numbers from a range that widens step by step, so the set is asked
  // about numbers past its words, and grows, all through the run.
  const auto range = [](std::uint32_t step) {
    return std::min<std::uint32_t>(kMaxQps, 64 + 13 * step);
  };
  expect_agrees_with_an_ordered_set(
      9, [&](std::uint32_t step, std::mt19937& random) { return random() % range(step); },
      [&](std::uint32_t step, std::mt19937& random) { return random() % (2 * range(step)); });
}

TEST(LatencyHistogram, BinsByPowersOfTwoNanoseconds) {
  LatencyHistogram h;
  h.add(sc_core::sc_time(0.5, sc_core::SC_NS));  // below 1 ns
  h.add(sc_core::sc_time(1, sc_core::SC_NS));    // [1, 2)
  h.add(sc_core::sc_time(600, sc_core::SC_NS));  // [512, 1024)
  h.add(sc_core::sc_time(1023, sc_core::SC_NS));
  const nlohmann::json j = h.to_json();
  EXPECT_EQ(j["count"], 4);
  EXPECT_DOUBLE_EQ(j["min_ns"].get<double>(), 0.5);
  EXPECT_DOUBLE_EQ(j["max_ns"].get<double>(), 1023.0);
  EXPECT_DOUBLE_EQ(j["mean_ns"].get<double>(), (0.5 + 1 + 600 + 1023) / 4);
  const nlohmann::json bins = nlohmann::json::array({{{"below_ns", 1}, {"count", 1}},
                                                     {{"below_ns", 2}, {"count", 1}},
                                                     {{"below_ns", 1024}, {"count", 2}}});
  EXPECT_EQ(j["bins"], bins);
}

}  // namespace
}  // namespace rnicsim
