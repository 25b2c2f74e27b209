#pragma once
// What cuts each run of a DMA window into TLPs inside the RequestSplitter:
// the model's rule (cut_into_tlps) or the verilated RTL twin
// (rtl/request_splitter, through model/nic/rtl_bridge). Both take one request at a
// time, in the shape of the RTL's request port, and give its TLPs in order.
//
// Free of SystemC on purpose, so that the RTL engine can include it
// (model/nic/packet/icrc_rtl.hpp says why).
#include <algorithm>
#include <cstdint>
#include <memory>
#include <vector>

namespace rnicsim {

// The splitting rule on its own, the reference of its RTL twin
// (rtl/request_splitter): `length` bytes at `address` cut into TLPs of at most
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

// The PCIe request sizes an engine cuts at: powers of two, 128 to 4096 bytes.
struct TlpSizes {
  std::uint32_t mps_bytes = 0;   // writes
  std::uint32_t mrrs_bytes = 0;  // reads
};

// One run of a window: a request on the RTL's port.
struct SplitRequest {
  bool write = false;
  std::uint64_t address = 0;
  std::uint32_t length = 0;    // at least 1
  std::uint32_t max_tlps = 0;  // at least 1, at most 65535 (the RTL's port)
};

struct TlpCut {
  std::uint64_t address = 0;
  std::uint32_t length = 0;
};

// What an engine made of one request.
struct SplitResult {
  std::uint64_t covered_bytes = 0;  // the sum of its TLPs' lengths
  std::uint64_t cycles = 0;         // clock cycles the RTL took; 0 for the model
};

class SplitEngine {
 public:
  virtual ~SplitEngine() = default;
  // Appends the request's TLPs to `cuts`, in order (it does not clear it).
  virtual SplitResult cut(const SplitRequest& request, std::vector<TlpCut>& cuts) = 0;
  // "model", or the RTL block's folder ("rtl/request_splitter").
  virtual const char* name() const = 0;
};

// The model: cut_into_tlps at MPS (writes) or MRRS (reads); no cycles.
std::unique_ptr<SplitEngine> make_model_split_engine(const TlpSizes& sizes);

}  // namespace rnicsim
