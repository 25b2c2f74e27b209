#pragma once
// The NIC's reaction point: a RateLimiter block (rate_limiter.hpp) with a
// slot for each QP from its first CNP, and a calendar of the times paced QPs
// may send again, so that the QP scheduler sleeps until the earliest of them
// with one event, not one per QP per packet.
//
// Kernel-free: times are picoseconds the caller gives, never earlier than
// the last call's. A QP gets a limiter at its first CNP; until then, and
// once its rate is back at line rate, it is not paced.
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <queue>
#include <utility>
#include <vector>

#include "common/block_impl.hpp"
#include "nic/congestion/rate_limiter.hpp"

namespace rnicsim {

struct ReactionPointStats {
  std::uint64_t rp_cnp_handled = 0;  // CNPs that cut a QP's rate (mlx5's name)
  std::uint64_t rp_cnp_ignored = 0;  // CNPs that did not: within the monitor period, or no such QP
};

class RateLimiters {
 public:
  // `impl`: the model's block or rtl/rate_limiter's.
  explicit RateLimiters(const DcqcnParameters& parameters, BlockImpl impl = BlockImpl::kModel);
  RateLimiters(const RateLimiters&) = delete;
  RateLimiters& operator=(const RateLimiters&) = delete;

  bool enabled() const { return parameters_.preset != DcqcnPreset::kOff; }
  const DcqcnParameters& parameters() const { return parameters_; }

  // A CNP for QP `qpn` at `now_ps`; `qp_exists` false for a QP the NIC does
  // not have (ignored). Whether it cut the rate. Throws std::length_error
  // when the QP needs a slot and the block has none left.
  bool cnp(std::uint32_t qpn, bool qp_exists, std::uint64_t now_ps);
  // When QP `qpn` may send its next packet: at or before `now_ps` if now.
  std::uint64_t next_send_ps(std::uint32_t qpn) const {
    if (slots_.empty()) return 0;
    const auto it = slots_.find(qpn);
    return it == slots_.end() ? 0 : next_send_ps_[it->second];
  }
  // QP `qpn` sent a packet of `wire_bytes` (preamble and gap included) at
  // `now_ps`: its byte counter moves and, while it is limited, its next
  // packet waits wire_bytes at its rate.
  void sent(std::uint32_t qpn, std::uint64_t wire_bytes, std::uint64_t now_ps);
  // The earliest time after `now_ps` a paced QP may send again; 0 if none.
  std::uint64_t next_wake_ps(std::uint64_t now_ps);
  // Calls visit(qpn, state) for each QP that has a limiter, in QP order, as
  // of `now_ps` (their timers run first, which changes nothing they do).
  template <typename Visit>
  void each_limiter(std::uint64_t now_ps, Visit&& visit) {
    for (const auto& [qpn, slot] : slots_) {
      visit(qpn, static_cast<const RateLimiterState&>(block_->look(slot, now_ps)));
    }
  }

  const ReactionPointStats& stats() const { return stats_; }

 private:
  using Wake = std::pair<std::uint64_t, std::uint32_t>;  // (time, QP)

  DcqcnParameters parameters_;
  std::unique_ptr<RateLimiter> block_;  // made at the first CNP
  BlockImpl impl_;
  std::map<std::uint32_t, std::uint32_t> slots_;  // QP -> its slot in the block
  std::vector<std::uint64_t> next_send_ps_;       // per slot, as the block last said
  std::priority_queue<Wake, std::vector<Wake>, std::greater<Wake>> calendar_;
  ReactionPointStats stats_;
};

}  // namespace rnicsim
