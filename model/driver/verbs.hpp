#pragma once
// The host driver's memory-registration verbs, named after libibverbs.
//
// ibv_reg_mr pins a buffer of the process's address space, takes a free MPT
// index, gives it a new key variant, and writes the MPT entry and the MR's
// page list (one MTT entry per page) into the NIC's tables in host memory.
// ibv_dereg_mr clears the entry's valid bit; the NIC then refuses the key,
// and a later registration at the same index gets a different variant, so
// a kept key stays refused. The NIC caches table entries, so deregistration
// also tells it to drop them (in hardware a firmware command over MMIO; here
// a call to every listener, free of time). CPU time per call is not modelled
// yet.
#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

#include "driver/address_space.hpp"
#include "host_memory/host_memory.hpp"
#include "mtt/mpt_format.hpp"

namespace rnicsim {

struct ibv_pd {
  std::uint32_t handle;
};

struct ibv_mr {
  std::uint64_t addr;
  std::uint64_t length;
  std::uint32_t lkey;
  std::uint32_t rkey;
  std::uint32_t access;
  std::uint32_t pd_handle;
  std::uint64_t first_mtt;  // driver bookkeeping
  std::uint32_t pages;
};

class VerbsDriver {
 public:
  VerbsDriver(HostMemory& memory, const AddressSpace& space, const IcmLayout& icm);

  ibv_pd* ibv_alloc_pd();
  // Returns nullptr and sets last_error(): EINVAL for remote write or atomic
  // access without local write (as the IB spec requires) or a range the
  // address space does not map; ENOMEM when the MPT or MTT is full.
  ibv_mr* ibv_reg_mr(ibv_pd* pd, std::uint64_t addr, std::uint64_t length, std::uint32_t access);
  // 0, or EINVAL for an MR this driver does not hold.
  int ibv_dereg_mr(ibv_mr* mr);

  int last_error() const { return last_error_; }

  // Called on deregistration with the MPT index and the MR's MTT range.
  using InvalidateListener =
      std::function<void(std::uint32_t mpt_index, std::uint64_t first_mtt, std::uint32_t pages)>;
  void on_invalidate(InvalidateListener listener) { listeners_.push_back(std::move(listener)); }

 private:
  void write_mpt(std::uint32_t index, const MptEntry& entry);

  HostMemory& memory_;
  const AddressSpace& space_;
  IcmLayout icm_;
  std::vector<std::unique_ptr<ibv_pd>> pds_;
  std::vector<std::unique_ptr<ibv_mr>> mrs_;
  std::vector<std::uint8_t> variants_;       // next key variant per MPT index
  std::vector<bool> mpt_in_use_;
  std::vector<std::pair<std::uint64_t, std::uint64_t>> free_mtt_;  // (first, count) ranges
  std::vector<InvalidateListener> listeners_;
  int last_error_ = 0;
};

}  // namespace rnicsim
