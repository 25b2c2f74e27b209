#pragma once
// RequestSplitter: between the DMA engine and the PCIe link, cuts a window of
// a DMA request into TLPs (reads at MRRS, writes at MPS, never across 4 KiB)
// and hands the list to the link, which books whatever list it gets. The
// engine says how many TLPs the window may have (a read needs a tag each) and
// when each may leave; the splitter trims the window to the bytes those TLPs
// cover. Its RTL twin (issue 11) takes the same place: `request_split.impl`.
#include <algorithm>
#include <cstdint>
#include <systemc>
#include <vector>

#include "common/block_impl.hpp"
#include "pcie/tlp_list.hpp"

namespace rnicsim {

struct RequestSplitterConfig {
  BlockImpl impl = BlockImpl::kModel;  // its RTL twin comes with issue 11
  std::uint32_t mrrs_bytes = 0;        // max read request size
  std::uint32_t mps_bytes = 0;         // max payload size
};

// The splitting rule on its own, the reference of its RTL twin
// (rtl/dma_splitter): `length` bytes at `address` cut into TLPs of at most
// `max_bytes` (a power of two, at most 4 KiB), each ending on a multiple of
// it, so none crosses 4 KiB and after a short first one all are aligned (a
// mask takes the place of a division); at most `max_tlps` of them. Calls
// emit(address, length) for each and returns the bytes they cover.
template <typename Emit>
std::uint64_t cut_into_tlps(std::uint64_t address, std::uint64_t length, std::uint32_t max_bytes,
                            std::uint32_t max_tlps, Emit&& emit) {
  const std::uint64_t end = address + length;
  std::uint64_t at = address;
  for (std::uint32_t count = 0; at < end && count < max_tlps; ++count) {
    const std::uint64_t tlp = std::min<std::uint64_t>(end - at, max_bytes - (at & (max_bytes - 1)));
    emit(at, static_cast<std::uint32_t>(tlp));
    at += tlp;
  }
  return at - address;
}

struct RequestSplitterStats {
  std::uint64_t windows = 0;
  std::uint64_t tlps = 0;
};

// The TLPs of the last window, as the link booked them (times set).
struct BookedTlps {
  const pcie::Tlp* tlps = nullptr;
  std::uint32_t count = 0;
};

// The splitter's side facing the DMA engine.
class RequestSplitIf : public virtual sc_core::sc_interface {
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

class RequestSplitter : public sc_core::sc_module, public RequestSplitIf {
 public:
  sc_core::sc_export<RequestSplitIf> dma2split;
  sc_core::sc_port<pcie::TlpListIf> split2pcie;

  RequestSplitter(const sc_core::sc_module_name& name, const RequestSplitterConfig& config);

  BookedTlps split(pcie::TlpWindow& window, std::uint32_t max_tlps,
                   const sc_core::sc_time* earliest) override;
  std::uint32_t count_tlps(const pcie::TlpWindow& window) const override;

  const RequestSplitterStats& stats() const { return stats_; }

 private:
  RequestSplitterConfig config_;
  std::vector<pcie::Tlp> tlps_;  // reused for every window
  RequestSplitterStats stats_;
};

}  // namespace rnicsim
