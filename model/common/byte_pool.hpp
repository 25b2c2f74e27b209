#pragma once
// BytePool: byte buffers handed out as shared pointers and taken back when the
// last holder lets go, so a steady stream of packets allocates nothing for its
// payloads. A buffer comes back with the size it last had: asking again for
// that size (the steady case) neither allocates nor zero-fills; the caller
// overwrites every byte it asked for.
#include <cstddef>
#include <memory>
#include <vector>

#include "common/transfer.hpp"

namespace rnicsim {

class BytePool {
 public:
  BytePool() : free_(std::make_shared<FreeList>()) {}

  // A buffer of `size` bytes whose contents are unspecified.
  std::shared_ptr<Bytes> take(std::size_t size) {
    std::unique_ptr<Bytes> buffer;
    if (free_->empty()) {
      buffer = std::make_unique<Bytes>();
    } else {
      buffer = std::move(free_->back());
      free_->pop_back();
    }
    buffer->resize(size);
    // The deleter keeps the free list alive, so a buffer may outlive the pool.
    return std::shared_ptr<Bytes>(buffer.release(), Return{free_});
  }

 private:
  using FreeList = std::vector<std::unique_ptr<Bytes>>;
  struct Return {
    std::shared_ptr<FreeList> free;
    void operator()(Bytes* buffer) const { free->emplace_back(buffer); }
  };
  std::shared_ptr<FreeList> free_;
};

}  // namespace rnicsim
