#pragma once
// InlineVector: a vector of at most N trivially copyable elements, held in the
// object itself. A work request's scatter/gather list or inline data has a
// known bound, so holding it inline costs no allocation per WQE; a copy moves
// only the elements in use, not the whole capacity. Growing past N throws
// std::length_error, as a bug it is: callers check the bound first.
#include <algorithm>
#include <array>
#include <cstddef>
#include <stdexcept>
#include <type_traits>

namespace rnicsim {

template <class T, std::size_t N>
class InlineVector {
  static_assert(std::is_trivially_copyable_v<T>, "elements are copied as bytes");

 public:
  InlineVector() = default;
  InlineVector(std::initializer_list<T> items) { assign(items.begin(), items.end()); }
  InlineVector(const InlineVector& other) { copy_from(other); }
  InlineVector& operator=(const InlineVector& other) {
    if (this != &other) copy_from(other);
    return *this;
  }

  static constexpr std::size_t capacity() { return N; }
  std::size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }

  T* data() { return items_.data(); }
  const T* data() const { return items_.data(); }
  T* begin() { return items_.data(); }
  T* end() { return items_.data() + size_; }
  const T* begin() const { return items_.data(); }
  const T* end() const { return items_.data() + size_; }
  T& operator[](std::size_t i) { return items_[i]; }
  const T& operator[](std::size_t i) const { return items_[i]; }
  T& back() { return items_[size_ - 1]; }
  const T& back() const { return items_[size_ - 1]; }

  void clear() { size_ = 0; }
  void push_back(const T& item) {
    check(size_ + 1);
    items_[size_++] = item;
  }
  // New elements are value-initialized (zero for integers), as std::vector's.
  void resize(std::size_t n, const T& value = T{}) {
    check(n);
    if (n > size_) std::fill(items_.begin() + size_, items_.begin() + n, value);
    size_ = n;
  }
  template <class It>
  void assign(It first, It last) {
    const auto n = static_cast<std::size_t>(std::distance(first, last));
    check(n);
    std::copy(first, last, items_.begin());
    size_ = n;
  }

  friend bool operator==(const InlineVector& a, const InlineVector& b) {
    return std::equal(a.begin(), a.end(), b.begin(), b.end());
  }
  friend bool operator!=(const InlineVector& a, const InlineVector& b) { return !(a == b); }

 private:
  static void check(std::size_t n) {
    if (n > N) throw std::length_error("InlineVector: more elements than its capacity");
  }
  void copy_from(const InlineVector& other) {
    std::copy(other.begin(), other.end(), items_.begin());
    size_ = other.size_;
  }

  std::array<T, N> items_;  // only the first size_ are set
  std::size_t size_ = 0;
};

}  // namespace rnicsim
