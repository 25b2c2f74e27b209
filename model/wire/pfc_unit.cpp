#include "wire/pfc_unit.hpp"

#include <algorithm>
#include <array>
#include <cmath>

#include "common/time_units.hpp"
#include "formats/mac_control.hpp"

namespace rnicsim {

namespace {

class ModelPfcUnit final : public PfcUnit {
 public:
  ModelPfcUnit(const PfcConfig& config, double gbps, const packet::MacAddress& source)
      : config_(config),
        lossless_(lossless_priorities(config)),
        refresh_ps_(pause_ps(config.refresh_quanta, gbps)),
        gbps_(gbps),
        source_(source) {}

  const char* name() const override { return "model"; }

  PfcReceived receive(const std::uint8_t* frame, std::size_t length,
                      std::uint64_t now_ps) override {
    now_ = now_ps;
    PfcReceived received;
    received.control = packet::is_mac_control(frame, length);
    if (received.control) {
      if (const std::optional<packet::PfcPause> pause = packet::decode_pfc(frame, length)) {
        apply(*pause, received);
      }
    }
    fire_refresh();
    return received;
  }

  void buffer_level(std::uint8_t priorities, std::uint64_t bytes, std::uint64_t now_ps) override {
    now_ = now_ps;
    const std::uint8_t lossless = priorities & lossless_;
    const bool pause = bytes > config_.xoff_bytes;
    std::uint8_t changing = 0;
    if (pause) {
      changing = static_cast<std::uint8_t>(lossless & ~congested_);
    } else if (bytes <= config_.xon_bytes) {
      changing = static_cast<std::uint8_t>(lossless & congested_);
    }
    if (changing != 0) {
      const bool was_quiet = congested_ == 0;
      congested_ =
          static_cast<std::uint8_t>(pause ? congested_ | changing : congested_ & ~changing);
      build_frame(changing, pause);
      // A refresh already armed (from an earlier congestion) stays as it is.
      if (pause && was_quiet && !refresh_armed_) {
        refresh_armed_ = true;
        refresh_at_ = now_ + refresh_ps_;
      }
    }
    fire_refresh();
  }

  void advance(std::uint64_t now_ps) override {
    now_ = now_ps;
    fire_refresh();
  }

  std::uint8_t paused() const override {
    std::uint8_t mask = 0;
    for (unsigned p = 0; p < packet::kPfcPriorities; ++p) {
      if (until_[p] > now_) mask = static_cast<std::uint8_t>(mask | (1u << p));
    }
    return mask;
  }
  std::uint64_t resume_in_ps() const override {
    std::uint64_t first = 0;
    for (const std::uint64_t until : until_) {
      if (until > now_ && (first == 0 || until - now_ < first)) first = until - now_;
    }
    return first;
  }
  std::uint64_t refresh_in_ps() const override { return refresh_armed_ ? refresh_at_ - now_ : 0; }
  std::uint8_t congested() const override { return congested_; }
  std::uint64_t paused_ps(unsigned p, std::uint64_t now_ps) const override {
    return closed_[p] + (std::min(until_[p], now_ps) - std::min(since_[p], now_ps));
  }
  void load_paused_ps(unsigned p, std::uint64_t ps) override {
    closed_[p] = ps - (std::min(until_[p], now_) - std::min(since_[p], now_));  // modulo 2^64
  }

 private:
  void apply(const packet::PfcPause& pause, PfcReceived& received) {
    for (unsigned p = 0; p < packet::kPfcPriorities; ++p) {
      const auto bit = static_cast<std::uint8_t>(1u << p);
      if (!(pause.enabled & lossless_ & bit)) continue;
      (pause.quanta[p] == 0 ? received.resumes : received.pauses) |= bit;
      // The running pause, if any, ends now and is replaced.
      closed_[p] += std::min(until_[p], now_) - since_[p];
      since_[p] = now_;
      until_[p] = now_ + pause_ps(pause.quanta[p], gbps_);
    }
  }

  void fire_refresh() {
    if (!refresh_armed_ || refresh_at_ > now_) return;
    if (congested_ == 0) {
      refresh_armed_ = false;
      return;
    }
    build_frame(congested_, true);
    refresh_at_ = now_ + refresh_ps_;
  }

  void build_frame(std::uint8_t priorities, bool pause) {
    packet::PfcPause frame;
    frame.enabled = priorities;
    for (unsigned p = 0; p < packet::kPfcPriorities; ++p) {
      if ((priorities >> p) & 1u) frame.quanta[p] = pause ? config_.pause_quanta : 0;
    }
    frames_.push_back(packet::encode_pfc(source_, frame));
  }

  PfcConfig config_;
  std::uint8_t lossless_;
  std::uint64_t refresh_ps_;
  double gbps_;
  packet::MacAddress source_;
  std::uint64_t now_ = 0;
  std::array<std::uint64_t, packet::kPfcPriorities> until_{};
  std::array<std::uint64_t, packet::kPfcPriorities> since_{};
  std::array<std::uint64_t, packet::kPfcPriorities> closed_{};  // paused time of past pauses
  std::uint8_t congested_ = 0;
  bool refresh_armed_ = false;
  std::uint64_t refresh_at_ = 0;
};

}  // namespace

std::uint64_t pause_ps(std::uint32_t quanta, double gbps) {
  return to_ps(serialization_time(std::uint64_t{quanta} * packet::kBitTimesPerQuantum, gbps));
}

std::optional<std::uint64_t> whole_quantum_ps(double gbps) {
  const long double ps = static_cast<long double>(packet::kBitTimesPerQuantum) * 1000.0L / gbps;
  const long double nearest = std::round(ps);
  if (std::fabs(ps - nearest) > 1e-9L || nearest < 1) return std::nullopt;
  // The model's pauses must be that many picoseconds a quantum up to the
  // longest: a rate that is not a binary fraction leaves a remainder that
  // 65535 quanta can round up.
  const auto quantum = static_cast<std::uint64_t>(nearest);
  if (pause_ps(0xFFFF, gbps) != 0xFFFF * quantum) return std::nullopt;
  return quantum;
}

std::unique_ptr<PfcUnit> make_model_pfc_unit(const PfcConfig& config, double gbps,
                                             const packet::MacAddress& source) {
  return std::make_unique<ModelPfcUnit>(config, gbps, source);
}

}  // namespace rnicsim
