// Steady state allocates nothing: once warm, thousands more 4 KiB reads and
// writes through a DmaPort, the DMA engine, the request splitter, the PCIe
// link and host memory make no heap allocation. This program replaces the
// global operator new to count, so it is a program of its own.
#include <gtest/gtest.h>

#include <systemc>
#include <vector>

#include "common/module_macros.hpp"
#include "counting_new.hpp"
#include "common/time_units.hpp"
#include "nic/dma/dma_engine.hpp"
#include "nic/dma/request_splitter.hpp"
#include "host/memory/host_memory.hpp"
#include "pcie/pcie_link.hpp"

namespace rnicsim {
namespace {

using testing::allocations;

constexpr std::uint32_t kInFlight = 16;
constexpr std::uint64_t kWarmUp = 2000;
constexpr std::uint64_t kMeasured = 10000;

// Keeps kInFlight 4 KiB transfers going, reads and writes in turn, over a
// 256 KiB window; records the allocation count when warm and when done.
struct Load : sc_core::sc_module {
  RNICSIM_PROCESS_MODULE(Load);
  Load(const sc_core::sc_module_name& name, DmaEngine& engine)
      : sc_core::sc_module(name), port(engine.attach("load", kInFlight)),
        buffers(kInFlight, std::vector<std::uint8_t>(4096, 0x5A)) {
    SC_METHOD(run);
    sensitive << port.completion_event();
  }
  void run() {
    while (port.has_completion()) {
      port.pop_completion();
      ++done;
      if (done == kWarmUp) warm = allocations;
      if (done == kWarmUp + kMeasured) {
        finished = allocations;
        sc_core::sc_stop();
        return;
      }
    }
    while (port.can_request()) {
      const std::uint32_t slot = static_cast<std::uint32_t>(issued % kInFlight);
      const std::uint64_t address = (8ULL << 30) + (issued % 64) * 4096;
      port.request(issued % 2 ? DmaRequest::write(slot, address, 4096, buffers[slot].data())
                              : DmaRequest::read(slot, address, 4096, buffers[slot].data()));
      ++issued;
    }
  }
  DmaPort& port;
  std::vector<std::vector<std::uint8_t>> buffers;
  std::uint64_t issued = 0;
  std::uint64_t done = 0;
  std::uint64_t warm = 0;
  std::uint64_t finished = 0;
};

TEST(DmaAllocation, SteadyStateReadsAndWritesAllocateNothing) {
  pcie::PcieConfig c;
  c.generation = 3;
  c.lanes = 16;
  c.link_latency = nanoseconds(20);
  c.root_complex_latency = nanoseconds(500);
  c.ack_every_bytes = 168;
  c.fc_update_every_bytes = 168;
  c.iotlb_entries = 64;
  HostMemory memory("memory", HostMemoryConfig{16ULL << 30, sc_core::SC_ZERO_TIME});
  pcie::PcieLink link("pcie", c);
  RequestSplitter splitter("request_splitter",
                           RequestSplitterConfig{BlockImpl::kModel, c.mrrs_bytes, c.mps_bytes});
  DmaEngine engine("dma_engine", DmaEngineConfig{64, 16, 8});
  link.pcie2mem.bind(memory.socket);
  splitter.split2pcie.bind(link.nic2pcie);
  engine.dma2split.bind(splitter.dma2split);
  Load load("load", engine);
  sc_core::sc_start();
  ASSERT_EQ(load.done, kWarmUp + kMeasured);
  EXPECT_GT(load.warm, 0u);  // the count is live: building and warming up allocate
  EXPECT_EQ(load.finished - load.warm, 0u);
}

}  // namespace
}  // namespace rnicsim
