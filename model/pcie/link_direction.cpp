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

sc_core::sc_time LinkDirection::wire_time(std::uint32_t wire_bytes) const {
  if (wire_bytes < wire_times_.size()) return wire_times_[wire_bytes];
  return serialization_time(8ULL * wire_bytes, gbps_);
}

void LinkDirection::forget_before(const sc_core::sc_time& now) {
  while (first_ < busy_.size() && busy_[first_].end <= now) ++first_;
  // Compact once the stale half dominates: amortized constant, and the
  // vector's capacity is reused, so steady state allocates nothing.
  if (first_ > 0 && 2 * first_ >= busy_.size()) {
    busy_.erase(busy_.begin(), busy_.begin() + static_cast<std::ptrdiff_t>(first_));
    first_ = 0;
  }
}

void LinkDirection::insert(std::size_t at, const sc_core::sc_time& start,
                           const sc_core::sc_time& duration) {
  const sc_core::sc_time end = start + duration;
  const bool joins_previous = at > first_ && busy_[at - 1].end == start;
  const bool joins_next = at < busy_.size() && busy_[at].start == end;
  if (joins_previous && joins_next) {
    busy_[at - 1].end = busy_[at].end;
    busy_.erase(busy_.begin() + static_cast<std::ptrdiff_t>(at));
  } else if (joins_previous) {
    busy_[at - 1].end = end;
  } else if (joins_next) {
    busy_[at].start = start;
  } else {
    busy_.insert(busy_.begin() + static_cast<std::ptrdiff_t>(at), Busy{start, end});
  }
  stats_.busy += duration;
}

LinkDirection::Slot LinkDirection::send_tlps(std::uint32_t tlps, std::uint64_t wire_bytes,
                                             const sc_core::sc_time& duration,
                                             const sc_core::sc_time& earliest,
                                             const sc_core::sc_time& now) {
  forget_before(now);
  sc_core::sc_time start = std::max(earliest, now);
  // The first stretch still busy after `start`, then the first gap that fits.
  auto it = std::upper_bound(busy_.begin() + static_cast<std::ptrdiff_t>(first_), busy_.end(),
                             start, [](const sc_core::sc_time& t, const Busy& b) { return t < b.end; });
  for (; it != busy_.end() && it->start < start + duration; ++it) start = std::max(start, it->end);
  insert(static_cast<std::size_t>(it - busy_.begin()), start, duration);
  stats_.tlps += tlps;
  stats_.tlp_bytes += wire_bytes;
  return Slot{start, start + duration, start + duration + latency_};
}

void LinkDirection::send_dllps(std::uint32_t count, std::uint32_t wire_bytes,
                               const sc_core::sc_time& at, const sc_core::sc_time& now) {
  if (count == 0) return;
  forget_before(now);
  const sc_core::sc_time duration = wire_time(wire_bytes) * static_cast<double>(count);
  const sc_core::sc_time start =
      busy_.size() > first_ ? std::max(std::max(at, now), busy_.back().end) : std::max(at, now);
  insert(busy_.size(), start, duration);
  stats_.dllps += count;
}

}  // namespace rnicsim::pcie
