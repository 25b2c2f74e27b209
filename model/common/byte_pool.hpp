#pragma once
// BytePool: byte buffers handed out as shared pointers and taken back when the
// last holder lets go, so a steady stream of packets allocates nothing for its
// payloads. A buffer comes back with the size it last had: asking again for
// that size (the steady case) neither allocates nor zero-fills; the caller
// overwrites every byte it asked for.
//
// A shared pointer with a deleter needs a control block of its own; the pool
// recycles those too (through the allocator it gives the shared pointer), so
// once the pool holds as many buffers as are ever alive at once, take()
// allocates nothing at all.
#include <cstddef>
#include <memory>
#include <new>
#include <vector>

#include "common/transfer.hpp"

namespace rnicsim {

class BytePool {
 public:
  BytePool() : state_(std::make_shared<State>()) {}

  // A buffer of `size` bytes whose contents are unspecified.
  std::shared_ptr<Bytes> take(std::size_t size) {
    std::unique_ptr<Bytes> buffer;
    if (state_->buffers.empty()) {
      buffer = std::make_unique<Bytes>();
    } else {
      buffer = std::move(state_->buffers.back());
      state_->buffers.pop_back();
    }
    buffer->resize(size);
    return std::shared_ptr<Bytes>(buffer.release(), Return{state_}, BlockAllocator<Bytes>{state_});
  }

 private:
  // Free buffers and free control blocks. The deleter and the allocator hold
  // it, so a buffer may outlive the pool.
  struct State {
    std::vector<std::unique_ptr<Bytes>> buffers;
    std::vector<void*> blocks;  // each `block_bytes` long
    std::size_t block_bytes = 0;
    State() = default;
    State(const State&) = delete;
    State& operator=(const State&) = delete;
    ~State() {
      for (void* block : blocks) ::operator delete(block);
    }
  };
  struct Return {
    std::shared_ptr<State> state;
    void operator()(Bytes* buffer) const { state->buffers.emplace_back(buffer); }
  };
  // What shared_ptr allocates its control block with: one object at a time,
  // always of the same type, so a freed block fits the next one.
  template <class T>
  struct BlockAllocator {
    using value_type = T;
    std::shared_ptr<State> state;

    explicit BlockAllocator(std::shared_ptr<State> s) : state(std::move(s)) {}
    template <class U>
    BlockAllocator(const BlockAllocator<U>& other) : state(other.state) {}

    T* allocate(std::size_t n) {
      if (n == 1 && sizeof(T) == state->block_bytes && !state->blocks.empty()) {
        void* block = state->blocks.back();
        state->blocks.pop_back();
        return static_cast<T*>(block);
      }
      return static_cast<T*>(::operator new(n * sizeof(T)));
    }
    void deallocate(T* p, std::size_t n) {
      if (n == 1 && (state->block_bytes == 0 || state->block_bytes == sizeof(T))) {
        state->block_bytes = sizeof(T);
        state->blocks.push_back(p);
      } else {
        ::operator delete(p);
      }
    }
    template <class U>
    bool operator==(const BlockAllocator<U>& other) const { return state == other.state; }
    template <class U>
    bool operator!=(const BlockAllocator<U>& other) const { return state != other.state; }
  };

  std::shared_ptr<State> state_;
};

}  // namespace rnicsim
