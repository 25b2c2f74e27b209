#pragma once
// ProtectionOracle: an independent reference of what frames from a hostile
// peer may change in a host's memory, written from the verbs rules alone and
// sharing no code with the NIC's transport/ or translation/ (nor with
// nic/protection/): a region may be changed by a remote request only if it
// is registered in the protection domain of a QP the request can name, with
// a remote right the region and that QP both grant; a receive buffer only if
// it was posted to such a QP. Everything else, registered or not, must keep
// its bytes, whatever arrives on the wire.
//
// The campaign tells the oracle what the application did (registrations,
// deregistrations, QPs and their rights, posted receive buffers), as an
// application's own bookkeeping would, and asks it for the byte ranges
// hostile frames may change; MemorySnapshot then compares every byte of host
// memory outside them.
#include <cstdint>
#include <vector>

#include "system/memory_snapshot.hpp"

namespace rnicsim::hostile {

class ProtectionOracle {
 public:
  // The rights as libibverbs numbers them (ibv_access_flags).
  static constexpr std::uint32_t kRemoteWrite = 2, kRemoteRead = 4, kRemoteAtomic = 8;

  // A registration of [va, va + length) in protection domain `pd` (the
  // campaign's own number for it) with `access`; returns its handle.
  std::size_t registered(std::uint64_t va, std::uint64_t length, int pd, std::uint32_t access);
  // The registration was removed: its key must no longer work. The oracle
  // answers for registrations as they stand while the frames arrive, so the
  // campaign changes none once the first hostile frame is sent.
  void deregistered(std::size_t region);
  // A QP hostile frames may name, in `pd`, granting `qp_access`.
  void attacked_qp(int pd, std::uint32_t qp_access);
  // A receive buffer posted to an attacked QP (a SEND may fill it).
  void receive_buffer(std::uint64_t va, std::uint64_t length);

  // The virtual ranges hostile frames may change.
  struct Range {
    std::uint64_t va = 0;
    std::uint64_t length = 0;
  };
  std::vector<Range> hostile_may_change() const;
  // The same as physical ranges of `space`, for MemorySnapshot.
  void add_hostile_may_change(testing::RangeSet& set, const AddressSpace& space) const;

 private:
  struct Region {
    std::uint64_t va = 0;
    std::uint64_t length = 0;
    int pd = 0;
    std::uint32_t access = 0;
    bool registered = true;
  };
  struct AttackedQp {
    int pd = 0;
    std::uint32_t access = 0;
  };
  std::vector<Region> regions_;  // every registration made, deregistered ones marked
  std::vector<AttackedQp> attacked_;
  std::vector<Range> receive_buffers_;
};

}  // namespace rnicsim::hostile
