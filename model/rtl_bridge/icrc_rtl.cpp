#include "rtl_bridge/icrc_rtl.hpp"

#include <algorithm>
#include <cstdint>
#include <stdexcept>
#include <string>

#include "Vicrc_w64.h"
#include "Vicrc_w8.h"
#include "rtl_bridge/clocking.hpp"
#include "rtl_bridge/verilated_ports.hpp"

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

  packet::IcrcVerdict examine(const std::uint8_t* frame, std::size_t length) override {
    if (length == 0) throw std::invalid_argument("rtl/icrc: an empty frame has no beat to send");
    const std::uint64_t beats = (length + kDataBytes - 1) / kDataBytes;
    std::size_t offset = 0;
    for (std::uint64_t cycles = 0; cycles <= beats; ++cycles) {
      const std::size_t lanes = std::min(kDataBytes, length - offset);
      top_.s_frame_tvalid_i = offset < length;
      set_bytes(top_.s_frame_tdata_i, frame + offset, lanes);
      set_low_ones(top_.s_frame_tkeep_i, lanes);
      top_.s_frame_tlast_i = offset + lanes == length;
      top_.clk_i = 0;
      top_.eval();
      if (top_.m_result_valid_o) {
        const packet::IcrcVerdict verdict{top_.m_result_roce_o != 0, top_.m_result_icrc_o,
                                          top_.m_result_match_o != 0};
        top_.s_frame_tvalid_i = 0;
        rise(top_);  // the result is taken at this edge
        if (cycles != beats) throw wrong_timing(length, std::to_string(cycles) + " cycles");
        return verdict;
      }
      if (top_.s_frame_tvalid_i && top_.s_frame_tready_o) offset += lanes;
      rise(top_);
    }
    throw wrong_timing(length, "more cycles");
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
