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
#include "common/stage_span.hpp"
#include "common/stage_timing.hpp"

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
class Stage : public sc_core::sc_module {
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
    void emit(Out item, std::size_t port = 0) { stage_.emit_item(item, port); }
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
        Occupancy occupancy = Occupancy::kInput)
      : sc_core::sc_module(name),
        in("in"),
        out("out"),
        timing_(timing),
        occupancy_(occupancy),
        emitter_(*this) {
    SC_THREAD(serve_items);
  }

  const StageStats& stats() const { return stats_; }
  const StageTiming& timing() const { return timing_; }

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

  void end_of_elaboration() override {
    // Resolved once: the ports' own lookups cost on every item.
    for (int i = 0; i < out.size(); ++i) outputs_.push_back(out[i]);
    input_ = in[0];
    if (in.size() < 2) return;
    for (int i = 0; i < in.size(); ++i) {
      auto* input = dynamic_cast<NbPopIf<In>*>(in[i]);
      if (input == nullptr) {
        SC_REPORT_ERROR("rnicsim/stage", (std::string(name()) + ": input " + std::to_string(i) +
                                          " has no non-blocking side, which a stage with "
                                          "several inputs needs to choose among them")
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
      const sc_core::sc_time start = sc_core::sc_time_stamp();
      if (stats_.items == 0) stats_.first_start = start;
      ++stats_.items;
      item_start_ = output_start_ = start;
      item_blocked_ = sc_core::SC_ZERO_TIME;
      item_outputs_ = 0;
      if (occupancy_ == Occupancy::kInput) occupy(input_bits(item));
      serve(item, emitter_);
      settle();
      stats_.busy += sc_core::sc_time_stamp() - item_start_ - item_blocked_;
      if (item_outputs_ == 0) ++stats_.dropped;
    }
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
    if (port >= outputs_.size()) {
      SC_REPORT_ERROR("rnicsim/stage", (std::string(name()) + ": no output " +
                                        std::to_string(port) + " to emit on")
                                           .c_str());
      return;
    }
    if (occupancy_ == Occupancy::kOutputs) occupy(output_bits(item));
    settle();
    const sc_core::sc_time done = sc_core::sc_time_stamp();
    PushIf<Out>* const output = outputs_[port];
    output->wait_for_space();
    const sc_core::sc_time sent = sc_core::sc_time_stamp();
    const sc_core::sc_time visible = sent + timing_.latency();
    if constexpr (detail::HasRecordSpan<Out>::value) {
      item.record_span(basename(), output_start_, visible);
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
  Emitter emitter_;
  StageStats stats_;
  PopIf<In>* input_ = nullptr;         // the first input
  std::vector<PushIf<Out>*> outputs_;
  std::vector<NbPopIf<In>*> inputs_;  // set when there are several inputs
  sc_core::sc_event_or_list any_input_;
  std::size_t next_input_ = 0;
  std::size_t current_input_ = 0;
  // The item in service.
  sc_core::sc_time pending_;        // charged and not yet waited for
  sc_core::sc_time item_start_;
  sc_core::sc_time output_start_;  // the next output's service started then
  sc_core::sc_time item_blocked_;
  std::uint64_t item_outputs_ = 0;
};

// The 1 -> 1 case: serve works on the item, which then leaves as it is; the
// item's occupancy_bits() occupy the datapath.
template <class Item>
class PipelineStage : public Stage<Item, Item> {
 public:
  PipelineStage(const sc_core::sc_module_name& name, const StageTiming& timing)
      : Stage<Item, Item>(name, timing, Occupancy::kInput) {}

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
