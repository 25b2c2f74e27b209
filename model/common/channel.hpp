#pragma once
// The project's stream channel: a bounded FIFO with a per-item latency.
//
// A writer pushes an item with a latency; the reader sees it that much later,
// in FIFO order. An item holds its place from push to pop, so `capacity`
// bounds the items in flight plus the items waiting, like credits on a link:
// a full channel refuses or blocks the writer, which is how backpressure
// travels upstream. With a credit-return latency, a popped item's place comes
// back to the writer that much later still, as a link's credits do. A channel
// therefore carries at most capacity / (latency + credit latency) items per
// unit of time; size it to cover both where that limit is not intended.
//
// Two sides over the same FIFO, usable together (one writer blocking, the
// reader not, say):
// - blocking, for SC_THREADs: push (waits for room), wait_for_space, pop
//   (waits for a visible item);
// - non-blocking, for SC_METHODs, arbiters and clocked adapters: can_push,
//   nb_push, peek, nb_pop, and two events. data_event() is notified when an
//   item becomes visible at the head; space_event() when a place frees (or
//   its credit returns). A method that finds nothing to do waits for them
//   with next_trigger(). The channel keeps the events due: a push into an
//   empty channel notifies the item's visible time, a pop frees a place now
//   (or at the credit's return), and a query that fails (peek or nb_pop on a
//   head not yet visible, can_push while credits are on their way back)
//   notifies the time it will succeed, in case an earlier notification
//   replaced that one. So: query, and wait on the event only after a query
//   failed. (The channel notifies an event only after a query on it failed,
//   as nobody can be waiting otherwise.)
//
// Early takes. A reader that books its work on its own timeline (a method
// Stage with this channel as its only input) may register as the channel's
// early reader. A push into a channel that holds no item then offers the item
// to it at once, with the time it becomes visible; the reader takes it if it
// already knows, at the push, the time it would pop it and everything it
// would do with it then. The item's place stays taken until that time, so
// the writer sees the channel exactly as it would have; the reader is not
// woken at all. This is how a packet crosses a pipeline of stages in one
// activation. Channels with a credit-return latency never offer early.
// Limits of the equivalence: an early-taken item's place frees at the
// instant it would have been popped, not a delta cycle later (times are the
// same; a writer at that instant may push without a delta's wait); a stage
// booked ahead pushes its outputs at the kernel's time, so peak_occupancy
// counts them from then; and statistics count items booked ahead of the time
// a run stops.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <limits>
#include <systemc>
#include <typeinfo>
#include <utility>

#include "common/activity.hpp"
#include "common/ring_queue.hpp"
#include "common/time_units.hpp"

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
class NbPushIf : public virtual sc_core::sc_interface {
 public:
  virtual bool can_push() const = 0;
  // Enqueues and returns true if there is room; otherwise returns false and
  // leaves `item` as it was.
  virtual bool nb_push(T&& item, const sc_core::sc_time& latency) = 0;
  // Notified when a place frees, after can_push() or nb_push() failed.
  virtual const sc_core::sc_event& space_event() const = 0;
  // Whether `items` pushes by the only writer would succeed now and at any
  // later time whatever the reader does: the promise an early take needs.
  // False unless the channel knows it has a single writer.
  virtual bool has_room_for(std::size_t /*items*/) const { return false; }
};

// A reader that can take an item the moment it is pushed (see "Early takes").
template <class T>
class EarlyReaderIf {
 public:
  virtual ~EarlyReaderIf() = default;
  // Offered `item`, visible at `visible`, by a channel holding no item: takes
  // it (moving from it) and sets `taken_at` to the time it would have popped
  // it, or returns false and leaves it.
  virtual bool take_early(T& item, const sc_core::sc_time& visible,
                          sc_core::sc_time& taken_at) = 0;
};

// A channel that offers its items to an early reader (Channel, ReceiveBuffer).
template <class T>
class EarlyTakeSourceIf {
 public:
  virtual ~EarlyTakeSourceIf() = default;
  // Offers every item pushed while the channel holds none to `reader` first;
  // for the reader's end_of_elaboration.
  virtual void set_early_reader(EarlyReaderIf<T>* reader) = 0;
};

template <class T>
class NbPopIf : public virtual sc_core::sc_interface {
 public:
  // Moves the head into `item` and returns true if it is visible.
  virtual bool nb_pop(T& item) = 0;
  // The head if it is visible, else null; the item stays in the channel.
  virtual const T* peek() const = 0;
  // Notified when an item becomes visible at the head, after peek() or
  // nb_pop() found none.
  virtual const sc_core::sc_event& data_event() const = 0;
};

template <class T>
class Channel : public sc_core::sc_prim_channel,
                public PushIf<T>,
                public PopIf<T>,
                public NbPushIf<T>,
                public NbPopIf<T>,
                public EarlyTakeSourceIf<T> {
 public:
  static constexpr std::size_t kUnbounded = std::numeric_limits<std::size_t>::max();

  Channel(const char* name, std::size_t capacity,
          const sc_core::sc_time& credit_latency = sc_core::SC_ZERO_TIME)
      : sc_core::sc_prim_channel(name), capacity_(capacity), credit_latency_(credit_latency) {
    if (capacity == 0) SC_REPORT_FATAL("rnicsim/channel", "capacity must be at least 1");
  }

  // Blocking side.
  void wait_for_space() override {
    while (!can_push()) {
      sc_core::wait(space_event_);
      ++activity().channel_wakes;
    }
  }

  void push(T item, const sc_core::sc_time& latency) override {
    wait_for_space();
    enqueue(std::move(item), latency);
  }

  T pop() override {
    while (!head_visible()) {
      sc_core::wait(data_event_);
      ++activity().channel_wakes;
    }
    return dequeue();
  }

  // Non-blocking side.
  bool can_push() const override {
    if (credits_.empty() && taken_early_.empty()) {
      if (entries_.size() < capacity_) return true;
      space_wanted_ = true;
      return false;
    }
    const sc_core::sc_time now = sim_now();
    if (places_in_use(now) < capacity_) return true;
    space_wanted_ = true;
    // Full with places to come back (a credit returns, an early-taken item
    // reaches the time it would have been popped): the first frees a place.
    if (!credits_.empty()) space_event_.notify(credits_.front() - now);
    if (!taken_early_.empty()) space_event_.notify(taken_early_.front() - now);
    return false;
  }

  bool has_room_for(std::size_t items) const override {
    return writers_ == 1 && places_in_use(sim_now()) + items <= capacity_;
  }

  // Never with a credit-return latency: the reader's pop would not free the place.
  void set_early_reader(EarlyReaderIf<T>* reader) override {
    if (credit_latency_ == sc_core::SC_ZERO_TIME) early_reader_ = reader;
  }

  // SystemC calls this for each port bound to the channel: writers are the
  // ports bound through a push interface.
  void register_port(sc_core::sc_port_base& /*port*/, const char* if_typename) override {
    if (std::strcmp(if_typename, typeid(PushIf<T>).name()) == 0 ||
        std::strcmp(if_typename, typeid(NbPushIf<T>).name()) == 0) {
      ++writers_;
    }
  }

  bool nb_push(T&& item, const sc_core::sc_time& latency) override {
    if (!can_push()) return false;
    enqueue(std::move(item), latency);
    return true;
  }

  bool nb_pop(T& item) override {
    if (!head_visible()) return false;
    item = dequeue();
    return true;
  }

  const T* peek() const override { return head_visible() ? &entries_.front().item : nullptr; }

  // For a reader that does nothing at a pop but pop (it acts a fixed delay
  // later, say): moves the head into `item` even before it is visible and
  // sets `popped_at` to the time it would have been popped, now or when it
  // becomes visible. Its place stays taken until then, as with an early take.
  // False with no item (data_event() then tells of the next), or in a
  // channel with a credit-return latency while the head is not visible.
  bool take_head(T& item, sc_core::sc_time& popped_at) {
    if (entries_.empty() || (credit_latency_ != sc_core::SC_ZERO_TIME && !head_visible())) {
      data_wanted_ = true;
      return false;
    }
    const sc_core::sc_time now = sim_now();
    const sc_core::sc_time visible = entries_.front().visible_at;
    if (visible <= now) {
      popped_at = now;
      item = dequeue();
      return true;
    }
    popped_at = hold_place_until(visible);
    item = std::move(entries_.front().item);
    entries_.pop_front();
    ++taken_early_count_;
    if (space_wanted_) {
      space_wanted_ = false;
      space_event_.notify(popped_at - now);
    }
    return true;
  }

  const sc_core::sc_event& data_event() const override { return data_event_; }
  const sc_core::sc_event& space_event() const override { return space_event_; }

  std::size_t size() const { return entries_.size(); }
  std::size_t capacity() const { return capacity_; }
  const sc_core::sc_time& credit_latency() const { return credit_latency_; }
  std::size_t peak_occupancy() const { return peak_occupancy_; }
  // Items the early reader took at their push (see "Early takes").
  std::uint64_t taken_early() const { return taken_early_count_; }
  const char* kind() const override { return "rnicsim_channel"; }

 private:
  struct Entry {
    sc_core::sc_time visible_at;
    T item;
  };

  void enqueue(T&& item, const sc_core::sc_time& latency) {
    if (early_reader_ != nullptr && entries_.empty()) {
      const sc_core::sc_time now = sim_now();
      sc_core::sc_time taken_at;
      if (early_reader_->take_early(item, now + latency, taken_at)) {
        // The item holds its place until the reader would have popped it.
        taken_early_.push_back(taken_at);
        ++taken_early_count_;
        note_occupancy();
        return;
      }
    }
    if (entries_.empty() && data_wanted_) {
      data_wanted_ = false;
      data_event_.notify(latency);
    }
    entries_.push_back(Entry{sim_now() + latency, std::move(item)});
    note_occupancy();
  }

  // Keeps a place taken until `at` (not before the places held already, so
  // that they free in order); returns the time it frees.
  sc_core::sc_time hold_place_until(const sc_core::sc_time& at) {
    const sc_core::sc_time until =
        taken_early_.empty() ? at : std::max(at, taken_early_.back());
    taken_early_.push_back(until);
    return until;
  }

  // Items in the channel, counting those taken early until they would have been popped.
  void note_occupancy() {
    if (!taken_early_.empty()) places_in_use(sim_now());
    peak_occupancy_ = std::max(peak_occupancy_, entries_.size() + taken_early_.size());
  }

  // Places taken at `now`: items held, items taken early that the reader
  // would not have popped yet, credits on their way back. Drops what is due.
  std::size_t places_in_use(const sc_core::sc_time& now) const {
    while (!credits_.empty() && credits_.front() <= now) credits_.pop_front();
    while (!taken_early_.empty() && taken_early_.front() <= now) taken_early_.pop_front();
    return entries_.size() + taken_early_.size() + credits_.size();
  }

  // Notifies the head's visible time when it is still ahead.
  bool head_visible() const {
    if (entries_.empty()) {
      data_wanted_ = true;
      return false;
    }
    const sc_core::sc_time now = sim_now();
    const sc_core::sc_time& visible_at = entries_.front().visible_at;
    if (visible_at <= now) return true;
    data_event_.notify(visible_at - now);
    return false;
  }

  T dequeue() {
    T item = std::move(entries_.front().item);
    entries_.pop_front();
    if (credit_latency_ != sc_core::SC_ZERO_TIME) {
      credits_.push_back(sim_now() + credit_latency_);
    }
    if (space_wanted_) {
      space_wanted_ = false;
      space_event_.notify(credit_latency_);
    }
    return item;
  }

  std::size_t capacity_;
  sc_core::sc_time credit_latency_;
  RingQueue<Entry> entries_;
  // Return times of the places popped and not yet back with the writer, in
  // order; lazily dropped once due. Mutable: queries release them.
  mutable RingQueue<sc_core::sc_time> credits_;
  // When the items the early reader took would have been popped, in order;
  // lazily dropped once due, like the credits.
  mutable RingQueue<sc_core::sc_time> taken_early_;
  EarlyReaderIf<T>* early_reader_ = nullptr;
  std::size_t writers_ = 0;  // ports bound through PushIf or NbPushIf
  std::uint64_t taken_early_count_ = 0;
  std::size_t peak_occupancy_ = 0;
  // Mutable: a failed query (a const call) re-arms them.
  mutable sc_core::sc_event data_event_;
  mutable sc_core::sc_event space_event_;
  // Whether a query has failed since the event was last notified: only then
  // may anyone be waiting on it, and an event nobody waits for still costs
  // the kernel a delta cycle or a timed entry.
  mutable bool data_wanted_ = false;
  mutable bool space_wanted_ = false;
};

}  // namespace rnicsim
