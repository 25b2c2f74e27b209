#pragma once
// Transfer: one unit of data on its way from an application to the wire (the
// seed pipeline's "Data"). While it lives in host memory only its address
// travels; once the NIC has read it, the item carries the bytes themselves,
// shared by reference.
#include <cstdint>
#include <memory>
#include <systemc>
#include <vector>

#include "common/stage_span.hpp"

namespace rnicsim {

using Bytes = std::vector<std::uint8_t>;
using SharedBytes = std::shared_ptr<const Bytes>;

class Transfer {
 public:
  Transfer() = default;  // an empty item, to be overwritten (a non-blocking pop's target)
  Transfer(std::uint64_t index, std::uint64_t size_bits, const sc_core::sc_time& produced_at,
           SharedBytes bytes)
      : index_(index), size_bits_(size_bits), produced_at_(produced_at), bytes_(std::move(bytes)) {}

  std::uint64_t index() const { return index_; }
  std::uint64_t size_bits() const { return size_bits_; }
  std::uint64_t size_bytes() const { return (size_bits_ + 7) / 8; }
  const sc_core::sc_time& produced_at() const { return produced_at_; }

  // Where the data lives in host memory, once an application has written it.
  std::uint64_t host_address() const { return host_address_; }
  void set_host_address(std::uint64_t address) { host_address_ = address; }

  // The bytes the item carries; null while they live only in host memory.
  const SharedBytes& bytes() const { return bytes_; }
  void set_bytes(SharedBytes bytes) { bytes_ = std::move(bytes); }

  void record_span(const char* stage, const sc_core::sc_time& start, const sc_core::sc_time& end) {
    spans_.push_back(StageSpan{stage, start, end});
  }
  const StageSpans& spans() const { return spans_; }

 private:
  std::uint64_t index_ = 0;
  std::uint64_t size_bits_ = 0;
  sc_core::sc_time produced_at_;
  std::uint64_t host_address_ = 0;
  SharedBytes bytes_;
  StageSpans spans_;
};

}  // namespace rnicsim
