#pragma once
// RequestSplitter: between the DMA engine and the PCIe link, cuts a window of
// a DMA request into TLPs (reads at MRRS, writes at MPS, never across 4 KiB)
// and hands the list to the link, which books whatever list it gets. The
// engine says how many TLPs the window may have (a read needs a tag each) and
// when each may leave; the splitter trims the window to the bytes those TLPs
// cover. What cuts each run is a SplitEngine (split_engine.hpp): the model's
// cut_into_tlps or, with `request_splitter.impl` rtl, the verilated RTL twin
// (model/nic/rtl_bridge). Splitting takes no simulated time either way: the link
// books the TLPs at the instant the DMA engine asks.
#include <cstdint>
#include <memory>
#include <systemc>
#include <vector>

#include "common/block_impl.hpp"
#include "nic/dma/split_engine.hpp"
#include "pcie/tlp_list.hpp"
#include "common/statistics.hpp"

namespace rnicsim {

struct RequestSplitterConfig {
  BlockImpl impl = BlockImpl::kModel;  // which engine the NIC gives it
  std::uint32_t mrrs_bytes = 0;        // max read request size
  std::uint32_t mps_bytes = 0;         // max payload size

  TlpSizes sizes() const { return TlpSizes{mps_bytes, mrrs_bytes}; }
};

struct RequestSplitterStats {
  std::uint64_t windows = 0;
  std::uint64_t tlps = 0;
  // Clock cycles the RTL engine took (one per run and one per TLP); 0 with
  // the model. Counted, not charged: the model's splitter takes no time.
  std::uint64_t rtl_cycles = 0;
};

// RequestSplitterStats's names, units and meanings (common/statistics.hpp).
const StatisticsTable<RequestSplitterStats>& request_splitter_statistics();

// The TLPs of the last window, as the link booked them (times set).
struct BookedTlps {
  const pcie::Tlp* tlps = nullptr;
  std::uint32_t count = 0;
};

// The splitter's side facing the DMA engine.
class RequestSplitterIf : public virtual sc_core::sc_interface {
 public:
  // Cuts the start of window.runs into at most `max_tlps` TLPs, the i-th not
  // sent before earliest[i] (nullptr: all at once), trims window.runs to what
  // they cover and has the link book them. The result stays valid until the
  // next call.
  virtual BookedTlps split(pcie::TlpWindow& window, std::uint32_t max_tlps,
                           const sc_core::sc_time* earliest) = 0;
  // How many TLPs window.runs make when cut whole: the engine asks before it
  // gives a read window its tags (a read needs one each).
  virtual std::uint32_t count_tlps(const pcie::TlpWindow& window) const = 0;
};

class RequestSplitter : public sc_core::sc_module, public RequestSplitterIf {
 public:
  sc_core::sc_export<RequestSplitterIf> dma2split;
  sc_core::sc_port<pcie::TlpListIf> split2pcie;

  // With the model's engine.
  RequestSplitter(const sc_core::sc_module_name& name, const RequestSplitterConfig& config);
  RequestSplitter(const sc_core::sc_module_name& name, const RequestSplitterConfig& config,
                  std::unique_ptr<SplitEngine> engine);

  BookedTlps split(pcie::TlpWindow& window, std::uint32_t max_tlps,
                   const sc_core::sc_time* earliest) override;
  std::uint32_t count_tlps(const pcie::TlpWindow& window) const override;

  const RequestSplitterStats& stats() const { return stats_; }
  // Which engine cuts: "model" or "rtl/request_splitter".
  const char* engine_name() const { return engine_->name(); }

 private:
  RequestSplitterConfig config_;
  std::unique_ptr<SplitEngine> engine_;
  std::vector<TlpCut> cuts_;     // one run's, reused for every run
  std::vector<pcie::Tlp> tlps_;  // reused for every window
  RequestSplitterStats stats_;
};

}  // namespace rnicsim
