// The DMA engine over the PCIe link on their own: exact timing of single TLPs
// worked out from the configuration, PCIe ordering, MMIO doorbells, the IOTLB
// and error completions.
#include <gtest/gtest.h>

#include <algorithm>
#include <systemc>
#include <tlm>
#include <tlm_utils/simple_target_socket.h>
#include <vector>

#include "common/time_units.hpp"
#include "dma/dma_engine.hpp"
#include "host_memory/host_memory.hpp"
#include "host_memory/memory_initiator.hpp"
#include "pcie/pcie_link.hpp"
#include "pcie/tlp.hpp"

namespace rnicsim {
namespace {

using sc_core::sc_time;

pcie::PcieConfig gen3x8() {
  pcie::PcieConfig c;
  c.generation = 3;
  c.lanes = 8;
  c.mps_bytes = 256;
  c.mrrs_bytes = 512;
  c.rcb_bytes = 64;
  c.completion_bytes = 64;
  c.link_latency = nanoseconds(20);
  c.root_complex_latency = nanoseconds(500);
  c.remote_socket_extra = nanoseconds(100);
  c.ack_every_bytes = 203;
  c.fc_update_every_bytes = 203;
  c.iotlb_entries = 4;
  c.iotlb_miss = nanoseconds(220);
  return c;
}

sc_time wire(const pcie::PcieConfig& c, std::uint32_t bytes) {
  return serialization_time(8ULL * bytes, c.link_gbps());
}

// Records MMIO writes that reach the NIC.
struct NicRegisters : sc_core::sc_module {
  tlm_utils::simple_target_socket<NicRegisters> socket;
  struct Write {
    std::uint64_t address;
    std::vector<std::uint8_t> data;
    sc_time at;
  };
  std::vector<Write> writes;
  explicit NicRegisters(const sc_core::sc_module_name& name) : sc_core::sc_module(name), socket("socket") {
    socket.register_b_transport(this, &NicRegisters::b_transport);
  }
  void b_transport(tlm::tlm_generic_payload& p, sc_time&) {
    writes.push_back({p.get_address(),
                      std::vector<std::uint8_t>(p.get_data_ptr(), p.get_data_ptr() + p.get_data_length()),
                      sc_core::sc_time_stamp()});
    p.set_response_status(tlm::TLM_OK_RESPONSE);
  }
};

struct Initiators : sc_core::sc_module {
  explicit Initiators(const sc_core::sc_module_name& name)
      : sc_core::sc_module(name), nic("nic"), cpu("cpu") {}
  MemoryInitiator nic;  // a NIC block issuing DMA
  MemoryInitiator cpu;  // the host CPU writing doorbells
};

struct Bench {
  explicit Bench(const pcie::PcieConfig& config, std::uint32_t tags = 64)
      : memory("memory", HostMemoryConfig{16ULL << 30, sc_core::SC_ZERO_TIME}),
        link("pcie", config),
        engine("dma_engine", DmaEngineConfig{tags, config.mrrs_bytes, config.mps_bytes}),
        registers("registers"),
        initiators("initiators") {
    link.pcie2mem.bind(memory.socket);
    engine.dma2pcie.bind(link.nic2pcie);
    initiators.nic.socket.bind(engine.nic2dma);
    initiators.cpu.socket.bind(link.host2pcie);
    link.pcie2nic.bind(registers.socket);
  }
  HostMemory memory;
  pcie::PcieLink link;
  DmaEngine engine;
  NicRegisters registers;
  Initiators initiators;
};

std::vector<std::uint8_t> pattern(std::size_t n, std::uint8_t seed) {
  std::vector<std::uint8_t> v(n);
  for (std::size_t i = 0; i < n; ++i) v[i] = static_cast<std::uint8_t>(seed + 7 * i);
  return v;
}

TEST(PcieDma, A64ByteReadTakesRequestRootComplexAndCompletionTime) {
  const pcie::PcieConfig c = gen3x8();
  Bench bench(c);
  const auto host = pattern(64, 3);
  bench.memory.write_bytes(0x1000, host.data(), host.size());
  std::vector<std::uint8_t> got(64);
  sc_time took;
  sc_core::sc_spawn([&] {
    const sc_time start = sc_core::sc_time_stamp();
    bench.initiators.nic.read(0x1000, got.data(), got.size());
    took = sc_core::sc_time_stamp() - start;
  });
  sc_core::sc_start();
  EXPECT_EQ(got, host);
  // MRd (3 DW header below 4 GiB: 20 B) out, 20 ns link, 500 ns root complex,
  // one 64 B CplD (84 B), 20 ns link.
  EXPECT_EQ(took, wire(c, 20) + nanoseconds(20) + nanoseconds(500) + wire(c, 84) + nanoseconds(20));
  EXPECT_EQ(bench.link.stats().read_requests, 1u);
  EXPECT_EQ(bench.link.stats().completions, 1u);
  EXPECT_EQ(bench.engine.free_tags(), 64u);
}

TEST(PcieDma, RemoteSocketMemoryAddsItsExtraLatency) {
  pcie::PcieConfig c = gen3x8();
  c.memory_remote = true;
  Bench bench(c);
  std::vector<std::uint8_t> got(64);
  sc_time took;
  sc_core::sc_spawn([&] {
    bench.initiators.nic.read(0x1000, got.data(), got.size());
    took = sc_core::sc_time_stamp();
  });
  sc_core::sc_start();
  EXPECT_EQ(took, wire(c, 20) + nanoseconds(640) + wire(c, 84));
}

TEST(PcieDma, AnIotlbMissAddsTheWalkAndAHitDoesNot) {
  pcie::PcieConfig c = gen3x8();
  c.iommu = true;
  Bench bench(c);
  std::vector<sc_time> took;
  sc_core::sc_spawn([&] {
    std::vector<std::uint8_t> buffer(64);
    for (std::uint64_t address : {0x1000, 0x1040, 0x5000}) {  // miss, hit (same page), miss
      const sc_time start = sc_core::sc_time_stamp();
      bench.initiators.nic.read(address, buffer.data(), buffer.size());
      took.push_back(sc_core::sc_time_stamp() - start);
    }
  });
  sc_core::sc_start();
  ASSERT_EQ(took.size(), 3u);
  EXPECT_EQ(took[0] - took[1], nanoseconds(220));
  EXPECT_EQ(took[2], took[0]);
  EXPECT_EQ(bench.link.iotlb().hits(), 1u);
  EXPECT_EQ(bench.link.iotlb().misses(), 2u);
}

TEST(PcieDma, AReadAbove4GiBCarriesA4DwHeader) {
  const pcie::PcieConfig c = gen3x8();
  Bench bench(c);
  std::vector<std::uint8_t> got(64);
  sc_time took;
  sc_core::sc_spawn([&] {
    bench.initiators.nic.read(8ULL << 30, got.data(), got.size());
    took = sc_core::sc_time_stamp();
  });
  sc_core::sc_start();
  EXPECT_EQ(took, wire(c, 24) + nanoseconds(540) + wire(c, 84));
}

TEST(PcieDma, APostedWriteReachesMemoryWhenItArrivesAndALaterReadSeesIt) {
  const pcie::PcieConfig c = gen3x8();
  Bench bench(c);
  const auto data = pattern(300, 9);  // 256 + 44 at MPS 256
  std::vector<std::uint8_t> before(300);
  std::vector<std::uint8_t> after(300);
  std::vector<std::uint8_t> read_back(300);
  sc_time write_returned;
  // MWr of 12 + 256 + 8 = 276 B, then 12 + 44 + 8 = 64 B; 20 ns of link.
  const sc_time sent = wire(c, 276) + wire(c, 64);
  const sc_time second_tlp_arrives = sent + nanoseconds(20);
  sc_core::sc_spawn([&] {
    bench.initiators.nic.write(0x2000, data.data(), data.size());
    write_returned = sc_core::sc_time_stamp();
    bench.initiators.nic.read(0x2000, read_back.data(), read_back.size());
  });
  sc_core::sc_spawn([&] {
    sc_core::wait(second_tlp_arrives - picoseconds(1));
    bench.memory.read_bytes(0x2000, before.data(), before.size());
    sc_core::wait(picoseconds(2));
    bench.memory.read_bytes(0x2000, after.data(), after.size());
  });
  sc_core::sc_start();
  // Posted: the call returns when the last TLP has left the NIC.
  EXPECT_EQ(write_returned, sent);
  // Just before the second TLP lands, the first 256 B are there and the last 44 are not.
  EXPECT_EQ(std::vector<std::uint8_t>(before.begin(), before.begin() + 256),
            std::vector<std::uint8_t>(data.begin(), data.begin() + 256));
  EXPECT_EQ(std::vector<std::uint8_t>(before.begin() + 256, before.end()),
            std::vector<std::uint8_t>(44, 0));
  EXPECT_EQ(after, data);
  EXPECT_EQ(read_back, data);
  EXPECT_EQ(bench.link.stats().write_requests, 2u);
}

TEST(PcieDma, AScatterGatherReadReturnsTheSegmentsInOrder) {
  Bench bench(gen3x8());
  const auto host = pattern(0x3000, 1);
  bench.memory.write_bytes(0x10000, host.data(), host.size());
  std::vector<std::uint8_t> got(100 + 1000 + 64);
  tlm::tlm_generic_payload request;
  DmaScatterGather sg;
  sg.segments = {{0x12000, 100}, {0x10010, 1000}, {0x11000, 64}};
  sc_core::sc_spawn([&] {
    request.set_command(tlm::TLM_READ_COMMAND);
    request.set_data_ptr(got.data());
    request.set_data_length(static_cast<unsigned>(got.size()));
    request.set_streaming_width(static_cast<unsigned>(got.size()));
    request.set_extension(&sg);
    sc_time delay;
    bench.initiators.nic.socket->b_transport(request, delay);
    request.clear_extension(&sg);
  });
  sc_core::sc_start();
  EXPECT_EQ(request.get_response_status(), tlm::TLM_OK_RESPONSE);
  std::vector<std::uint8_t> expected(host.begin() + 0x2000, host.begin() + 0x2000 + 100);
  expected.insert(expected.end(), host.begin() + 0x10, host.begin() + 0x10 + 1000);
  expected.insert(expected.end(), host.begin() + 0x1000, host.begin() + 0x1000 + 64);
  EXPECT_EQ(got, expected);
  // 100 B: 1 MRd; 1000 B from 0x10010: 496 + 504 -> 2 MRds; 64 B: 1 MRd.
  EXPECT_EQ(bench.engine.stats().read_requests, 1u);
  EXPECT_EQ(bench.engine.stats().bytes_read, 1164u);
  EXPECT_EQ(bench.engine.stats().tlps, 4u);
}

TEST(PcieDma, OneTagSerializesTheReadRequestsOfATransfer) {
  const pcie::PcieConfig c = gen3x8();
  Bench bench(c, 1);
  sc_time took;
  sc_core::sc_spawn([&] {
    std::vector<std::uint8_t> buffer(1024);
    bench.initiators.nic.read(0x4000, buffer.data(), buffer.size());
    took = sc_core::sc_time_stamp();
  });
  sc_core::sc_start();
  // Two 512 B MRds one after the other: each round trip is the request, 520 ns
  // of latency, eight 64 B completions back to back, and 20 ns.
  const sc_time round_trip = wire(c, 20) + nanoseconds(540) + wire(c, 84) * 8.0;
  EXPECT_EQ(took, round_trip * 2.0);
}

TEST(PcieDma, AReadOfMissingMemoryCompletesWithAnError) {
  Bench bench(gen3x8());
  tlm::tlm_generic_payload request;
  std::vector<std::uint8_t> buffer(64);
  sc_core::sc_spawn([&] {
    request.set_command(tlm::TLM_READ_COMMAND);
    request.set_address((16ULL << 30) - 32);  // runs past the end of host memory
    request.set_data_ptr(buffer.data());
    request.set_data_length(64);
    request.set_streaming_width(64);
    sc_time delay;
    bench.initiators.nic.socket->b_transport(request, delay);
  });
  sc_core::sc_start();
  EXPECT_EQ(request.get_response_status(), tlm::TLM_ADDRESS_ERROR_RESPONSE);
  EXPECT_EQ(bench.link.stats().unsupported_requests, 1u);
  EXPECT_EQ(bench.engine.free_tags(), 64u);
}

TEST(PcieDma, ADoorbellCrossesTheLinkToTheNicRegisters) {
  const pcie::PcieConfig c = gen3x8();
  Bench bench(c);
  const std::vector<std::uint8_t> doorbell{0x2A, 0, 0, 0};
  sc_core::sc_spawn([&] {
    bench.initiators.cpu.write(0x800, doorbell.data(), doorbell.size());
  });
  sc_core::sc_start();
  ASSERT_EQ(bench.registers.writes.size(), 1u);
  EXPECT_EQ(bench.registers.writes[0].data, doorbell);
  // A 4 B MWr to a BAR offset: 12 B header + 4 + 8 = 24 B, then the link latency.
  EXPECT_EQ(bench.registers.writes[0].at, wire(c, 24) + nanoseconds(20));
}

TEST(PcieDma, ADoorbellWaitsForCompletionsAlreadyOnTheWire) {
  const pcie::PcieConfig c = gen3x8();
  Bench bench(c);
  const std::vector<std::uint8_t> doorbell{1, 0, 0, 0};
  // A 512 B read: the root complex puts eight 64 B completions on the wire
  // from `completions_start`; the doorbell is written 1 ns later.
  const sc_time completions_start = wire(c, 20) + nanoseconds(520);
  sc_core::sc_spawn([&] {
    std::vector<std::uint8_t> buffer(512);
    bench.initiators.nic.read(0x8000, buffer.data(), buffer.size());
  });
  sc_core::sc_spawn([&] {
    sc_core::wait(completions_start + nanoseconds(1));
    bench.initiators.cpu.write(0x800, doorbell.data(), doorbell.size());
  });
  sc_core::sc_start();
  ASSERT_EQ(bench.registers.writes.size(), 1u);
  EXPECT_EQ(bench.registers.writes[0].at,
            completions_start + wire(c, 84) * 8.0 + wire(c, 24) + nanoseconds(20));
}

TEST(PcieDma, CallersShareTheTagsAndGetTheirOwnData) {
  // Four callers read 512 B each with two tags: the four MRds need two rounds
  // of the ~650 ns round trip, so the last finishes after two and before three.
  const pcie::PcieConfig c = gen3x8();
  Bench bench(c, 2);
  const auto host = pattern(4 * 512, 5);
  bench.memory.write_bytes(0x40000, host.data(), host.size());
  std::vector<std::vector<std::uint8_t>> got(4, std::vector<std::uint8_t>(512));
  sc_time last;
  for (int k = 0; k < 4; ++k) {
    sc_core::sc_spawn([&, k] {
      bench.initiators.nic.read(0x40000 + 512 * k, got[k].data(), 512);
      last = std::max(last, sc_core::sc_time_stamp());
    });
  }
  sc_core::sc_start();
  for (int k = 0; k < 4; ++k) {
    EXPECT_EQ(got[k], std::vector<std::uint8_t>(host.begin() + 512 * k, host.begin() + 512 * (k + 1)));
  }
  const sc_time round_trip = wire(c, 20) + nanoseconds(540) + wire(c, 84) * 8.0;
  EXPECT_GE(last, round_trip * 2.0);
  EXPECT_LT(last, round_trip * 3.0);
  EXPECT_EQ(bench.engine.free_tags(), 2u);
  EXPECT_EQ(bench.engine.stats().read_requests, 4u);
  EXPECT_EQ(bench.engine.stats().tlps, 4u);  // each 512 B read is one MRd (MRRS 512)
}

TEST(PcieDma, AReadThatHitsAPageBeingWalkedWaitsForTheWalk) {
  // Two callers read the same page one TLP apart with the IOMMU on: the second
  // lookup hits the entry the first one's walk is filling, so it cannot
  // overtake the first read. (Which caller goes first is the kernel's choice.)
  pcie::PcieConfig c = gen3x8();
  c.iommu = true;
  Bench bench(c);
  sc_time first;
  sc_time second;
  sc_core::sc_spawn([&] {
    std::vector<std::uint8_t> buffer(64);
    bench.initiators.nic.read(0x1000, buffer.data(), buffer.size());
    first = sc_core::sc_time_stamp();
  });
  sc_core::sc_spawn([&] {
    std::vector<std::uint8_t> buffer(64);
    bench.initiators.nic.read(0x1040, buffer.data(), buffer.size());
    second = sc_core::sc_time_stamp();
  });
  sc_core::sc_start();
  const sc_time earlier = std::min(first, second);
  EXPECT_EQ(earlier, wire(c, 20) + nanoseconds(760) + wire(c, 84));
  EXPECT_EQ(std::max(first, second), earlier + wire(c, 84));  // its completion follows
  EXPECT_EQ(bench.link.iotlb().misses(), 1u);
  EXPECT_EQ(bench.link.iotlb().hits(), 1u);
}

TEST(PcieDma, AScatterGatherListLongerThanTheBufferIsRefused) {
  Bench bench(gen3x8());
  std::vector<std::uint8_t> buffer(64);
  tlm::tlm_generic_payload request;
  DmaScatterGather sg;
  sg.segments = {{0x1000, 64}, {0x2000, 64}};  // 128 B into a 64 B buffer
  sc_core::sc_spawn([&] {
    request.set_command(tlm::TLM_READ_COMMAND);
    request.set_data_ptr(buffer.data());
    request.set_data_length(64);
    request.set_streaming_width(64);
    request.set_extension(&sg);
    sc_time delay;
    bench.initiators.nic.socket->b_transport(request, delay);
    request.clear_extension(&sg);
  });
  sc_core::sc_start();
  EXPECT_EQ(request.get_response_status(), tlm::TLM_GENERIC_ERROR_RESPONSE);
  EXPECT_EQ(bench.link.stats().read_requests, 0u);
}

}  // namespace
}  // namespace rnicsim
