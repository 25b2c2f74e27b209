#include "switch/routing.hpp"

namespace rnicsim {

namespace {

// splitmix64's finalizer: every input bit moves every output bit.
std::uint64_t mix(std::uint64_t x) {
  x ^= x >> 30;
  x *= 0xBF58476D1CE4E5B9ULL;
  x ^= x >> 27;
  x *= 0x94D049BB133111EBULL;
  return x ^ (x >> 31);
}

}  // namespace

std::uint64_t RouteTable::flow_hash(const packet::FiveTuple& flow, std::uint64_t salt) {
  std::uint64_t h = mix(salt ^ (std::uint64_t{flow.source} << 32 | flow.destination));
  h = mix(h ^ (std::uint64_t{flow.protocol} << 32 | std::uint64_t{flow.source_port} << 16 |
               flow.destination_port));
  return h;
}

int RouteTable::select(const packet::FiveTuple& flow) const {
  const std::vector<std::uint16_t>* group = ports(flow.destination);
  if (group == nullptr || group->empty()) return -1;
  if (group->size() == 1) return group->front();
  return (*group)[flow_hash(flow, salt_) % group->size()];
}

}  // namespace rnicsim
