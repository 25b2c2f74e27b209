#include "experiments/pipeline/data_path.hpp"

#include <memory>

#include "common/time_units.hpp"
#include "experiments/pipeline/data_pattern.hpp"

namespace rnicsim {

DataPath::DataPath(const sc_core::sc_module_name& name, const PipelineConfig& config,
                   bool with_kernel_copy, const Encapsulation& encapsulation)
    : sc_core::sc_module(name),
      workload_(config.workload),
      memory_("memory", config.memory),
      producer2app_("producer2app", Channel<Transfer>::kUnbounded),
      app2next_(with_kernel_copy ? "app2kernel" : "app2dma", config.queue_items),
      dma2wire_("dma2wire", config.queue_items),
      wire2peer_("wire2peer", Channel<Transfer>::kUnbounded),
      app_write_("app_write", config.cpu.app_write, 0),
      dma_("dma", config.dma),
      wire_("wire", config.link, WireFraming(config.framing, encapsulation)) {
  app_write_.in(producer2app_);
  app_write_.out(app2next_);
  app_write_.cpu2mem.socket.bind(memory_.socket);
  if (with_kernel_copy) {
    kernel2dma_ = std::make_unique<Channel<Transfer>>("kernel2dma", config.queue_items);
    kernel_copy_ = std::make_unique<KernelCopy>("kernel_copy", config.cpu.kernel_copy,
                                                config.memory.size_bytes / 2);
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
  wire_.out(wire2peer_);

  arrivals_.reserve(workload_.count);
  SC_THREAD(produce);
  SC_THREAD(receive);
}

std::vector<const PipelineStage<Transfer>*> DataPath::stages() const {
  std::vector<const PipelineStage<Transfer>*> list{&app_write_};
  if (kernel_copy_) list.push_back(kernel_copy_.get());
  list.push_back(&dma_);
  list.push_back(&wire_);
  return list;
}

void DataPath::produce() {
  for (std::uint64_t i = 0; i < workload_.count; ++i) {
    const sc_core::sc_time due = picoseconds(to_ps(workload_.interval) * i);
    if (due > sc_core::sc_time_stamp()) sc_core::wait(due - sc_core::sc_time_stamp());
    auto bytes = std::make_shared<const Bytes>(data_pattern(workload_.seed, i, workload_.data_bits));
    producer2app_.push(Transfer(i, workload_.data_bits, due, std::move(bytes)),
                       sc_core::SC_ZERO_TIME);
  }
}

void DataPath::receive() {
  for (;;) {
    Transfer transfer = wire2peer_.pop();
    const bool match = transfer.bytes() &&
                       *transfer.bytes() ==
                           data_pattern(workload_.seed, transfer.index(), workload_.data_bits);
    arrivals_.push_back(Arrival{std::move(transfer), sc_core::sc_time_stamp(), match});
  }
}

}  // namespace rnicsim
