// HostMemory as a TLM-2.0 target: byte-exact storage across its 4 KiB chunks,
// annotated latency, several initiators on one socket, and error responses.
#include "host/memory/host_memory.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <systemc>
#include <tlm>
#include <vector>

#include "common/memory_initiator.hpp"
#include "common/time_units.hpp"
#include "host/driver/address_space.hpp"
#include "host/memory/page_allocator.hpp"

namespace rnicsim {
namespace {

struct Initiators : sc_core::sc_module {
  explicit Initiators(const sc_core::sc_module_name& name)
      : sc_core::sc_module(name), cpu("cpu"), nic("nic") {}
  MemoryInitiator cpu;
  MemoryInitiator nic;
};

struct MemoryBench {
  explicit MemoryBench(std::uint64_t size = 1ULL << 20, double latency_ns = 0)
      : memory("memory", HostMemoryConfig{size, nanoseconds(latency_ns)}), initiators("initiators") {
    initiators.cpu.socket.bind(memory.socket);
    initiators.nic.socket.bind(memory.socket);
    sc_core::sc_start(sc_core::SC_ZERO_TIME);  // finish elaboration
  }
  HostMemory memory;
  Initiators initiators;
};

tlm::tlm_response_status raw_access(HostMemory& memory, tlm::tlm_command command,
                                    std::uint64_t address, std::vector<std::uint8_t>& data,
                                    unsigned char* byte_enable = nullptr,
                                    unsigned streaming_width = 0) {
  tlm::tlm_generic_payload payload;
  payload.set_command(command);
  payload.set_address(address);
  payload.set_data_ptr(data.data());
  payload.set_data_length(static_cast<unsigned>(data.size()));
  payload.set_streaming_width(streaming_width ? streaming_width : static_cast<unsigned>(data.size()));
  payload.set_byte_enable_ptr(byte_enable);
  payload.set_byte_enable_length(byte_enable ? 1 : 0);
  sc_core::sc_time delay;
  memory.socket.get_base_export()->b_transport(payload, delay);
  return payload.get_response_status();
}

TEST(HostMemory, BytesWrittenAcrossAChunkBoundaryReadBackExactly) {
  MemoryBench bench;
  const std::vector<std::uint8_t> data{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12};
  bench.initiators.cpu.write(4090, data.data(), data.size());  // 6 bytes in each chunk
  std::vector<std::uint8_t> back(data.size());
  bench.initiators.nic.read(4090, back.data(), back.size());
  EXPECT_EQ(back, data);
  EXPECT_EQ(bench.memory.allocated_chunks(), 2u);
  EXPECT_EQ(bench.memory.stats().writes, 1u);
  EXPECT_EQ(bench.memory.stats().reads, 1u);
  EXPECT_EQ(bench.memory.stats().bytes_written, 12u);
}

TEST(HostMemory, AChunkBackedByOutsideStorageIsThatStorageBothWays) {
  MemoryBench bench;
  // What an application attached by rnicsim exec shares: its own page.
  std::vector<std::uint8_t> page(HostMemory::kChunkBytes, 0x11);
  const std::vector<std::uint8_t> old{9, 9};
  bench.memory.write_bytes(2 * HostMemory::kChunkBytes, old.data(), old.size());
  bench.memory.back_with(2 * HostMemory::kChunkBytes, page.data());
  // The NIC's write lands in the page; what was in the chunk before is gone.
  const std::vector<std::uint8_t> data{1, 2, 3};
  bench.initiators.nic.write(2 * HostMemory::kChunkBytes + 10, data.data(), data.size());
  EXPECT_EQ(page[9], 0x11);
  EXPECT_EQ(page[10], 1);
  EXPECT_EQ(page[12], 3);
  std::vector<std::uint8_t> back(2);
  bench.memory.read_bytes(2 * HostMemory::kChunkBytes, back.data(), back.size());
  EXPECT_EQ(back, (std::vector<std::uint8_t>{0x11, 0x11}));
  // The owner's stores are what the NIC reads next.
  page[100] = 0xEE;
  std::vector<std::uint8_t> one(1);
  bench.initiators.nic.read(2 * HostMemory::kChunkBytes + 100, one.data(), 1);
  EXPECT_EQ(one[0], 0xEE);
  EXPECT_THROW(bench.memory.back_with(2 * HostMemory::kChunkBytes + 1, page.data()),
               std::out_of_range);
  EXPECT_THROW(bench.memory.back_with(1ULL << 20, page.data()), std::out_of_range);
}

TEST(AddressSpace, MapRangeMapsAnotherProcesssAddressesOnceEachPage) {
  PageAllocator allocator(1ULL << 20, 1ULL << 20, 4096, 0.0, 1);
  AddressSpace space(allocator, 1ULL << 40);
  // A heap buffer of an application outside the simulation: 3 pages touched.
  const std::uint64_t va = 0x55d0'0000'1ff0;
  space.map_range(va, 2 * 4096);
  const std::vector<std::uint64_t> frames = space.frames(va, 2 * 4096);
  ASSERT_EQ(frames.size(), 3u);
  EXPECT_NE(frames[0], frames[1]);
  EXPECT_NE(frames[1], frames[2]);
  EXPECT_EQ(space.physical(va), frames[0] + 0xff0);
  // A second buffer sharing a page keeps that page's frame, adds its own.
  space.map_range(va + 2 * 4096, 4096);
  EXPECT_EQ(space.frames(va, 2 * 4096), frames);
  EXPECT_EQ(space.frames(va + 3 * 4096, 1).size(), 1u);
  EXPECT_THROW(space.physical(va - 4096), std::out_of_range);
}

TEST(HostMemory, NeverWrittenBytesReadAsZero) {
  MemoryBench bench;
  const std::vector<std::uint8_t> data{0xAA};
  bench.initiators.cpu.write(100, data.data(), 1);
  std::vector<std::uint8_t> back(8, 0x55);
  bench.initiators.cpu.read(96, back.data(), back.size());
  EXPECT_EQ(back, (std::vector<std::uint8_t>{0, 0, 0, 0, 0xAA, 0, 0, 0}));
  std::vector<std::uint8_t> far(4, 0x55);
  bench.initiators.cpu.read(1ULL << 19, far.data(), far.size());
  EXPECT_EQ(far, (std::vector<std::uint8_t>(4, 0)));
  EXPECT_EQ(bench.memory.allocated_chunks(), 1u);
}

TEST(HostMemory, ForEachChunkVisitsEveryWrittenChunkOnceWithItsBytes) {
  MemoryBench bench;
  const std::vector<std::uint8_t> data{1, 2, 3, 4, 5, 6};
  bench.initiators.cpu.write(4093, data.data(), data.size());  // 3 bytes in each of two chunks
  bench.memory.write_bytes(5 * HostMemory::kChunkBytes, data.data(), 1);  // untimed writes too
  std::map<std::uint64_t, std::vector<std::uint8_t>> seen;
  bench.memory.for_each_chunk([&](std::uint64_t address, const std::uint8_t* bytes) {
    const std::vector<std::uint8_t> copy(bytes, bytes + HostMemory::kChunkBytes);
    EXPECT_TRUE(seen.emplace(address, copy).second);
  });
  ASSERT_EQ(seen.size(), 3u);
  std::vector<std::uint8_t> all(6 * HostMemory::kChunkBytes, 0);
  for (const auto& [address, bytes] : seen) {
    ASSERT_EQ(address % HostMemory::kChunkBytes, 0u);
    std::copy(bytes.begin(), bytes.end(), all.begin() + static_cast<std::ptrdiff_t>(address));
  }
  std::vector<std::uint8_t> expected(all.size(), 0);
  std::copy(data.begin(), data.end(), expected.begin() + 4093);
  expected[5 * HostMemory::kChunkBytes] = 1;
  EXPECT_EQ(all, expected);
  EXPECT_EQ(bench.memory.stats().reads, 0u);  // a check, not an access
}

TEST(HostMemory, ManyScatteredChunksKeepTheirBytesThroughTheTablesGrowthAndNewSlabs) {
  // 40,000 chunks (the table grows 11 times; chunks come from slabs of 64 KiB
  // up to 64 MiB) written in a scattered order over 64 GiB, each with its
  // own pattern; some written twice, some shared by outside storage after
  // they were written. Every byte reads back as the last write left it.
  constexpr std::uint64_t kChunks = 40000;
  constexpr std::uint64_t kSize = 64ULL << 30;
  constexpr std::uint64_t kChunk = HostMemory::kChunkBytes;
  MemoryBench bench(kSize);
  // An odd multiplier is a bijection modulo 2^24 chunks: the indices are
  // distinct, and those of i >= kChunks are never written.
  const auto chunk_of = [](std::uint64_t i) { return (i * 2654435761ULL) % (kSize / kChunk); };
  std::vector<std::uint8_t> shared(3 * kChunk, 0x5A);
  const auto is_shared = [](std::uint64_t i) { return i % 1000 == 3 && i / 1000 < 3; };
  for (std::uint64_t i = 0; i < kChunks; ++i) {
    const std::uint8_t value[2] = {static_cast<std::uint8_t>(i), static_cast<std::uint8_t>(i >> 8)};
    bench.memory.write_bytes(chunk_of(i) * kChunk + i % 4000, value, 2);
  }
  for (std::uint64_t i = 0; i < kChunks; i += 7) {  // again, one byte later
    const std::uint8_t value = 0xC3;
    bench.memory.write_bytes(chunk_of(i) * kChunk + i % 4000 + 1, &value, 1);
  }
  for (std::uint64_t s = 0; s < 3; ++s) {
    bench.memory.back_with(chunk_of(1000 * s + 3) * kChunk, shared.data() + s * kChunk);
  }
  // A write after back_with lands in the outside storage.
  const std::uint8_t mark = 0x77;
  bench.memory.write_bytes(chunk_of(1003) * kChunk + 5, &mark, 1);
  EXPECT_EQ(shared[kChunk + 5], 0x77);
  shared[kChunk + 5] = 0x5A;
  EXPECT_EQ(bench.memory.allocated_chunks(), kChunks);

  const auto expected_chunk = [&](std::uint64_t i) {
    if (is_shared(i)) return std::vector<std::uint8_t>(kChunk, 0x5A);
    std::vector<std::uint8_t> expected(kChunk, 0);
    expected[i % 4000] = static_cast<std::uint8_t>(i);
    expected[i % 4000 + 1] = i % 7 == 0 ? 0xC3 : static_cast<std::uint8_t>(i >> 8);
    return expected;
  };
  std::uint64_t wrong = 0;
  std::vector<std::uint8_t> chunk(kChunk);
  for (std::uint64_t i = 0; i < kChunks; ++i) {
    bench.memory.read_bytes(chunk_of(i) * kChunk, chunk.data(), chunk.size());
    wrong += chunk == expected_chunk(i) ? 0 : 1;
  }
  EXPECT_EQ(wrong, 0u);
  // for_each_chunk visits exactly these chunks, once each, with their bytes.
  std::map<std::uint64_t, std::uint64_t> writer;  // chunk address -> i
  for (std::uint64_t i = 0; i < kChunks; ++i) writer[chunk_of(i) * kChunk] = i;
  std::uint64_t visited = 0;
  std::uint64_t wrong_visits = 0;
  bench.memory.for_each_chunk([&](std::uint64_t address, const std::uint8_t* bytes) {
    ++visited;
    const auto found = writer.find(address);
    if (found == writer.end() ||
        !std::equal(bytes, bytes + kChunk, expected_chunk(found->second).begin())) {
      ++wrong_visits;
      return;
    }
    writer.erase(found);
  });
  EXPECT_EQ(visited, kChunks);
  EXPECT_EQ(wrong_visits, 0u);
  EXPECT_TRUE(writer.empty());
  // Chunks never written, looked up in the full table, read as zero and take
  // no storage.
  std::uint64_t nonzero = 0;
  for (std::uint64_t i = kChunks; i < 2 * kChunks; ++i) {
    std::uint8_t bytes[8] = {1, 1, 1, 1, 1, 1, 1, 1};
    bench.memory.read_bytes(chunk_of(i) * kChunk + 100, bytes, sizeof bytes);
    nonzero += std::count_if(bytes, bytes + 8, [](std::uint8_t b) { return b != 0; });
  }
  EXPECT_EQ(nonzero, 0u);
  EXPECT_EQ(bench.memory.allocated_chunks(), kChunks);
  // Outside storage for a chunk never written is one more chunk.
  std::vector<std::uint8_t> page(kChunk, 0x21);
  bench.memory.back_with(chunk_of(kChunks) * kChunk, page.data());
  EXPECT_EQ(bench.memory.allocated_chunks(), kChunks + 1);
  EXPECT_THROW(bench.memory.back_with(chunk_of(kChunks + 1) * kChunk, nullptr),
               std::invalid_argument);
  EXPECT_EQ(bench.memory.allocated_chunks(), kChunks + 1);
}

TEST(HostMemory, ZeroingAllocatesNothingAndWritingZerosAllocatesAChunk) {
  MemoryBench bench;
  const std::vector<std::uint8_t> data{1, 2, 3, 4};
  bench.memory.write_bytes(4094, data.data(), data.size());  // two chunks
  ASSERT_EQ(bench.memory.allocated_chunks(), 2u);
  // Zeroing across a written chunk and two never written clears the written
  // bytes and allocates nothing.
  bench.memory.zero_bytes(4095, 3 * 4096);
  EXPECT_EQ(bench.memory.allocated_chunks(), 2u);
  std::vector<std::uint8_t> back(4, 0x55);
  bench.memory.read_bytes(4094, back.data(), back.size());
  EXPECT_EQ(back, (std::vector<std::uint8_t>{1, 0, 0, 0}));
  // Writing zeros is a write: the chunk is allocated.
  const std::vector<std::uint8_t> zeros(8, 0);
  bench.memory.write_bytes(5 * 4096, zeros.data(), zeros.size());
  EXPECT_EQ(bench.memory.allocated_chunks(), 3u);
}

TEST(HostMemory, EveryAccessIsChargedTheConfiguredLatency) {
  MemoryBench bench(1ULL << 20, 7.5);
  std::vector<std::uint8_t> data(64, 1);
  EXPECT_EQ(to_ps(bench.initiators.cpu.write(0, data.data(), data.size())), 7500u);
  EXPECT_EQ(to_ps(bench.initiators.nic.read(0, data.data(), data.size())), 7500u);
}

TEST(HostMemory, AccessesOutsideTheAddressSpaceGetAnAddressError) {
  MemoryBench bench(8192);
  std::vector<std::uint8_t> data(16);
  EXPECT_EQ(raw_access(bench.memory, tlm::TLM_WRITE_COMMAND, 8190, data),
            tlm::TLM_ADDRESS_ERROR_RESPONSE);
  EXPECT_EQ(raw_access(bench.memory, tlm::TLM_READ_COMMAND, 8176, data), tlm::TLM_OK_RESPONSE);
  EXPECT_EQ(raw_access(bench.memory, tlm::TLM_READ_COMMAND, ~0ULL - 4, data),
            tlm::TLM_ADDRESS_ERROR_RESPONSE);
  EXPECT_EQ(bench.memory.stats().errors, 2u);
  EXPECT_EQ(bench.memory.allocated_chunks(), 0u);
}

TEST(HostMemory, ByteEnablesAndStreamingAreRefused) {
  MemoryBench bench;
  std::vector<std::uint8_t> data(16);
  unsigned char enable = 0xFF;
  EXPECT_EQ(raw_access(bench.memory, tlm::TLM_WRITE_COMMAND, 0, data, &enable),
            tlm::TLM_BYTE_ENABLE_ERROR_RESPONSE);
  EXPECT_EQ(raw_access(bench.memory, tlm::TLM_WRITE_COMMAND, 0, data, nullptr, 4),
            tlm::TLM_BURST_ERROR_RESPONSE);
}

TEST(HostMemory, AnInitiatorReportsAnErrorResponseAsASystemCError) {
  MemoryBench bench(8192);
  std::vector<std::uint8_t> data(16);
  EXPECT_THROW(bench.initiators.cpu.read(8190, data.data(), data.size()), sc_core::sc_report);
}

}  // namespace
}  // namespace rnicsim
