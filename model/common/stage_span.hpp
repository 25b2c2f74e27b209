#pragma once
#include <array>
#include <cstddef>
#include <systemc>

namespace rnicsim {

// One stage's time with one item: from the start of service until the item
// is visible to the next stage.
struct StageSpan {
  const char* stage;  // the stage module's basename; lives as long as the module
  sc_core::sc_time start;
  sc_core::sc_time end;
};

// The spans an item has collected, held inline so that recording them costs
// no allocation per item. The longest chain of stages one item crosses today
// is four (the seed pipeline; a frame's builder, ICRC, wire and ICRC check);
// spans beyond the capacity are counted as dropped, not kept.
class StageSpans {
 public:
  static constexpr std::size_t kCapacity = 6;

  void push_back(const StageSpan& span) {
    if (count_ < kCapacity) {
      spans_[count_++] = span;
    } else {
      ++dropped_;
    }
  }
  std::size_t size() const { return count_; }
  std::size_t dropped() const { return dropped_; }
  const StageSpan& operator[](std::size_t i) const { return spans_[i]; }
  const StageSpan* begin() const { return spans_.data(); }
  const StageSpan* end() const { return spans_.data() + count_; }

 private:
  std::array<StageSpan, kCapacity> spans_{};
  std::size_t count_ = 0;
  std::size_t dropped_ = 0;
};

}  // namespace rnicsim
