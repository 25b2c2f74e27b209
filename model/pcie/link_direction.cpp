#include "pcie/link_direction.hpp"

#include <algorithm>

#include "common/time_units.hpp"

namespace rnicsim::pcie {

namespace {
constexpr std::uint32_t kTabulatedWireBytes = 4096 + 32;
}  // namespace

LinkDirection::LinkDirection(double gbps, const sc_core::sc_time& latency)
    : gbps_(gbps), latency_(latency) {
  wire_times_.reserve(kTabulatedWireBytes + 1);
  for (std::uint32_t bytes = 0; bytes <= kTabulatedWireBytes; ++bytes) {
    wire_times_.push_back(serialization_time(8ULL * bytes, gbps_));
  }
}

sc_core::sc_time LinkDirection::wire_time_of(std::uint32_t wire_bytes) const {
  return serialization_time(8ULL * wire_bytes, gbps_);
}

sc_core::sc_time LinkDirection::bits_time(std::uint64_t bits) const {
  return serialization_time(bits, gbps_);
}

void LinkDirection::forget_before(std::uint64_t now) {
  if (first_ == busy_.size() || busy_[first_].end > now) return;  // nothing has ended
  while (first_ < busy_.size() && busy_[first_].end <= now) ++first_;
  // Compact once the stale half dominates: amortized constant, and the
  // vector's capacity is reused, so steady state allocates nothing.
  if (first_ > 0 && 2 * first_ >= busy_.size()) {
    busy_.erase(busy_.begin(), busy_.begin() + static_cast<std::ptrdiff_t>(first_));
    first_ = 0;
  }
}

std::size_t LinkDirection::first_busy_after(std::uint64_t t) const {
  const auto it =
      std::upper_bound(busy_.begin() + static_cast<std::ptrdiff_t>(first_), busy_.end(), t,
                       [](std::uint64_t time, const Busy& b) { return time < b.end; });
  return static_cast<std::size_t>(it - busy_.begin());
}

void LinkDirection::place(std::size_t from, std::size_t to, std::uint64_t start,
                          std::uint64_t end, bool dllps_only) {
  Busy merged{start, end, dllps_only};
  if (from > first_ && busy_[from - 1].end == start) {
    --from;
    merged.start = busy_[from].start;
    merged.dllps_only = merged.dllps_only && busy_[from].dllps_only;
  }
  if (to < busy_.size() && busy_[to].start == end) {
    merged.end = busy_[to].end;
    merged.dllps_only = merged.dllps_only && busy_[to].dllps_only;
    ++to;
  }
  if (from == to) {
    busy_.insert(busy_.begin() + static_cast<std::ptrdiff_t>(from), merged);
  } else {
    busy_[from] = merged;
    busy_.erase(busy_.begin() + static_cast<std::ptrdiff_t>(from + 1),
                busy_.begin() + static_cast<std::ptrdiff_t>(to));
  }
}

LinkDirection::Slot LinkDirection::send_among_booked(std::uint32_t tlps, std::uint64_t wire_bytes,
                                                     const sc_core::sc_time& duration,
                                                     const sc_core::sc_time& first,
                                                     const sc_core::sc_time& now) {
  forget_before(now.value());
  const std::uint64_t length = duration.value();
  std::uint64_t start = first.value();
  std::size_t i = first_busy_after(start);
  for (;;) {
    if (i < busy_.size() && busy_[i].start <= start) {  // the wire is busy at `start`
      start = busy_[i++].end;
      continue;
    }
    // From `start` the TLPs run until a booked TLP is in their way; booked
    // DLLPs among them go between them, and they end that much later.
    std::uint64_t end = start + length;
    std::size_t j = i;
    while (j < busy_.size() && busy_[j].start < end && busy_[j].dllps_only) {
      end += busy_[j].end - busy_[j].start;
      ++j;
    }
    if (j == busy_.size() || busy_[j].start >= end) {
      place(i, j, start, end, false);
      count(tlps, wire_bytes, duration);
      const sc_core::sc_time last = sc_core::sc_time::from_value(end);
      return Slot{sc_core::sc_time::from_value(start), last, last + latency_};
    }
    start = busy_[j].end;
    i = j + 1;
  }
}

bool LinkDirection::send_train(std::uint32_t tlps, std::uint32_t wire_bytes,
                               const sc_core::sc_time& duration, const sc_core::sc_time& earliest,
                               const sc_core::sc_time& now, Slot& first) {
  const sc_core::sc_time& ready = std::max(earliest, now);
  if (!behind_all_booked(ready.value())) return false;
  // The first goes as send_tlps() would send it; each next one is then ready
  // when the one before ends, where the last stretch ends, and goes there.
  const sc_core::sc_time start = start_behind_all_booked(ready);
  const sc_core::sc_time all = sc_core::sc_time::from_value(duration.value() * tlps);
  append(start.value(), (start + all).value(), false, now.value());
  count(tlps, std::uint64_t{wire_bytes} * tlps, all);
  const sc_core::sc_time end = start + duration;
  first = Slot{start, end, end + latency_};
  return true;
}

void LinkDirection::send_dllps(std::uint32_t count, std::uint32_t wire_bytes,
                               const sc_core::sc_time& at, const sc_core::sc_time& now) {
  if (count == 0) return;
  forget_before(now.value());
  const sc_core::sc_time duration = wire_time(wire_bytes) * static_cast<double>(count);
  const std::uint64_t length = duration.value();
  std::uint64_t start = std::max(at, now).value();
  if (nothing_booked_after(start)) {
    append(start, start + length, true, now.value());
  } else {
    std::size_t i = first_busy_after(start);
    for (; i < busy_.size() && busy_[i].start < start + length; ++i) {
      start = std::max(start, busy_[i].end);
    }
    place(i, i, start, start + length, true);
  }
  stats_.busy += duration;
  stats_.dllps += count;
}

const StatisticsTable<LinkDirectionStats>& link_direction_statistics() {
  static const StatisticsTable<LinkDirectionStats> table(
      "pcie_direction",
      {
       {"tlps", "TLPs", &LinkDirectionStats::tlps,
        "TLPs carried"},
       {"tlp_bytes", "bytes", &LinkDirectionStats::tlp_bytes,
        "TLP bytes on the wire, framing included"},
       {"dllps", "DLLPs", &LinkDirectionStats::dllps,
        "DLLPs (ACKs, flow-control updates) carried"},
       {"busy_ns", &LinkDirectionStats::busy,
        "time the direction carried something"},
      });
  return table;
}

}  // namespace rnicsim::pcie
