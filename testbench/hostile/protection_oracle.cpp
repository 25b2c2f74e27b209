#include "hostile/protection_oracle.hpp"

namespace rnicsim::hostile {

std::size_t ProtectionOracle::registered(std::uint64_t va, std::uint64_t length, int pd,
                                         std::uint32_t access) {
  regions_.push_back(Region{va, length, pd, access});
  return regions_.size() - 1;
}

void ProtectionOracle::deregistered(std::size_t region) { regions_.at(region).registered = false; }

void ProtectionOracle::attacked_qp(int pd, std::uint32_t qp_access) {
  attacked_.push_back(AttackedQp{pd, qp_access});
}

void ProtectionOracle::receive_buffer(std::uint64_t va, std::uint64_t length) {
  receive_buffers_.push_back(Range{va, length});
}

std::vector<ProtectionOracle::Range> ProtectionOracle::hostile_may_change() const {
  std::vector<Range> out = receive_buffers_;
  constexpr std::uint32_t kChanging = kRemoteWrite | kRemoteAtomic;  // READ changes nothing
  for (const Region& r : regions_) {
    if (!r.registered) continue;
    bool reachable = false;
    for (const AttackedQp& qp : attacked_)
      reachable = reachable || (qp.pd == r.pd && (qp.access & r.access & kChanging) != 0);
    if (reachable) out.push_back(Range{r.va, r.length});
  }
  return out;
}

void ProtectionOracle::add_hostile_may_change(testing::RangeSet& set,
                                              const AddressSpace& space) const {
  for (const Range& r : hostile_may_change())
    testing::add_virtual_range(set, space, r.va, r.length);
}

}  // namespace rnicsim::hostile
