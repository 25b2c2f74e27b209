#include "system/memory_snapshot.hpp"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <utility>

namespace rnicsim::testing {
namespace {

constexpr std::uint64_t kChunk = HostMemory::kChunkBytes;

std::string hex(std::uint64_t value) {
  char text[24];
  std::snprintf(text, sizeof text, "0x%llx", static_cast<unsigned long long>(value));
  return text;
}

std::string bytes_text(const std::uint8_t* bytes, std::size_t n) {
  std::string out;
  char text[4];
  for (std::size_t i = 0; i < std::min<std::size_t>(n, 8); ++i) {
    std::snprintf(text, sizeof text, "%02x", bytes[i]);
    out += text;
  }
  return n > 8 ? out + ".." : out;
}

struct Run {
  std::uint64_t address;
  std::uint64_t length;
  std::vector<std::uint8_t> was;
  std::vector<std::uint8_t> now;
  bool stray_chunk = false;
};

}  // namespace

void RangeSet::add(std::uint64_t address, std::uint64_t length) {
  if (length == 0) return;
  std::uint64_t first = address, end = address + length;
  auto it = ranges_.upper_bound(first);
  if (it != ranges_.begin() && std::prev(it)->second >= first) --it;
  while (it != ranges_.end() && it->first <= end) {
    first = std::min(first, it->first);
    end = std::max(end, it->second);
    it = ranges_.erase(it);
  }
  ranges_.emplace(first, end);
}

bool RangeSet::covers(std::uint64_t address, std::uint64_t length) const {
  if (length == 0) return true;
  auto it = ranges_.upper_bound(address);
  if (it == ranges_.begin()) return false;
  --it;
  return it->first <= address && address + length <= it->second;
}

bool RangeSet::touches(std::uint64_t address, std::uint64_t length) const {
  if (length == 0) return false;
  auto it = ranges_.lower_bound(address + length);  // first range starting at or past the end
  if (it == ranges_.begin()) return false;
  --it;
  return it->second > address;
}

void add_virtual_range(RangeSet& set, const AddressSpace& space, std::uint64_t va,
                       std::uint64_t length) {
  const std::uint64_t page = space.page_bytes();
  while (length > 0) {
    const std::uint64_t n = std::min(length, page - va % page);
    set.add(space.physical(va), n);
    va += n;
    length -= n;
  }
}

void add_ring(RangeSet& set, const RingLayout& ring) {
  std::uint64_t left = std::uint64_t{ring.entries} * ring.entry_bytes;
  for (std::uint64_t page : ring.pages) {
    const std::uint64_t n = std::min(left, ring.page_bytes);
    set.add(page, n);
    left -= n;
  }
}

void add_queues(RangeSet& set, const ibv_qp& qp) {
  add_ring(set, qp.send_ring);
  add_ring(set, qp.recv_ring);
}

void add_queues(RangeSet& set, const ibv_cq& cq) { add_ring(set, cq.ring); }

MemorySnapshot::MemorySnapshot(const HostMemory& memory, RangeSet may_change)
    : may_change_(std::move(may_change)) {
  memory.for_each_chunk([&](std::uint64_t address, const std::uint8_t* bytes) {
    if (!may_change_.covers(address, kChunk))
      chunks_.emplace(address, std::vector<std::uint8_t>(bytes, bytes + kChunk));
  });
}

std::vector<std::string> MemorySnapshot::changes(const HostMemory& memory,
                                                 std::size_t limit) const {
  static const std::vector<std::uint8_t> zeros(kChunk, 0);
  std::vector<Run> runs;
  memory.for_each_chunk([&](std::uint64_t address, const std::uint8_t* now) {
    if (may_change_.covers(address, kChunk)) return;
    const auto kept = chunks_.find(address);
    if (kept == chunks_.end() && !may_change_.touches(address, kChunk)) {
      // Nothing here was ever written nor may be: any write is a stray one.
      runs.push_back(Run{address, kChunk, {}, {}, true});
      return;
    }
    const std::uint8_t* was = kept == chunks_.end() ? zeros.data() : kept->second.data();
    if (std::memcmp(was, now, kChunk) == 0) return;
    std::uint64_t i = 0;
    while (i < kChunk) {
      if (was[i] == now[i] || may_change_.contains(address + i)) {
        ++i;
        continue;
      }
      std::uint64_t end = i + 1;
      while (end < kChunk && was[end] != now[end] && !may_change_.contains(address + end)) ++end;
      runs.push_back(Run{address + i, end - i, std::vector<std::uint8_t>(was + i, was + end),
                         std::vector<std::uint8_t>(now + i, now + end)});
      i = end;
    }
  });
  std::vector<std::string> out;
  if (runs.empty()) return out;
  std::sort(runs.begin(), runs.end(),
            [](const Run& x, const Run& y) { return x.address < y.address; });
  std::uint64_t bytes = 0;
  for (const Run& r : runs) bytes += r.length;
  for (std::size_t i = 0; i < std::min(limit, runs.size()); ++i) {
    const Run& r = runs[i];
    if (r.stray_chunk) {
      out.push_back("a write allocated the chunk at " + hex(r.address) +
                    ", outside every range that may change");
    } else {
      out.push_back(std::to_string(r.length) + " bytes at " + hex(r.address) + ": " +
                    bytes_text(r.was.data(), r.was.size()) + " -> " +
                    bytes_text(r.now.data(), r.now.size()));
    }
  }
  out.push_back(std::to_string(runs.size()) + " changed runs, " + std::to_string(bytes) +
                " bytes, outside the ranges that may change");
  return out;
}

}  // namespace rnicsim::testing
