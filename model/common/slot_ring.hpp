#pragma once
// SlotRing: a FIFO whose slots outlive their items. pop_front leaves the
// slot's object as it is, and the push that comes round to that slot again
// hands the same object back, so what an item owns (a vector's capacity) is
// reused instead of freed and allocated again. Use it for items that hold
// buffers of unbounded size; RingQueue suits plain values.
//
// Each slot's object stays where it is while the ring grows, so a reference
// to an item stays valid, as std::deque's do, until it is popped and its
// slot comes round again.
#include <cstddef>
#include <memory>
#include <utility>
#include <vector>

namespace rnicsim {

template <class T>
class SlotRing {
 public:
  bool empty() const { return size_ == 0; }
  std::size_t size() const { return size_; }

  T& front() { return at(0); }
  const T& front() const { return at(0); }
  T& back() { return at(size_ - 1); }
  const T& back() const { return at(size_ - 1); }
  T& operator[](std::size_t i) { return at(i); }
  const T& operator[](std::size_t i) const { return at(i); }

  // Appends the next slot and returns it as the new last item. It holds
  // whatever its previous item left in it: the caller sets every field.
  T& push_back_slot() {
    if (size_ == slots_.size()) grow();
    ++size_;
    return back();
  }
  void pop_front() {
    head_ = index(1);
    --size_;
  }
  void clear() {
    head_ = 0;
    size_ = 0;
  }

  // Items from the front, in order.
  template <class Ring, class Item>
  class Iterator {
   public:
    Iterator(Ring* ring, std::size_t i) : ring_(ring), i_(i) {}
    Item& operator*() const { return (*ring_)[i_]; }
    Item* operator->() const { return &(*ring_)[i_]; }
    Iterator& operator++() {
      ++i_;
      return *this;
    }
    bool operator==(const Iterator& o) const { return i_ == o.i_; }
    bool operator!=(const Iterator& o) const { return i_ != o.i_; }

   private:
    Ring* ring_;
    std::size_t i_;
  };
  using iterator = Iterator<SlotRing, T>;
  using const_iterator = Iterator<const SlotRing, const T>;
  iterator begin() { return iterator(this, 0); }
  iterator end() { return iterator(this, size_); }
  const_iterator begin() const { return const_iterator(this, 0); }
  const_iterator end() const { return const_iterator(this, size_); }

 private:
  std::size_t index(std::size_t offset) const { return (head_ + offset) & (slots_.size() - 1); }
  T& at(std::size_t i) { return *slots_[index(i)]; }
  const T& at(std::size_t i) const { return *slots_[index(i)]; }

  // Doubles the ring (a power of two, so an index is a mask); the items keep
  // their objects, in order from slot 0, and the new slots follow them, one
  // allocation for all of them (a ring per QP grows on the QP's first use,
  // and 100,000 QPs' rings grow in the measured run).
  void grow() {
    const std::size_t slots = slots_.empty() ? 4 : 2 * slots_.size();
    std::vector<T*> bigger;
    bigger.reserve(slots);
    for (std::size_t i = 0; i < slots_.size(); ++i) bigger.push_back(slots_[index(i)]);
    const std::size_t added = slots - slots_.size();
    blocks_.push_back(std::make_unique<T[]>(added));
    T* fresh = blocks_.back().get();
    for (std::size_t i = 0; i < added; ++i) bigger.push_back(fresh + i);
    slots_ = std::move(bigger);
    head_ = 0;
  }

  std::vector<T*> slots_;
  std::vector<std::unique_ptr<T[]>> blocks_;  // the slots' objects
  std::size_t head_ = 0;
  std::size_t size_ = 0;
};

}  // namespace rnicsim
