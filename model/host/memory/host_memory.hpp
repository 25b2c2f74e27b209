#pragma once
// HostMemory: a host's physical memory, byte-accurate and sparse.
//
// A TLM-2.0 target (blocking transport). Any number of initiators bind to its
// one socket; each access is charged `access_latency` through the annotated
// delay. Storage is allocated in 4 KiB chunks on first write (ChunkTable);
// never-written bytes read as zero.
#include <tlm_utils/multi_passthrough_target_socket.h>

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <systemc>
#include <tlm>
#include <vector>

#include "common/statistics.hpp"
#include "host/memory/chunk_table.hpp"

namespace rnicsim {

struct HostMemoryConfig {
  std::uint64_t size_bytes = 0;      // physical address space: [0, size_bytes)
  sc_core::sc_time access_latency;   // charged per transaction
};

struct HostMemoryStats {
  std::uint64_t reads = 0;
  std::uint64_t writes = 0;
  std::uint64_t bytes_read = 0;
  std::uint64_t bytes_written = 0;
  std::uint64_t errors = 0;          // transactions answered with an error response
};

// HostMemoryStats's names, units and meanings (common/statistics.hpp).
const StatisticsTable<HostMemoryStats>& host_memory_statistics();

class HostMemory : public sc_core::sc_module {
 public:
  static constexpr std::uint64_t kChunkBytes = ChunkTable::kChunkBytes;

  // Zero initiators is legal: a host whose memory nobody touches.
  tlm_utils::multi_passthrough_target_socket<HostMemory, 32, tlm::tlm_base_protocol_types, 0,
                                             sc_core::SC_ZERO_OR_MORE_BOUND>
      socket;

  HostMemory(const sc_core::sc_module_name& name, const HostMemoryConfig& config);

  // Untimed access for set-up and checks. Throws std::out_of_range outside
  // the address space.
  void write_bytes(std::uint64_t address, const std::uint8_t* data, std::size_t length);
  void read_bytes(std::uint64_t address, std::uint8_t* data, std::size_t length) const;
  // Untimed: [address, address + length) reads as zero from now on. Only
  // chunks already written are cleared; none is allocated (a driver zeroing a
  // fresh 2 MiB page costs no storage).
  void zero_bytes(std::uint64_t address, std::size_t length);

  // Untimed: the kChunkBytes bytes at `address` (a multiple of kChunkBytes)
  // are `bytes` from now on, storage the caller keeps alive as long as this
  // memory: a page an application outside the simulation shares with it
  // (rnicsim exec, host/app_bridge), so that what the NIC writes there is what
  // the application reads. What the chunk held before is no longer seen.
  // Throws std::invalid_argument for null storage.
  void back_with(std::uint64_t address, std::uint8_t* bytes);

  // Notified (with the write's own delay) whenever a write through `socket`
  // touches [address, address + length): what a CPU spinning on that memory
  // (a completion queue, the last byte of a buffer) would notice.
  const sc_core::sc_event& watch(std::uint64_t address, std::uint64_t length);

  // Every allocated chunk, its first address and its kChunkBytes bytes, in no
  // particular order; every byte of a chunk not visited reads as zero. Untimed
  // and read-only: what a check of all host memory (a snapshot, a digest) needs.
  void for_each_chunk(
      const std::function<void(std::uint64_t address, const std::uint8_t* bytes)>& visit) const;

  const HostMemoryStats& stats() const { return stats_; }
  std::size_t allocated_chunks() const { return chunks_.size(); }
  const HostMemoryConfig& config() const { return config_; }

 private:
  void b_transport(int initiator, tlm::tlm_generic_payload& payload, sc_core::sc_time& delay);
  bool in_range(std::uint64_t address, std::size_t length) const;

  HostMemoryConfig config_;
  HostMemoryStats stats_;
  // Chunk index -> its bytes: the table's own, or shared by back_with.
  ChunkTable chunks_;
  struct Watch {
    std::uint64_t address;
    std::uint64_t length;
    std::unique_ptr<sc_core::sc_event> written;
  };
  std::vector<Watch> watches_;
};

}  // namespace rnicsim
