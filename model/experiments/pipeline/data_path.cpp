#include "experiments/pipeline/data_path.hpp"

#include <algorithm>
#include <memory>

#include "common/simulation.hpp"
#include "common/time_units.hpp"
#include "experiments/pipeline/data_pattern.hpp"

namespace rnicsim {

DataPath::DataPath(const sc_core::sc_module_name& name, const PipelineConfig& config,
                   bool with_kernel_copy, const Encapsulation& encapsulation,
                   RunProgress& progress)
    : sc_core::sc_module(name),
      workload_(config.workload),
      progress_(progress),
      memory_("memory", config.memory),
      source_("source", config.workload),
      app2next_(with_kernel_copy ? "app2kernel" : "app2dma", config.queue_items),
      dma2wire_("dma2wire", config.queue_items),
      app_write_("app_write", config.cpu.app_write, 0, config.buffer_slots),
      dma_("dma", config.dma),
      wire_("wire", config.link, WireFraming(config.framing, encapsulation)) {
  app_write_.in(source_);
  app_write_.out(app2next_);
  app_write_.cpu2mem.socket.bind(memory_.socket);
  if (with_kernel_copy) {
    kernel2dma_ = std::make_unique<Channel<Transfer>>("kernel2dma", config.queue_items);
    kernel_copy_ = std::make_unique<KernelCopy>("kernel_copy", config.cpu.kernel_copy,
                                                config.memory.size_bytes / 2, config.buffer_slots);
    kernel_copy_->in(app2next_);
    kernel_copy_->out(*kernel2dma_);
    kernel_copy_->cpu2mem.socket.bind(memory_.socket);
    dma_.in(*kernel2dma_);
  } else {
    dma_.in(app2next_);
  }
  dma_.out(dma2wire_);
  dma_.dma2host.socket.bind(memory_.socket);
  wire_.in(dma2wire_);
  // The receiver takes every Data as it arrives, so only a Data larger than
  // the whole receive buffer is dropped; nothing would resend it.
  wire_.set_drop_handler([this](const Transfer& data, const sc_core::sc_time& arrived) {
    fail_run(std::string(this->name()) + ": Data " + std::to_string(data.index()) + " (" +
             std::to_string(data.size_bytes()) + " bytes) was dropped at " +
             std::to_string(to_ns(arrived)) +
             " ns: it does not fit the receive buffer (link.rx_buffer_bytes)");
  });
  SC_THREAD(receive);
}

std::vector<const PipelineStage<Transfer>*> DataPath::stages() const {
  std::vector<const PipelineStage<Transfer>*> list{&app_write_};
  if (kernel_copy_) list.push_back(kernel_copy_.get());
  list.push_back(&dma_);
  list.push_back(&wire_);
  return list;
}

void DataPath::receive() {
  DataTimeline& data = arriving_;
  for (;;) {
    const Transfer transfer = wire_.rx.pop();
    data.index = transfer.index();
    data.produced_ns = to_ns(transfer.produced_at());
    data.stage_start_ns.clear();
    data.stage_end_ns.clear();
    for (const StageSpan& span : transfer.spans()) {
      data.stage_start_ns.push_back(to_ns(span.start));
      data.stage_end_ns.push_back(to_ns(span.end));
    }
    data.arrival_ns = to_ns(sim_now());
    data.latency_ns = data.arrival_ns - data.produced_ns;
    data.bytes_match = transfer.bytes() &&
                       *transfer.bytes() ==
                           data_pattern(workload_.pattern_seed, transfer.index(), workload_.data_bits);
    count(data);
    if (observer_) observer_(data);
    progress_.advance();
    if (totals_.arrived == workload_.count) finish_workload();
  }
}

void DataPath::count(const DataTimeline& data) {
  ArrivalTotals& t = totals_;
  if (t.arrived == 0) {
    t.first_arrival_ns = data.arrival_ns;
    t.min_latency_ns = t.max_latency_ns = data.latency_ns;
  }
  if (data.index == 0) t.first_latency_ns = data.latency_ns;
  ++t.arrived;
  if (!data.bytes_match) ++t.data_mismatches;
  t.min_latency_ns = std::min(t.min_latency_ns, data.latency_ns);
  t.max_latency_ns = std::max(t.max_latency_ns, data.latency_ns);
  t.latency_sum_ns += data.latency_ns;
  t.last_arrival_ns = data.arrival_ns;
}

}  // namespace rnicsim
