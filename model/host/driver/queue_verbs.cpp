// The driver's queue verbs: CQs and QPs, posting and polling.
#include <algorithm>
#include <array>
#include <cerrno>
#include <stdexcept>

#include "common/time_units.hpp"
#include "common/little_endian.hpp"
#include "host/driver/verbs.hpp"

namespace rnicsim {
namespace {

std::uint32_t round_up_power_of_two(std::uint64_t n) {
  std::uint32_t p = 1;
  while (p < n) p <<= 1;
  return p;
}

// Largest send WQE this QP may need, in blocks.
std::uint32_t max_wqe_blocks(const ibv_qp_cap& cap) {
  return std::max(send_wqe_blocks(cap.max_send_sge, 0, false),
                  send_wqe_blocks(0, cap.max_inline_data, true));
}

}  // namespace

const DriverPlatform& VerbsDriver::platform() const {
  if (!platform_) throw std::logic_error("the driver has no NIC attached (VerbsDriver::attach)");
  return *platform_;
}

int VerbsDriver::fail(int error, std::string reason) {
  last_error_ = error;
  last_reason_ = std::move(reason);
  return error;
}

void VerbsDriver::mmio(std::uint64_t offset, const std::uint8_t* data, std::uint32_t length,
                       const sc_core::sc_time& cpu) {
  const sc_core::sc_time issue = cpu + platform().verbs.mmio_write;
  // The link waits out the CPU time before the write enters PCIe.
  CpuCore* const c = core();
  platform().mmio_write(offset, data, length, c ? c->reserve(issue, CpuWork::kVerbs) : issue);
}

void VerbsDriver::use_core_for_this_thread(CpuCore* core) {
  const sc_core::sc_object* thread = sc_core::sc_get_current_process_handle().get_process_object();
  if (thread == nullptr)
    throw std::logic_error("use_core_for_this_thread: not called from a thread");
  if (core) {
    thread_cores_[thread] = core;
  } else {
    thread_cores_.erase(thread);
  }
}

CpuCore* VerbsDriver::core() const {
  if (thread_cores_.empty()) return core_;
  const auto found =
      thread_cores_.find(sc_core::sc_get_current_process_handle().get_process_object());
  return found == thread_cores_.end() ? core_ : found->second;
}

void VerbsDriver::work(const sc_core::sc_time& time) {
  if (CpuCore* c = core()) {
    c->run(time, CpuWork::kVerbs);
  } else {
    sc_core::wait(time);
  }
}

void VerbsDriver::spin_until(const sc_core::sc_event& event) {
  if (CpuCore* c = core()) {
    c->spin_until(event);
  } else {
    sc_core::wait(event);
  }
}

void VerbsDriver::spin_until(const sc_core::sc_event& event, const sc_core::sc_time& at_most) {
  if (CpuCore* c = core()) {
    c->spin_until(event, at_most);
  } else {
    sc_core::wait(at_most, event);
  }
}

void VerbsDriver::spin_for(const sc_core::sc_time& time) {
  if (CpuCore* c = core()) {
    c->spin_for(time);
  } else {
    sc_core::wait(time);
  }
}

void VerbsDriver::ring_doorbell(std::uint64_t offset, std::uint64_t index, std::uint32_t bytes,
                                const sc_core::sc_time& cpu) {
  std::uint8_t doorbell[8];
  store_little_endian(index, doorbell, bytes);
  mmio(offset, doorbell, bytes, cpu);
}

std::vector<std::uint64_t> VerbsDriver::allocate_ring(std::uint64_t bytes) {
  const std::uint64_t page = platform().pages->page_bytes();
  std::vector<std::uint64_t> pages = platform().pages->allocate((bytes + page - 1) / page);
  for (std::uint64_t frame : pages) memory_.zero_bytes(frame, page);
  return pages;
}

std::uint64_t VerbsDriver::allocate_context() {
  // Contexts of 512 bytes, handed out from pages of their own.
  constexpr std::uint32_t kSlot = 512;
  if (contexts_left_ == 0) {
    context_page_ = allocate_ring(platform().pages->page_bytes()).front();
    contexts_left_ = static_cast<std::uint32_t>(platform().pages->page_bytes() / kSlot);
  }
  --contexts_left_;
  return context_page_ + std::uint64_t{contexts_left_} * kSlot;
}

bool VerbsDriver::fits_mailbox(const Command& command, const char* verb) {
  const std::size_t bytes = encode_command(command).size();
  if (bytes <= kCommandHeaderBytes + std::size_t{kMaxCommandBodyBytes}) return true;
  fail(EINVAL, std::string(verb) + ": its command (" + std::to_string(bytes) +
                   " bytes, mostly the ring's page list) is longer than the NIC reads (" +
                   std::to_string(kCommandHeaderBytes + kMaxCommandBodyBytes) + " bytes)");
  return false;
}

CommandStatus VerbsDriver::run_command(const Command& command) {
  const DriverPlatform& p = platform();
  const std::uint64_t page = p.pages->page_bytes();
  if (mailbox_ == 0) {
    mailbox_ = allocate_ring(page).front();
    mailbox_bytes_ = page;
  }
  const std::vector<std::uint8_t> bytes = encode_command(command);
  if (bytes.size() > kCommandHeaderBytes + std::size_t{kMaxCommandBodyBytes})
    throw std::logic_error("a command longer than the NIC reads (verbs check fits_mailbox)");
  if (bytes.size() > mailbox_bytes_) {
    // The NIC reads the body in one DMA from the mailbox's address: the pages
    // must follow one another physically.
    const std::uint64_t pages = (kCommandHeaderBytes + kMaxCommandBodyBytes + page - 1) / page;
    p.pages->release({mailbox_});
    mailbox_ = p.pages->allocate_contiguous(pages);
    mailbox_bytes_ = pages * page;
    memory_.zero_bytes(mailbox_, mailbox_bytes_);
  }
  sc_core::wait(p.verbs.command);
  memory_.write_bytes(mailbox_, bytes.data(), bytes.size());
  const sc_core::sc_event& answered = memory_.watch(mailbox_ + kCommandStatusOffset, 4);
  // Set-up, not verb work: the doorbell goes around the core's accounting.
  std::uint8_t doorbell[8];
  store_little_endian(mailbox_, doorbell, 8);
  p.mmio_write(kBarCommandDoorbell, doorbell, 8, p.verbs.mmio_write);
  for (;;) {
    std::uint8_t word[4];
    memory_.read_bytes(mailbox_ + kCommandStatusOffset, word, 4);
    const std::uint32_t status = word[0] | word[1] << 8 | word[2] << 16 |
                                 static_cast<std::uint32_t>(word[3]) << 24;
    if (status != static_cast<std::uint32_t>(CommandStatus::kPending)) {
      return static_cast<CommandStatus>(status);
    }
    sc_core::wait(answered);
  }
}

ibv_cq* VerbsDriver::ibv_create_cq(int cqe) {
  if (cqe < 1 || cqe > (1 << 22)) {
    fail(EINVAL, "ibv_create_cq: cqe must be 1 to 4194304");
    return nullptr;
  }
  auto cq = std::make_unique<ibv_cq>();
  cq->handle = static_cast<std::uint32_t>(cqs_.size() + 1);
  const std::uint32_t depth = round_up_power_of_two(static_cast<std::uint64_t>(cqe));
  cq->cqe = static_cast<int>(depth);
  cq->ring.entries = depth;
  cq->ring.entry_bytes = kCqeBytes;
  cq->ring.page_bytes = platform().pages->page_bytes();
  cq->ring.pages = allocate_ring(std::uint64_t{depth} * kCqeBytes);
  Command command;
  command.op = CommandOp::kCreateCq;
  command.create_cq.cqn = cq->handle;
  command.create_cq.context_address = allocate_context();
  command.create_cq.depth = depth;
  command.create_cq.page_bytes = static_cast<std::uint32_t>(cq->ring.page_bytes);
  command.create_cq.pages = cq->ring.pages;
  if (!fits_mailbox(command, "ibv_create_cq")) {
    platform().pages->release(cq->ring.pages);
    return nullptr;
  }
  if (run_command(command) != CommandStatus::kOk) {
    fail(EINVAL, "ibv_create_cq: the NIC refused the CQ");
    return nullptr;
  }
  cqs_.push_back(std::move(cq));
  last_error_ = 0;
  return cqs_.back().get();
}

ibv_qp* VerbsDriver::ibv_create_qp(ibv_pd* pd, const ibv_qp_init_attr& init) {
  const ibv_qp_cap& cap = init.cap;
  if (pd == nullptr || init.send_cq == nullptr || init.recv_cq == nullptr) {
    fail(EINVAL, "ibv_create_qp: a PD and both CQs are needed");
    return nullptr;
  }
  if (cap.max_send_wr < 1 || cap.max_send_wr > 32768 || cap.max_recv_wr > 32768 ||
      cap.max_send_sge > kMaxSendSge || cap.max_recv_sge > kMaxRecvSge ||
      cap.max_inline_data > kMaxInlineData) {
    fail(EINVAL, "ibv_create_qp: capabilities beyond the device's (max_send_wr and max_recv_wr "
                 "up to 32768, max_send_sge 16, max_recv_sge 3, max_inline_data 1024)");
    return nullptr;
  }
  auto qp = std::make_unique<ibv_qp>();
  qp->qp_num = next_qpn_++;
  qp->pd = pd;
  qp->send_cq = init.send_cq;
  qp->recv_cq = init.recv_cq;
  qp->cap = cap;
  const std::uint64_t page = platform().pages->page_bytes();
  qp->send_ring.entries = round_up_power_of_two(std::uint64_t{cap.max_send_wr} * max_wqe_blocks(cap));
  qp->send_ring.entry_bytes = kSendBlockBytes;
  qp->send_ring.page_bytes = page;
  qp->send_ring.pages = allocate_ring(std::uint64_t{qp->send_ring.entries} * kSendBlockBytes);
  qp->recv_ring.entries = round_up_power_of_two(std::max<std::uint32_t>(1, cap.max_recv_wr));
  qp->recv_ring.entry_bytes = kRecvWqeBytes;
  qp->recv_ring.page_bytes = page;
  qp->recv_ring.pages = allocate_ring(std::uint64_t{qp->recv_ring.entries} * kRecvWqeBytes);
  Command command;
  command.op = CommandOp::kCreateQp;
  CreateQpCommand& c = command.create_qp;
  c.qpn = qp->qp_num;
  c.context_address = allocate_context();
  c.pd = pd->handle;
  c.send_cqn = init.send_cq->handle;
  c.recv_cqn = init.recv_cq->handle;
  c.send_blocks = qp->send_ring.entries;
  c.recv_depth = qp->recv_ring.entries;
  c.page_bytes = static_cast<std::uint32_t>(page);
  c.send_pages = qp->send_ring.pages;
  c.recv_pages = qp->recv_ring.pages;
  if (!fits_mailbox(command, "ibv_create_qp")) {
    platform().pages->release(qp->send_ring.pages);
    platform().pages->release(qp->recv_ring.pages);
    return nullptr;
  }
  if (run_command(command) != CommandStatus::kOk) {
    fail(EINVAL, "ibv_create_qp: the NIC refused the QP");
    return nullptr;
  }
  qp_by_number_[qp->qp_num] = qp.get();
  qps_.push_back(std::move(qp));
  last_error_ = 0;
  return qps_.back().get();
}

int VerbsDriver::ibv_modify_qp(ibv_qp* qp, const ibv_qp_attr& attr, std::uint32_t attr_mask) {
  if (qp == nullptr) return fail(EINVAL, "ibv_modify_qp: no QP");
  const ibv_qp_state to = (attr_mask & IBV_QP_STATE) ? attr.qp_state : qp->state;
  std::string why;
  if (check_modify(qp->state, to, attr_mask, &why) != 0) return fail(EINVAL, "ibv_modify_qp: " + why);
  if ((attr_mask & IBV_QP_PATH_MTU) && ibv_mtu_to_bytes(attr.path_mtu) == 0)
    return fail(EINVAL, "ibv_modify_qp: path_mtu is not an ibv_mtu value");
  Command command;
  command.op = CommandOp::kModifyQp;
  command.modify_qp.qpn = qp->qp_num;
  command.modify_qp.attr_mask = attr_mask;
  command.modify_qp.attr = attr;
  command.modify_qp.attr.qp_state = to;
  if (run_command(command) != CommandStatus::kOk)
    return fail(EINVAL, "ibv_modify_qp: the NIC refused the transition");
  qp->state = to;
  if (to == IBV_QPS_RESET) {
    qp->send_producer = qp->send_consumer = qp->recv_producer = qp->recv_consumer = 0;
  }
  last_error_ = 0;
  return 0;
}

int VerbsDriver::ibv_destroy_qp(ibv_qp* qp) {
  if (qp == nullptr) return fail(EINVAL, "ibv_destroy_qp: no QP");
  Command command;
  command.op = CommandOp::kDestroyQp;
  command.destroy_qp.qpn = qp->qp_num;
  if (run_command(command) != CommandStatus::kOk)
    return fail(EINVAL, "ibv_destroy_qp: the NIC refused");
  qp->state = IBV_QPS_RESET;
  return 0;
}

int VerbsDriver::ibv_post_send(ibv_qp* qp, const ibv_send_wr* wr, const ibv_send_wr** bad_wr) {
  const DriverPlatform& p = platform();
  if (qp == nullptr) return fail(EINVAL, "ibv_post_send: no QP");
  SendWqeBytes last_wqe;  // the last WQE posted, for BlueFlame
  std::uint32_t posted = 0;
  sc_core::sc_time cpu = sc_core::SC_ZERO_TIME;  // charged with the doorbell
  for (; wr != nullptr; wr = wr->next) {
    auto refuse = [&](int error, const char* why) {
      if (bad_wr) *bad_wr = wr;
      work(cpu);  // the work requests before it were posted
      return fail(error, std::string("ibv_post_send: ") + why);
    };
    // libibverbs (mlx5) refuses posting only in RESET, INIT and RTR.
    if (qp->state == IBV_QPS_RESET || qp->state == IBV_QPS_INIT || qp->state == IBV_QPS_RTR)
      return refuse(EINVAL, "the QP is not in RTS");
    if (wr->num_sge > qp->cap.max_send_sge) return refuse(EINVAL, "more SGEs than max_send_sge");
    // One record for every WQE posted, so its inline data keeps its
    // capacity; nothing waits between filling it and encoding it.
    SendWqe& wqe = posting_;
    wqe.is_inline = false;
    wqe.sges.clear();
    wqe.inline_data.clear();
    wqe.opcode = wr->opcode;
    wqe.signaled = wr->send_flags & IBV_SEND_SIGNALED;
    wqe.solicited = wr->send_flags & IBV_SEND_SOLICITED;
    wqe.fence = wr->send_flags & IBV_SEND_FENCE;
    wqe.wr_id = wr->wr_id;
    wqe.imm_data = wr->imm_data;
    const bool atomic =
        wr->opcode == IBV_WR_ATOMIC_CMP_AND_SWP || wr->opcode == IBV_WR_ATOMIC_FETCH_AND_ADD;
    wqe.remote_addr = atomic ? wr->atomic.remote_addr : wr->rdma.remote_addr;
    wqe.rkey = atomic ? wr->atomic.rkey : wr->rdma.rkey;
    wqe.compare_add = wr->atomic.compare_add;
    wqe.swap = wr->atomic.swap;
    std::uint64_t length = 0;
    for (std::uint32_t i = 0; i < wr->num_sge; ++i) length += wr->sg_list[i].length;
    if (length > (1ULL << 31)) return refuse(EINVAL, "a message longer than 2^31 bytes");
    wqe.length = static_cast<std::uint32_t>(length);
    if (atomic && (wr->num_sge != 1 || length != 8))
      return refuse(EINVAL, "an atomic needs one 8-byte SGE");
    const bool can_inline = wr->opcode != IBV_WR_RDMA_READ && !atomic;
    if ((wr->send_flags & IBV_SEND_INLINE) && can_inline) {
      if (length > qp->cap.max_inline_data) return refuse(EINVAL, "inline data beyond max_inline_data");
      wqe.is_inline = true;
      // The CPU copies the payload into the WQE now, from its virtual addresses.
      for (std::uint32_t i = 0; i < wr->num_sge; ++i) {
        const ibv_sge& sge = wr->sg_list[i];
        const std::size_t at = wqe.inline_data.size();
        wqe.inline_data.resize(at + sge.length);
        if (sge.length) space_.read(memory_, sge.addr, wqe.inline_data.data() + at, sge.length);
      }
    } else {
      wqe.sges.assign(wr->sg_list, wr->sg_list + wr->num_sge);
    }
    const SendWqeBytes bytes = encode_send_wqe(wqe);
    const auto blocks = static_cast<std::uint32_t>(bytes.size() / kSendBlockBytes);
    if (qp->send_producer + blocks - qp->send_consumer > qp->send_ring.entries)
      return refuse(ENOMEM, "the send queue is full");
    cpu += p.verbs.post_send;
    for (std::uint32_t b = 0; b < blocks; ++b) {
      memory_.write_bytes(qp->send_ring.address(qp->send_producer + b),
                          bytes.data() + std::size_t{b} * kSendBlockBytes, kSendBlockBytes);
    }
    qp->send_producer += blocks;
    last_wqe = bytes;
    ++posted;
  }
  if (posted == 0) return 0;
  // One doorbell for the list; a single small WQE goes with it (BlueFlame).
  if (posted == 1 && last_wqe.size() <= p.verbs.blueflame_bytes) {
    std::array<std::uint8_t, 8 + SendWqeBytes::capacity()> write;
    store_little_endian(qp->send_producer, write.data(), 8);
    std::copy(last_wqe.begin(), last_wqe.end(), write.begin() + 8);
    mmio(kBarBlueFlame + std::uint64_t{qp->qp_num} * kBarBlueFlameStride, write.data(),
         static_cast<std::uint32_t>(8 + last_wqe.size()), cpu);
  } else {
    ring_doorbell(kBarSendDoorbells + std::uint64_t{qp->qp_num} * kBarDoorbellStride,
                  qp->send_producer, 4, cpu);
  }
  last_error_ = 0;
  return 0;
}

int VerbsDriver::ibv_post_recv(ibv_qp* qp, const ibv_recv_wr* wr, const ibv_recv_wr** bad_wr) {
  if (qp == nullptr) return fail(EINVAL, "ibv_post_recv: no QP");
  std::uint32_t posted = 0;
  sc_core::sc_time cpu = sc_core::SC_ZERO_TIME;
  for (; wr != nullptr; wr = wr->next) {
    auto refuse = [&](int error, const char* why) {
      if (bad_wr) *bad_wr = wr;
      work(cpu);
      return fail(error, std::string("ibv_post_recv: ") + why);
    };
    if (qp->state == IBV_QPS_RESET) return refuse(EINVAL, "the QP is in RESET");
    if (wr->num_sge > qp->cap.max_recv_sge) return refuse(EINVAL, "more SGEs than max_recv_sge");
    if (qp->recv_producer - qp->recv_consumer >= qp->recv_ring.entries)
      return refuse(ENOMEM, "the receive queue is full");
    RecvWqe wqe;
    wqe.wr_id = wr->wr_id;
    wqe.sges.assign(wr->sg_list, wr->sg_list + wr->num_sge);
    cpu += platform().verbs.post_recv;
    const std::array<std::uint8_t, kRecvWqeBytes> bytes = encode_recv_wqe(wqe);
    memory_.write_bytes(qp->recv_ring.address(qp->recv_producer), bytes.data(), bytes.size());
    ++qp->recv_producer;
    ++posted;
  }
  if (posted > 0) {
    ring_doorbell(kBarRecvDoorbells + std::uint64_t{qp->qp_num} * kBarDoorbellStride,
                  qp->recv_producer, 4, cpu);
  }
  last_error_ = 0;
  return 0;
}

int VerbsDriver::ibv_poll_cq(ibv_cq* cq, int entries, ibv_wc* wc) {
  const sc_core::sc_time& poll = platform().verbs.poll_cq;
  work(poll);
  int taken = 0;
  while (taken < entries) {
    std::uint8_t bytes[kCqeBytes];
    memory_.read_bytes(cq->ring.address(cq->consumer), bytes, kCqeBytes);
    const Cqe cqe = decode_cqe(bytes);
    if (cqe.owner != cqe_owner_for(cq->consumer, cq->ring.entries)) break;
    ++cq->consumer;
    wc[taken++] = cqe.wc;
    // The driver's own bookkeeping: which ring space the NIC is done with.
    const auto qp = qp_by_number_.find(cqe.wc.qp_num);
    if (qp != qp_by_number_.end()) {
      if (cqe.wc.opcode & IBV_WC_RECV) {
        ++qp->second->recv_consumer;
      } else {
        qp->second->send_consumer = cqe.wqe_counter;
      }
    }
  }
  CpuCore* const c = core();
  if (taken == 0 && c) c->count_as_spinning(poll, CpuWork::kVerbs);
  return taken;
}

void VerbsDriver::wait_cq(ibv_cq* cq) {
  for (;;) {
    std::uint8_t bytes[kCqeBytes];
    memory_.read_bytes(cq->ring.address(cq->consumer), bytes, kCqeBytes);
    if (decode_cqe(bytes).owner == cqe_owner_for(cq->consumer, cq->ring.entries)) return;
    const sc_core::sc_event& written =
        memory_.watch(cq->ring.address(cq->consumer) / cq->ring.page_bytes * cq->ring.page_bytes,
                      cq->ring.page_bytes);
    spin_until(written);
    landed_ = sim_now();
    spin_for(platform().verbs.notice);
  }
}

bool VerbsDriver::cq_has_completion(const ibv_cq* cq) const {
  std::uint8_t bytes[kCqeBytes];
  memory_.read_bytes(cq->ring.address(cq->consumer), bytes, kCqeBytes);
  return decode_cqe(bytes).owner == cqe_owner_for(cq->consumer, cq->ring.entries);
}

const sc_core::sc_event& VerbsDriver::cq_written(const ibv_cq* cq) {
  const std::uint64_t page = cq->ring.page_bytes;
  return memory_.watch(cq->ring.address(cq->consumer) / page * page, page);
}

bool VerbsDriver::wait_cq_for(ibv_cq* cq, const sc_core::sc_time& at_most) {
  const sc_core::sc_time deadline = sim_now() + at_most;
  while (!cq_has_completion(cq)) {
    if (sim_now() >= deadline) return false;
    spin_until(cq_written(cq), deadline - sim_now());
    if (sim_now() >= deadline && !cq_has_completion(cq)) return false;
    landed_ = sim_now();
    spin_for(platform().verbs.notice);
  }
  return true;
}

void VerbsDriver::wait_write(std::uint64_t va, std::uint64_t length) {
  const std::uint64_t physical = space_.physical(va);
  const sc_core::sc_event& written = memory_.watch(physical, length);
  spin_until(written);
  landed_ = sim_now();
  spin_for(platform().verbs.notice);
}

}  // namespace rnicsim
