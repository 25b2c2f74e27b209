#include "stage_view/dma_read_stage.hpp"

#include <memory>

#include "common/simulation.hpp"
#include "common/time_units.hpp"

namespace rnicsim {

DmaReadStage::DmaReadStage(const sc_core::sc_module_name& name, DmaEngine& engine,
                           std::uint32_t reads_in_flight, double link_gbps)
    : sc_core::sc_module(name),
      in("in"),
      port_(engine.attach(std::string(this->name()), reads_in_flight)),
      reads_in_flight_(reads_in_flight),
      link_gbps_(link_gbps),
      requested_("requested", reads_in_flight),
      completion_("dma", *this),
      done_(reads_in_flight, false) {
  completion_.in(requested_);
  SC_THREAD(issue);
}

void DmaReadStage::issue() {
  for (;;) {
    Transfer item = in->pop();
    // A tag is free again once the Data holding it has been handed on.
    const sc_core::sc_time asked = sim_now();
    while (issued_ - finished_ >= reads_in_flight_) sc_core::wait(finished_event_);
    tag_wait_ += sim_now() - asked;
    const auto tag = static_cast<std::uint32_t>(issued_ % reads_in_flight_);
    auto buffer = std::make_shared<Bytes>(item.size_bytes());
    DmaRequest request = DmaRequest::read(tag, item.host_address(),
                                          static_cast<std::uint32_t>(buffer->size()),
                                          buffer->data());
    request.pad_bits = static_cast<std::uint8_t>(8 * item.size_bytes() - item.size_bits());
    port_.request(request);
    ++issued_;
    tags_in_order_.push_back(tag);
    item.set_bytes(std::move(buffer));  // filled when the read completes
    requested_.push(std::move(item), sc_core::SC_ZERO_TIME);
  }
}

void DmaReadStage::collect_completions() {
  while (port_.has_completion()) {
    const DmaCompletion completion = port_.pop_completion();
    if (!completion.ok()) {
      fail_run(std::string(name()) + ": a DMA read (tag " + std::to_string(completion.tag) +
               ") failed: its Data's buffer is not host memory");
    }
    done_[completion.tag] = true;
  }
}

sc_core::sc_time DmaReadStage::Completion::serve(Transfer& item) {
  DmaReadStage& o = owner_;
  const std::uint32_t tag = o.tags_in_order_.front();  // Data are served in the order issued
  o.tags_in_order_.pop_front();
  count_as_blocked(o.tag_wait_);
  o.tag_wait_ = sc_core::SC_ZERO_TIME;
  const sc_core::sc_time from = sim_now();
  for (o.collect_completions(); !o.done_[tag]; o.collect_completions()) {
    sc_core::wait(o.port_.completion_event());
  }
  const sc_core::sc_time waited = sim_now() - from;
  const sc_core::sc_time on_link = serialization_time(item.size_bits(), o.link_gbps_);
  if (waited > on_link) count_as_latency(waited - on_link);
  o.done_[tag] = false;
  ++o.finished_;
  o.finished_event_.notify(sc_core::SC_ZERO_TIME);
  return sc_core::SC_ZERO_TIME;
}

}  // namespace rnicsim
