#pragma once
// LatencyHistogram: how long events of one kind took (a cache miss's
// context read, a table walk), in power-of-two nanosecond bins, with the
// count, sum, least and most. Cheap to add to on the hot path; written to
// perf.json as {"count", "mean_ns", "min_ns", "max_ns", "bins": [{"below_ns",
// "count"}...]}.
#include <array>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <systemc>

#include "common/time_units.hpp"

namespace rnicsim {

class LatencyHistogram {
 public:
  // Bin b holds [2^(b-1), 2^b) ns (bin 0: below 1 ns); the last one is open.
  static constexpr std::size_t kBins = 32;

  void add(const sc_core::sc_time& latency) {
    const std::uint64_t ps = to_ps(latency);
    const std::uint64_t ns = ps / 1000;
    std::size_t bin = 0;
    while (bin + 1 < kBins && (std::uint64_t{1} << bin) <= ns) ++bin;
    ++bins_[bin];
    ++count_;
    sum_ps_ += ps;
    if (count_ == 1 || ps < min_ps_) min_ps_ = ps;
    if (ps > max_ps_) max_ps_ = ps;
  }

  std::uint64_t count() const { return count_; }

  nlohmann::json to_json() const {
    nlohmann::json bins = nlohmann::json::array();
    for (std::size_t b = 0; b < kBins; ++b) {
      if (bins_[b] == 0) continue;
      bins.push_back({{"below_ns", std::uint64_t{1} << b}, {"count", bins_[b]}});
    }
    const double mean =
        count_ == 0 ? 0.0 : static_cast<double>(sum_ps_) / 1000.0 / static_cast<double>(count_);
    return {{"count", count_},
            {"mean_ns", mean},
            {"min_ns", static_cast<double>(min_ps_) / 1000.0},
            {"max_ns", static_cast<double>(max_ps_) / 1000.0},
            {"bins", bins}};
  }

 private:
  std::array<std::uint64_t, kBins> bins_{};
  std::uint64_t count_ = 0;
  std::uint64_t sum_ps_ = 0;
  std::uint64_t min_ps_ = 0;
  std::uint64_t max_ps_ = 0;
};

}  // namespace rnicsim
