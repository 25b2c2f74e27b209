#pragma once
// RingQueue: a FIFO in one growable ring of slots. Unlike std::deque, which
// allocates and frees a block every few items as its ends move, a ring that
// has reached the depth a run needs never allocates again, so a channel costs
// no heap traffic per item in steady state. The ring doubles when full, so
// its size stays a power of two and an index is a mask, not a division.
#include <cstddef>
#include <optional>
#include <utility>
#include <vector>

namespace rnicsim {

template <class T>
class RingQueue {
 public:
  bool empty() const { return size_ == 0; }
  std::size_t size() const { return size_; }

  T& front() { return *slots_[head_]; }
  const T& front() const { return *slots_[head_]; }
  T& back() { return *slots_[index(size_ - 1)]; }

  void push_back(T value) {
    if (size_ == slots_.size()) grow();
    slots_[index(size_)].emplace(std::move(value));
    ++size_;
  }

  void pop_front() {
    slots_[head_].reset();
    head_ = index(1);
    --size_;
  }

 private:
  std::size_t index(std::size_t offset) const { return (head_ + offset) & (slots_.size() - 1); }

  void grow() {
    std::vector<std::optional<T>> bigger(slots_.empty() ? 4 : 2 * slots_.size());
    for (std::size_t i = 0; i < size_; ++i) bigger[i].emplace(std::move(*slots_[index(i)]));
    slots_ = std::move(bigger);
    head_ = 0;
  }

  std::vector<std::optional<T>> slots_;
  std::size_t head_ = 0;
  std::size_t size_ = 0;
};

}  // namespace rnicsim
