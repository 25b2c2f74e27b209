#include "nic/dma/request_splitter.hpp"

#include <memory>
#include <utility>

#include "common/time_units.hpp"
#include "pcie/tlp.hpp"

namespace rnicsim {

namespace {

class ModelSplitEngine final : public SplitEngine {
 public:
  explicit ModelSplitEngine(const TlpSizes& sizes) : sizes_(sizes) {}
  const char* name() const override { return "model"; }

  SplitResult cut(const SplitRequest& request, std::vector<TlpCut>& cuts) override {
    const std::uint32_t max_bytes = request.write ? sizes_.mps_bytes : sizes_.mrrs_bytes;
    const std::uint64_t covered =
        cut_into_tlps(request.address, request.length, max_bytes, request.max_tlps,
                      [&](std::uint64_t address, std::uint32_t length) {
                        cuts.push_back({address, length});
                      });
    return {covered, 0};
  }

 private:
  TlpSizes sizes_;
};

}  // namespace

std::unique_ptr<SplitEngine> make_model_split_engine(const TlpSizes& sizes) {
  return std::make_unique<ModelSplitEngine>(sizes);
}

RequestSplitter::RequestSplitter(const sc_core::sc_module_name& name,
                                 const RequestSplitterConfig& config)
    : RequestSplitter(name, config, make_model_split_engine(config.sizes())) {}

RequestSplitter::RequestSplitter(const sc_core::sc_module_name& name,
                                 const RequestSplitterConfig& config,
                                 std::unique_ptr<SplitEngine> engine)
    : sc_core::sc_module(name),
      dma2split("dma2split"),
      split2pcie("split2pcie"),
      config_(config),
      engine_(std::move(engine)) {
  dma2split.bind(*this);
}

BookedTlps RequestSplitter::split(pcie::TlpWindow& window, std::uint32_t max_tlps,
                                  const sc_core::sc_time* earliest) {
  const bool write = window.kind == pcie::TlpKind::kMemoryWrite;
  const sc_core::sc_time now = sim_now();
  std::uint32_t count = 0;
  std::uint32_t runs = 0;
  bool cut_short = false;  // the window stops before the request's last byte
  for (; runs < window.run_count && count < max_tlps; ++runs) {
    pcie::DataRun& run = window.runs[runs];
    if (run.length == 0) continue;  // no TLP; the RTL takes no empty request
    cuts_.clear();
    const SplitResult result =
        engine_->cut(SplitRequest{write, run.address, run.length, max_tlps - count}, cuts_);
    stats_.rtl_cycles += result.cycles;
    // The vector only grows: a TLP's inputs are set in place and the link
    // sets the rest, so no TLP is built and copied.
    for (const TlpCut& cut : cuts_) {
      if (count == tlps_.size()) tlps_.emplace_back();
      pcie::Tlp& tlp = tlps_[count];
      tlp.address = cut.address;
      tlp.length = cut.length;
      tlp.earliest = earliest ? earliest[count] : now;
      ++count;
    }
    if (result.covered_bytes < run.length) {
      cut_short = true;
      run.length = static_cast<std::uint32_t>(result.covered_bytes);  // the window ends here
      ++runs;
      break;
    }
  }
  // A window cut short no longer ends where its request does: no pad.
  for (std::uint32_t r = runs; r < window.run_count; ++r) {
    if (window.runs[r].length > 0) cut_short = true;
  }
  if (cut_short) window.pad_bits = 0;
  window.run_count = runs;
  ++stats_.windows;
  stats_.tlps += count;
  split2pcie->book(window, tlps_.data(), count);
  return BookedTlps{tlps_.data(), count};
}

std::uint32_t RequestSplitter::count_tlps(const pcie::TlpWindow& window) const {
  const std::uint64_t max_bytes =
      window.kind == pcie::TlpKind::kMemoryRead ? config_.mrrs_bytes : config_.mps_bytes;
  std::uint64_t count = 0;
  for (std::uint32_t r = 0; r < window.run_count; ++r) {
    const pcie::DataRun& run = window.runs[r];
    if (run.length == 0) continue;
    // As split() cuts: one TLP per multiple of max_bytes the run touches.
    count += (run.address + run.length - 1) / max_bytes - run.address / max_bytes + 1;
  }
  return static_cast<std::uint32_t>(count);
}

const StatisticsTable<RequestSplitterStats>& request_splitter_statistics() {
  static const StatisticsTable<RequestSplitterStats> table(
      "request_splitter",
      {
       {"windows", "windows", &RequestSplitterStats::windows,
        "windows of requests cut into TLPs"},
       {"tlps", "TLPs", &RequestSplitterStats::tlps,
        "TLPs cut at MRRS, MPS and 4 KiB boundaries"},
       {"rtl_cycles", "cycles", &RequestSplitterStats::rtl_cycles,
        "clock cycles the RTL engine took (counted, not charged); 0 with the model"},
      });
  return table;
}

}  // namespace rnicsim
