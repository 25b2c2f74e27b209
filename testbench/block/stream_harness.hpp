#pragma once
// Paced sources and sinks for block tests of stream blocks: the source offers
// each item at a chosen time, the sink takes items no earlier than chosen
// times (to apply backpressure) and records when each one arrived.
#include <cstdint>
#include <functional>
#include <systemc>
#include <utility>
#include <vector>

#include "common/channel.hpp"
#include "common/stage_span.hpp"
#include "common/module_macros.hpp"

namespace rnicsim::testbench {

// An item for stage tests: an id, a size that occupies the datapath, and the
// spans the stages it crosses record.
struct TestItem {
  int id = 0;
  std::uint64_t bits = 0;
  std::vector<StageSpan> spans;
  std::uint64_t size_bits() const { return bits; }
  void record_span(const char* stage, const sc_core::sc_time& start, const sc_core::sc_time& end) {
    spans.push_back(StageSpan{stage, start, end});
  }
};

template <class Item>
class PacedSource : public sc_core::sc_module {
 public:
  sc_core::sc_port<PushIf<Item>> out;
  RNICSIM_PROCESS_MODULE(PacedSource);

  // Item i is pushed at offer_at[i] (or as soon after as the channel has room).
  PacedSource(const sc_core::sc_module_name& name, std::vector<std::pair<sc_core::sc_time, Item>> items)
      : sc_core::sc_module(name), out("out"), items_(std::move(items)) {
    SC_THREAD(run);
  }

 private:
  void run() {
    for (auto& [at, item] : items_) {
      if (at > sc_core::sc_time_stamp()) sc_core::wait(at - sc_core::sc_time_stamp());
      out->push(std::move(item), sc_core::SC_ZERO_TIME);
    }
  }
  std::vector<std::pair<sc_core::sc_time, Item>> items_;
};

template <class Item>
class RecordingSink : public sc_core::sc_module {
 public:
  sc_core::sc_port<PopIf<Item>> in;
  RNICSIM_PROCESS_MODULE(RecordingSink);

  // Before taking item i the sink waits until take_not_before[i] (if given).
  explicit RecordingSink(const sc_core::sc_module_name& name,
                         std::vector<sc_core::sc_time> take_not_before = {})
      : sc_core::sc_module(name), in("in"), take_not_before_(std::move(take_not_before)) {
    SC_THREAD(run);
  }

  const std::vector<std::pair<sc_core::sc_time, Item>>& received() const { return received_; }

 private:
  void run() {
    for (;;) {
      const std::size_t i = received_.size();
      if (i < take_not_before_.size() && take_not_before_[i] > sc_core::sc_time_stamp()) {
        sc_core::wait(take_not_before_[i] - sc_core::sc_time_stamp());
      }
      Item item = in->pop();
      received_.emplace_back(sc_core::sc_time_stamp(), std::move(item));
    }
  }
  std::vector<sc_core::sc_time> take_not_before_;
  std::vector<std::pair<sc_core::sc_time, Item>> received_;
};

}  // namespace rnicsim::testbench
