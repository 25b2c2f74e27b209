// The host CPU stages on their own: the application's write and the kernel
// copy move real bytes in host memory and take size/rate + latency (+ the
// memory's own latency per access).
#include <gtest/gtest.h>

#include <systemc>
#include <vector>

#include "block/transfer_bench.hpp"
#include "common/time_units.hpp"
#include "stage_view/application_writer.hpp"
#include "stage_view/kernel_copy.hpp"

namespace rnicsim {
namespace {

using testbench::make_transfer;
using testbench::small_memory;
using testbench::TransferBench;

Bytes counting_bytes(std::size_t n, std::uint8_t first) {
  Bytes bytes(n);
  for (std::size_t i = 0; i < n; ++i) bytes[i] = static_cast<std::uint8_t>(first + i);
  return bytes;
}

TEST(ApplicationWriter, WritesTheDataIntoTheUserBufferAndHandsOnItsAddress) {
  // Data 3 of 100 bits (13 bytes) lands in slot 3 of 8: 0x1000 + 3 * 13.
  std::vector<std::pair<sc_core::sc_time, Transfer>> items;
  items.emplace_back(sc_core::SC_ZERO_TIME, make_transfer(3, 100, counting_bytes(13, 0x40)));
  TransferBench<ApplicationWriter> bench(small_memory(), std::move(items),
                                         StageTiming::rate(nanoseconds(2), 100), 0x1000, 8);
  bench.stage.cpu2mem.socket.bind(bench.memory.socket);
  sc_core::sc_start();

  ASSERT_EQ(bench.sink.received().size(), 1u);
  const Transfer& out = bench.sink.received()[0].second;
  EXPECT_EQ(out.host_address(), 0x1000u + 39u);
  EXPECT_EQ(out.bytes(), nullptr);  // the data now lives in host memory only
  Bytes stored(13);
  bench.memory.read_bytes(0x1000 + 39, stored.data(), stored.size());
  EXPECT_EQ(stored, counting_bytes(13, 0x40));
  // 100 bits at 100 Gbit/s = 1 ns, plus 2 ns latency.
  EXPECT_EQ(to_ps(bench.sink.received()[0].first), 3000u);
}

TEST(ApplicationWriter, TheMemoryLatencyOccupiesTheWriter) {
  std::vector<std::pair<sc_core::sc_time, Transfer>> items;
  items.emplace_back(sc_core::SC_ZERO_TIME, make_transfer(0, 100, counting_bytes(13, 0)));
  items.emplace_back(sc_core::SC_ZERO_TIME, make_transfer(1, 100, counting_bytes(13, 0)));
  TransferBench<ApplicationWriter> bench(small_memory(nanoseconds(4)), std::move(items),
                                         StageTiming::rate(sc_core::SC_ZERO_TIME, 100), 0, 8);
  bench.stage.cpu2mem.socket.bind(bench.memory.socket);
  sc_core::sc_start();
  ASSERT_EQ(bench.sink.received().size(), 2u);
  EXPECT_EQ(to_ps(bench.sink.received()[0].first), 5000u);   // 1 ns + 4 ns memory
  EXPECT_EQ(to_ps(bench.sink.received()[1].first), 10000u);
}

TEST(ApplicationWriter, TheUserBufferIsARingOfSlots) {
  // Data 9 of 13 bytes in a ring of 4 slots lands in slot 9 mod 4 = 1: 0x1000 + 13.
  std::vector<std::pair<sc_core::sc_time, Transfer>> items;
  items.emplace_back(sc_core::SC_ZERO_TIME, make_transfer(9, 100, counting_bytes(13, 0x21)));
  TransferBench<ApplicationWriter> bench(small_memory(), std::move(items),
                                         StageTiming::rate(sc_core::SC_ZERO_TIME, 100), 0x1000, 4);
  bench.stage.cpu2mem.socket.bind(bench.memory.socket);
  sc_core::sc_start();
  ASSERT_EQ(bench.sink.received().size(), 1u);
  EXPECT_EQ(bench.sink.received()[0].second.host_address(), 0x1000u + 13u);
  Bytes stored(13);
  bench.memory.read_bytes(0x1000 + 13, stored.data(), stored.size());
  EXPECT_EQ(stored, counting_bytes(13, 0x21));
}

TEST(KernelCopy, CopiesFromTheUserBufferIntoTheKernelBuffer) {
  std::vector<std::pair<sc_core::sc_time, Transfer>> items;
  Transfer item = make_transfer(2, 64 * 8);
  item.set_host_address(0x2000);
  items.emplace_back(sc_core::SC_ZERO_TIME, std::move(item));
  TransferBench<KernelCopy> bench(small_memory(), std::move(items),
                                  StageTiming::rate(nanoseconds(10), 51.2), 0x100000, 8);
  bench.stage.cpu2mem.socket.bind(bench.memory.socket);
  const Bytes user = counting_bytes(64, 7);
  bench.memory.write_bytes(0x2000, user.data(), user.size());
  sc_core::sc_start();

  ASSERT_EQ(bench.sink.received().size(), 1u);
  const Transfer& out = bench.sink.received()[0].second;
  EXPECT_EQ(out.host_address(), 0x100000u + 2u * 64u);  // slot 2 of 8
  Bytes kernel(64);
  bench.memory.read_bytes(out.host_address(), kernel.data(), kernel.size());
  EXPECT_EQ(kernel, user);
  Bytes source(64);
  bench.memory.read_bytes(0x2000, source.data(), source.size());
  EXPECT_EQ(source, user);
  EXPECT_EQ(bench.memory.stats().reads, 1u);
  EXPECT_EQ(bench.memory.stats().writes, 1u);
  // 512 bits at 51.2 Gbit/s = 10 ns, plus 10 ns latency.
  EXPECT_EQ(to_ps(bench.sink.received()[0].first), 20000u);
}

}  // namespace
}  // namespace rnicsim
