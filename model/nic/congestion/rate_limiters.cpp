#include "nic/congestion/rate_limiters.hpp"

#include <limits>
#include <stdexcept>
#include <string>

namespace rnicsim {

RateLimiters::RateLimiters(const DcqcnParameters& parameters, BlockImpl impl)
    : parameters_(parameters), impl_(impl) {}

bool RateLimiters::cnp(std::uint32_t qpn, bool qp_exists, std::uint64_t now_ps) {
  if (!enabled() || !qp_exists) {
    ++stats_.rp_cnp_ignored;
    return false;
  }
  if (!block_) {
    block_ = impl_ == BlockImpl::kRtl
                 ? make_rtl_rate_limiter(parameters_)
                 : make_model_rate_limiter(parameters_, std::numeric_limits<std::uint32_t>::max());
  }
  auto it = slots_.find(qpn);
  if (it == slots_.end()) {
    // Slots are never given back: the block holds the QPs that ever got a CNP.
    if (slots_.size() >= block_->slots()) {
      throw std::length_error("dcqcn.impl " + std::string(block_->name()) +
                              ": the rate-limiter block holds " + std::to_string(block_->slots()) +
                              " QPs, and QP " + std::to_string(qpn) + " is one more to get a CNP");
    }
    const auto slot = static_cast<std::uint32_t>(slots_.size());
    it = slots_.emplace(qpn, slot).first;
    next_send_ps_.push_back(block_->open(slot, now_ps).next_send_ps);
  }
  const bool cut = block_->cnp(it->second, now_ps).cut;
  ++(cut ? stats_.rp_cnp_handled : stats_.rp_cnp_ignored);
  return cut;
}

void RateLimiters::sent(std::uint32_t qpn, std::uint64_t wire_bytes, std::uint64_t now_ps) {
  if (slots_.empty()) return;
  const auto it = slots_.find(qpn);
  if (it == slots_.end()) return;
  const RateLimiterState state = block_->sent(it->second, wire_bytes, now_ps);
  if (!state.active) return;
  next_send_ps_[it->second] = state.next_send_ps;
  calendar_.emplace(state.next_send_ps, qpn);
}

std::uint64_t RateLimiters::next_wake_ps(std::uint64_t now_ps) {
  while (!calendar_.empty() && calendar_.top().first <= now_ps) calendar_.pop();
  return calendar_.empty() ? 0 : calendar_.top().first;
}

}  // namespace rnicsim
