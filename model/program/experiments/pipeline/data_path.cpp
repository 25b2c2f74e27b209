#include "program/experiments/pipeline/data_path.hpp"

#include <algorithm>
#include <memory>

#include "common/simulation.hpp"
#include "common/time_units.hpp"
#include "program/experiments/pipeline/data_pattern.hpp"

namespace rnicsim {

namespace {

// The testbed of one path: its wires carry bare Data with the path's framing.
std::unique_ptr<Testbed> path_testbed(const PipelineConfig& config,
                                      const Encapsulation& encapsulation) {
  if (!config.testbed) return nullptr;
  TestbedConfig testbed = *config.testbed;
  testbed.bare_data = WireFraming(config.framing, encapsulation);
  return std::make_unique<Testbed>("testbed", testbed);
}

}  // namespace

DataPath::DataPath(const sc_core::sc_module_name& name, const PipelineConfig& config,
                   bool with_kernel_copy, const Encapsulation& encapsulation,
                   RunProgress& progress)
    : sc_core::sc_module(name),
      workload_(config.workload),
      progress_(progress),
      testbed_(path_testbed(config, encapsulation)),
      subject_(config.subject),
      own_memory_(testbed_ ? nullptr : std::make_unique<HostMemory>("memory", config.memory)),
      memory_(testbed_ ? &testbed_->node(config.subject).host.memory : own_memory_.get()),
      source_("source", config.workload),
      app2next_(with_kernel_copy ? "app2kernel" : "app2dma", config.queue_items),
      app_write_("app_write", config.cpu.app_write, 0, config.buffer_slots) {
  app_write_.in(source_);
  app_write_.out(app2next_);
  app_write_.cpu2mem.socket.bind(memory_->socket);
  Channel<Transfer>* to_dma = &app2next_;
  if (with_kernel_copy) {
    kernel2dma_ = std::make_unique<Channel<Transfer>>("kernel2dma", config.queue_items);
    kernel_copy_ = std::make_unique<KernelCopy>("kernel_copy", config.cpu.kernel_copy,
                                                config.memory.size_bytes / 2, config.buffer_slots);
    kernel_copy_->in(app2next_);
    kernel_copy_->out(*kernel2dma_);
    kernel_copy_->cpu2mem.socket.bind(memory_->socket);
    to_dma = kernel2dma_.get();
  }
  if (testbed_) {
    Nic& nic = testbed_->node(config.subject).nic;
    nic_dma_ = std::make_unique<DmaReadStage>("nic_dma", nic.dma_engine, config.dma_reads_in_flight,
                                              testbed_->node(config.subject).host.config().pcie.link_gbps());
    nic_dma_->in(*to_dma);
    nic_dma_->output().bind(nic.mac_tx);  // the wire from the subject to its peer reads it
    wire_ = &testbed_->wire_to(config.testbed->topology.peer_of(config.subject));
  } else {
    dma_ = std::make_unique<DmaStage>("dma", config.dma);
    dma2wire_ = std::make_unique<Channel<Transfer>>("dma2wire", config.queue_items);
    own_wire_ = std::make_unique<WireLink>("wire", config.link,
                                           WireFraming(config.framing, encapsulation));
    dma_->in(*to_dma);
    dma_->out(*dma2wire_);
    dma_->dma2host.socket.bind(memory_->socket);
    own_wire_->in(*dma2wire_);
    wire_ = own_wire_.get();
  }
  // The receiver takes every Data as it arrives, so only a Data larger than
  // the whole receive buffer is dropped; nothing would resend it.
  wire_->set_drop_handler([this](const Transfer& data, const sc_core::sc_time& arrived) {
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
  if (nic_dma_) {
    list.push_back(&nic_dma_->stage());
  } else {
    list.push_back(dma_.get());
  }
  list.push_back(wire_);
  return list;
}

std::vector<std::string> DataPath::stage_names() const {
  std::vector<std::string> names{"app_write"};
  if (kernel_copy_) names.push_back("kernel_copy");
  names.push_back("dma");
  names.push_back("wire");
  return names;
}

void DataPath::receive() {
  DataTimeline& data = arriving_;
  for (;;) {
    const Transfer transfer = wire_->rx.pop();
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
    if (!data.bytes_match) {
      // The path moves bytes, it never makes them: a model defect, not a result.
      fail_run(std::string(name()) + ": Data " + std::to_string(data.index) +
               " reached the peer with other bytes than the application wrote");
    }
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
