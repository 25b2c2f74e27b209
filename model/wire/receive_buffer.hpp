#pragma once
// ReceiveBuffer: the receiving end of a wire, the peer's buffer for frames
// that have arrived and that its receiver has not taken yet.
//
// The wire pushes each frame with the time it still needs to arrive (its
// propagation); the push never blocks, because a wire cannot be held back by
// its receiver. A frame that arrives when the buffer lacks room for its bytes
// is dropped and counted, and handed to the drop handler if one is set (a
// loss the RC transport recovers by retransmission). Room is
// counted in the items' bytes (frames without preamble, FCS and gap), only
// for frames that have arrived: frames still on the cable take none.
//
// The reader has both sides of Channel's reader: pop (blocking) and nb_pop,
// peek and data_event(). Arrivals are settled lazily, in order of arrival,
// whenever the buffer is used or its statistics read, so the buffer needs no
// process of its own and costs no event per frame beyond the reader's; an
// arrival at the same instant as a pop counts as before it. The drop handler
// gets the frame and the time it arrived.
//
// Early takes (common/channel.hpp): a frame pushed while the buffer holds
// none and has none on the cable is offered to the early reader (the receive
// ICRC stage) at once, if the buffer will have room for it when it arrives.
// Its bytes then count as held from its arrival until the reader would have
// popped it, so later arrivals find the buffer as full as they would have.
//
// A faulty cable (wire_faults.hpp) delivers frames out of push order: it
// pushes through push_in_arrival_order, which keeps the frames on the cable
// sorted by arrival and never offers the early reader a frame that a later
// push may overtake.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <systemc>
#include <utility>

#include "common/activity.hpp"
#include "common/channel.hpp"
#include "common/ring_queue.hpp"
#include "common/time_units.hpp"
#include "common/transfer.hpp"
#include "common/statistics.hpp"

namespace rnicsim {

struct ReceiveBufferStats {
  std::uint64_t frames = 0;         // arrived and kept
  std::uint64_t dropped = 0;        // arrived to a full buffer
  std::uint64_t dropped_bytes = 0;
  std::uint64_t peak_bytes = 0;     // most bytes held at once
  std::uint64_t taken_early = 0;    // of `frames`, those the early reader took at their push
};

// ReceiveBufferStats's names, units and meanings (common/statistics.hpp).
const StatisticsTable<ReceiveBufferStats>& receive_buffer_statistics();

class ReceiveBuffer : public sc_core::sc_prim_channel,
                      public PushIf<Transfer>,
                      public NbPushIf<Transfer>,
                      public PopIf<Transfer>,
                      public NbPopIf<Transfer>,
                      public EarlyTakeSourceIf<Transfer> {
 public:
  using DropHandler = std::function<void(const Transfer& frame, const sc_core::sc_time& arrived)>;

  ReceiveBuffer(const char* name, std::uint64_t capacity_bytes)
      : sc_core::sc_prim_channel(name), capacity_bytes_(capacity_bytes) {}

  // The wire's side: never waits.
  void push(Transfer frame, const sc_core::sc_time& latency) override {
    settle();
    const sc_core::sc_time arrives_at = sim_now() + latency;
    if (buffer_.empty() && in_flight_.empty()) {
      if (early_reader_ != nullptr && take_early(frame, arrives_at)) return;
      data_event_.notify(latency);
    }
    in_flight_.push_back(Entry{arrives_at, std::move(frame)});
  }
  // A faulty cable's side. A frame arriving with another goes after it; a
  // new first arrival is notified. A frame that later pushes may overtake
  // (`may_be_overtaken`: a delayed frame, a duplicate) is never taken early,
  // as the early reader would book it ahead of a frame arriving before it.
  void push_in_arrival_order(Transfer frame, const sc_core::sc_time& latency,
                             bool may_be_overtaken) {
    settle();
    const sc_core::sc_time arrives_at = sim_now() + latency;
    if (!may_be_overtaken && buffer_.empty() && in_flight_.empty() && early_reader_ != nullptr &&
        take_early(frame, arrives_at)) {
      return;
    }
    const bool first = insert_in_arrival_order(Entry{arrives_at, std::move(frame)});
    if (first && buffer_.empty()) data_event_.notify(latency);
  }
  void wait_for_space() override {}
  bool can_push() const override { return true; }
  bool nb_push(Transfer&& frame, const sc_core::sc_time& latency) override {
    push(std::move(frame), latency);
    return true;
  }
  // Never notified: there is always room on the cable.
  const sc_core::sc_event& space_event() const override { return never_; }
  bool has_room_for(std::size_t /*items*/) const override { return true; }

  // The receiver's side.
  Transfer pop() override {
    while (!ready()) {
      sc_core::wait(data_event_);
      ++activity().channel_wakes;
    }
    return take();
  }

  bool nb_pop(Transfer& frame) override {
    if (!ready()) return false;
    frame = take();
    return true;
  }

  const Transfer* peek() const override { return ready() ? &buffer_.front().item : nullptr; }
  const sc_core::sc_event& data_event() const override { return data_event_; }

  void set_early_reader(EarlyReaderIf<Transfer>* reader) override { early_reader_ = reader; }
  void set_drop_handler(DropHandler handler) { drop_handler_ = std::move(handler); }
  // Called after the reader takes a frame (a MAC's PFC watches the buffer drain).
  void set_take_handler(std::function<void()> handler) { take_handler_ = std::move(handler); }
  // Bytes held now: arrived and kept, and taken early but not yet read.
  std::uint64_t held_bytes() const {
    settle();
    return held_bytes_ + held_early_at(sim_now());
  }
  std::uint64_t capacity_bytes() const { return capacity_bytes_; }
  const ReceiveBufferStats& stats() const {
    settle();
    return stats_;
  }
  const char* kind() const override { return "rnicsim_receive_buffer"; }

 private:
  struct Entry {
    sc_core::sc_time arrives_at;
    Transfer item;
  };

  // A frame taken early: its bytes are held from its arrival until `taken_at`.
  struct TakenEarly {
    sc_core::sc_time taken_at;
    std::uint64_t bytes;
  };

  // Bytes held at `arrival` by frames taken early (one popped at the same
  // instant still holds its bytes); drops those popped before. Arrivals come
  // in order, so no later question is about an earlier time.
  std::uint64_t held_early_at(const sc_core::sc_time& arrival) const {
    while (!taken_early_.empty() && taken_early_.front().taken_at < arrival) {
      held_early_bytes_ -= taken_early_.front().bytes;
      taken_early_.pop_front();
    }
    return held_early_bytes_;
  }

  // Offers a frame arriving at `arrives_at` to the early reader, if it will
  // fit then; true if the reader took it.
  bool take_early(Transfer& frame, const sc_core::sc_time& arrives_at) {
    const std::uint64_t bytes = frame.size_bytes();
    const std::uint64_t held = held_early_at(arrives_at);
    if (bytes > capacity_bytes_ - held) return false;  // dropped when it arrives
    sc_core::sc_time taken_at;
    if (!early_reader_->take_early(frame, arrives_at, taken_at)) return false;
    taken_early_.push_back(TakenEarly{taken_at, bytes});
    held_early_bytes_ += bytes;
    stats_.peak_bytes = std::max(stats_.peak_bytes, held + bytes);
    ++stats_.frames;
    ++stats_.taken_early;
    return true;
  }

  // Puts `entry` after every frame on the cable arriving no later than it;
  // true if it is the first to arrive. The queue turns once around when the
  // entry belongs before its back: only frames a fault delayed are overtaken,
  // so the common case is an append.
  bool insert_in_arrival_order(Entry entry) {
    if (in_flight_.empty() || in_flight_.back().arrives_at <= entry.arrives_at) {
      in_flight_.push_back(std::move(entry));
      return in_flight_.size() == 1;
    }
    const std::size_t count = in_flight_.size();
    bool placed = false;
    bool first = false;
    for (std::size_t i = 0; i < count; ++i) {
      Entry head = std::move(in_flight_.front());
      in_flight_.pop_front();
      if (!placed && head.arrives_at > entry.arrives_at) {
        first = i == 0;
        placed = true;
        in_flight_.push_back(std::move(entry));
      }
      in_flight_.push_back(std::move(head));
    }
    return first;
  }

  // Keeps or drops, in order, every frame that has arrived by now.
  void settle() const {
    const sc_core::sc_time now = sim_now();
    while (!in_flight_.empty() && in_flight_.front().arrives_at <= now) {
      Entry entry = std::move(in_flight_.front());
      in_flight_.pop_front();
      const std::uint64_t bytes = entry.item.size_bytes();
      const std::uint64_t held = held_bytes_ + held_early_at(entry.arrives_at);
      if (bytes > capacity_bytes_ - held) {
        ++stats_.dropped;
        stats_.dropped_bytes += bytes;
        if (drop_handler_) drop_handler_(entry.item, entry.arrives_at);
        continue;
      }
      held_bytes_ += bytes;
      stats_.peak_bytes = std::max(stats_.peak_bytes, held + bytes);
      ++stats_.frames;
      buffer_.push_back(std::move(entry));
    }
  }

  // Whether a frame is held; if not, notifies the next arrival.
  bool ready() const {
    settle();
    if (!buffer_.empty()) return true;
    if (!in_flight_.empty()) {
      data_event_.notify(in_flight_.front().arrives_at - sim_now());
    }
    return false;
  }

  Transfer take() {
    Transfer frame = std::move(buffer_.front().item);
    buffer_.pop_front();
    held_bytes_ -= frame.size_bytes();
    if (take_handler_) take_handler_();
    return frame;
  }

  std::uint64_t capacity_bytes_;
  DropHandler drop_handler_;
  std::function<void()> take_handler_;
  // Mutable: queries and statistics settle arrivals.
  mutable RingQueue<Entry> in_flight_;  // pushed, still on the cable
  mutable RingQueue<Entry> buffer_;     // arrived and kept
  mutable std::uint64_t held_bytes_ = 0;
  EarlyReaderIf<Transfer>* early_reader_ = nullptr;
  mutable RingQueue<TakenEarly> taken_early_;  // in the order they were taken
  mutable std::uint64_t held_early_bytes_ = 0;  // their bytes
  mutable ReceiveBufferStats stats_;
  mutable sc_core::sc_event data_event_;
  sc_core::sc_event never_;
};

}  // namespace rnicsim
