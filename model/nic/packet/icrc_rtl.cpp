#include "nic/packet/icrc_rtl.hpp"

#include <cstdint>
#include <stdexcept>
#include <string>

#include "Vicrc_w64.h"
#include "Vicrc_w8.h"
#include "nic/rtl_bridge/clocking.hpp"
#include "nic/rtl_bridge/frame_stream.hpp"

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
    packet::IcrcVerdict verdict;
    answer_the_cycle_after_the_last_beat<kDataBytes>(
        top_, "rtl/icrc", "ICRC stage", frame, length, [&verdict](Top& top) {
          if (!top.m_result_valid_o) return false;
          verdict = {top.m_result_roce_o != 0, top.m_result_icrc_o, top.m_result_match_o != 0};
          return true;
        });
    return verdict;
  }

 private:
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
