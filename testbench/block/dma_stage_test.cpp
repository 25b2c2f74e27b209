// The DMA stage on its own: it reads the buffer from host memory into the
// item (the NIC's buffer) and takes size/rate + latency.
#include <gtest/gtest.h>

#include <systemc>
#include <vector>

#include "block/transfer_bench.hpp"
#include "common/time_units.hpp"
#include "stage_view/dma_stage.hpp"

namespace rnicsim {
namespace {

using testbench::make_transfer;
using testbench::small_memory;
using testbench::TransferBench;

TEST(DmaStage, ReadsTheBufferFromHostMemoryIntoTheNic) {
  std::vector<std::pair<sc_core::sc_time, Transfer>> items;
  for (std::uint64_t i = 0; i < 2; ++i) {
    Transfer item = make_transfer(i, 4096 * 8);
    item.set_host_address(0x10000 + 4000 * i);  // the second crosses a 4 KiB boundary
    items.emplace_back(sc_core::SC_ZERO_TIME, std::move(item));
  }
  TransferBench<DmaStage> bench(small_memory(), std::move(items),
                                 StageTiming::rate(nanoseconds(500), 128));
  bench.stage.dma2host.socket.bind(bench.memory.socket);
  Bytes host(8096);
  for (std::size_t i = 0; i < host.size(); ++i) host[i] = static_cast<std::uint8_t>(i * 31 + 5);
  bench.memory.write_bytes(0x10000, host.data(), host.size());
  sc_core::sc_start();

  const auto& got = bench.sink.received();
  ASSERT_EQ(got.size(), 2u);
  for (std::size_t i = 0; i < 2; ++i) {
    ASSERT_NE(got[i].second.bytes(), nullptr);
    const Bytes expected(host.begin() + 4000 * i, host.begin() + 4000 * i + 4096);
    EXPECT_EQ(*got[i].second.bytes(), expected);
  }
  // 32768 bits at 128 Gbit/s = 256 ns each; 500 ns latency is pipelined.
  EXPECT_EQ(to_ps(got[0].first), 756000u);
  EXPECT_EQ(to_ps(got[1].first), 1012000u);
  EXPECT_EQ(bench.memory.stats().bytes_read, 8192u);
}

}  // namespace
}  // namespace rnicsim
