#include "nic/dma/request_splitter_rtl.hpp"

#include <cstdint>
#include <sstream>
#include <stdexcept>
#include <string>

#include "Vrequest_splitter.h"
#include "nic/rtl_bridge/clocking.hpp"

namespace rnicsim::rtl_bridge {

namespace {

// The widest TLP budget the RTL's s_req_max_tlps_i carries.
constexpr std::uint32_t kMaxBudget = 0xFFFF;

class RtlSplitEngine final : public SplitEngine {
 public:
  explicit RtlSplitEngine(const TlpSizes& sizes) {
    top_.cfg_mps_bytes_i = static_cast<std::uint16_t>(sizes.mps_bytes);
    top_.cfg_mrrs_bytes_i = static_cast<std::uint16_t>(sizes.mrrs_bytes);
    top_.s_req_valid_i = 0;
    top_.m_tlp_ready_i = 0;
    reset(top_, 1);
    top_.m_tlp_ready_i = 1;  // the link never stalls the splitter
  }
  ~RtlSplitEngine() override { top_.final(); }
  const char* name() const override { return "rtl/request_splitter"; }

  SplitResult cut(const SplitRequest& request, std::vector<TlpCut>& cuts) override {
    if (request.length == 0 || request.max_tlps == 0 || request.max_tlps > kMaxBudget) {
      throw std::invalid_argument(
          "rtl/request_splitter takes 1 byte or more and a budget of 1 to " +
          std::to_string(kMaxBudget) + " TLPs: " + describe(request));
    }
    // The cycle that takes the request: the RTL is idle after the last one.
    top_.s_req_valid_i = 1;
    top_.s_req_write_i = request.write;
    top_.s_req_address_i = request.address;
    top_.s_req_length_i = request.length;
    top_.s_req_max_tlps_i = static_cast<std::uint16_t>(request.max_tlps);
    top_.clk_i = 0;
    top_.eval();
    if (!top_.s_req_ready_o) throw wrong_timing(request, "was not ready to take it");
    rise(top_);
    top_.s_req_valid_i = 0;
    SplitResult result{0, 1};
    // Then one TLP per cycle; at most the budget, so a stuck RTL cannot hang the run.
    for (std::uint32_t tlps = 0; tlps < request.max_tlps; ++tlps) {
      top_.clk_i = 0;
      top_.eval();
      if (!top_.m_tlp_valid_o) {
        throw wrong_timing(request, "offered no TLP in cycle " + std::to_string(result.cycles));
      }
      const TlpCut cut{top_.m_tlp_address_o, top_.m_tlp_length_o};
      const bool last = top_.m_tlp_last_o != 0;
      rise(top_);  // the TLP is taken at this edge
      cuts.push_back(cut);
      result.covered_bytes += cut.length;
      ++result.cycles;
      if (last) return result;
    }
    throw wrong_timing(request,
                       "marked none of its " + std::to_string(request.max_tlps) + " TLPs last");
  }

 private:
  static std::string describe(const SplitRequest& request) {
    std::ostringstream out;
    out << (request.write ? "write" : "read") << " of " << request.length << " bytes at 0x"
        << std::hex << request.address << std::dec << ", budget " << request.max_tlps << " TLPs";
    return out.str();
  }
  static std::logic_error wrong_timing(const SplitRequest& request, const std::string& what) {
    return std::logic_error("rtl/request_splitter " + what + " (" + describe(request) +
                            "), not one TLP per cycle after the cycle that takes a request");
  }

  Vrequest_splitter top_;
};

}  // namespace

std::unique_ptr<SplitEngine> make_split_engine(BlockImpl impl, const TlpSizes& sizes) {
  if (impl == BlockImpl::kModel) return make_model_split_engine(sizes);
  return std::make_unique<RtlSplitEngine>(sizes);
}

}  // namespace rnicsim::rtl_bridge
