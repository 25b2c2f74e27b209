#pragma once
// The data-integrity covering set: every verb with every size class, every
// PMTU, 1 and 64 QPs. The full product runs under the ctest label "long";
// the default run takes an all-pairs selection of it, chosen greedily with
// the cheap points preferred, so every pair of values of two parameters
// (a verb with a PMTU, a size with 64 QPs, ...) is run at least once.
#include <cstdint>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "interface/verbs_types.hpp"

namespace rnicsim::testing {

enum class Verb { kWrite, kWriteImm, kSend, kSendImm, kRead, kCmpSwap, kFetchAdd };
// Size classes: fixed sizes and sizes around the PMTU. Atomics move 8 bytes
// and take only kAtomic8, which no other verb takes.
enum class SizeClass {
  k0,
  k1,
  k63,
  k64,
  kPmtuMinus1,
  kPmtu,
  kPmtuPlus1,
  k4096,
  k65537,
  k1MiBPlus3,
  k8MiB,
  kAtomic8
};

inline const std::vector<Verb> kVerbs{Verb::kWrite, Verb::kWriteImm, Verb::kSend,    Verb::kSendImm,
                                      Verb::kRead,  Verb::kCmpSwap,  Verb::kFetchAdd};
inline const std::vector<SizeClass> kSizeClasses{
    SizeClass::k0,          SizeClass::k1,         SizeClass::k63,        SizeClass::k64,
    SizeClass::kPmtuMinus1, SizeClass::kPmtu,      SizeClass::kPmtuPlus1, SizeClass::k4096,
    SizeClass::k65537,      SizeClass::k1MiBPlus3, SizeClass::k8MiB,      SizeClass::kAtomic8};
inline const std::vector<std::uint32_t> kPmtus{256, 512, 1024, 2048, 4096};
inline const std::vector<std::uint32_t> kQpCounts{1, 64};

struct IntegrityPoint {
  Verb verb;
  SizeClass size;
  std::uint32_t pmtu;
  std::uint32_t qps;
};

bool is_atomic(Verb verb);
bool valid(Verb verb, SizeClass size);
std::uint64_t message_bytes(SizeClass size, std::uint32_t pmtu);
// Messages each QP has in flight: three, fewer where 64 QPs of large
// messages would pass 256 MiB, at least one.
std::uint32_t messages_per_qp(const IntegrityPoint& point);

// A test name: Write_Pmtu1024_B65537_Qp64.
std::string point_name(const IntegrityPoint& point);

// Every valid point.
std::vector<IntegrityPoint> full_product();
// The pairs of parameter values a point covers, as (parameter pair, value, value).
std::set<std::tuple<int, int, int>> pairs_of(const IntegrityPoint& point);
// An all-pairs selection of full_product(), deterministic.
std::vector<IntegrityPoint> pairwise();

}  // namespace rnicsim::testing
