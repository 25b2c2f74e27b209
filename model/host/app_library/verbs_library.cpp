// libibverbs.so.1 for applications attached to rnicsim (rnicsim exec): the
// verbs an unmodified program calls, answered by its node's simulated NIC
// through the bridge (app_bridge_client.hpp). The project's own code, built
// against Debian's libibverbs-dev headers so that the structures the
// program sees are the ones it was compiled against; the symbol versions
// are libibverbs.map's. Verbs this file does not define are
// unsupported_verbs.cpp's: each says so by name and fails.
//
// The context is a verbs_context whose extended ops are named stubs, except
// those verbs.h's inline verbs have a legacy path for (ibv_query_port,
// ibv_query_device_ex), which they take; the data path (ibv_post_send,
// ibv_post_recv, ibv_poll_cq, ibv_req_notify_cq) goes through the context's ops.
#include <arpa/inet.h>
#include <infiniband/verbs.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <set>
#include <vector>

#include "host/app_library/app_bridge_client.hpp"
#include "host/app_library/unsupported_verbs.hpp"

#undef ibv_get_device_list
#undef ibv_query_port
#undef ibv_reg_mr
#undef ibv_reg_mr_iova

namespace {

namespace bridge = rnicsim::bridge;
using rnicsim::app::call;

constexpr std::uint64_t kPage = 4096;

void report(const char* verb, const char* reason) {
  std::fprintf(stderr, "rnicsim libibverbs: %s: %s\n", verb, reason);
}

template <class T>
void append(std::vector<std::uint8_t>& body, const T& value) {
  const auto* bytes = reinterpret_cast<const std::uint8_t*>(&value);
  body.insert(body.end(), bytes, bytes + sizeof(T));
}

template <class T>
bool read_record(const std::vector<std::uint8_t>& body, std::size_t& at, T* value) {
  if (body.size() - at < sizeof(T)) return false;
  std::memcpy(value, body.data() + at, sizeof(T));
  at += sizeof(T);
  return true;
}

// Sends a request whose reply is one record; false, with errno set, when it
// fails.
template <class Record>
bool call_for(bridge::Request kind, const void* body, std::size_t bytes, Record* record) {
  std::vector<std::uint8_t> reply;
  const int error = call(kind, body, bytes, &reply);
  std::size_t at = 0;
  if (error != 0 || !read_record(reply, at, record)) {
    errno = error != 0 ? error : EIO;
    return false;
  }
  return true;
}

// The one device: this process's node's NIC.
struct Device {
  ibv_device device{};
};

struct Channel {
  ibv_comp_channel channel{};
  std::set<ibv_cq*> armed;  // CQs whose next completion is an event here
};

// A verbs_context: verbs.h's inline extended verbs find their ops here.
// Those with a legacy path (query_port, query_device_ex) are left empty and
// take it; every other one is a stub that names the verb it stands for.
struct Context {
  verbs_context extended{};
};

// The work requests an extended QP gathers between ibv_wr_start and
// ibv_wr_complete, posted as one ibv_post_send list.
struct WrBatch {
  std::vector<ibv_send_wr> wrs;
  std::vector<std::vector<ibv_sge>> sges;  // wrs[i]'s
  int error = 0;                           // the first wr_* call refused
  // Inline data is copied here by its setter (ibv_wr_post(3): the caller may
  // reuse its buffer at once). Shared pages, like registered memory: the
  // session copies inline data into the WQE from shared pages only. Room for
  // max_inline_data bytes in each of max_send_wr work requests.
  std::uint8_t* staging = nullptr;
  std::size_t staging_bytes = 0;
  std::size_t staged = 0;
};

// Every QP is an ibv_qp_ex (qp_base first, so an ibv_qp* is a Qp*); only one
// created with send_ops_flags answers ibv_qp_to_qp_ex.
struct Qp {
  ibv_qp_ex extended{};
  bool has_extended = false;
  ibv_qp_cap cap{};
  bool signal_all = false;  // sq_sig_all: every send completes
  WrBatch* batch = nullptr;  // has_extended only
};

std::mutex channels_mutex;

// The pages of the process already shared with the simulator.
std::mutex shared_mutex;
std::set<std::uint64_t> shared_pages;

// Shares [first, end) page by page, each run of pages not shared yet as one
// memfd that replaces them in place (contents kept), so that the NIC's DMA
// reads and writes the program's own memory.
int share_pages(std::uint64_t first, std::uint64_t end) {
  std::lock_guard<std::mutex> lock(shared_mutex);
  std::uint64_t page = first;
  while (page < end) {
    if (shared_pages.count(page) != 0) {
      page += kPage;
      continue;
    }
    std::uint64_t run_end = page;
    while (run_end < end && shared_pages.count(run_end) == 0) run_end += kPage;
    const std::uint64_t length = run_end - page;
    const int fd = memfd_create("rnicsim-mr", MFD_CLOEXEC);
    if (fd < 0) return errno;
    // The simulator keeps its own copy of the descriptor; this one closes.
    const auto fail = [fd] {
      const int error = errno;
      close(fd);
      return error;
    };
    if (ftruncate(fd, static_cast<off_t>(length)) != 0) return fail();
    void* staging = mmap(nullptr, length, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (staging == MAP_FAILED) return fail();
    std::memcpy(staging, reinterpret_cast<void*>(page), length);
    munmap(staging, length);
    if (mmap(reinterpret_cast<void*>(page), length, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED,
             fd, 0) == MAP_FAILED) {
      return fail();
    }
    const bridge::ShareMemory share{page, length};
    const int error = call(bridge::Request::kShareMemory, &share, sizeof share, nullptr, fd);
    close(fd);
    if (error != 0) return error;
    for (std::uint64_t p = page; p < run_end; p += kPage) shared_pages.insert(p);
    rnicsim::app::note_shared(page, length);
    page = run_end;
  }
  return 0;
}

// The data path, through the context's ops.

void append_sges(std::vector<std::uint8_t>& body, const ibv_sge* sg_list, int count) {
  for (int i = 0; i < count; ++i) {
    append(body, bridge::Sge{sg_list[i].addr, sg_list[i].length, sg_list[i].lkey});
  }
}

// Sends a post request; on failure points *bad_wr at the request refused.
template <class Wr>
int post(bridge::Request kind, const std::vector<std::uint8_t>& body, const std::vector<Wr*>& wrs,
         Wr** bad_wr) {
  std::vector<std::uint8_t> reply;
  const int error = call(kind, body.data(), body.size(), &reply);
  if (error != 0) {
    bridge::PostReply r{};
    std::size_t at = 0;
    read_record(reply, at, &r);
    *bad_wr = r.bad_index < wrs.size() ? wrs[r.bad_index] : wrs.front();
  }
  return error;
}

int poll_cq(ibv_cq* cq, int entries, ibv_wc* wc) {
  if (entries < 0) return -1;
  const bridge::PollCq poll{cq->handle, static_cast<std::uint32_t>(std::min(entries, 4096))};
  std::vector<std::uint8_t> body;
  if (call(bridge::Request::kPollCq, &poll, sizeof poll, &body) != 0) return -1;
  std::size_t at = 0;
  bridge::PollReply reply{};
  if (!read_record(body, at, &reply)) return -1;
  for (std::uint32_t i = 0; i < reply.count; ++i) {
    bridge::Wc w{};
    if (!read_record(body, at, &w)) return -1;
    ibv_wc& out = wc[i];
    std::memset(&out, 0, sizeof out);
    out.wr_id = w.wr_id;
    out.status = static_cast<ibv_wc_status>(w.status);
    out.opcode = static_cast<ibv_wc_opcode>(w.opcode);
    out.vendor_err = w.vendor_err;
    out.byte_len = w.byte_len;
    out.imm_data = htonl(w.imm_data);
    out.qp_num = w.qp_num;
    out.wc_flags = w.wc_flags;
  }
  return static_cast<int>(reply.count);
}

int req_notify_cq(ibv_cq* cq, int /*solicited_only*/) {
  if (cq->channel == nullptr) return EINVAL;
  std::lock_guard<std::mutex> lock(channels_mutex);
  reinterpret_cast<Channel*>(cq->channel)->armed.insert(cq);
  return 0;
}

int post_send(ibv_qp* qp, ibv_send_wr* wr, ibv_send_wr** bad_wr) {
  std::vector<std::uint8_t> body;
  std::vector<ibv_send_wr*> wrs;
  for (ibv_send_wr* w = wr; w != nullptr; w = w->next) wrs.push_back(w);
  append(body, bridge::PostHeader{qp->qp_num, static_cast<std::uint32_t>(wrs.size())});
  for (ibv_send_wr* w : wrs) {
    if (w->opcode > IBV_WR_ATOMIC_FETCH_AND_ADD) {
      report("ibv_post_send", "this opcode is not supported (README lists the supported ones)");
      *bad_wr = w;
      return EINVAL;
    }
    bridge::SendWr s{};
    s.wr_id = w->wr_id;
    const bool atomic =
        w->opcode == IBV_WR_ATOMIC_CMP_AND_SWP || w->opcode == IBV_WR_ATOMIC_FETCH_AND_ADD;
    s.remote_addr = atomic ? w->wr.atomic.remote_addr : w->wr.rdma.remote_addr;
    s.rkey = atomic ? w->wr.atomic.rkey : w->wr.rdma.rkey;
    s.compare_add = atomic ? w->wr.atomic.compare_add : 0;
    s.swap = atomic ? w->wr.atomic.swap : 0;
    s.imm_data = ntohl(w->imm_data);
    s.opcode = w->opcode;
    s.send_flags = w->send_flags;
    if (reinterpret_cast<Qp*>(qp)->signal_all) s.send_flags |= IBV_SEND_SIGNALED;
    s.num_sge = static_cast<std::uint32_t>(std::max(0, w->num_sge));
    append(body, s);
    append_sges(body, w->sg_list, w->num_sge);
  }
  if (wrs.empty()) return 0;
  return post(bridge::Request::kPostSend, body, wrs, bad_wr);
}

int post_recv(ibv_qp* qp, ibv_recv_wr* wr, ibv_recv_wr** bad_wr) {
  std::vector<std::uint8_t> body;
  std::vector<ibv_recv_wr*> wrs;
  for (ibv_recv_wr* w = wr; w != nullptr; w = w->next) wrs.push_back(w);
  append(body, bridge::PostHeader{qp->qp_num, static_cast<std::uint32_t>(wrs.size())});
  for (ibv_recv_wr* w : wrs) {
    append(body, bridge::RecvWr{w->wr_id, static_cast<std::uint32_t>(std::max(0, w->num_sge)), 0});
    append_sges(body, w->sg_list, w->num_sge);
  }
  if (wrs.empty()) return 0;
  return post(bridge::Request::kPostRecv, body, wrs, bad_wr);
}

int post_srq_recv(ibv_srq*, ibv_recv_wr* wr, ibv_recv_wr** bad_wr) {
  report("ibv_post_srq_recv", "shared receive queues are not supported");
  *bad_wr = wr;
  return EOPNOTSUPP;
}

ibv_mw* alloc_mw(ibv_pd*, ibv_mw_type) {
  report("ibv_alloc_mw", "memory windows are not supported");
  errno = EOPNOTSUPP;
  return nullptr;
}

int bind_mw(ibv_qp*, ibv_mw*, ibv_mw_bind*) {
  report("ibv_bind_mw", "memory windows are not supported");
  return EOPNOTSUPP;
}

int dealloc_mw(ibv_mw*) {
  report("ibv_dealloc_mw", "memory windows are not supported");
  return EOPNOTSUPP;
}

// The extended QP's work-request calls (ibv_wr_*): each opcode call opens a
// work request with the QP's wr_id and wr_flags, the data calls give it its
// gather list, and ibv_wr_complete posts the lot through post_send.

Qp* qp_of(ibv_qp_ex* extended) { return reinterpret_cast<Qp*>(extended); }

ibv_send_wr* open_wr(ibv_qp_ex* extended, ibv_wr_opcode opcode) {
  WrBatch& batch = *qp_of(extended)->batch;
  ibv_send_wr wr{};
  wr.wr_id = extended->wr_id;
  wr.send_flags = extended->wr_flags;
  wr.opcode = opcode;
  batch.wrs.push_back(wr);
  batch.sges.emplace_back();
  return &batch.wrs.back();
}

// A data call names no work request when no opcode call came first.
std::vector<ibv_sge>* open_gather_list(ibv_qp_ex* extended, const char* call) {
  WrBatch& batch = *qp_of(extended)->batch;
  if (batch.wrs.empty()) {
    report(call, "no work request is open (call an opcode such as ibv_wr_rdma_write first)");
    if (batch.error == 0) batch.error = EINVAL;
    return nullptr;
  }
  batch.sges.back().clear();
  return &batch.sges.back();
}

void refuse_wr(ibv_qp_ex* extended, const char* call) {
  rnicsim::app::report_unsupported(call);
  WrBatch& batch = *qp_of(extended)->batch;
  if (batch.error == 0) batch.error = EOPNOTSUPP;
}

void wr_start(ibv_qp_ex* extended) {
  WrBatch& batch = *qp_of(extended)->batch;
  batch.wrs.clear();
  batch.sges.clear();
  batch.error = 0;
  batch.staged = 0;
}

void wr_abort(ibv_qp_ex* extended) { wr_start(extended); }

int wr_complete(ibv_qp_ex* extended) {
  WrBatch& batch = *qp_of(extended)->batch;
  int error = batch.error;
  if (error == 0 && !batch.wrs.empty()) {
    for (std::size_t i = 0; i < batch.wrs.size(); ++i) {
      batch.wrs[i].sg_list = batch.sges[i].data();
      batch.wrs[i].num_sge = static_cast<int>(batch.sges[i].size());
      batch.wrs[i].next = i + 1 < batch.wrs.size() ? &batch.wrs[i + 1] : nullptr;
    }
    ibv_send_wr* bad = nullptr;
    error = post_send(&extended->qp_base, batch.wrs.data(), &bad);
  }
  wr_start(extended);
  return error;
}

void wr_rdma_write(ibv_qp_ex* extended, std::uint32_t rkey, std::uint64_t remote_addr) {
  ibv_send_wr* wr = open_wr(extended, IBV_WR_RDMA_WRITE);
  wr->wr.rdma = {remote_addr, rkey};
}

void wr_rdma_write_imm(ibv_qp_ex* extended, std::uint32_t rkey, std::uint64_t remote_addr,
                       __be32 imm_data) {
  ibv_send_wr* wr = open_wr(extended, IBV_WR_RDMA_WRITE_WITH_IMM);
  wr->wr.rdma = {remote_addr, rkey};
  wr->imm_data = imm_data;
}

void wr_rdma_read(ibv_qp_ex* extended, std::uint32_t rkey, std::uint64_t remote_addr) {
  ibv_send_wr* wr = open_wr(extended, IBV_WR_RDMA_READ);
  wr->wr.rdma = {remote_addr, rkey};
}

void wr_send(ibv_qp_ex* extended) { open_wr(extended, IBV_WR_SEND); }

void wr_send_imm(ibv_qp_ex* extended, __be32 imm_data) {
  open_wr(extended, IBV_WR_SEND_WITH_IMM)->imm_data = imm_data;
}

void wr_atomic_cmp_swp(ibv_qp_ex* extended, std::uint32_t rkey, std::uint64_t remote_addr,
                       std::uint64_t compare, std::uint64_t swap) {
  ibv_send_wr* wr = open_wr(extended, IBV_WR_ATOMIC_CMP_AND_SWP);
  wr->wr.atomic = {remote_addr, compare, swap, rkey};
}

void wr_atomic_fetch_add(ibv_qp_ex* extended, std::uint32_t rkey, std::uint64_t remote_addr,
                         std::uint64_t add) {
  ibv_send_wr* wr = open_wr(extended, IBV_WR_ATOMIC_FETCH_AND_ADD);
  wr->wr.atomic = {remote_addr, add, 0, rkey};
}

void wr_set_sge(ibv_qp_ex* extended, std::uint32_t lkey, std::uint64_t addr, std::uint32_t length) {
  if (std::vector<ibv_sge>* list = open_gather_list(extended, "ibv_wr_set_sge")) {
    list->push_back(ibv_sge{addr, length, lkey});
  }
}

void wr_set_sge_list(ibv_qp_ex* extended, std::size_t count, const ibv_sge* sges) {
  if (std::vector<ibv_sge>* list = open_gather_list(extended, "ibv_wr_set_sge_list")) {
    list->assign(sges, sges + count);
  }
}

// Copies inline data into the batch's staging area, the gather entry
// pointing there; false (the batch fails with ENOMEM) when it has no room.
bool stage_inline(ibv_qp_ex* extended, const ibv_data_buf* buffers, std::size_t count,
                  const char* call) {
  std::vector<ibv_sge>* list = open_gather_list(extended, call);
  if (list == nullptr) return false;
  // The copy reads the program's registered bytes, as no spin does: the
  // library at work is a call, and ends a spin watch first.
  rnicsim::app::stop_spin_watch();
  WrBatch& batch = *qp_of(extended)->batch;
  std::size_t total = 0;
  for (std::size_t i = 0; i < count; ++i) total += buffers[i].length;
  if (batch.staging == nullptr || batch.staging_bytes - batch.staged < total) {
    report(call, "more inline data than the QP's max_inline_data for each of its max_send_wr");
    if (batch.error == 0) batch.error = ENOMEM;
    return false;
  }
  for (std::size_t i = 0; i < count; ++i) {
    std::uint8_t* copy = batch.staging + batch.staged;
    std::memcpy(copy, buffers[i].addr, buffers[i].length);
    list->push_back(ibv_sge{reinterpret_cast<std::uintptr_t>(copy),
                            static_cast<std::uint32_t>(buffers[i].length), 0});
    batch.staged += buffers[i].length;
  }
  batch.wrs.back().send_flags |= IBV_SEND_INLINE;
  return true;
}

void wr_set_inline_data(ibv_qp_ex* extended, void* addr, std::size_t length) {
  const ibv_data_buf buffer{addr, length};
  stage_inline(extended, &buffer, 1, "ibv_wr_set_inline_data");
}

void wr_set_inline_data_list(ibv_qp_ex* extended, std::size_t count, const ibv_data_buf* buffers) {
  stage_inline(extended, buffers, count, "ibv_wr_set_inline_data_list");
}

void wr_bind_mw(ibv_qp_ex* extended, ibv_mw*, std::uint32_t, const ibv_mw_bind_info*) {
  refuse_wr(extended, "ibv_wr_bind_mw");
}
void wr_local_inv(ibv_qp_ex* extended, std::uint32_t) { refuse_wr(extended, "ibv_wr_local_inv"); }
void wr_send_inv(ibv_qp_ex* extended, std::uint32_t) { refuse_wr(extended, "ibv_wr_send_inv"); }
void wr_send_tso(ibv_qp_ex* extended, void*, std::uint16_t, std::uint16_t) {
  refuse_wr(extended, "ibv_wr_send_tso");
}
void wr_set_ud_addr(ibv_qp_ex* extended, ibv_ah*, std::uint32_t, std::uint32_t) {
  refuse_wr(extended, "ibv_wr_set_ud_addr");
}
void wr_set_xrc_srqn(ibv_qp_ex* extended, std::uint32_t) {
  refuse_wr(extended, "ibv_wr_set_xrc_srqn");
}
void wr_atomic_write(ibv_qp_ex* extended, std::uint32_t, std::uint64_t, const void*) {
  refuse_wr(extended, "ibv_wr_atomic_write");
}

void fill_wr_calls(ibv_qp_ex& e) {
  e.wr_atomic_cmp_swp = wr_atomic_cmp_swp;
  e.wr_atomic_fetch_add = wr_atomic_fetch_add;
  e.wr_bind_mw = wr_bind_mw;
  e.wr_local_inv = wr_local_inv;
  e.wr_rdma_read = wr_rdma_read;
  e.wr_rdma_write = wr_rdma_write;
  e.wr_rdma_write_imm = wr_rdma_write_imm;
  e.wr_send = wr_send;
  e.wr_send_imm = wr_send_imm;
  e.wr_send_inv = wr_send_inv;
  e.wr_send_tso = wr_send_tso;
  e.wr_set_ud_addr = wr_set_ud_addr;
  e.wr_set_xrc_srqn = wr_set_xrc_srqn;
  e.wr_set_inline_data = wr_set_inline_data;
  e.wr_set_inline_data_list = wr_set_inline_data_list;
  e.wr_set_sge = wr_set_sge;
  e.wr_set_sge_list = wr_set_sge_list;
  e.wr_start = wr_start;
  e.wr_complete = wr_complete;
  e.wr_abort = wr_abort;
  e.wr_atomic_write = wr_atomic_write;
}

// The extended ops, one stub each: ret op_<name>(args) naming `verb`.
#define RNICSIM_UNSUPPORTED_OP(name, verb, ret, failure, ...) \
  ret op_##name(__VA_ARGS__) {                                \
    rnicsim::app::report_unsupported(verb);                   \
    return failure;                                           \
  }
RNICSIM_UNSUPPORTED_OP(advise_mr, "ibv_advise_mr", int, EOPNOTSUPP, ibv_pd*, ibv_advise_mr_advice,
                       std::uint32_t, ibv_sge*, std::uint32_t)
RNICSIM_UNSUPPORTED_OP(alloc_null_mr, "ibv_alloc_null_mr", ibv_mr*, nullptr, ibv_pd*)
RNICSIM_UNSUPPORTED_OP(read_counters, "ibv_read_counters", int, EOPNOTSUPP, ibv_counters*,
                       std::uint64_t*, std::uint32_t, std::uint32_t)
RNICSIM_UNSUPPORTED_OP(attach_counters_point_flow, "ibv_attach_counters_point_flow", int,
                       EOPNOTSUPP, ibv_counters*, ibv_counter_attach_attr*, ibv_flow*)
RNICSIM_UNSUPPORTED_OP(create_counters, "ibv_create_counters", ibv_counters*, nullptr, ibv_context*,
                       ibv_counters_init_attr*)
RNICSIM_UNSUPPORTED_OP(destroy_counters, "ibv_destroy_counters", int, EOPNOTSUPP, ibv_counters*)
RNICSIM_UNSUPPORTED_OP(reg_dm_mr, "ibv_reg_dm_mr", ibv_mr*, nullptr, ibv_pd*, ibv_dm*,
                       std::uint64_t, std::size_t, unsigned int)
RNICSIM_UNSUPPORTED_OP(alloc_dm, "ibv_alloc_dm", ibv_dm*, nullptr, ibv_context*, ibv_alloc_dm_attr*)
RNICSIM_UNSUPPORTED_OP(free_dm, "ibv_free_dm", int, EOPNOTSUPP, ibv_dm*)
RNICSIM_UNSUPPORTED_OP(modify_flow_action_esp, "ibv_modify_flow_action_esp", int, EOPNOTSUPP,
                       ibv_flow_action*, ibv_flow_action_esp_attr*)
RNICSIM_UNSUPPORTED_OP(destroy_flow_action, "ibv_destroy_flow_action", int, EOPNOTSUPP,
                       ibv_flow_action*)
RNICSIM_UNSUPPORTED_OP(create_flow_action_esp, "ibv_create_flow_action_esp", ibv_flow_action*,
                       nullptr, ibv_context*, ibv_flow_action_esp_attr*)
RNICSIM_UNSUPPORTED_OP(modify_qp_rate_limit, "ibv_modify_qp_rate_limit", int, EOPNOTSUPP, ibv_qp*,
                       ibv_qp_rate_limit_attr*)
RNICSIM_UNSUPPORTED_OP(alloc_parent_domain, "ibv_alloc_parent_domain", ibv_pd*, nullptr,
                       ibv_context*, ibv_parent_domain_init_attr*)
RNICSIM_UNSUPPORTED_OP(dealloc_td, "ibv_dealloc_td", int, EOPNOTSUPP, ibv_td*)
RNICSIM_UNSUPPORTED_OP(alloc_td, "ibv_alloc_td", ibv_td*, nullptr, ibv_context*, ibv_td_init_attr*)
RNICSIM_UNSUPPORTED_OP(modify_cq, "ibv_modify_cq", int, EOPNOTSUPP, ibv_cq*, ibv_modify_cq_attr*)
RNICSIM_UNSUPPORTED_OP(post_srq_ops, "ibv_post_srq_ops", int, EOPNOTSUPP, ibv_srq*, ibv_ops_wr*,
                       ibv_ops_wr**)
RNICSIM_UNSUPPORTED_OP(destroy_rwq_ind_table, "ibv_destroy_rwq_ind_table", int, EOPNOTSUPP,
                       ibv_rwq_ind_table*)
RNICSIM_UNSUPPORTED_OP(create_rwq_ind_table, "ibv_create_rwq_ind_table", ibv_rwq_ind_table*,
                       nullptr, ibv_context*, ibv_rwq_ind_table_init_attr*)
RNICSIM_UNSUPPORTED_OP(destroy_wq, "ibv_destroy_wq", int, EOPNOTSUPP, ibv_wq*)
RNICSIM_UNSUPPORTED_OP(modify_wq, "ibv_modify_wq", int, EOPNOTSUPP, ibv_wq*, ibv_wq_attr*)
RNICSIM_UNSUPPORTED_OP(create_wq, "ibv_create_wq", ibv_wq*, nullptr, ibv_context*,
                       ibv_wq_init_attr*)
RNICSIM_UNSUPPORTED_OP(query_rt_values, "ibv_query_rt_values_ex", int, EOPNOTSUPP, ibv_context*,
                       ibv_values_ex*)
RNICSIM_UNSUPPORTED_OP(create_cq_ex, "ibv_create_cq_ex", ibv_cq_ex*, nullptr, ibv_context*,
                       ibv_cq_init_attr_ex*)
RNICSIM_UNSUPPORTED_OP(destroy_flow, "ibv_destroy_flow", int, EOPNOTSUPP, ibv_flow*)
RNICSIM_UNSUPPORTED_OP(create_flow, "ibv_create_flow", ibv_flow*, nullptr, ibv_qp*, ibv_flow_attr*)
RNICSIM_UNSUPPORTED_OP(open_qp, "ibv_open_qp", ibv_qp*, nullptr, ibv_context*, ibv_qp_open_attr*)
RNICSIM_UNSUPPORTED_OP(get_srq_num, "ibv_get_srq_num", int, EOPNOTSUPP, ibv_srq*, std::uint32_t*)
RNICSIM_UNSUPPORTED_OP(create_srq_ex, "ibv_create_srq_ex", ibv_srq*, nullptr, ibv_context*,
                       ibv_srq_init_attr_ex*)
RNICSIM_UNSUPPORTED_OP(open_xrcd, "ibv_open_xrcd", ibv_xrcd*, nullptr, ibv_context*,
                       ibv_xrcd_init_attr*)
RNICSIM_UNSUPPORTED_OP(close_xrcd, "ibv_close_xrcd", int, EOPNOTSUPP, ibv_xrcd*)
#undef RNICSIM_UNSUPPORTED_OP

ibv_qp* create_qp_ex(ibv_context* context, ibv_qp_init_attr_ex* init);

void fill_extended_ops(verbs_context& v) {
  v.advise_mr = op_advise_mr;
  v.alloc_null_mr = op_alloc_null_mr;
  v.read_counters = op_read_counters;
  v.attach_counters_point_flow = op_attach_counters_point_flow;
  v.create_counters = op_create_counters;
  v.destroy_counters = op_destroy_counters;
  v.reg_dm_mr = op_reg_dm_mr;
  v.alloc_dm = op_alloc_dm;
  v.free_dm = op_free_dm;
  v.modify_flow_action_esp = op_modify_flow_action_esp;
  v.destroy_flow_action = op_destroy_flow_action;
  v.create_flow_action_esp = op_create_flow_action_esp;
  v.modify_qp_rate_limit = op_modify_qp_rate_limit;
  v.alloc_parent_domain = op_alloc_parent_domain;
  v.dealloc_td = op_dealloc_td;
  v.alloc_td = op_alloc_td;
  v.modify_cq = op_modify_cq;
  v.post_srq_ops = op_post_srq_ops;
  v.destroy_rwq_ind_table = op_destroy_rwq_ind_table;
  v.create_rwq_ind_table = op_create_rwq_ind_table;
  v.destroy_wq = op_destroy_wq;
  v.modify_wq = op_modify_wq;
  v.create_wq = op_create_wq;
  v.query_rt_values = op_query_rt_values;
  v.create_cq_ex = op_create_cq_ex;
  v.ibv_destroy_flow = op_destroy_flow;
  v.ibv_create_flow = op_create_flow;
  v.open_qp = op_open_qp;
  v.create_qp_ex = create_qp_ex;
  v.get_srq_num = op_get_srq_num;
  v.create_srq_ex = op_create_srq_ex;
  v.open_xrcd = op_open_xrcd;
  v.close_xrcd = op_close_xrcd;
  v.sz = sizeof(verbs_context);
}

bool require_attached(const char* verb) {
  if (rnicsim::app::attached()) return true;
  report(verb, "no simulator is attached: run the program under `rnicsim exec`");
  return false;
}

// An RC QP; `send_ops` (ibv_create_qp_ex's send_ops_flags) non-zero makes it
// answer ibv_qp_to_qp_ex with the ibv_wr_* calls.
ibv_qp* create_rc_qp(ibv_pd* pd, ibv_qp_init_attr* init, std::uint64_t send_ops) {
  if (init->qp_type != IBV_QPT_RC) {
    report("ibv_create_qp", "only RC queue pairs are supported (qp_type IBV_QPT_RC)");
    errno = EOPNOTSUPP;
    return nullptr;
  }
  if (init->srq != nullptr) {
    report("ibv_create_qp", "shared receive queues are not supported");
    errno = EOPNOTSUPP;
    return nullptr;
  }
  bridge::CreateQp request{};
  request.pd = pd->handle;
  request.send_cq = init->send_cq->handle;
  request.recv_cq = init->recv_cq->handle;
  request.cap = bridge::QpCap{init->cap.max_send_wr, init->cap.max_recv_wr, init->cap.max_send_sge,
                              init->cap.max_recv_sge, init->cap.max_inline_data};
  bridge::QpReply reply{};
  if (!call_for(bridge::Request::kCreateQp, &request, sizeof request, &reply)) return nullptr;
  auto* q = new Qp;
  ibv_qp& qp = q->extended.qp_base;
  if (send_ops != 0) {
    q->has_extended = true;
    q->batch = new WrBatch;
    fill_wr_calls(q->extended);
    const std::uint64_t room = std::uint64_t{reply.cap.max_inline_data} * reply.cap.max_send_wr;
    if (room > 0) {
      const std::uint64_t bytes = (room + kPage - 1) / kPage * kPage;
      void* staging = std::aligned_alloc(kPage, bytes);
      const auto first = reinterpret_cast<std::uint64_t>(staging);
      if (staging != nullptr && share_pages(first, first + bytes) == 0) {
        q->batch->staging = static_cast<std::uint8_t*>(staging);
        q->batch->staging_bytes = bytes;
      } else {
        std::free(staging);  // inline setters then fail by name (ENOMEM)
      }
    }
  }
  qp.context = pd->context;
  qp.qp_context = init->qp_context;
  qp.pd = pd;
  qp.send_cq = init->send_cq;
  qp.recv_cq = init->recv_cq;
  qp.handle = reply.qp_num;
  qp.qp_num = reply.qp_num;
  qp.state = IBV_QPS_RESET;
  qp.qp_type = IBV_QPT_RC;
  pthread_mutex_init(&qp.mutex, nullptr);
  pthread_cond_init(&qp.cond, nullptr);
  q->signal_all = init->sq_sig_all != 0;
  q->cap = ibv_qp_cap{reply.cap.max_send_wr, reply.cap.max_recv_wr, reply.cap.max_send_sge,
                      reply.cap.max_recv_sge, reply.cap.max_inline_data};
  init->cap = q->cap;
  return &qp;
}

// ibv_create_qp_ex (verbs.h calls this op unless comp_mask is PD alone): an
// RC QP with a PD, optionally with send_ops_flags for the ibv_wr_* calls.
ibv_qp* create_qp_ex(ibv_context*, ibv_qp_init_attr_ex* init) {
  constexpr std::uint32_t kSupportedMask = IBV_QP_INIT_ATTR_PD | IBV_QP_INIT_ATTR_SEND_OPS_FLAGS;
  constexpr std::uint64_t kSupportedOps =
      IBV_QP_EX_WITH_RDMA_WRITE | IBV_QP_EX_WITH_RDMA_WRITE_WITH_IMM | IBV_QP_EX_WITH_SEND |
      IBV_QP_EX_WITH_SEND_WITH_IMM | IBV_QP_EX_WITH_RDMA_READ | IBV_QP_EX_WITH_ATOMIC_CMP_AND_SWP |
      IBV_QP_EX_WITH_ATOMIC_FETCH_AND_ADD;
  if ((init->comp_mask & ~kSupportedMask) != 0 || (init->comp_mask & IBV_QP_INIT_ATTR_PD) == 0) {
    report("ibv_create_qp_ex",
           "only a PD and send_ops_flags are supported in comp_mask (no XRC, RSS, TSO, "
           "create flags)");
    errno = EOPNOTSUPP;
    return nullptr;
  }
  const std::uint64_t send_ops =
      (init->comp_mask & IBV_QP_INIT_ATTR_SEND_OPS_FLAGS) ? init->send_ops_flags : 0;
  if ((send_ops & ~kSupportedOps) != 0) {
    report("ibv_create_qp_ex",
           "send_ops_flags names an operation the simulator's QP does not have (memory "
           "windows, local invalidate, TSO, atomic write, flush)");
    errno = EOPNOTSUPP;
    return nullptr;
  }
  ibv_qp_init_attr basic{};
  basic.qp_context = init->qp_context;
  basic.send_cq = init->send_cq;
  basic.recv_cq = init->recv_cq;
  basic.srq = init->srq;
  basic.cap = init->cap;
  basic.qp_type = init->qp_type;
  basic.sq_sig_all = init->sq_sig_all;
  ibv_qp* qp = create_rc_qp(init->pd, &basic, send_ops == 0 ? 0 : send_ops);
  if (qp != nullptr) init->cap = basic.cap;
  return qp;
}

}  // namespace

extern "C" {

ibv_device** ibv_get_device_list(int* num_devices) {
  if (!rnicsim::app::attached()) {
    if (num_devices != nullptr) *num_devices = 0;
    auto** none = static_cast<ibv_device**>(std::calloc(1, sizeof(ibv_device*)));
    return none;
  }
  static Device* device = [] {
    auto* d = new Device;
    const bridge::HelloReply& hello = rnicsim::app::device();
    d->device.node_type = IBV_NODE_CA;
    d->device.transport_type = IBV_TRANSPORT_IB;
    std::snprintf(d->device.name, sizeof d->device.name, "%s", hello.device_name);
    std::snprintf(d->device.dev_name, sizeof d->device.dev_name, "uverbs0");
    std::snprintf(d->device.dev_path, sizeof d->device.dev_path,
                  "/sys/class/infiniband_verbs/uverbs0");
    std::snprintf(d->device.ibdev_path, sizeof d->device.ibdev_path, "/sys/class/infiniband/%s",
                  hello.device_name);
    return d;
  }();
  auto** list = static_cast<ibv_device**>(std::calloc(2, sizeof(ibv_device*)));
  list[0] = &device->device;
  if (num_devices != nullptr) *num_devices = 1;
  return list;
}

void ibv_free_device_list(ibv_device** list) { std::free(list); }

const char* ibv_get_device_name(ibv_device* device) { return device->name; }

__be64 ibv_get_device_guid(ibv_device*) { return htobe64(rnicsim::app::device().node_guid); }

int ibv_get_device_index(ibv_device*) { return 0; }

int ibv_fork_init(void) { return 0; }

enum ibv_fork_status ibv_is_fork_initialized(void) { return IBV_FORK_DISABLED; }

ibv_context* ibv_open_device(ibv_device* device) {
  if (!require_attached("ibv_open_device")) return nullptr;
  auto* c = new Context;
  fill_extended_ops(c->extended);
  ibv_context& context = c->extended.context;
  context.device = device;
  context.cmd_fd = -1;
  context.async_fd = -1;
  context.num_comp_vectors = 1;
  pthread_mutex_init(&context.mutex, nullptr);
  context.abi_compat = __VERBS_ABI_IS_EXTENDED;
  context.ops.poll_cq = poll_cq;
  context.ops.req_notify_cq = req_notify_cq;
  context.ops.post_send = post_send;
  context.ops.post_recv = post_recv;
  context.ops.post_srq_recv = post_srq_recv;
  context.ops.alloc_mw = alloc_mw;
  context.ops.bind_mw = bind_mw;
  context.ops.dealloc_mw = dealloc_mw;
  return &context;
}

int ibv_close_device(ibv_context* context) {
  verbs_context* extended = verbs_get_ctx(context);
  delete reinterpret_cast<Context*>(extended);  // the first (only) member
  return 0;
}

int ibv_query_device(ibv_context*, ibv_device_attr* attr) {
  const bridge::HelloReply& hello = rnicsim::app::device();
  std::memset(attr, 0, sizeof *attr);
  std::snprintf(attr->fw_ver, sizeof attr->fw_ver, "rnicsim");
  attr->node_guid = htobe64(hello.node_guid);
  attr->sys_image_guid = htobe64(hello.node_guid);
  attr->max_mr_size = hello.max_mr_size;
  attr->page_size_cap = hello.page_size_cap;
  // A ConnectX-5's PCI identity (vendor 0x02c9 as the IEEE OUI libibverbs
  // reports, device 0x1017 = 4119), the NIC configs/cx5_100g.json is
  // calibrated to: perftest then takes the defaults it takes on that card
  // (inline sizes, the ibv_wr_* post path), the ones rnicsim perf imitates.
  attr->vendor_id = 0x02c9;
  attr->vendor_part_id = 4119;
  attr->max_qp = static_cast<int>(hello.max_qp);
  attr->max_qp_wr = static_cast<int>(hello.max_qp_wr);
  attr->max_sge = static_cast<int>(hello.max_sge);
  attr->max_sge_rd = static_cast<int>(hello.max_sge);
  attr->max_cq = static_cast<int>(hello.max_cq);
  attr->max_cqe = static_cast<int>(hello.max_cqe);
  attr->max_mr = static_cast<int>(hello.max_mr);
  attr->max_pd = static_cast<int>(hello.max_pd);
  attr->max_qp_rd_atom = static_cast<int>(hello.max_qp_rd_atom);
  attr->max_qp_init_rd_atom = static_cast<int>(hello.max_qp_rd_atom);
  attr->max_res_rd_atom = static_cast<int>(hello.max_qp_rd_atom * hello.max_qp);
  attr->atomic_cap = IBV_ATOMIC_HCA;
  attr->max_pkeys = 1;
  attr->local_ca_ack_delay = 16;
  attr->phys_port_cnt = 1;
  return 0;
}

// The exported symbol takes the pre-1.1 structure; verbs.h's inline wrapper
// passes a whole ibv_port_attr, cleared.
int ibv_query_port(ibv_context*, std::uint8_t port_num, struct _compat_ibv_port_attr* out) {
  if (port_num != 1) return EINVAL;
  const bridge::HelloReply& hello = rnicsim::app::device();
  auto* attr = reinterpret_cast<ibv_port_attr*>(out);
  attr->state = static_cast<ibv_port_state>(hello.port_state);
  attr->max_mtu = static_cast<ibv_mtu>(hello.max_mtu);
  attr->active_mtu = static_cast<ibv_mtu>(hello.active_mtu);
  attr->gid_tbl_len = static_cast<int>(hello.gid_table_length);
  attr->port_cap_flags = 0;
  attr->max_msg_sz = 1U << 31;
  attr->pkey_tbl_len = 1;
  attr->lid = 0;           // RoCE has no LIDs
  attr->active_width = 2;  // 4x
  // IBTA speed codes per lane at 4x: 25G EDR (32) for 100G, 50G HDR (64) for 200G.
  attr->active_speed = hello.link_gbps >= 200 ? 64 : 32;
  attr->phys_state = hello.port_state == IBV_PORT_ACTIVE ? 5 : 3;  // LinkUp, Disabled
  attr->link_layer = hello.link_layer;
  return 0;
}

int ibv_query_gid(ibv_context*, std::uint8_t port_num, int index, ibv_gid* gid) {
  const bridge::HelloReply& hello = rnicsim::app::device();
  if (port_num != 1 || index < 0 || static_cast<std::uint32_t>(index) >= hello.gid_table_length) {
    return -1;
  }
  std::memcpy(gid->raw, hello.gid, sizeof gid->raw);
  return 0;
}

// libibverbs' private enum ibv_gid_type_sysfs: 1 is RoCE v2.
int ibv_query_gid_type(ibv_context*, std::uint8_t port_num, unsigned int index,
                       unsigned int* type) {
  if (port_num != 1 || index >= rnicsim::app::device().gid_table_length) return EINVAL;
  *type = 1;
  return 0;
}

// The GID entry ibv_query_gid_ex and ibv_query_gid_table give: RoCE v2, on
// no host net device (the NIC is simulated).
ibv_gid_entry gid_entry(std::uint32_t index) {
  ibv_gid_entry entry{};
  std::memcpy(entry.gid.raw, rnicsim::app::device().gid, sizeof entry.gid.raw);
  entry.gid_index = index;
  entry.port_num = 1;
  entry.gid_type = IBV_GID_TYPE_ROCE_V2;
  entry.ndev_ifindex = 0;
  return entry;
}

int _ibv_query_gid_ex(ibv_context*, std::uint32_t port_num, std::uint32_t gid_index,
                      ibv_gid_entry* entry, std::uint32_t flags, std::size_t entry_size) {
  if (flags != 0 || entry_size < sizeof(ibv_gid_entry)) return EINVAL;
  if (port_num != 1 || gid_index >= rnicsim::app::device().gid_table_length) return ENODATA;
  *entry = gid_entry(gid_index);
  return 0;
}

ssize_t _ibv_query_gid_table(ibv_context*, ibv_gid_entry* entries, std::size_t max_entries,
                             std::uint32_t flags, std::size_t entry_size) {
  if (flags != 0 || entry_size < sizeof(ibv_gid_entry)) return -EINVAL;
  const std::uint32_t length = rnicsim::app::device().gid_table_length;
  if (max_entries < length) return -EINVAL;
  for (std::uint32_t i = 0; i < length; ++i) {
    const ibv_gid_entry entry = gid_entry(i);
    std::memcpy(reinterpret_cast<std::uint8_t*>(entries) + i * entry_size, &entry, sizeof entry);
  }
  return length;
}

int ibv_query_pkey(ibv_context*, std::uint8_t port_num, int index, __be16* pkey) {
  if (port_num != 1 || index != 0) return -1;
  *pkey = htons(0xFFFF);
  return 0;
}

int ibv_read_sysfs_file(const char* dir, const char* file, char* buf, std::size_t size) {
  (void)dir;
  if (size == 0) return -1;
  if (std::strcmp(file, "board_id") == 0) {
    return std::snprintf(buf, size, "rnicsim") >= 0 ? static_cast<int>(std::strlen(buf)) : -1;
  }
  return -1;
}

ibv_pd* ibv_alloc_pd(ibv_context* context) {
  bridge::Handle handle{};
  if (!call_for(bridge::Request::kAllocPd, nullptr, 0, &handle)) return nullptr;
  auto* pd = new ibv_pd{context, handle.value};
  return pd;
}

int ibv_dealloc_pd(ibv_pd* pd) {
  const bridge::Handle handle{pd->handle};
  const int error = call(bridge::Request::kDeallocPd, &handle, sizeof handle);
  if (error == 0) delete pd;
  return error;
}

ibv_mr* ibv_reg_mr_iova2(ibv_pd* pd, void* addr, std::size_t length, std::uint64_t iova,
                         unsigned int access) {
  if (iova != reinterpret_cast<std::uintptr_t>(addr)) {
    report("ibv_reg_mr_iova", "an IOVA other than the buffer's address is not supported");
    errno = EOPNOTSUPP;
    return nullptr;
  }
  if (length == 0 || addr == nullptr) {
    errno = EINVAL;
    return nullptr;
  }
  const auto start = reinterpret_cast<std::uint64_t>(addr);
  const std::uint64_t first = start / kPage * kPage;
  const std::uint64_t end = (start + length + kPage - 1) / kPage * kPage;
  const int error = share_pages(first, end);
  if (error != 0) {
    errno = error;
    return nullptr;
  }
  const bridge::RegMr request{pd->handle, access & 0xFFFF, start, length};
  bridge::MrReply reply{};
  if (!call_for(bridge::Request::kRegMr, &request, sizeof request, &reply)) return nullptr;
  auto* mr = new ibv_mr{pd->context, pd, addr, length, reply.lkey, reply.lkey, reply.rkey};
  return mr;
}

ibv_mr* ibv_reg_mr(ibv_pd* pd, void* addr, std::size_t length, int access) {
  return ibv_reg_mr_iova2(pd, addr, length, reinterpret_cast<std::uintptr_t>(addr),
                          static_cast<unsigned int>(access));
}

ibv_mr* ibv_reg_mr_iova(ibv_pd* pd, void* addr, std::size_t length, std::uint64_t iova,
                        int access) {
  return ibv_reg_mr_iova2(pd, addr, length, iova, static_cast<unsigned int>(access));
}

int ibv_dereg_mr(ibv_mr* mr) {
  const bridge::Handle lkey{mr->lkey};
  const int error = call(bridge::Request::kDeregMr, &lkey, sizeof lkey);
  if (error == 0) delete mr;
  return error;
}

ibv_comp_channel* ibv_create_comp_channel(ibv_context* context) {
  auto* c = new Channel;
  c->channel.context = context;
  c->channel.fd = -1;  // events come through ibv_get_cq_event only
  return &c->channel;
}

int ibv_destroy_comp_channel(ibv_comp_channel* channel) {
  delete reinterpret_cast<Channel*>(channel);
  return 0;
}

ibv_cq* ibv_create_cq(ibv_context* context, int cqe, void* cq_context, ibv_comp_channel* channel,
                      int /*comp_vector*/) {
  if (cqe < 1) {
    errno = EINVAL;
    return nullptr;
  }
  const bridge::CreateCq request{static_cast<std::uint32_t>(cqe)};
  bridge::CqReply reply{};
  if (!call_for(bridge::Request::kCreateCq, &request, sizeof request, &reply)) return nullptr;
  auto* cq = new ibv_cq{};
  cq->context = context;
  cq->channel = channel;
  cq->cq_context = cq_context;
  cq->handle = reply.handle;
  cq->cqe = static_cast<int>(reply.entries);
  pthread_mutex_init(&cq->mutex, nullptr);
  pthread_cond_init(&cq->cond, nullptr);
  return cq;
}

int ibv_destroy_cq(ibv_cq* cq) {
  const bridge::Handle handle{cq->handle};
  const int error = call(bridge::Request::kDestroyCq, &handle, sizeof handle);
  if (error != 0) return error;
  if (cq->channel != nullptr) {
    std::lock_guard<std::mutex> lock(channels_mutex);
    reinterpret_cast<Channel*>(cq->channel)->armed.erase(cq);
  }
  delete cq;
  return 0;
}

int ibv_get_cq_event(ibv_comp_channel* channel, ibv_cq** cq, void** cq_context) {
  auto* c = reinterpret_cast<Channel*>(channel);
  std::vector<std::uint8_t> body;
  std::map<std::uint32_t, ibv_cq*> by_handle;
  {
    std::lock_guard<std::mutex> lock(channels_mutex);
    if (c->armed.empty()) {
      report("ibv_get_cq_event",
             "no CQ of this channel is armed (ibv_req_notify_cq): it would wait forever");
      errno = EINVAL;
      return -1;
    }
    append(body, bridge::WaitCqs{static_cast<std::uint32_t>(c->armed.size())});
    for (ibv_cq* armed : c->armed) {
      append(body, bridge::Handle{armed->handle});
      by_handle[armed->handle] = armed;
    }
  }
  std::vector<std::uint8_t> reply;
  const int error = call(bridge::Request::kWaitCqs, body.data(), body.size(), &reply);
  bridge::Handle handle{};
  std::size_t at = 0;
  if (error != 0 || !read_record(reply, at, &handle) || by_handle.count(handle.value) == 0) {
    errno = error != 0 ? error : EIO;
    return -1;
  }
  ibv_cq* fired = by_handle.at(handle.value);
  {
    std::lock_guard<std::mutex> lock(channels_mutex);
    c->armed.erase(fired);
  }
  *cq = fired;
  *cq_context = fired->cq_context;
  return 0;
}

void ibv_ack_cq_events(ibv_cq* cq, unsigned int events) {
  pthread_mutex_lock(&cq->mutex);
  cq->comp_events_completed += events;
  pthread_mutex_unlock(&cq->mutex);
}

ibv_qp* ibv_create_qp(ibv_pd* pd, ibv_qp_init_attr* init) { return create_rc_qp(pd, init, 0); }

ibv_qp_ex* ibv_qp_to_qp_ex(ibv_qp* qp) {
  Qp* q = reinterpret_cast<Qp*>(qp);
  if (!q->has_extended) {
    errno = EOPNOTSUPP;  // created without send_ops_flags
    return nullptr;
  }
  return &q->extended;
}

int ibv_query_qp(ibv_qp* qp, ibv_qp_attr* attr, int /*mask*/, ibv_qp_init_attr* init) {
  const auto* q = reinterpret_cast<Qp*>(qp);
  std::memset(attr, 0, sizeof *attr);
  attr->qp_state = qp->state;
  attr->cur_qp_state = qp->state;
  attr->cap = q->cap;
  attr->port_num = 1;
  if (init != nullptr) {
    std::memset(init, 0, sizeof *init);
    init->qp_context = qp->qp_context;
    init->send_cq = qp->send_cq;
    init->recv_cq = qp->recv_cq;
    init->cap = q->cap;
    init->qp_type = qp->qp_type;
  }
  return 0;
}

int ibv_modify_qp(ibv_qp* qp, ibv_qp_attr* attr, int mask) {
  // The attributes the model's QP has; others (alternate paths, rate
  // limits, SQD notification) are refused by name.
  constexpr int kSupported =
      IBV_QP_STATE | IBV_QP_CUR_STATE | IBV_QP_ACCESS_FLAGS | IBV_QP_PKEY_INDEX | IBV_QP_PORT |
      IBV_QP_QKEY | IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT |
      IBV_QP_RNR_RETRY | IBV_QP_RQ_PSN | IBV_QP_MAX_QP_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER |
      IBV_QP_SQ_PSN | IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_DEST_QPN;
  if ((mask & ~kSupported) != 0) {
    report("ibv_modify_qp",
           "an attribute the simulator's QP does not have (alternate path, "
           "path migration, capabilities, rate limit)");
    return EOPNOTSUPP;
  }
  if ((mask & IBV_QP_AV) && !attr->ah_attr.is_global) {
    report("ibv_modify_qp",
           "RoCE needs a GRH: set ah_attr.is_global and the peer's GID "
           "(ibv_rc_pingpong's -g)");
    return EINVAL;
  }
  bridge::ModifyQp m{};
  m.qp_num = qp->qp_num;
  m.mask = static_cast<std::uint32_t>(mask);
  m.state = attr->qp_state;
  m.path_mtu = attr->path_mtu;
  m.qkey = attr->qkey;
  m.rq_psn = attr->rq_psn;
  m.sq_psn = attr->sq_psn;
  m.dest_qp_num = attr->dest_qp_num;
  m.access = static_cast<std::uint32_t>(attr->qp_access_flags);
  m.flow_label = attr->ah_attr.grh.flow_label;
  m.pkey_index = attr->pkey_index;
  m.max_rd_atomic = attr->max_rd_atomic;
  m.max_dest_rd_atomic = attr->max_dest_rd_atomic;
  m.min_rnr_timer = attr->min_rnr_timer;
  m.port_num = (mask & IBV_QP_PORT) ? attr->port_num : attr->ah_attr.port_num;
  if (m.port_num == 0) m.port_num = 1;
  m.timeout = attr->timeout;
  m.retry_cnt = attr->retry_cnt;
  m.rnr_retry = attr->rnr_retry;
  m.sgid_index = attr->ah_attr.grh.sgid_index;
  m.hop_limit = attr->ah_attr.grh.hop_limit;
  m.traffic_class = attr->ah_attr.grh.traffic_class;
  std::memcpy(m.dgid, attr->ah_attr.grh.dgid.raw, sizeof m.dgid);
  const int error = call(bridge::Request::kModifyQp, &m, sizeof m);
  if (error == 0 && (mask & IBV_QP_STATE)) qp->state = attr->qp_state;
  return error;
}

int ibv_destroy_qp(ibv_qp* qp) {
  const bridge::Handle qpn{qp->qp_num};
  const int error = call(bridge::Request::kDestroyQp, &qpn, sizeof qpn);
  if (error == 0) {
    Qp* q = reinterpret_cast<Qp*>(qp);
    // The staging pages stay shared, as a freed registered buffer's do.
    if (q->batch != nullptr) std::free(q->batch->staging);
    delete q->batch;
    delete q;
  }
  return error;
}

const char* ibv_wc_status_str(ibv_wc_status status) {
  switch (status) {
    case IBV_WC_SUCCESS:
      return "success";
    case IBV_WC_LOC_LEN_ERR:
      return "local length error";
    case IBV_WC_LOC_QP_OP_ERR:
      return "local QP operation error";
    case IBV_WC_LOC_EEC_OP_ERR:
      return "local EE context operation error";
    case IBV_WC_LOC_PROT_ERR:
      return "local protection error";
    case IBV_WC_WR_FLUSH_ERR:
      return "Work Request Flushed Error";
    case IBV_WC_MW_BIND_ERR:
      return "memory management operation error";
    case IBV_WC_BAD_RESP_ERR:
      return "bad response error";
    case IBV_WC_LOC_ACCESS_ERR:
      return "local access error";
    case IBV_WC_REM_INV_REQ_ERR:
      return "remote invalid request error";
    case IBV_WC_REM_ACCESS_ERR:
      return "remote access error";
    case IBV_WC_REM_OP_ERR:
      return "remote operation error";
    case IBV_WC_RETRY_EXC_ERR:
      return "transport retry counter exceeded";
    case IBV_WC_RNR_RETRY_EXC_ERR:
      return "RNR retry counter exceeded";
    case IBV_WC_LOC_RDD_VIOL_ERR:
      return "local RDD violation error";
    case IBV_WC_REM_INV_RD_REQ_ERR:
      return "remote invalid RD request";
    case IBV_WC_REM_ABORT_ERR:
      return "aborted error";
    case IBV_WC_INV_EECN_ERR:
      return "invalid EE context number";
    case IBV_WC_INV_EEC_STATE_ERR:
      return "invalid EE context state";
    case IBV_WC_FATAL_ERR:
      return "fatal error";
    case IBV_WC_RESP_TIMEOUT_ERR:
      return "response timeout error";
    case IBV_WC_GENERAL_ERR:
      return "general error";
    default:
      return "unknown";
  }
}

const char* ibv_node_type_str(ibv_node_type type) {
  switch (type) {
    case IBV_NODE_CA:
      return "InfiniBand channel adapter";
    case IBV_NODE_SWITCH:
      return "InfiniBand switch";
    case IBV_NODE_ROUTER:
      return "InfiniBand router";
    case IBV_NODE_RNIC:
      return "iWARP NIC";
    case IBV_NODE_USNIC:
      return "usNIC";
    case IBV_NODE_USNIC_UDP:
      return "usNIC UDP";
    case IBV_NODE_UNSPECIFIED:
      return "unspecified";
    default:
      return "unknown";
  }
}

const char* ibv_port_state_str(ibv_port_state state) {
  switch (state) {
    case IBV_PORT_NOP:
      return "no state change (NOP)";
    case IBV_PORT_DOWN:
      return "down";
    case IBV_PORT_INIT:
      return "init";
    case IBV_PORT_ARMED:
      return "armed";
    case IBV_PORT_ACTIVE:
      return "active";
    case IBV_PORT_ACTIVE_DEFER:
      return "active defer";
    default:
      return "unknown";
  }
}

const char* ibv_event_type_str(ibv_event_type event) {
  switch (event) {
    case IBV_EVENT_CQ_ERR:
      return "CQ error";
    case IBV_EVENT_QP_FATAL:
      return "local work queue catastrophic error";
    case IBV_EVENT_QP_REQ_ERR:
      return "invalid request local work queue error";
    case IBV_EVENT_QP_ACCESS_ERR:
      return "local access violation work queue error";
    case IBV_EVENT_COMM_EST:
      return "communication established";
    case IBV_EVENT_SQ_DRAINED:
      return "send queue drained";
    case IBV_EVENT_PATH_MIG:
      return "path migrated";
    case IBV_EVENT_PATH_MIG_ERR:
      return "path migration request error";
    case IBV_EVENT_DEVICE_FATAL:
      return "local catastrophic error";
    case IBV_EVENT_PORT_ACTIVE:
      return "port active";
    case IBV_EVENT_PORT_ERR:
      return "port error";
    case IBV_EVENT_LID_CHANGE:
      return "LID change";
    case IBV_EVENT_PKEY_CHANGE:
      return "P_Key change";
    case IBV_EVENT_SM_CHANGE:
      return "SM change";
    case IBV_EVENT_SRQ_ERR:
      return "SRQ catastrophic error";
    case IBV_EVENT_SRQ_LIMIT_REACHED:
      return "SRQ limit reached";
    case IBV_EVENT_QP_LAST_WQE_REACHED:
      return "last WQE reached";
    case IBV_EVENT_CLIENT_REREGISTER:
      return "client reregistration";
    case IBV_EVENT_GID_CHANGE:
      return "GID table change";
    case IBV_EVENT_WQ_FATAL:
      return "WQ fatal";
    default:
      return "unknown";
  }
}

}  // extern "C"
