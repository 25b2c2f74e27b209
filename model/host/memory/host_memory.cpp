#include "host/memory/host_memory.hpp"

#include <algorithm>
#include <cstring>
#include <stdexcept>
#include <string>

namespace rnicsim {

HostMemory::HostMemory(const sc_core::sc_module_name& name, const HostMemoryConfig& config)
    : sc_core::sc_module(name), socket("socket"), config_(config) {
  socket.register_b_transport(this, &HostMemory::b_transport);
}

bool HostMemory::in_range(std::uint64_t address, std::size_t length) const {
  return address <= config_.size_bytes && length <= config_.size_bytes - address;
}

void HostMemory::write_bytes(std::uint64_t address, const std::uint8_t* data,
                             std::size_t length) {
  if (!in_range(address, length)) {
    throw std::out_of_range(std::string(name()) + ": write outside physical memory");
  }
  while (length > 0) {
    const std::uint64_t offset = address % kChunkBytes;
    const std::size_t n = static_cast<std::size_t>(std::min<std::uint64_t>(length, kChunkBytes - offset));
    std::memcpy(chunks_.find_or_add(address / kChunkBytes) + offset, data, n);
    address += n;
    data += n;
    length -= n;
  }
}

void HostMemory::zero_bytes(std::uint64_t address, std::size_t length) {
  if (!in_range(address, length)) {
    throw std::out_of_range(std::string(name()) + ": write outside physical memory");
  }
  while (length > 0) {
    const std::uint64_t offset = address % kChunkBytes;
    const std::size_t n =
        static_cast<std::size_t>(std::min<std::uint64_t>(length, kChunkBytes - offset));
    std::uint8_t* chunk = chunks_.find(address / kChunkBytes);
    if (chunk != nullptr) std::memset(chunk + offset, 0, n);
    address += n;
    length -= n;
  }
}

void HostMemory::read_bytes(std::uint64_t address, std::uint8_t* data, std::size_t length) const {
  if (!in_range(address, length)) {
    throw std::out_of_range(std::string(name()) + ": read outside physical memory");
  }
  while (length > 0) {
    const std::uint64_t offset = address % kChunkBytes;
    const std::size_t n = static_cast<std::size_t>(std::min<std::uint64_t>(length, kChunkBytes - offset));
    const std::uint8_t* chunk = chunks_.find(address / kChunkBytes);
    if (chunk == nullptr) {
      std::memset(data, 0, n);
    } else {
      std::memcpy(data, chunk + offset, n);
    }
    address += n;
    data += n;
    length -= n;
  }
}

void HostMemory::for_each_chunk(
    const std::function<void(std::uint64_t address, const std::uint8_t* bytes)>& visit) const {
  chunks_.for_each(
      [&](std::uint64_t index, const std::uint8_t* bytes) { visit(index * kChunkBytes, bytes); });
}

void HostMemory::back_with(std::uint64_t address, std::uint8_t* bytes) {
  if (address % kChunkBytes != 0 || !in_range(address, kChunkBytes)) {
    throw std::out_of_range(std::string(name()) + ": back_with needs a whole chunk in memory");
  }
  if (bytes == nullptr)
    throw std::invalid_argument(std::string(name()) + ": back_with needs storage");
  chunks_.share(address / kChunkBytes, bytes);
}

const sc_core::sc_event& HostMemory::watch(std::uint64_t address, std::uint64_t length) {
  for (const Watch& w : watches_) {
    if (w.address == address && w.length == length) return *w.written;
  }
  watches_.push_back(Watch{address, length, std::make_unique<sc_core::sc_event>()});
  return *watches_.back().written;
}

void HostMemory::b_transport(int /*initiator*/, tlm::tlm_generic_payload& payload,
                             sc_core::sc_time& delay) {
  const std::uint64_t address = payload.get_address();
  const std::size_t length = payload.get_data_length();
  if (payload.get_byte_enable_ptr() != nullptr) {
    payload.set_response_status(tlm::TLM_BYTE_ENABLE_ERROR_RESPONSE);
    ++stats_.errors;
    return;
  }
  if (payload.get_streaming_width() < length) {
    payload.set_response_status(tlm::TLM_BURST_ERROR_RESPONSE);
    ++stats_.errors;
    return;
  }
  if (!in_range(address, length)) {
    payload.set_response_status(tlm::TLM_ADDRESS_ERROR_RESPONSE);
    ++stats_.errors;
    return;
  }
  switch (payload.get_command()) {
    case tlm::TLM_READ_COMMAND:
      read_bytes(address, payload.get_data_ptr(), length);
      ++stats_.reads;
      stats_.bytes_read += length;
      break;
    case tlm::TLM_WRITE_COMMAND:
      write_bytes(address, payload.get_data_ptr(), length);
      ++stats_.writes;
      stats_.bytes_written += length;
      for (const Watch& w : watches_) {
        if (address < w.address + w.length && w.address < address + length)
          w.written->notify(delay + config_.access_latency);
      }
      break;
    case tlm::TLM_IGNORE_COMMAND:
      break;
  }
  delay += config_.access_latency;
  payload.set_response_status(tlm::TLM_OK_RESPONSE);
}

const StatisticsTable<HostMemoryStats>& host_memory_statistics() {
  static const StatisticsTable<HostMemoryStats> table(
      "memory",
      {
       {"reads", "transactions", &HostMemoryStats::reads,
        "read transactions"},
       {"writes", "transactions", &HostMemoryStats::writes,
        "write transactions"},
       {"bytes_read", "bytes", &HostMemoryStats::bytes_read,
        "bytes read"},
       {"bytes_written", "bytes", &HostMemoryStats::bytes_written,
        "bytes written"},
       {"errors", "transactions", &HostMemoryStats::errors,
        "transactions answered with an error response"},
      });
  return table;
}

}  // namespace rnicsim
