#pragma once
// The project's stream channel: a bounded FIFO with a per-item latency.
//
// A writer pushes an item with a latency; the reader sees it that much later,
// in FIFO order. An item holds its place from push to pop, so `capacity`
// bounds the items in flight plus the items waiting, like credits on a link:
// a full channel blocks the writer, which is how backpressure travels
// upstream, and a channel carries at most capacity / latency items per unit
// of time. Size it to cover the latency where that limit is not intended.
#include <algorithm>
#include <cstddef>
#include <deque>
#include <limits>
#include <systemc>
#include <utility>

namespace rnicsim {

template <class T>
class PushIf : public virtual sc_core::sc_interface {
 public:
  // Blocks the calling thread while the channel is full.
  virtual void push(T item, const sc_core::sc_time& latency) = 0;
  // Blocks the calling thread until a push would not block. With a single
  // writer the next push then enqueues at once.
  virtual void wait_for_space() = 0;
};

template <class T>
class PopIf : public virtual sc_core::sc_interface {
 public:
  // Blocks the calling thread until the oldest item is visible.
  virtual T pop() = 0;
};

template <class T>
class Channel : public sc_core::sc_prim_channel, public PushIf<T>, public PopIf<T> {
 public:
  static constexpr std::size_t kUnbounded = std::numeric_limits<std::size_t>::max();

  Channel(const char* name, std::size_t capacity)
      : sc_core::sc_prim_channel(name), capacity_(capacity) {
    if (capacity == 0) SC_REPORT_FATAL("rnicsim/channel", "capacity must be at least 1");
  }

  void wait_for_space() override {
    while (entries_.size() >= capacity_) sc_core::wait(space_freed_);
  }

  void push(T item, const sc_core::sc_time& latency) override {
    wait_for_space();
    entries_.push_back(Entry{sc_core::sc_time_stamp() + latency, std::move(item)});
    peak_occupancy_ = std::max(peak_occupancy_, entries_.size());
    // A pending earlier notification wins, so the reader always wakes for the
    // head; it re-checks and waits again if the head is not yet visible.
    item_visible_.notify(latency);
  }

  T pop() override {
    for (;;) {
      if (entries_.empty()) {
        sc_core::wait(item_visible_);
        continue;
      }
      const sc_core::sc_time now = sc_core::sc_time_stamp();
      if (entries_.front().visible_at > now) {
        sc_core::wait(entries_.front().visible_at - now);
        continue;
      }
      T item = std::move(entries_.front().item);
      entries_.pop_front();
      space_freed_.notify(sc_core::SC_ZERO_TIME);
      return item;
    }
  }

  std::size_t size() const { return entries_.size(); }
  std::size_t capacity() const { return capacity_; }
  std::size_t peak_occupancy() const { return peak_occupancy_; }
  const char* kind() const override { return "rnicsim_channel"; }

 private:
  struct Entry {
    sc_core::sc_time visible_at;
    T item;
  };

  std::size_t capacity_;
  std::deque<Entry> entries_;
  std::size_t peak_occupancy_ = 0;
  sc_core::sc_event item_visible_;
  sc_core::sc_event space_freed_;
};

}  // namespace rnicsim
