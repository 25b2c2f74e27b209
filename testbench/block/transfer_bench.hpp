#pragma once
// A block testbed for stages that move Transfers: paced source -> stage ->
// recording sink, with a host memory the stage's initiator can be bound to.
#include <memory>
#include <systemc>
#include <utility>
#include <vector>

#include "block/stream_harness.hpp"
#include "common/channel.hpp"
#include "common/transfer.hpp"
#include "host/memory/host_memory.hpp"

namespace rnicsim::testbench {

inline HostMemoryConfig small_memory(sc_core::sc_time latency = sc_core::SC_ZERO_TIME) {
  return HostMemoryConfig{1ULL << 30, latency};
}

inline Transfer make_transfer(std::uint64_t index, std::uint64_t bits, Bytes bytes = {}) {
  SharedBytes shared = bytes.empty() ? nullptr : std::make_shared<const Bytes>(std::move(bytes));
  return Transfer(index, bits, sc_core::SC_ZERO_TIME, std::move(shared));
}

template <class Stage>
struct TransferBench {
  template <class... StageArgs>
  TransferBench(const HostMemoryConfig& memory_config,
                std::vector<std::pair<sc_core::sc_time, Transfer>> items, StageArgs&&... args)
      : memory("memory", memory_config),
        in("in", Channel<Transfer>::kUnbounded),
        out("out", Channel<Transfer>::kUnbounded),
        source("source", std::move(items)),
        stage("stage", std::forward<StageArgs>(args)...),
        sink("sink") {
    source.out(in);
    stage.in(in);
    stage.out(out);
    sink.in(out);
  }

  HostMemory memory;
  Channel<Transfer> in;
  Channel<Transfer> out;
  PacedSource<Transfer> source;
  Stage stage;
  RecordingSink<Transfer> sink;
};

}  // namespace rnicsim::testbench
