#include "nic/congestion/rate_limiters.hpp"

#include <algorithm>
#include <cmath>

namespace rnicsim {

RateLimiters::RateLimiters(const DcqcnParameters& parameters) : parameters_(parameters) {}

bool RateLimiters::cnp(std::uint32_t qpn, bool qp_exists, std::uint64_t now_ps) {
  if (!enabled() || !qp_exists) {
    ++stats_.rp_cnp_ignored;
    return false;
  }
  Limiter& limiter = limiters_.try_emplace(qpn, parameters_).first->second;
  const bool cut = limiter.rp.cnp(now_ps);
  ++(cut ? stats_.rp_cnp_handled : stats_.rp_cnp_ignored);
  return cut;
}

void RateLimiters::sent(std::uint32_t qpn, std::uint64_t wire_bytes, std::uint64_t now_ps) {
  if (limiters_.empty()) return;
  const auto it = limiters_.find(qpn);
  if (it == limiters_.end()) return;
  Limiter& limiter = it->second;
  limiter.rp.sent(wire_bytes, now_ps);
  if (!limiter.rp.active()) return;
  // The next packet waits this one's bits at the current rate, from when it
  // left or from when it could have left, whichever is later (no credit for
  // idle time beyond one packet).
  const double ps = std::ceil(static_cast<double>(wire_bytes) * 8e12 / limiter.rp.rate_bps());
  limiter.next_send_ps = std::max(now_ps, limiter.next_send_ps) + static_cast<std::uint64_t>(ps);
  calendar_.emplace(limiter.next_send_ps, qpn);
}

std::uint64_t RateLimiters::next_wake_ps(std::uint64_t now_ps) {
  while (!calendar_.empty() && calendar_.top().first <= now_ps) calendar_.pop();
  return calendar_.empty() ? 0 : calendar_.top().first;
}

}  // namespace rnicsim
