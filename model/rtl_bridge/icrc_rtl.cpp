#include "rtl_bridge/icrc_rtl.hpp"

#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>

#include "Vicrc_w64.h"
#include "Vicrc_w8.h"
#include "rtl_bridge/clocking.hpp"
#include "rtl_bridge/frame_stream.hpp"

namespace rnicsim::rtl_bridge {

namespace {

template <typename Top, std::size_t kDataBytes>
class RtlIcrcEngine final : public packet::IcrcEngine {
 public:
  RtlIcrcEngine() {
    top_.s_frame_tvalid_i = 0;
    top_.m_result_ready_i = 0;
    reset(top_, 1);
    top_.m_result_ready_i = 1;
  }
  ~RtlIcrcEngine() override { top_.final(); }
  const char* name() const override { return "rtl/icrc"; }

  packet::IcrcVerdict examine(const std::uint8_t* frame, std::size_t length) override {
    if (length == 0) throw std::invalid_argument("rtl/icrc: an empty frame has no beat to send");
    const std::uint64_t beats = (length + kDataBytes - 1) / kDataBytes;
    packet::IcrcVerdict verdict;
    const std::optional<std::uint64_t> cycle =
        clock_frame_through<kDataBytes>(top_, frame, length, beats, [&verdict](Top& top) {
          if (!top.m_result_valid_o) return false;
          verdict = {top.m_result_roce_o != 0, top.m_result_icrc_o, top.m_result_match_o != 0};
          return true;
        });
    if (!cycle) throw wrong_timing(length, "more cycles");
    if (*cycle != beats) throw wrong_timing(length, std::to_string(*cycle) + " cycles");
    return verdict;
  }

 private:
  static std::logic_error wrong_timing(std::size_t length, const std::string& took) {
    const std::uint64_t beats = (length + kDataBytes - 1) / kDataBytes;
    return std::logic_error("rtl/icrc (" + std::to_string(kDataBytes) +
                            " bytes per cycle) answered a " + std::to_string(length) +
                            "-byte frame after " + took + ", not the " + std::to_string(beats) +
                            " the ICRC stage charges");
  }

  Top top_;
};

}  // namespace

std::unique_ptr<packet::IcrcEngine> make_icrc_engine(BlockImpl impl,
                                                     std::uint64_t bytes_per_cycle) {
  if (impl == BlockImpl::kModel) return packet::make_model_icrc_engine();
  switch (bytes_per_cycle) {
    case 8:
      return std::make_unique<RtlIcrcEngine<Vicrc_w8, 8>>();
    case 64:
      return std::make_unique<RtlIcrcEngine<Vicrc_w64, 64>>();
    default:
      throw std::invalid_argument("rtl/icrc is not verilated at " +
                                  std::to_string(bytes_per_cycle) + " bytes per cycle");
  }
}

}  // namespace rnicsim::rtl_bridge
