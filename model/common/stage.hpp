#pragma once
// Stage<In, Out>: the one timing mechanism every block's datapath is built on.
//
// A stage takes one item at a time from its input (round robin among its
// inputs when it has several), does the block's functional work on it
// (serve), and emits 0..N items of its output type, each on the output port
// serve chooses: a builder turns one request into N frames, a parser drops a
// bad frame (0 outputs), a scheduler serves N queues, a responder fans out.
// Every shape goes through the same timing, statistics and trace:
// - the datapath is occupied for StageTiming::service_time(bits) per item
//   that crosses it: the input (Occupancy::kInput: a parser, a 1->1 stage)
//   or each output (Occupancy::kOutputs: a builder, whose frames are what
//   its datapath moves); plus any time the work itself took (serve may wait,
//   for a TLM call that models its own time) or charged (an annotated delay);
// - each output leaves once the service time before it has passed and there
//   is room downstream (time spent waiting for room is `blocked`), and is
//   visible downstream `latency` later;
// - an output that can record spans gets one per stage: from the start of its
//   service until it is visible downstream.
//
// Items may provide `std::uint64_t size_bits() const` (the default occupancy)
// and `void record_span(const char* stage, sc_time start, sc_time end)`.
//
// Two ways to run, with the same timing wherever nothing downstream is full:
// - StageProcess::kThread: an SC_THREAD that waits out each service time.
//   serve may wait (a blocking TLM call that models its own time).
// - StageProcess::kMethod: an SC_METHOD that books service times on its own
//   timeline instead of waiting them out, so an item costs one activation
//   (when it becomes visible) rather than two. An output enters its channel
//   when it is emitted, marked visible for when its service ends plus the
//   latency, so it holds its place in the channel from then; the next item is
//   taken once the stage is free. serve must not wait. Every input and
//   output needs the channels' non-blocking side (Channel, ReceiveBuffer).
//   A method stage with one input channel and one output registers as the
//   channel's early reader (channel.hpp; a Channel or a ReceiveBuffer): an item pushed while the channel
//   holds none, the stage holds no output and its output promises room for
//   the item's outputs (max_outputs) is served at the push, booked from the
//   time the stage would have taken it. So a packet crosses a pipeline of such
//   stages in the activation that pushed it, with the same times, statistics
//   and spans as stage by stage. serve must then take the time from
//   service_start(), not from the kernel.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>
#include <systemc>
#include <type_traits>
#include <utility>
#include <vector>

#include "common/activity.hpp"
#include "common/channel.hpp"
#include "common/module_macros.hpp"
#include "common/ring_queue.hpp"
#include "common/stage_span.hpp"
#include "common/stage_timing.hpp"
#include "common/time_units.hpp"

namespace rnicsim {

struct StageStats {
  std::uint64_t items = 0;      // items taken in and served
  std::uint64_t items_out = 0;  // items emitted
  std::uint64_t dropped = 0;    // items served that emitted nothing
  std::uint64_t bits = 0;       // occupancy bits served (the wire counts framing)
  sc_core::sc_time busy;        // time spent serving items
  sc_core::sc_time blocked;     // time finished items waited for room downstream
  sc_core::sc_time first_start;  // when the first item started
  sc_core::sc_time last_end;     // when the last item emitted became visible downstream
};

// Which items occupy a stage's datapath: the ones it takes or the ones it emits.
enum class Occupancy { kInput, kOutputs };

// The process that serves a stage's items (see above).
enum class StageProcess { kThread, kMethod };

namespace detail {

template <class T, class = void>
struct HasSizeBits : std::false_type {};
template <class T>
struct HasSizeBits<T, std::void_t<decltype(std::declval<const T&>().size_bits())>>
    : std::true_type {};

template <class T, class = void>
struct HasRecordSpan : std::false_type {};
template <class T>
struct HasRecordSpan<T, std::void_t<decltype(std::declval<T&>().record_span(
                            "", sc_core::SC_ZERO_TIME, sc_core::SC_ZERO_TIME))>>
    : std::true_type {};

template <class T>
std::uint64_t size_bits_of(const T& item) {
  if constexpr (HasSizeBits<T>::value) {
    return item.size_bits();
  } else {
    return 0;
  }
}

}  // namespace detail

template <class In, class Out>
class Stage : public sc_core::sc_module, public EarlyReaderIf<In> {
 public:
  // One or more inputs. With several, the stage takes the next item round
  // robin among the inputs whose head is visible, which needs channels with
  // a non-blocking side (Channel); with one, any PopIf will do.
  sc_core::sc_port<PopIf<In>, 0> in;
  // One or more outputs; serve chooses each item's port.
  sc_core::sc_port<PushIf<Out>, 0> out;

  // What serve uses to hand on its outputs and to charge time.
  class Emitter {
   public:
    // Waits until the service time before this item has passed and there is
    // room on output `port`, then pushes it with the stage latency.
    void emit(Out item, std::size_t port = 0) {
      if (stage_.process_ == StageProcess::kMethod) {
        stage_.hold_or_send(item, port);
      } else {
        stage_.emit_item(item, port);
      }
    }
    // Busy time the work took beyond the datapath (an annotated memory
    // delay), charged before the next output leaves or the item ends.
    void charge(const sc_core::sc_time& extra) { stage_.pending_ += extra; }

   private:
    friend class Stage;
    explicit Emitter(Stage& stage) : stage_(stage) {}
    Stage& stage_;
  };

  RNICSIM_PROCESS_MODULE(Stage);

  Stage(const sc_core::sc_module_name& name, const StageTiming& timing,
        Occupancy occupancy = Occupancy::kInput,
        StageProcess process = StageProcess::kThread)
      : sc_core::sc_module(name),
        in("in"),
        out("out"),
        timing_(timing),
        occupancy_(occupancy),
        process_(process),
        emitter_(*this) {
    if (process == StageProcess::kThread) {
      SC_THREAD(serve_items);
    } else {
      SC_METHOD(serve_visible_items);  // runs once at the start, then as triggered
    }
  }

  const StageStats& stats() const { return stats_; }
  const StageTiming& timing() const { return timing_; }

  // Whether a method stage may take items early (see above); before the end
  // of elaboration. On by default; a test compares the two.
  void allow_early_takes(bool allow) { early_takes_allowed_ = allow; }

  bool take_early(In& item, const sc_core::sc_time& visible,
                  sc_core::sc_time& taken_at) override {
    if (serving_ || !held_.empty() || !nb_outputs_[0]->has_room_for(max_outputs(item))) {
      return false;
    }
    // Taken when it is visible or when the stage is free, whichever is later,
    // as the method would take it.
    taken_at = std::max(visible, free_at_);
    serve_booked(item, 0, taken_at);
    if (!held_.empty()) {
      SC_REPORT_ERROR("rnicsim/stage", (std::string(name()) +
                                        ": an item taken early emitted more outputs than "
                                        "max_outputs promised")
                                           .c_str());
    }
    finish_booked_item();
    return true;
  }

 protected:
  // The block's functional work on one item, done when its service starts:
  // emit 0..N outputs through `emitter`. It may wait; that time is busy time.
  virtual void serve(In& item, Emitter& emitter) = 0;

  // Bits that occupy the datapath for an item taken (Occupancy::kInput) or
  // emitted (kOutputs); by default the item's size_bits(), else 0.
  virtual std::uint64_t input_bits(const In& item) const { return detail::size_bits_of(item); }
  virtual std::uint64_t output_bits(const Out& item) const { return detail::size_bits_of(item); }

  // The input the item being served came from.
  std::size_t current_input() const { return current_input_; }

  // When the service of the item being served started: the time serve's
  // work happens at, which for an item taken early is ahead of the kernel's.
  const sc_core::sc_time& service_start() const { return item_start_; }

  // Thread stages: `time` of the item's service so far was latency rather
  // than work: a wait for work done elsewhere and pipelined there (a DMA read
  // in flight behind others). The item's span covers it; busy time does not.
  void count_as_latency(const sc_core::sc_time& time) {
    if (process_ != StageProcess::kThread || sim_now() - item_start_ < item_latency_ + time) {
      SC_REPORT_ERROR("rnicsim/stage", (std::string(name()) +
                                        ": count_as_latency is for thread stages, and at most "
                                        "the time the item's service has taken")
                                           .c_str());
      return;
    }
    item_latency_ += time;
  }
  // Time the stage's work waited outside its own process for something it
  // needs (a DMA read tag held by earlier reads) counts as blocked: the stage
  // could not take on more meanwhile.
  void count_as_blocked(const sc_core::sc_time& time) { stats_.blocked += time; }

  // The most outputs serve can emit for `item`: an item is taken early only
  // if its output has room for that many.
  virtual std::size_t max_outputs(const In& /*item*/) const { return 1; }

  void end_of_elaboration() override {
    // Resolved once: the ports' own lookups (and basename()'s search of the
    // full name) cost on every item.
    basename_ = basename();
    for (int i = 0; i < out.size(); ++i) outputs_.push_back(out[i]);
    input_ = in[0];
    const bool method = process_ == StageProcess::kMethod;
    if (method) {
      for (int i = 0; i < out.size(); ++i) {
        auto* output = dynamic_cast<NbPushIf<Out>*>(out[i]);
        if (output == nullptr) {
          SC_REPORT_ERROR("rnicsim/stage",
                          (std::string(name()) + ": output " + std::to_string(i) +
                           " has no non-blocking side, which a method stage needs")
                              .c_str());
          return;
        }
        nb_outputs_.push_back(output);
      }
    }
    if (method && early_takes_allowed_ && in.size() == 1 && out.size() == 1) {
      if (auto* source = dynamic_cast<EarlyTakeSourceIf<In>*>(in[0])) {
        source->set_early_reader(this);
      }
    }
    if (in.size() < 2 && !method) return;
    for (int i = 0; i < in.size(); ++i) {
      auto* input = dynamic_cast<NbPopIf<In>*>(in[i]);
      if (input == nullptr) {
        SC_REPORT_ERROR("rnicsim/stage", (std::string(name()) + ": input " + std::to_string(i) +
                                          " has no non-blocking side, which a method stage or "
                                          "a stage with several inputs needs")
                                             .c_str());
        return;
      }
      inputs_.push_back(input);
      any_input_ |= input->data_event();
    }
  }

 private:
  void serve_items() {
    for (;;) {
      In item = take();
      begin_item(sim_now());
      if (occupancy_ == Occupancy::kInput) occupy(input_bits(item));
      serve(item, emitter_);
      settle();
      stats_.busy += sim_now() - item_start_ - item_blocked_ - item_latency_;
      if (item_outputs_ == 0) ++stats_.dropped;
    }
  }

  // The method's body: serves every item it can at this instant. It returns
  // having asked to run again when the next item is visible, when the stage
  // is free for it, or when a held output finds room.
  void serve_visible_items() {
    ++activity().method_activations;
    if (!held_.empty()) {
      if (!send_held()) return;
      finish_booked_item();
    }
    const sc_core::sc_time now = sim_now();
    for (;;) {
      const std::size_t i = visible_input();
      if (i == inputs_.size()) {
        // A single event where there is one input: the or-list costs the kernel more.
        if (inputs_.size() == 1) {
          sc_core::next_trigger(inputs_[0]->data_event());
        } else {
          sc_core::next_trigger(any_input_);
        }
        return;
      }
      if (free_at_ > now) {
        sc_core::next_trigger(free_at_ - now);
        return;
      }
      In item;
      inputs_[i]->nb_pop(item);
      next_input_ = (i + 1) % inputs_.size();
      serve_booked(item, i, now);
      if (!held_.empty() && !send_held()) return;
      finish_booked_item();
    }
  }

  // Method stages: serves `item` from input `input` with its service starting
  // at `start` (now, or ahead for an item taken early).
  void serve_booked(In& item, std::size_t input, const sc_core::sc_time& start) {
    current_input_ = input;
    begin_item(start);
    if (occupancy_ == Occupancy::kInput) occupy(input_bits(item));
    serving_ = true;
    serve(item, emitter_);
    serving_ = false;
    trailing_ = pending_;  // charged after the last output
    pending_ = sc_core::SC_ZERO_TIME;
  }

  // The first input, round robin, whose head is visible; inputs_.size() if none.
  std::size_t visible_input() const {
    const std::size_t n = inputs_.size();
    for (std::size_t k = 0; k < n; ++k) {
      const std::size_t i = (next_input_ + k) % n;
      if (inputs_[i]->peek() != nullptr) return i;
    }
    return n;
  }

  void begin_item(const sc_core::sc_time& start) {
    if (stats_.items == 0) stats_.first_start = start;
    ++stats_.items;
    item_start_ = output_start_ = start;
    item_blocked_ = sc_core::SC_ZERO_TIME;
    item_latency_ = sc_core::SC_ZERO_TIME;
    item_outputs_ = 0;
  }

  // Method stages: an output whose service time is booked; it is sent at
  // once if it is first in line and its channel has room, else held.
  struct Held {
    Out item;
    std::size_t port;
    sc_core::sc_time service;  // from the previous output's departure to this one's
  };

  // Whether the stage has output `port` of `count`; reports the error if not.
  bool has_output(std::size_t port, std::size_t count) {
    if (port < count) return true;
    SC_REPORT_ERROR("rnicsim/stage", (std::string(name()) + ": no output " +
                                      std::to_string(port) + " to emit on")
                                         .c_str());
    return false;
  }

  void hold_or_send(Out& item, std::size_t port) {
    if (!has_output(port, nb_outputs_.size())) return;
    if (occupancy_ == Occupancy::kOutputs) occupy(output_bits(item));
    Held held{std::move(item), port, pending_};
    pending_ = sc_core::SC_ZERO_TIME;
    if (held_.empty() && nb_outputs_[port]->can_push()) {
      send(held, item_start_);  // the service starts when serve runs
    } else {
      held_.push_back(std::move(held));
    }
  }

  // Sends the held outputs in order while their channels have room; false
  // (with the method set to run again on the space) if one is still full.
  bool send_held() {
    while (!held_.empty()) {
      NbPushIf<Out>* const output = nb_outputs_[held_.front().port];
      if (!output->can_push()) {
        sc_core::next_trigger(output->space_event());
        return false;
      }
      send(held_.front(), sim_now());
      held_.pop_front();
    }
    return true;
  }

  // Sends an output at `now`, which is ahead of the kernel for an item taken early.
  void send(Held& held, const sc_core::sc_time& now) {
    const sc_core::sc_time done = output_start_ + held.service;
    const sc_core::sc_time sent = std::max(done, now);
    const sc_core::sc_time visible = sent + timing_.latency();
    if constexpr (detail::HasRecordSpan<Out>::value) {
      held.item.record_span(basename_, output_start_, visible);
    }
    item_blocked_ += sent - done;
    stats_.blocked += sent - done;
    ++stats_.items_out;
    ++item_outputs_;
    stats_.last_end = visible;
    output_start_ = sent;
    nb_outputs_[held.port]->nb_push(std::move(held.item), visible - sim_now());
  }

  void finish_booked_item() {
    const sc_core::sc_time end = output_start_ + trailing_;
    stats_.busy += end - item_start_ - item_blocked_;
    if (item_outputs_ == 0) ++stats_.dropped;
    free_at_ = end;
  }

  In take() {
    if (inputs_.empty()) return input_->pop();
    const std::size_t n = inputs_.size();
    for (;;) {
      for (std::size_t k = 0; k < n; ++k) {
        const std::size_t i = (next_input_ + k) % n;
        if (inputs_[i]->peek() != nullptr) {
          next_input_ = (i + 1) % n;
          current_input_ = i;
          return in[static_cast<int>(i)]->pop();  // visible: returns at once
        }
      }
      sc_core::wait(any_input_);
      ++activity().channel_wakes;
    }
  }

  void occupy(std::uint64_t bits) {
    stats_.bits += bits;
    pending_ += timing_.service_time(bits);
  }

  // Lets the time charged so far pass.
  void settle() {
    if (pending_ == sc_core::SC_ZERO_TIME) return;
    sc_core::wait(pending_);
    ++activity().stage_resumptions;
    pending_ = sc_core::SC_ZERO_TIME;
  }

  void emit_item(Out& item, std::size_t port) {
    if (!has_output(port, outputs_.size())) return;
    if (occupancy_ == Occupancy::kOutputs) occupy(output_bits(item));
    settle();
    const sc_core::sc_time done = sim_now();
    PushIf<Out>* const output = outputs_[port];
    output->wait_for_space();
    const sc_core::sc_time sent = sim_now();
    const sc_core::sc_time visible = sent + timing_.latency();
    if constexpr (detail::HasRecordSpan<Out>::value) {
      item.record_span(basename_, output_start_, visible);
    }
    item_blocked_ += sent - done;
    stats_.blocked += sent - done;
    ++stats_.items_out;
    ++item_outputs_;
    stats_.last_end = visible;
    output_start_ = sent;
    output->push(std::move(item), timing_.latency());
  }

  StageTiming timing_;
  Occupancy occupancy_;
  StageProcess process_;
  Emitter emitter_;
  StageStats stats_;
  PopIf<In>* input_ = nullptr;         // the first input
  std::vector<PushIf<Out>*> outputs_;
  std::vector<NbPopIf<In>*> inputs_;  // set when there are several inputs
  sc_core::sc_event_or_list any_input_;
  const char* basename_ = "";  // basename() of this module, which outlives it
  std::size_t next_input_ = 0;
  std::size_t current_input_ = 0;
  // The item in service.
  sc_core::sc_time pending_;        // charged and not yet waited for
  sc_core::sc_time item_start_;
  sc_core::sc_time output_start_;  // the next output's service started then
  sc_core::sc_time item_blocked_;
  sc_core::sc_time item_latency_;  // thread stages: count_as_latency
  std::uint64_t item_outputs_ = 0;
  // Method stages only.
  std::vector<NbPushIf<Out>*> nb_outputs_;
  RingQueue<Held> held_;      // outputs waiting for room, in order
  bool serving_ = false;       // inside serve: an item offered early then waits
  bool early_takes_allowed_ = true;
  sc_core::sc_time trailing_;  // the item's service time after its last output
  sc_core::sc_time free_at_;   // when the datapath has finished the last item
};

// The 1 -> 1 case: serve works on the item, which then leaves as it is; the
// item's occupancy_bits() occupy the datapath.
template <class Item>
class PipelineStage : public Stage<Item, Item> {
 public:
  PipelineStage(const sc_core::sc_module_name& name, const StageTiming& timing,
                StageProcess process = StageProcess::kThread)
      : Stage<Item, Item>(name, timing, Occupancy::kInput, process) {}

 protected:
  // The stage's functional work on one item, done when service starts. It may
  // wait (a blocking TLM call that models its own time) and returns extra
  // busy time to charge after it (for example, an annotated TLM delay).
  virtual sc_core::sc_time serve(Item& item) = 0;

  // Bits that occupy the datapath for this item; the wire adds its framing.
  virtual std::uint64_t occupancy_bits(const Item& item) const { return item.size_bits(); }

 private:
  using Emitter = typename Stage<Item, Item>::Emitter;

  std::uint64_t input_bits(const Item& item) const final { return occupancy_bits(item); }

  void serve(Item& item, Emitter& emitter) final {
    emitter.charge(serve(item));
    emitter.emit(std::move(item));
  }
};

}  // namespace rnicsim
