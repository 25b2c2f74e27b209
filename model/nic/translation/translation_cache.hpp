#pragma once
// TranslationCache: a set-associative cache of table entries (MPT entries or
// MTT page addresses) indexed by entry number, with LRU or random
// replacement. Kernel-free; the NIC block charges the time.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <random>
#include <stdexcept>
#include <vector>

namespace rnicsim {

enum class Replacement { kLru, kRandom };

struct CacheGeometry {
  std::uint32_t entries = 0;
  std::uint32_t ways = 0;  // entries per set; entries / ways sets
  Replacement replacement = Replacement::kLru;
};

template <class Value>
class TranslationCache {
 public:
  // Throws std::invalid_argument unless ways divides entries.
  TranslationCache(const CacheGeometry& geometry, std::uint64_t seed)
      : geometry_(geometry), random_(seed) {
    if (geometry.ways == 0 || geometry.entries == 0 || geometry.entries % geometry.ways != 0) {
      throw std::invalid_argument("cache entries must be a non-zero multiple of its ways");
    }
    lines_.resize(geometry.entries);
  }

  // The cached value, counting a hit or a miss.
  std::optional<Value> lookup(std::uint64_t index) {
    Line* line = find(index);
    if (line == nullptr) {
      ++misses_;
      return std::nullopt;
    }
    ++hits_;
    line->last_use = ++clock_;
    return line->value;
  }

  // The cached value without counting or touching replacement (for checks).
  std::optional<Value> peek(std::uint64_t index) const {
    const Line* line = const_cast<TranslationCache*>(this)->find(index);
    if (line == nullptr) return std::nullopt;
    return line->value;
  }

  void insert(std::uint64_t index, const Value& value) {
    if (Line* line = find(index)) {
      line->value = value;
      line->last_use = ++clock_;
      return;
    }
    Line* set = set_of(index);
    Line* victim = nullptr;
    for (std::uint32_t w = 0; w < geometry_.ways && victim == nullptr; ++w) {
      if (!set[w].valid) victim = &set[w];
    }
    if (victim == nullptr) {
      if (geometry_.replacement == Replacement::kRandom) {
        victim = &set[random_() % geometry_.ways];
      } else {
        victim = &set[0];
        for (std::uint32_t w = 1; w < geometry_.ways; ++w) {
          if (set[w].last_use < victim->last_use) victim = &set[w];
        }
      }
    }
    *victim = Line{true, index, value, ++clock_};
  }

  // Drops an entry (the driver changed it).
  void invalidate(std::uint64_t index) {
    if (Line* line = find(index)) line->valid = false;
  }

  std::uint64_t hits() const { return hits_; }
  std::uint64_t misses() const { return misses_; }

 private:
  struct Line {
    bool valid = false;
    std::uint64_t index = 0;
    Value value{};
    std::uint64_t last_use = 0;
  };

 public:
  // Host memory the cache's storage takes per entry, for memory budgets.
  static constexpr std::size_t kLineBytes = sizeof(Line);

 private:
  Line* set_of(std::uint64_t index) {
    const std::uint64_t sets = geometry_.entries / geometry_.ways;
    return &lines_[(index % sets) * geometry_.ways];
  }

  Line* find(std::uint64_t index) {
    Line* set = set_of(index);
    for (std::uint32_t w = 0; w < geometry_.ways; ++w) {
      if (set[w].valid && set[w].index == index) return &set[w];
    }
    return nullptr;
  }

  CacheGeometry geometry_;
  std::mt19937_64 random_;
  std::vector<Line> lines_;
  std::uint64_t clock_ = 0;
  std::uint64_t hits_ = 0;
  std::uint64_t misses_ = 0;
};

}  // namespace rnicsim
