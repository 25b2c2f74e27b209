#include "system/rc_integrity_points.hpp"

#include <algorithm>
#include <cmath>

namespace rnicsim::testing {
namespace {

const char* verb_name(Verb verb) {
  switch (verb) {
    case Verb::kWrite:
      return "Write";
    case Verb::kWriteImm:
      return "WriteImm";
    case Verb::kSend:
      return "Send";
    case Verb::kSendImm:
      return "SendImm";
    case Verb::kRead:
      return "Read";
    case Verb::kCmpSwap:
      return "CmpSwap";
    case Verb::kFetchAdd:
      return "FetchAdd";
  }
  return "";
}

const char* size_name(SizeClass size) {
  switch (size) {
    case SizeClass::k0:
      return "B0";
    case SizeClass::k1:
      return "B1";
    case SizeClass::k63:
      return "B63";
    case SizeClass::k64:
      return "B64";
    case SizeClass::kPmtuMinus1:
      return "PmtuMinus1";
    case SizeClass::kPmtu:
      return "PmtuExactly";
    case SizeClass::kPmtuPlus1:
      return "PmtuPlus1";
    case SizeClass::k4096:
      return "B4096";
    case SizeClass::k65537:
      return "B65537";
    case SizeClass::k1MiBPlus3:
      return "MiB1Plus3";
    case SizeClass::k8MiB:
      return "MiB8";
    case SizeClass::kAtomic8:
      return "B8";
  }
  return "";
}

// Rough seconds of one point on this machine (plain build): a process with
// its set-up, about 100k packets and 150 MB of payload a second. Only the
// choice between points that cover as much uses it.
double cost(const IntegrityPoint& p) {
  const double bytes = message_bytes(p.size, p.pmtu);
  const double messages = static_cast<double>(p.qps) * messages_per_qp(p);
  const double packets = messages * std::max(1.0, std::ceil(bytes / p.pmtu));
  return 0.15 + 0.005 * p.qps + packets / 100e3 + messages * bytes / 150e6;
}

}  // namespace

bool is_atomic(Verb verb) { return verb == Verb::kCmpSwap || verb == Verb::kFetchAdd; }

bool valid(Verb verb, SizeClass size) { return is_atomic(verb) == (size == SizeClass::kAtomic8); }

std::uint64_t message_bytes(SizeClass size, std::uint32_t pmtu) {
  switch (size) {
    case SizeClass::k0:
      return 0;
    case SizeClass::k1:
      return 1;
    case SizeClass::k63:
      return 63;
    case SizeClass::k64:
      return 64;
    case SizeClass::kPmtuMinus1:
      return pmtu - 1;
    case SizeClass::kPmtu:
      return pmtu;
    case SizeClass::kPmtuPlus1:
      return pmtu + 1;
    case SizeClass::k4096:
      return 4096;
    case SizeClass::k65537:
      return 65537;
    case SizeClass::k1MiBPlus3:
      return (1u << 20) + 3;
    case SizeClass::k8MiB:
      return 8u << 20;
    case SizeClass::kAtomic8:
      return 8;
  }
  return 0;
}

std::uint32_t messages_per_qp(const IntegrityPoint& point) {
  const std::uint64_t bytes = message_bytes(point.size, point.pmtu);
  std::uint32_t n = 3;
  while (n > 1 && std::uint64_t{point.qps} * n * bytes > (256u << 20)) --n;
  return n;
}

std::string point_name(const IntegrityPoint& p) {
  return std::string(verb_name(p.verb)) + "_Pmtu" + std::to_string(p.pmtu) + "_" +
         size_name(p.size) + "_Qp" + std::to_string(p.qps);
}

std::vector<IntegrityPoint> full_product() {
  std::vector<IntegrityPoint> all;
  for (Verb verb : kVerbs)
    for (SizeClass size : kSizeClasses)
      for (std::uint32_t pmtu : kPmtus)
        for (std::uint32_t qps : kQpCounts)
          if (valid(verb, size)) all.push_back(IntegrityPoint{verb, size, pmtu, qps});
  return all;
}

std::set<std::tuple<int, int, int>> pairs_of(const IntegrityPoint& p) {
  const int values[4] = {static_cast<int>(p.verb), static_cast<int>(p.size),
                         static_cast<int>(p.pmtu), static_cast<int>(p.qps)};
  std::set<std::tuple<int, int, int>> pairs;
  int which = 0;
  for (int i = 0; i < 4; ++i)
    for (int j = i + 1; j < 4; ++j) pairs.emplace(which++, values[i], values[j]);
  return pairs;
}

std::vector<IntegrityPoint> pairwise() {
  const std::vector<IntegrityPoint> all = full_product();
  std::set<std::tuple<int, int, int>> uncovered;
  for (const IntegrityPoint& p : all) {
    const auto pairs = pairs_of(p);
    uncovered.insert(pairs.begin(), pairs.end());
  }
  // Greedy: the point covering the most pairs not yet covered, less half a
  // pair per second it costs, so 64 QPs of 8 MiB go where they are cheapest.
  std::vector<IntegrityPoint> chosen;
  while (!uncovered.empty()) {
    const IntegrityPoint* best = nullptr;
    double best_score = 0;
    for (const IntegrityPoint& p : all) {
      const auto pairs = pairs_of(p);
      std::size_t fresh = 0;
      for (const auto& pair : pairs) fresh += uncovered.count(pair);
      if (fresh == 0) continue;
      const double score = static_cast<double>(fresh) - cost(p) / 2;
      if (best == nullptr || score > best_score) {
        best = &p;
        best_score = score;
      }
    }
    for (const auto& pair : pairs_of(*best)) uncovered.erase(pair);
    chosen.push_back(*best);
  }
  return chosen;
}

}  // namespace rnicsim::testing
