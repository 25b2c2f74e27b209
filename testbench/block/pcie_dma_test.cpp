// The DMA engine, request splitter and PCIe link on their own: exact timing
// of single TLPs worked out from the configuration, PCIe ordering, MMIO
// doorbells, the IOTLB and error completions; then the tagged interface:
// tags in flight, windows shared between requesters, data over scattered
// segments, completion order and status, and the link's booked timeline.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <systemc>
#include <tlm>
#include <tlm_utils/simple_target_socket.h>
#include <vector>

#include "common/module_macros.hpp"
#include "common/time_units.hpp"
#include "nic/dma/dma_engine.hpp"
#include "nic/dma/request_splitter.hpp"
#include "host/memory/host_memory.hpp"
#include "common/memory_initiator.hpp"
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
  explicit Bench(const pcie::PcieConfig& config, std::uint32_t tags = 64,
                 std::uint32_t write_window = 16, std::uint32_t read_window = 8)
      : memory("memory", HostMemoryConfig{16ULL << 30, sc_core::SC_ZERO_TIME}),
        link("pcie", config),
        splitter("request_splitter",
                 RequestSplitterConfig{BlockImpl::kModel, config.mrrs_bytes, config.mps_bytes}),
        engine("dma_engine", DmaEngineConfig{tags, write_window, read_window}),
        registers("registers"),
        initiators("initiators") {
    link.pcie2mem.bind(memory.socket);
    splitter.split2pcie.bind(link.nic2pcie);
    engine.dma2split.bind(splitter.dma2split);
    initiators.nic.socket.bind(engine.nic2dma);
    initiators.cpu.socket.bind(link.host2pcie);
    link.pcie2nic.bind(registers.socket);
  }
  HostMemory memory;
  pcie::PcieLink link;
  RequestSplitter splitter;
  DmaEngine engine;
  NicRegisters registers;
  Initiators initiators;
};

std::vector<std::uint8_t> pattern(std::size_t n, std::uint8_t seed) {
  std::vector<std::uint8_t> v(n);
  for (std::size_t i = 0; i < n; ++i) v[i] = static_cast<std::uint8_t>(seed + 7 * i);
  return v;
}

// Runs the simulation for one DMA read of got.size() bytes at `address` into
// `got` by the NIC's initiator; how long the read took.
sc_time timed_read(Bench& bench, std::uint64_t address, std::vector<std::uint8_t>& got) {
  sc_time took;
  sc_core::sc_spawn([&] {
    const sc_time start = sc_core::sc_time_stamp();
    bench.initiators.nic.read(address, got.data(), got.size());
    took = sc_core::sc_time_stamp() - start;
  });
  sc_core::sc_start();
  return took;
}

// pcie.read_line_ns: one DMA read's cache lines come one after another. A
// 2048 B read (four 512 B MRds, 32 lines) in 128 B
// completions with lines 40 ns apart, slower than the link sends them (a
// 148 B completion per two lines takes 18.8 ns at Gen3 x8): its last line is
// served 31 x 40 ns after the first, across the four MRds (not one MRd at a
// time), and its data is in once the last completion has crossed.
TEST(PcieDma, LinePacingServesAReadsLinesInOrderAcrossItsMrds) {
  pcie::PcieConfig c = gen3x8();
  c.completion_bytes = 128;
  c.read_line_interval = nanoseconds(40);
  Bench bench(c);
  const auto host = pattern(2048, 5);
  bench.memory.write_bytes(0x10000, host.data(), host.size());
  std::vector<std::uint8_t> got(2048);
  const sc_time took = timed_read(bench, 0x10000, got);
  EXPECT_EQ(got, host);
  EXPECT_EQ(bench.link.stats().read_requests, 4u);
  EXPECT_EQ(bench.link.stats().completions, 16u);
  EXPECT_EQ(took, wire(c, 20) + nanoseconds(20) + nanoseconds(500) + nanoseconds(31 * 40) +
                      wire(c, 148) + nanoseconds(20));
}

// A read of one line has nothing to pace: the same time as without pacing.
TEST(PcieDma, LinePacingLeavesAOneLineReadAlone) {
  pcie::PcieConfig c = gen3x8();
  c.completion_bytes = 128;
  c.read_line_interval = nanoseconds(40);
  Bench bench(c);
  std::vector<std::uint8_t> got(64);
  const sc_time took = timed_read(bench, 0x1000, got);
  EXPECT_EQ(took, wire(c, 20) + nanoseconds(20) + nanoseconds(500) + wire(c, 84) + nanoseconds(20));
}

TEST(PcieDma, A64ByteReadTakesRequestRootComplexAndCompletionTime) {
  const pcie::PcieConfig c = gen3x8();
  Bench bench(c);
  const auto host = pattern(64, 3);
  bench.memory.write_bytes(0x1000, host.data(), host.size());
  std::vector<std::uint8_t> got(64);
  const sc_time took = timed_read(bench, 0x1000, got);
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

TEST(PcieDma, APostedWindowReachesMemoryWhenItsLastTlpArrivesAndALaterReadSeesIt) {
  const pcie::PcieConfig c = gen3x8();
  Bench bench(c);
  const auto data = pattern(300, 9);  // 256 + 44 at MPS 256: one window of two TLPs
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
  // The window's bytes land together, copied once from the caller's buffer,
  // and the write completes then: the buffer is the caller's again.
  EXPECT_EQ(write_returned, second_tlp_arrives);
  EXPECT_EQ(before, std::vector<std::uint8_t>(300, 0));
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

// ---- The tagged interface ----

// A NIC block on a DmaPort of its own: records its completions as they come.
struct Requester : sc_core::sc_module {
  RNICSIM_PROCESS_MODULE(Requester);
  Requester(const sc_core::sc_module_name& name, DmaEngine& engine, std::uint32_t max_in_flight)
      : sc_core::sc_module(name), port(engine.attach(std::string(basename()), max_in_flight)) {
    SC_METHOD(collect);
    sensitive << port.completion_event();
    dont_initialize();
  }
  void collect() {
    while (port.has_completion()) got.push_back(port.pop_completion());
  }
  // Issues `request` at simulated time `at`.
  void request_at(const sc_time& at, const DmaRequest& request) {
    sc_core::sc_spawn([this, at, request] {
      sc_core::wait(at - sc_core::sc_time_stamp());
      port.request(request);
    });
  }
  const DmaCompletion* completion(std::uint32_t tag) const {
    for (const DmaCompletion& c : got) {
      if (c.tag == tag) return &c;
    }
    return nullptr;
  }
  DmaPort& port;
  std::vector<DmaCompletion> got;
};

// Every TLP the link books, by kind.
struct TlpLog {
  explicit TlpLog(pcie::PcieLink& link) {
    link.set_tlp_observer([this](pcie::TlpKind kind, const pcie::Tlp& tlp) {
      (kind == pcie::TlpKind::kMemoryRead ? reads : writes).push_back(tlp);
    });
  }
  std::vector<pcie::Tlp> reads;
  std::vector<pcie::Tlp> writes;
};

// The most reads holding a tag at once: from the MRd's first byte out to its
// last completion in (a tag freed at t may be taken again at t).
std::size_t most_reads_in_flight(const std::vector<pcie::Tlp>& reads) {
  std::vector<std::pair<sc_time, int>> edges;
  for (const pcie::Tlp& t : reads) {
    edges.push_back({t.start, +1});
    edges.push_back({t.done, -1});
  }
  std::sort(edges.begin(), edges.end());
  int now = 0;
  int most = 0;
  for (const auto& edge : edges) {
    now += edge.second;
    most = std::max(most, now);
  }
  return static_cast<std::size_t>(most);
}

constexpr std::uint64_t kHigh = 8ULL << 30;  // 64-bit addresses: 24 B MRds, 4 DW MWr headers

TEST(DmaTags, ReadsInFlightNeverExceedTheReadTagsAndReachThem) {
  Bench bench(gen3x8(), 8);
  TlpLog log(bench.link);
  Requester a("a", bench.engine, 4);
  Requester b("b", bench.engine, 4);
  std::vector<std::uint8_t> buffer(4 * 16384);
  for (std::uint32_t k = 0; k < 4; ++k) {
    a.request_at(nanoseconds(100 * k), DmaRequest::read(k, kHigh + 0x10000 * k, 16384,
                                                        buffer.data() + 16384 * k));
  }
  std::vector<std::uint8_t> small(4 * 64);
  for (std::uint32_t k = 0; k < 4; ++k) {
    b.request_at(nanoseconds(700 + 900 * k),
                 DmaRequest::read(k, kHigh + 0x100000 + 4096 * k, 64, small.data() + 64 * k));
  }
  sc_core::sc_start();
  ASSERT_EQ(a.got.size(), 4u);
  ASSERT_EQ(b.got.size(), 4u);
  EXPECT_EQ(log.reads.size(), 4u * 32 + 4);  // 16 KiB at MRRS 512, and one each
  EXPECT_EQ(most_reads_in_flight(log.reads), 8u);
  EXPECT_EQ(bench.engine.free_tags(), 8u);
}

TEST(DmaTags, ASmallReadIsHeldBehindAtMostOneWindowOfA1MiBRead) {
  // 64 tags, so a window is 64 MRds of 512 B, whose completions (8 x 84 B
  // each) take 64 x 8 x wire(84) on the way back.
  const pcie::PcieConfig c = gen3x8();
  Bench bench(c, 64);
  TlpLog log(bench.link);
  Requester big("big", bench.engine, 1);
  Requester small("small", bench.engine, 1);
  std::vector<std::uint8_t> payload(1 << 20);
  std::vector<std::uint8_t> wqe(64);
  const sc_time asked = nanoseconds(5000);
  big.request_at(sc_core::SC_ZERO_TIME, DmaRequest::read(1, kHigh, 1 << 20, payload.data()));
  small.request_at(asked, DmaRequest::read(2, kHigh + (64 << 20), 64, wqe.data()));
  sc_core::sc_start();
  ASSERT_EQ(big.got.size(), 1u);
  ASSERT_EQ(small.got.size(), 1u);
  const pcie::Tlp* mine = nullptr;
  for (const pcie::Tlp& t : log.reads) {
    if (t.address == kHigh + (64 << 20)) mine = &t;
  }
  ASSERT_NE(mine, nullptr);
  // At most one window of the big read's MRds leaves between the small
  // request and its own MRd, and at most one window of its completions
  // crosses back ahead of the small read's.
  std::size_t went_first = 0;
  std::size_t came_first = 0;
  for (const pcie::Tlp& t : log.reads) {
    if (&t == mine) continue;
    if (t.start >= asked && t.start < mine->start) ++went_first;
    if (t.done > mine->start && t.done <= mine->done) ++came_first;
  }
  EXPECT_LE(went_first, 64u);
  EXPECT_LE(came_first, 64u);
  const sc_time window_back = wire(c, 84) * (64.0 * 8);
  // Its idle latency (a 24 B MRd, 540 ns, one 84 B completion) plus two
  // windows of completions, with room for the DLLPs among them (2 per MRd).
  const sc_time idle = wire(c, 24) + nanoseconds(540) + wire(c, 84);
  EXPECT_LE(small.got[0].time - asked, idle + (window_back + wire(c, 8) * 128.0) * 2.0);
  EXPECT_LT(small.got[0].time - asked, big.got[0].time / 10);
}

TEST(DmaTags, ASmallWriteIsHeldBehindAtMostTwoWriteWindowsOfA1MiBWrite) {
  const pcie::PcieConfig c = gen3x8();
  Bench bench(c, 64, 16);
  TlpLog log(bench.link);
  Requester big("big", bench.engine, 1);
  Requester small("small", bench.engine, 1);
  const auto payload = pattern(1 << 20, 1);
  const auto cqe = pattern(64, 2);
  const sc_time asked = nanoseconds(5000);
  big.request_at(sc_core::SC_ZERO_TIME, DmaRequest::write(1, kHigh, 1 << 20, payload.data()));
  small.request_at(asked, DmaRequest::write(2, kHigh + (64 << 20), 64, cqe.data()));
  sc_core::sc_start();
  ASSERT_EQ(small.got.size(), 1u);
  const pcie::Tlp* mine = nullptr;
  for (const pcie::Tlp& t : log.writes) {
    if (t.address == kHigh + (64 << 20)) mine = &t;
  }
  ASSERT_NE(mine, nullptr);
  std::size_t went_first = 0;
  for (const pcie::Tlp& t : log.writes) {
    if (&t != mine && t.start >= asked && t.start < mine->start) ++went_first;
  }
  // The rest of the window on the wire, then at most the big write's share
  // of the next: under two windows.
  EXPECT_LE(went_first, 2u * 16);
  // 280 B per MPS write, then its own 88 B and the link.
  EXPECT_LE(small.got[0].time - asked, wire(c, 280) * 32.0 + wire(c, 88) + nanoseconds(20));
  std::vector<std::uint8_t> landed(64);
  bench.memory.read_bytes(kHigh + (64 << 20), landed.data(), landed.size());
  EXPECT_EQ(landed, cqe);
}

// A Bench under a name of its own, so that two run side by side in one simulation.
struct NamedBench : sc_core::sc_module {
  NamedBench(const sc_core::sc_module_name& name, std::uint32_t tags, std::uint32_t read_window)
      : sc_core::sc_module(name), bench(gen3x8(), tags, 16, read_window) {}
  Bench bench;
};

TEST(DmaTags, ASmallReadIsBookedInOneWindowOnTheTagsReadyNext) {
  // Eight tags. An 8 KiB read takes every tag twice; a 4 KiB read (8 MRds)
  // asked at 700 ns finds one tag whose second read has left. Booked whole
  // (read_window 8) it takes that one and the seven whose reads leave next;
  // without (read_window 0) it waits for the next look for them. Either way
  // each MRd leaves when its tag is free. The times differ only by where the
  // links put the DLLPs a window earns (booked with the window, in the first
  // idle time): the extra window's ACK and UpdateFC go among completions
  // already promised, delaying them by two 8 B DLLPs.
  NamedBench whole("whole", 8, 8);
  NamedBench ready_only("ready_only", 8, 0);
  TlpLog whole_log(whole.bench.link);
  TlpLog ready_only_log(ready_only.bench.link);
  Requester whole_nic("whole_nic", whole.bench.engine, 4);
  Requester ready_only_nic("ready_only_nic", ready_only.bench.engine, 4);
  const auto data = pattern(8192 + 4096 + 2048, 5);
  std::vector<std::uint8_t> whole_got(data.size()), ready_only_got(data.size());
  for (Bench* b : {&whole.bench, &ready_only.bench}) {
    b->memory.write_bytes(kHigh, data.data(), data.size());
  }
  const auto ask = [&](Requester& nic, std::vector<std::uint8_t>& got) {
    nic.request_at(sc_core::SC_ZERO_TIME, DmaRequest::read(1, kHigh, 8192, got.data()));
    nic.request_at(nanoseconds(700), DmaRequest::read(2, kHigh + 8192, 4096, got.data() + 8192));
    nic.request_at(nanoseconds(1500),
                   DmaRequest::read(3, kHigh + 12288, 2048, got.data() + 12288));
  };
  ask(whole_nic, whole_got);
  ask(ready_only_nic, ready_only_got);
  sc_core::sc_start();

  ASSERT_EQ(whole_nic.got.size(), 3u);
  ASSERT_EQ(ready_only_nic.got.size(), 3u);
  EXPECT_EQ(whole_got, data);
  EXPECT_EQ(ready_only_got, data);
  ASSERT_EQ(whole_log.reads.size(), 16u + 8 + 4);
  ASSERT_EQ(ready_only_log.reads.size(), whole_log.reads.size());
  const sc_time two_dllps = wire(gen3x8(), 8) * 2.0;
  const auto within_two_dllps = [&](const sc_time& whole_time, const sc_time& ready_only_time) {
    return whole_time <= ready_only_time && ready_only_time - whole_time <= two_dllps;
  };
  std::size_t equal = 0;
  for (std::size_t i = 0; i < whole_log.reads.size(); ++i) {
    const pcie::Tlp& a = whole_log.reads[i];
    const pcie::Tlp& b = ready_only_log.reads[i];
    EXPECT_EQ(a.address, b.address) << "MRd " << i;
    EXPECT_TRUE(within_two_dllps(a.start, b.start)) << "MRd " << i;
    EXPECT_TRUE(within_two_dllps(a.done, b.done)) << "MRd " << i;
    if (a.start == b.start && a.done == b.done) ++equal;
  }
  EXPECT_GE(equal, 16u);  // the 8 KiB read's, booked alike
  for (std::uint32_t tag = 1; tag <= 3; ++tag) {
    EXPECT_TRUE(within_two_dllps(whole_nic.completion(tag)->time,
                                 ready_only_nic.completion(tag)->time))
        << tag;
  }
  EXPECT_EQ(most_reads_in_flight(whole_log.reads), 8u);
  // The 8 KiB read: two windows of eight (ready) tags; then one window each.
  EXPECT_EQ(whole.bench.engine.stats().windows, 4u);
  EXPECT_GT(ready_only.bench.engine.stats().windows, 4u);
}

TEST(DmaTags, ScatteredSegmentsReadAndWriteByteExact) {
  Bench bench(gen3x8());
  Requester nic("nic", bench.engine, 2);
  const auto host = pattern(0x40000, 3);
  bench.memory.write_bytes(kHigh, host.data(), host.size());
  // One byte just below a 4 KiB boundary, a run across one, an unaligned
  // run longer than MRRS and MPS, and whole pages out of order.
  const std::vector<DmaSegment> segments = {{kHigh + 0x0FFF, 1},     {kHigh + 0x2F00, 600},
                                            {kHigh + 0x5013, 1500},  {kHigh + 0x9000, 4096},
                                            {kHigh + 0x7000, 4096},  {kHigh + 0x11FFE, 3},
                                            {kHigh + 0x20000, 8192}, {kHigh + 0x30001, 777}};
  DmaRequest read;
  read.tag = 5;
  std::uint64_t total = 0;
  for (const DmaSegment& s : segments) {
    ASSERT_TRUE(read.add_segment(s.address, s.length));
    total += s.length;
  }
  EXPECT_FALSE(read.add_segment(kHigh, 1));  // a request holds kMaxDmaSegments
  std::vector<std::uint8_t> got(total);
  read.buffer = got.data();
  nic.request_at(sc_core::SC_ZERO_TIME, read);

  // The same segments written with other bytes, after the read is done.
  const auto data = pattern(total, 99);
  DmaRequest write = read;
  write.tag = 6;
  write.op = DmaOp::kWrite;
  write.buffer = const_cast<std::uint8_t*>(data.data());
  nic.request_at(nanoseconds(20000), write);
  sc_core::sc_start();

  std::vector<std::uint8_t> expected;
  std::vector<std::uint8_t> after(host.size());
  bench.memory.read_bytes(kHigh, after.data(), after.size());
  std::vector<std::uint8_t> untouched = host;
  std::uint64_t at = 0;
  for (const DmaSegment& s : segments) {
    const std::uint64_t offset = s.address - kHigh;
    expected.insert(expected.end(), host.begin() + offset, host.begin() + offset + s.length);
    std::copy(data.begin() + at, data.begin() + at + s.length, untouched.begin() + offset);
    at += s.length;
  }
  ASSERT_EQ(nic.got.size(), 2u);
  EXPECT_TRUE(nic.got[0].ok() && nic.got[1].ok());
  EXPECT_EQ(got, expected);
  EXPECT_EQ(after, untouched);  // the segments hold the new bytes, nothing else moved
}

TEST(DmaTags, AnAdapterListLongerThanARequestGoesAsSeveral) {
  Bench bench(gen3x8());
  const auto host = pattern(0x20000, 4);
  bench.memory.write_bytes(0x100000, host.data(), host.size());
  DmaScatterGather sg;
  std::vector<std::uint8_t> expected;
  for (std::uint64_t k = 0; k < 11; ++k) {  // 11 segments of 100 B, one per page, backwards
    const std::uint64_t offset = (10 - k) * 4096 + k;
    sg.segments.push_back({0x100000 + offset, 100});
    expected.insert(expected.end(), host.begin() + offset, host.begin() + offset + 100);
  }
  std::vector<std::uint8_t> got(expected.size());
  tlm::tlm_generic_payload request;
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
  EXPECT_EQ(got, expected);
  EXPECT_EQ(bench.engine.stats().read_requests, 2u);  // 8 segments, then 3
  EXPECT_EQ(bench.engine.stats().tlps, 11u);
}

TEST(DmaTags, AReadAfterAPostedWriteSeesItsData) {
  // The same requester asks for both at once (its requests are cut in
  // order); another asks for a read 1 ns later, the write still in flight.
  Bench bench(gen3x8());
  Requester one("one", bench.engine, 2);
  Requester other("other", bench.engine, 1);
  const auto data = pattern(8192, 7);
  std::vector<std::uint8_t> mine(8192);
  std::vector<std::uint8_t> theirs(8192);
  one.request_at(sc_core::SC_ZERO_TIME, DmaRequest::write(1, kHigh, 8192, data.data()));
  one.request_at(sc_core::SC_ZERO_TIME, DmaRequest::read(2, kHigh, 8192, mine.data()));
  other.request_at(nanoseconds(1), DmaRequest::read(3, kHigh, 8192, theirs.data()));
  sc_core::sc_start();
  ASSERT_EQ(one.got.size(), 2u);
  EXPECT_EQ(one.got[0].tag, 1u);  // the write first: the read may not pass it
  EXPECT_EQ(mine, data);
  EXPECT_EQ(theirs, data);
}

TEST(DmaTags, PostedWritesReachMemoryInOrderEvenWhenAnEarlierOneWaitsForAWalk) {
  // A 64 B payload to a page the IOTLB misses, then a CQE to a page it holds,
  // from another requester: the CQE arrives one TLP later, its translation
  // ready 200 ns before the payload's, but it may not reach memory before the
  // payload (a host that sees the CQE sees the data).
  pcie::PcieConfig c = gen3x8();
  c.iommu = true;
  Bench bench(c);
  Requester payload("payload", bench.engine, 1);
  Requester completer("completer", bench.engine, 2);
  const auto data = pattern(64, 1);
  const auto cqe = pattern(64, 2);
  std::vector<std::uint8_t> warm(64);
  completer.request_at(sc_core::SC_ZERO_TIME,
                       DmaRequest::read(1, kHigh + 0x100000, 64, warm.data()));
  const sc_time later = nanoseconds(2000);
  payload.request_at(later, DmaRequest::write(2, kHigh, 64, data.data()));
  completer.request_at(later + nanoseconds(1),
                       DmaRequest::write(3, kHigh + 0x100000, 64, cqe.data()));
  std::vector<std::uint8_t> seen_cqe(64);
  std::vector<std::uint8_t> seen_data(64);
  bool checked = false;
  sc_core::sc_spawn([&] {  // a host CPU polling the CQ every nanosecond
    sc_core::wait(later);
    for (;;) {
      bench.memory.read_bytes(kHigh + 0x100000, seen_cqe.data(), seen_cqe.size());
      if (seen_cqe == cqe) break;
      sc_core::wait(nanoseconds(1));
    }
    bench.memory.read_bytes(kHigh, seen_data.data(), seen_data.size());
    checked = true;
  });
  sc_core::sc_start();
  ASSERT_TRUE(checked);
  EXPECT_EQ(seen_data, data);
  ASSERT_NE(completer.completion(3), nullptr);
  ASSERT_NE(payload.completion(2), nullptr);
  // Both land when the payload's walk is done: 220 ns after it arrived.
  const sc_time payload_in = later + wire(c, 88) + nanoseconds(20 + 220);
  EXPECT_EQ(payload.completion(2)->time, payload_in);
  EXPECT_EQ(completer.completion(3)->time, payload_in);
  EXPECT_EQ(bench.link.iotlb().misses(), 2u);  // the warming read, the payload's page
}

TEST(DmaTags, AFailedReadCompletesWithAnErrorOnItsTag) {
  Bench bench(gen3x8());
  Requester nic("nic", bench.engine, 2);
  std::vector<std::uint8_t> bad(64);
  std::vector<std::uint8_t> good(64);
  // Runs past the end of the 16 GiB of host memory: Unsupported Request.
  nic.request_at(sc_core::SC_ZERO_TIME, DmaRequest::read(7, (16ULL << 30) - 32, 64, bad.data()));
  nic.request_at(sc_core::SC_ZERO_TIME, DmaRequest::read(9, 0x1000, 64, good.data()));
  sc_core::sc_start();
  ASSERT_NE(nic.completion(7), nullptr);
  ASSERT_NE(nic.completion(9), nullptr);
  EXPECT_EQ(nic.completion(7)->status, DmaStatus::kUnsupportedRequest);
  EXPECT_EQ(nic.completion(9)->status, DmaStatus::kOk);
  EXPECT_EQ(bench.engine.stats().failed_requests, 1u);
  EXPECT_EQ(bench.link.stats().unsupported_requests, 1u);
  EXPECT_EQ(bench.engine.free_tags(), 64u);
}

TEST(DmaTags, CompletionsComeInTheOrderTheirDataIsComplete) {
  // A 64 KiB read needs two windows of tags; a write asked after it is cut
  // after it, but being posted it is in memory long before the read is done.
  Bench bench(gen3x8());
  Requester nic("nic", bench.engine, 2);
  std::vector<std::uint8_t> big(65536);
  const auto cqe = pattern(64, 1);
  nic.request_at(sc_core::SC_ZERO_TIME, DmaRequest::read(1, kHigh, 65536, big.data()));
  nic.request_at(sc_core::SC_ZERO_TIME, DmaRequest::write(2, kHigh + (1 << 20), 64, cqe.data()));
  sc_core::sc_start();
  ASSERT_EQ(nic.got.size(), 2u);
  EXPECT_EQ(nic.got[0].tag, 2u);
  EXPECT_EQ(nic.got[1].tag, 1u);
  EXPECT_LT(nic.got[0].time, nic.got[1].time);
}

// Records what it is told: when, and whether the completion was still waiting at the port.
struct ListenerLog : DmaCompletionListener {
  explicit ListenerLog(DmaPort& listened) : port(listened) { port.set_completion_listener(this); }
  void completion_arrived() override {
    told.push_back(sc_core::sc_time_stamp());
    waiting_at_port.push_back(port.has_completion());
  }
  DmaPort& port;
  std::vector<sc_time> told;
  std::vector<bool> waiting_at_port;
};

TEST(DmaTags, APortsListenerHearsOfEachCompletionBeforeItsWaitersRun) {
  Bench bench(gen3x8());
  Requester nic("nic", bench.engine, 4);
  ListenerLog listener(nic.port);
  std::vector<std::uint8_t> buffer(4096 + 64);
  const auto cqe = pattern(64, 4);
  nic.request_at(sc_core::SC_ZERO_TIME, DmaRequest::read(1, 0x10000, 4096, buffer.data()));
  nic.request_at(nanoseconds(10), DmaRequest::write(2, 0x20000, 64, cqe.data()));
  nic.request_at(nanoseconds(20), DmaRequest::read(3, 0x30000, 0, buffer.data()));  // empty
  sc_core::sc_start();
  ASSERT_EQ(nic.got.size(), 3u);
  ASSERT_EQ(listener.told.size(), 3u);
  for (std::size_t i = 0; i < 3; ++i) {
    EXPECT_EQ(listener.told[i], nic.got[i].time) << i;
    // The requester's method pops completions when the event wakes it: not yet.
    EXPECT_TRUE(listener.waiting_at_port[i]) << i;
  }
}

TEST(DmaTags, APortHoldsItsLimitOfRequestsAndCompletions) {
  Bench bench(gen3x8());
  Requester nic("nic", bench.engine, 2);
  std::vector<std::uint8_t> buffer(128);
  std::vector<bool> room;
  sc_core::sc_spawn([&] {
    nic.port.request(DmaRequest::read(1, 0x1000, 64, buffer.data()));
    room.push_back(nic.port.can_request());
    nic.port.request(DmaRequest::read(2, 0x2000, 64, buffer.data() + 64));
    room.push_back(nic.port.can_request());
    sc_core::wait(nanoseconds(2000));  // both done, completions popped by the requester
    room.push_back(nic.port.can_request());
  });
  sc_core::sc_start();
  EXPECT_EQ(room, (std::vector<bool>{true, false, true}));
  EXPECT_EQ(nic.got.size(), 2u);
}

TEST(DmaTags, AWindowsDllpsGoAsOneStretchInTheReverseDirectionsFirstIdleTime) {
  // One requester reads 4 KiB (one window of eight 20 B MRds, each answered
  // by eight 64 B completions of 84 B) and then writes 64 B (a 12 + 64 + 8 =
  // 84 B MWr). At ack_every_bytes = fc_update_every_bytes = 203 the window's
  // 8 x 672 = 5376 B of completions earn 26 ACKs and 26 UpdateFCs upstream, as
  // TLP by TLP (the remainders carry, so the count is floor(5376 / 203) each).
  // They are booked with the window, at its booking time, in the upstream's
  // first idle time: right behind its MRds, so the write, booked after the
  // read, leaves behind them. Downstream the 160 B of MRds and the 84 B MWr
  // earn one ACK and one UpdateFC (244 B), booked with the write's window.
  const pcie::PcieConfig c = gen3x8();
  Bench bench(c);
  Requester nic("nic", bench.engine, 2);
  std::vector<std::uint8_t> got(4096);
  const auto cqe = pattern(64, 3);
  sc_core::sc_spawn([&] {
    nic.port.request(DmaRequest::read(1, 0x10000, 4096, got.data()));
    nic.port.request(DmaRequest::write(2, 0x20000, 64, cqe.data()));
  });
  sc_core::sc_start();
  ASSERT_NE(nic.completion(2), nullptr);
  EXPECT_EQ(bench.link.upstream_stats().dllps, 52u);
  EXPECT_EQ(bench.link.downstream_stats().dllps, 2u);
  EXPECT_EQ(nic.completion(2)->time,
            wire(c, 20) * 8.0 + wire(c, 8) * 52.0 + wire(c, 84) + nanoseconds(20));
  EXPECT_EQ(bench.link.upstream_stats().busy, wire(c, 20) * 8.0 + wire(c, 8) * 52.0 + wire(c, 84));
}

// ---- The link's timeline ----

TEST(LinkDirection, ALaterBookingFillsAnIdleStretchBeforeAPromisedOne) {
  pcie::LinkDirection wire(8, nanoseconds(20));  // 1 byte per ns
  const sc_time now = sc_core::SC_ZERO_TIME;
  // Promised: 10 B from 100 ns (a read waiting for its tag).
  EXPECT_EQ(wire.send_tlps(1, 10, nanoseconds(10), nanoseconds(100), now).start, nanoseconds(100));
  // Fits before it.
  EXPECT_EQ(wire.send_tlps(1, 50, nanoseconds(50), now, now).start, now);
  // 55 B do not fit in [50, 100): behind the promise.
  EXPECT_EQ(wire.send_tlps(1, 55, nanoseconds(55), now, now).start, nanoseconds(110));
  // 40 B do, right behind the 50.
  const pcie::LinkDirection::Slot slot = wire.send_tlps(1, 40, nanoseconds(40), now, now);
  EXPECT_EQ(slot.start, nanoseconds(50));
  EXPECT_EQ(slot.arrival, nanoseconds(110));
  EXPECT_EQ(wire.stats().tlps, 4u);
  EXPECT_EQ(wire.stats().busy, nanoseconds(10 + 50 + 55 + 40));
  // What has ended is forgotten.
  wire.send_tlps(1, 1, nanoseconds(1), nanoseconds(500), nanoseconds(400));
  EXPECT_EQ(wire.booked_stretches(), 1u);
}

TEST(LinkDirection, TlpsFlowAroundADllpBookedAmongThem) {
  pcie::LinkDirection wire(8, nanoseconds(20));  // 1 byte per ns
  const sc_time now = sc_core::SC_ZERO_TIME;
  // Two DLLPs at 20 ns, in the idle wire: there they go.
  wire.send_dllps(2, 8, nanoseconds(20), now);
  // 50 B of TLPs from 0: the DLLPs go between them, 16 ns later they end.
  const pcie::LinkDirection::Slot slot = wire.send_tlps(2, 50, nanoseconds(50), now, now);
  EXPECT_EQ(slot.start, now);
  EXPECT_EQ(slot.end, nanoseconds(66));
  EXPECT_EQ(slot.arrival, nanoseconds(86));
  // A TLP booked now waits for all of them; a DLLP takes the next idle stretch.
  EXPECT_EQ(wire.send_tlps(1, 10, nanoseconds(10), now, now).start, nanoseconds(66));
  wire.send_dllps(1, 8, nanoseconds(30), now);
  EXPECT_EQ(wire.send_tlps(1, 1, nanoseconds(1), now, now).start, nanoseconds(84));
  EXPECT_EQ(wire.stats().dllps, 3u);
  EXPECT_EQ(wire.stats().busy, nanoseconds(16 + 50 + 10 + 8 + 1));
}

TEST(LinkDirection, ATrainGoesWhereOneAtATimeWouldAndNowhereElse) {
  const sc_time now = sc_core::SC_ZERO_TIME;
  pcie::LinkDirection one(8, nanoseconds(20));  // 1 byte per ns
  pcie::LinkDirection train(8, nanoseconds(20));
  for (pcie::LinkDirection* wire : {&one, &train}) {
    wire->send_tlps(1, 30, nanoseconds(30), nanoseconds(10), now);  // the wire queues
  }
  // Three writes of 16 B ready at 20 ns, each after the one before.
  sc_time last = nanoseconds(20);
  std::vector<pcie::LinkDirection::Slot> slots;
  for (int i = 0; i < 3; ++i) {
    slots.push_back(one.send_tlps(1, 16, nanoseconds(16), last, now));
    last = slots.back().end;
  }
  pcie::LinkDirection::Slot first;
  ASSERT_TRUE(train.send_train(3, 16, nanoseconds(16), nanoseconds(20), now, first));
  EXPECT_EQ(first.start, slots[0].start);
  EXPECT_EQ(first.start, nanoseconds(40));
  EXPECT_EQ(first.end, slots[0].end);
  EXPECT_EQ(first.arrival, slots[0].arrival);
  EXPECT_EQ(slots[2].end, first.end + nanoseconds(32));
  EXPECT_EQ(train.stats().tlps, one.stats().tlps);
  EXPECT_EQ(train.stats().tlp_bytes, one.stats().tlp_bytes);
  EXPECT_EQ(train.stats().busy, one.stats().busy);
  EXPECT_EQ(train.booked_stretches(), one.booked_stretches());
  // With a stretch promised later, the train declines and books nothing.
  train.send_tlps(1, 10, nanoseconds(10), nanoseconds(500), now);
  EXPECT_FALSE(train.send_train(2, 16, nanoseconds(16), nanoseconds(100), now, first));
  EXPECT_EQ(train.stats().tlps, 5u);
}

// ---- The ideal link (pcie.ideal): the seed figure's DMA step ----

// 100 Gbit/s, no latency anywhere: a TLP takes its payload's bits at the rate.
pcie::PcieConfig ideal_link() {
  pcie::PcieConfig c = gen3x8();
  c.ideal = true;
  c.ideal_gbps = 100;
  c.link_latency = sc_core::SC_ZERO_TIME;
  c.root_complex_latency = sc_core::SC_ZERO_TIME;
  return c;
}

// A 100-bit Data: 13 bytes in memory, the last 4 bits of which carry nothing.
DmaRequest data_read(std::uint32_t tag, std::uint64_t address, std::uint8_t* buffer) {
  DmaRequest request = DmaRequest::read(tag, address, 13, buffer);
  request.pad_bits = 4;
  return request;
}

TEST(IdealLink, A100BitReadTakesOneNanosecondAndReadsInARowOneEach) {
  // The MRd carries nothing (0 ns), the root complex answers at once, and the
  // completion's 100 bits take 1 ns at 100 Gbit/s; ten reads asked at 0 share
  // the completion wire: the k-th is complete at k + 1 ns. No DLLPs.
  Bench bench(ideal_link());
  Requester nic("nic", bench.engine, 16);
  std::vector<std::uint8_t> got(10 * 13);
  sc_core::sc_spawn([&] {  // one thread: the requests come in tag order
    for (std::uint32_t k = 0; k < 10; ++k) {
      nic.port.request(data_read(k, 0x1000 + 64 * k, got.data() + 13 * k));
    }
  });
  sc_core::sc_start();
  ASSERT_EQ(nic.got.size(), 10u);
  for (std::uint32_t k = 0; k < 10; ++k) {
    ASSERT_NE(nic.completion(k), nullptr);
    EXPECT_EQ(nic.completion(k)->time, nanoseconds(k + 1)) << "read " << k;
  }
  EXPECT_EQ(bench.link.upstream_stats().dllps + bench.link.downstream_stats().dllps, 0u);
  EXPECT_EQ(bench.link.downstream_stats().tlp_bytes, 130u);  // payload alone
}

TEST(IdealLink, ALatencyIsPipelinedAcrossReadsInFlight) {
  // 10 ns at the root complex: a read asked every ns completes 11 ns later,
  // and one still completes every ns.
  pcie::PcieConfig c = ideal_link();
  c.root_complex_latency = nanoseconds(10);
  Bench bench(c);
  Requester nic("nic", bench.engine, 16);
  std::vector<std::uint8_t> got(10 * 13);
  for (std::uint32_t k = 0; k < 10; ++k) {
    nic.request_at(nanoseconds(k), data_read(k, 0x1000 + 64 * k, got.data() + 13 * k));
  }
  sc_core::sc_start();
  ASSERT_EQ(nic.got.size(), 10u);
  for (std::uint32_t k = 0; k < 10; ++k) {
    EXPECT_EQ(nic.completion(k)->time, nanoseconds(11 + k)) << "read " << k;
  }
}

// A 100-bit posted write on `link`: when it is in memory, which holds its bytes.
sc_time padded_write_time(const pcie::PcieConfig& link) {
  Bench bench(link);
  Requester nic("nic", bench.engine, 4);
  const auto data = pattern(13, 5);
  DmaRequest padded = DmaRequest::write(1, 0x2000, 13, data.data());
  padded.pad_bits = 4;
  nic.request_at(sc_core::SC_ZERO_TIME, padded);
  sc_core::sc_start();
  std::vector<std::uint8_t> in_memory(13);
  bench.memory.read_bytes(0x2000, in_memory.data(), in_memory.size());
  EXPECT_EQ(in_memory, data);
  return nic.completion(1) ? nic.completion(1)->time : sc_core::SC_ZERO_TIME;
}

TEST(IdealLink, APaddedWriteTakesItsDataBits) {
  EXPECT_EQ(padded_write_time(ideal_link()), nanoseconds(1));  // 100 bits at 100 Gbit/s
}

TEST(IdealLink, ARealLinkMovesWholeBytesWhateverThePad) {
  // Gen3 x8: a 3 DW header, 13 bytes and 8 of framing, then the link latency.
  const pcie::PcieConfig c = gen3x8();
  EXPECT_EQ(padded_write_time(c), wire(c, 12 + 13 + 8) + c.link_latency);
}

TEST(IdealLink, OnlyTheWindowHoldingTheRequestsLastByteDropsThePad) {
  // One tag: a 1025-byte read at MRRS 512 goes as three windows of one MRd,
  // one after the other: 512 + 512 + 1 bytes, the pad (4 bits) on the last
  // alone: 8 * 1025 - 4 bits at 100 Gbit/s = 81.96 ns.
  Bench bench(ideal_link(), 1);
  Requester nic("nic", bench.engine, 4);
  std::vector<std::uint8_t> got(1025);
  DmaRequest request = DmaRequest::read(1, 0x10000, 1025, got.data());
  request.pad_bits = 4;
  nic.request_at(sc_core::SC_ZERO_TIME, request);
  sc_core::sc_start();
  ASSERT_NE(nic.completion(1), nullptr);
  EXPECT_EQ(nic.completion(1)->time, sc_time(81960, sc_core::SC_PS));
  EXPECT_EQ(bench.engine.stats().windows, 3u);
}

}  // namespace
}  // namespace rnicsim
