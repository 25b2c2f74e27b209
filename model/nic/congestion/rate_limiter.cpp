#include "nic/congestion/rate_limiter.hpp"

#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace rnicsim {
namespace {

class ModelRateLimiter final : public RateLimiter {
 public:
  ModelRateLimiter(const DcqcnParameters& parameters, std::size_t slots)
      : parameters_(parameters), slots_(slots) {}
  const char* name() const override { return "model"; }
  std::size_t slots() const override { return slots_; }

  RateLimiterState open(std::uint32_t slot, std::uint64_t now_ps) override {
    if (slot >= slots_) throw std::out_of_range("rate limiter: no slot " + std::to_string(slot));
    if (slot >= qps_.size()) qps_.resize(slot + 1);
    qps_[slot].emplace(Qp{ReactionPoint(parameters_), now_ps});
    return state(*qps_[slot], false);
  }
  RateLimiterState cnp(std::uint32_t slot, std::uint64_t now_ps) override {
    Qp& qp = at(slot);
    const bool cut = qp.rp.cnp(now_ps);
    return state(qp, cut);
  }
  RateLimiterState sent(std::uint32_t slot, std::uint64_t wire_bytes,
                        std::uint64_t now_ps) override {
    Qp& qp = at(slot);
    qp.rp.sent(wire_bytes, now_ps);
    if (qp.rp.active()) {
      const std::uint64_t from = time_reached(qp.next_send_ps, now_ps) ? now_ps : qp.next_send_ps;
      qp.next_send_ps = from + pacing_ps(wire_bytes, qp.rp.rate_bps());
    }
    return state(qp, false);
  }
  RateLimiterState look(std::uint32_t slot, std::uint64_t now_ps) override {
    Qp& qp = at(slot);
    qp.rp.advance(now_ps);
    return state(qp, false);
  }
  void load(std::uint32_t slot, const RateLimiterSlot& state) override {
    open(slot, 0);
    qps_[slot]->rp.load(state.reaction_point);
    qps_[slot]->next_send_ps = state.next_send_ps;
  }

 private:
  struct Qp {
    ReactionPoint rp;
    std::uint64_t next_send_ps;
  };

  Qp& at(std::uint32_t slot) {
    if (slot >= qps_.size() || !qps_[slot]) {
      throw std::logic_error("rate limiter: slot " + std::to_string(slot) + " was never opened");
    }
    return *qps_[slot];
  }
  static RateLimiterState state(const Qp& qp, bool cut) {
    return slot_answer(qp.rp.state(), qp.next_send_ps, cut);
  }

  const DcqcnParameters parameters_;  // the ReactionPoints hold a reference
  std::size_t slots_;
  std::vector<std::optional<Qp>> qps_;
};

}  // namespace

std::unique_ptr<RateLimiter> make_model_rate_limiter(const DcqcnParameters& parameters,
                                                     std::size_t slots) {
  return std::make_unique<ModelRateLimiter>(parameters, slots);
}

}  // namespace rnicsim
