#pragma once
// A FIFO over a ring of fixed capacity: pushes and pops never allocate. It
// grows only when told to (the blocking adapter's port grows with its callers).
#include <cstddef>
#include <vector>

namespace rnicsim {

template <typename T>
class RingQueue {
 public:
  explicit RingQueue(std::size_t capacity = 0) : items_(capacity) {}

  bool empty() const { return size_ == 0; }
  std::size_t size() const { return size_; }

  // Callers keep within the capacity (DmaPort counts its slots).
  void push(const T& item) {
    items_[(head_ + size_) % items_.size()] = item;
    ++size_;
  }
  T& front() { return items_[head_]; }
  void pop() {
    head_ = (head_ + 1) % items_.size();
    --size_;
  }
  // Keeps the items and their order.
  void grow(std::size_t capacity) {
    std::vector<T> items(capacity);
    for (std::size_t i = 0; i < size_; ++i) items[i] = items_[(head_ + i) % items_.size()];
    items_.swap(items);
    head_ = 0;
  }

 private:
  std::vector<T> items_;
  std::size_t head_ = 0;
  std::size_t size_ = 0;
};

}  // namespace rnicsim
