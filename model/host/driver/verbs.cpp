#include "host/driver/verbs.hpp"

#include <algorithm>
#include <cerrno>
#include <stdexcept>

namespace rnicsim {

VerbsDriver::VerbsDriver(HostMemory& memory, const AddressSpace& space, const IcmLayout& icm,
                         const ibv_port_attr& port)
    : memory_(memory),
      space_(space),
      icm_(icm),
      port_(port),
      variants_(icm.mpt_entries, 0),
      mpt_in_use_(icm.mpt_entries, false),
      free_mtt_{{0, icm.mtt_entries}} {}

int VerbsDriver::ibv_query_port(std::uint8_t port_num, ibv_port_attr* attr) {
  if (port_num != 1 || attr == nullptr) return last_error_ = EINVAL;
  *attr = port_;
  return 0;
}

ibv_pd* VerbsDriver::ibv_alloc_pd() {
  pds_.push_back(std::make_unique<ibv_pd>(ibv_pd{static_cast<std::uint32_t>(pds_.size() + 1)}));
  return pds_.back().get();
}

void VerbsDriver::write_mpt(std::uint32_t index, const MptEntry& entry) {
  const auto bytes = encode_mpt(entry);
  memory_.write_bytes(icm_.mpt_base + std::uint64_t{index} * kMptEntryBytes, bytes.data(),
                      bytes.size());
}

ibv_mr* VerbsDriver::ibv_reg_mr(ibv_pd* pd, std::uint64_t addr, std::uint64_t length,
                                std::uint32_t access) {
  const std::uint32_t needs_local_write = IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_ATOMIC;
  if (pd == nullptr || ((access & needs_local_write) && !(access & IBV_ACCESS_LOCAL_WRITE))) {
    last_error_ = EINVAL;
    return nullptr;
  }
  std::vector<std::uint64_t> frames;
  try {
    frames = space_.frames(addr, length);
  } catch (const std::out_of_range&) {
    last_error_ = EINVAL;
    return nullptr;
  }
  const auto index = std::find(mpt_in_use_.begin(), mpt_in_use_.end(), false);
  const auto range = std::find_if(free_mtt_.begin(), free_mtt_.end(),
                                  [&](const auto& r) { return r.second >= frames.size(); });
  if (index == mpt_in_use_.end() || range == free_mtt_.end()) {
    last_error_ = ENOMEM;
    return nullptr;
  }
  const auto mpt_index = static_cast<std::uint32_t>(index - mpt_in_use_.begin());
  const std::uint64_t first_mtt = range->first;
  range->first += frames.size();
  range->second -= frames.size();

  for (std::size_t i = 0; i < frames.size(); ++i) {
    std::uint8_t entry[kMttEntryBytes];
    for (std::uint32_t b = 0; b < kMttEntryBytes; ++b) {
      entry[b] = static_cast<std::uint8_t>(frames[i] >> (8 * b));
    }
    memory_.write_bytes(icm_.mtt_base + (first_mtt + i) * kMttEntryBytes, entry, kMttEntryBytes);
  }
  MptEntry mpt;
  mpt.valid = true;
  mpt.key_variant = variants_[mpt_index]++;
  mpt.access = static_cast<std::uint8_t>(access);
  std::uint8_t shift = 0;
  while ((1ULL << shift) < space_.page_bytes()) ++shift;
  mpt.page_shift = shift;
  mpt.pd = pd->handle;
  mpt.base_va = addr;
  mpt.length = length;
  mpt.first_mtt = first_mtt;
  mpt.pages = static_cast<std::uint32_t>(frames.size());
  write_mpt(mpt_index, mpt);
  mpt_in_use_[mpt_index] = true;

  const std::uint32_t key = make_key(mpt_index, mpt.key_variant);
  mrs_.push_back(std::make_unique<ibv_mr>(ibv_mr{addr, length, key, key, access, pd->handle,
                                                 first_mtt, mpt.pages}));
  last_error_ = 0;
  return mrs_.back().get();
}

int VerbsDriver::ibv_dereg_mr(ibv_mr* mr) {
  const auto held = std::find_if(mrs_.begin(), mrs_.end(),
                                 [mr](const auto& owned) { return owned.get() == mr; });
  if (held == mrs_.end()) return fail(EINVAL, "ibv_dereg_mr: an MR this driver does not hold");
  const std::uint32_t index = key_index(mr->lkey);
  MptEntry cleared;
  cleared.key_variant = key_variant(mr->lkey);
  write_mpt(index, cleared);
  if (platform_) {
    // The NIC drops its cached entries of the MR when it executes the
    // command; the MR is gone once it says so.
    Command command;
    command.op = CommandOp::kDeregMr;
    command.dereg_mr.mpt_index = index;
    command.dereg_mr.first_mtt = mr->first_mtt;
    command.dereg_mr.pages = mr->pages;
    if (run_command(command) != CommandStatus::kOk)
      return fail(EINVAL, "ibv_dereg_mr: the NIC refused the deregistration");
  } else {
    // No NIC to command (a driver without a verbs platform: block tests
    // that wire a translation unit to it directly): the listeners stand in.
    // With neither, a NIC's caches would keep the MR unnoticed.
    if (listeners_.empty())
      throw std::logic_error("ibv_dereg_mr: the driver has no NIC attached to tell");
    for (const InvalidateListener& listener : listeners_) listener(index, mr->first_mtt, mr->pages);
  }
  mpt_in_use_[index] = false;
  free_mtt_.push_back({mr->first_mtt, mr->pages});
  mrs_.erase(held);
  last_error_ = 0;
  return 0;
}

}  // namespace rnicsim
