#pragma once
// PipelineStage: the one timing mechanism every block's datapath is built on.
//
// The stage pops an item, does its functional work (serve), stays busy for the
// service time (StageTiming) plus any time the work itself took or reported (a
// memory access), waits for room downstream, and pushes the item with the
// stage latency. One item at a time: a stage is one datapath. Each item records its start and the time it becomes visible
// downstream, so per-stage timelines come straight out of the simulation.
//
// Item must provide `std::uint64_t size_bits() const` and
// `void record_span(const char* stage, sc_time start, sc_time end)`.
#include <cstdint>
#include <systemc>
#include <utility>

#include "common/channel.hpp"
#include "common/module_macros.hpp"
#include "common/stage_span.hpp"
#include "common/stage_timing.hpp"

namespace rnicsim {

struct StageStats {
  std::uint64_t items = 0;
  std::uint64_t bits = 0;          // occupancy bits served (the wire counts framing)
  sc_core::sc_time busy;           // time spent serving items
  sc_core::sc_time blocked;        // time finished items waited for room downstream
  sc_core::sc_time first_start;    // when the first item started
  sc_core::sc_time last_end;       // when the last item became visible downstream
};

template <class Item>
class PipelineStage : public sc_core::sc_module {
 public:
  sc_core::sc_port<PopIf<Item>> in;
  sc_core::sc_port<PushIf<Item>> out;

  RNICSIM_PROCESS_MODULE(PipelineStage);

  PipelineStage(const sc_core::sc_module_name& name, const StageTiming& timing)
      : sc_core::sc_module(name), in("in"), out("out"), timing_(timing) {
    SC_THREAD(serve_items);
  }

  const StageStats& stats() const { return stats_; }
  const StageTiming& timing() const { return timing_; }

 protected:
  // The stage's functional work on one item, done when service starts. It may
  // wait (a blocking TLM call that models its own time) and returns extra
  // busy time to charge after it (for example, an annotated TLM delay).
  virtual sc_core::sc_time serve(Item& item) = 0;

  // Bits that occupy the datapath for this item; the wire adds its framing.
  virtual std::uint64_t occupancy_bits(const Item& item) const { return item.size_bits(); }

 private:
  void serve_items() {
    for (;;) {
      Item item = in->pop();
      const sc_core::sc_time start = sc_core::sc_time_stamp();
      const std::uint64_t bits = occupancy_bits(item);
      // serve() may itself wait (a DMA read over PCIe) or report time to add.
      const sc_core::sc_time reported = serve(item);
      sc_core::wait(timing_.service_time(bits) + reported);

      const sc_core::sc_time done = sc_core::sc_time_stamp();
      const sc_core::sc_time busy = done - start;
      out->wait_for_space();
      const sc_core::sc_time sent = sc_core::sc_time_stamp();
      const sc_core::sc_time visible = sent + timing_.latency();
      item.record_span(basename(), start, visible);

      if (stats_.items == 0) stats_.first_start = start;
      ++stats_.items;
      stats_.bits += bits;
      stats_.busy += busy;
      stats_.blocked += sent - done;
      stats_.last_end = visible;
      out->push(std::move(item), timing_.latency());
    }
  }

  StageTiming timing_;
  StageStats stats_;
};

}  // namespace rnicsim
