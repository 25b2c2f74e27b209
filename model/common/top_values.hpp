#pragma once
// TopValues: an exact high percentile (p99, p99.9) of a long stream of
// samples, in memory bounded by the share of samples above it.
//
// The p-th percentile of n samples is the one of rank ceil(p x n) in
// ascending order (nearest rank), i.e. the k-th largest with
// k = n - ceil(p x n) + 1. Keeping the `capacity` largest samples seen is
// enough for every percentile whose k fits: for p99 that is 1% of the samples
// (plus one), however many there are, instead of all of them.
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <queue>
#include <stdexcept>
#include <vector>

namespace rnicsim {

class TopValues {
 public:
  explicit TopValues(std::size_t capacity) : capacity_(capacity) {}

  // The capacity that serves percentile p of up to max_samples samples (one
  // spare for the rounding of p x n).
  static std::size_t capacity_for(double p, std::uint64_t max_samples) {
    return static_cast<std::size_t>(max_samples - rank(p, max_samples) + 2);
  }

  void add(double sample) {
    ++count_;
    if (largest_.size() < capacity_) {
      largest_.push(sample);
    } else if (capacity_ > 0 && sample > largest_.top()) {
      largest_.pop();
      largest_.push(sample);
    }
  }

  std::uint64_t count() const { return count_; }

  // The nearest-rank percentile p (0 < p <= 1) of the samples added. Throws
  // std::logic_error when there are none or the capacity cannot serve it.
  double percentile(double p) const {
    if (count_ == 0) throw std::logic_error("percentile of no samples");
    const std::uint64_t k = count_ - rank(p, count_) + 1;
    if (k > largest_.size()) throw std::logic_error("TopValues too small for this percentile");
    std::vector<double> kept;
    kept.reserve(largest_.size());
    for (auto copy = largest_; !copy.empty(); copy.pop()) kept.push_back(copy.top());
    // `kept` is ascending; the k-th largest is k from its end.
    return kept[kept.size() - static_cast<std::size_t>(k)];
  }

 private:
  // 1-based nearest rank, at least 1.
  static std::uint64_t rank(double p, std::uint64_t n) {
    const auto r = static_cast<std::uint64_t>(std::ceil(p * static_cast<double>(n)));
    return std::max<std::uint64_t>(r, 1);
  }

  std::size_t capacity_;
  std::uint64_t count_ = 0;
  std::priority_queue<double, std::vector<double>, std::greater<double>> largest_;  // min on top
};

}  // namespace rnicsim
