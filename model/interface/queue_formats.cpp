#include "interface/queue_formats.hpp"

#include <algorithm>
#include <cstring>

#include "common/little_endian.hpp"

namespace rnicsim {
namespace {

using Reader = LittleEndianReader;
template <class Out>
using Writer = LittleEndianWriter<Out>;

// Control segment flag bits.
constexpr std::uint8_t kFlagSignaled = 1;
constexpr std::uint8_t kFlagSolicited = 2;
constexpr std::uint8_t kFlagFence = 4;
constexpr std::uint8_t kFlagInline = 8;

template <class Out>
void write_sge(Writer<Out>& w, const ibv_sge& sge) {
  w.u64(sge.addr);
  w.u32(sge.length);
  w.u32(sge.lkey);
}

ibv_sge read_sge(Reader& r) {
  ibv_sge sge;
  sge.addr = r.u64();
  sge.length = r.u32();
  sge.lkey = r.u32();
  return sge;
}

void write_pages(Writer<std::vector<std::uint8_t>>& w, const std::vector<std::uint64_t>& pages) {
  w.u32(static_cast<std::uint32_t>(pages.size()));
  for (std::uint64_t page : pages) w.u64(page);
}

bool read_pages(Reader& r, std::vector<std::uint64_t>& pages) {
  const std::uint32_t count = r.u32();
  // No more than the longest body the NIC reads can hold.
  if (!r.ok() || count > kMaxCommandBodyBytes / 8) return false;
  pages.resize(count);
  for (std::uint64_t& page : pages) page = r.u64();
  return r.ok();
}

}  // namespace

std::uint32_t send_wqe_blocks(std::uint32_t sges, std::uint32_t inline_bytes, bool is_inline) {
  const std::uint32_t data = is_inline ? inline_bytes : sges * kDataSegmentBytes;
  return (kSendControlBytes + data + kSendBlockBytes - 1) / kSendBlockBytes;
}

// Control segment (48 bytes):
//   0 opcode  1 flags  2 SGE count  3 blocks  4 imm_data  8 wr_id  16 remote_addr
//   24 rkey  28 length  32 compare_add  40 swap
SendWqeBytes encode_send_wqe(const SendWqe& wqe) {
  const std::uint32_t blocks = send_wqe_blocks(static_cast<std::uint32_t>(wqe.sges.size()),
                                               static_cast<std::uint32_t>(wqe.inline_data.size()),
                                               wqe.is_inline);
  SendWqeBytes out;
  auto w = little_endian_writer(out);
  w.u8(wqe.opcode);
  w.u8(static_cast<std::uint8_t>((wqe.signaled ? kFlagSignaled : 0) |
                                 (wqe.solicited ? kFlagSolicited : 0) |
                                 (wqe.fence ? kFlagFence : 0) | (wqe.is_inline ? kFlagInline : 0)));
  w.u8(static_cast<std::uint8_t>(wqe.sges.size()));
  w.u8(static_cast<std::uint8_t>(blocks));
  w.u32(wqe.imm_data);
  w.u64(wqe.wr_id);
  w.u64(wqe.remote_addr);
  w.u32(wqe.rkey);
  w.u32(wqe.length);
  w.u64(wqe.compare_add);
  w.u64(wqe.swap);
  if (wqe.is_inline) {
    w.bytes(wqe.inline_data.data(), wqe.inline_data.size());
  } else {
    for (const ibv_sge& sge : wqe.sges) write_sge(w, sge);
  }
  out.resize(std::size_t{blocks} * kSendBlockBytes, 0);
  return out;
}

bool decode_send_wqe(const std::uint8_t* bytes, std::size_t available, SendWqe& wqe,
                     std::uint32_t* blocks, std::string* error) {
  auto fail = [&](const char* why) {
    if (error) *error = why;
    return false;
  };
  if (available < kSendBlockBytes) return fail("fewer bytes than one block");
  Reader r(bytes, available);
  wqe.sges.clear();
  wqe.inline_data.clear();
  wqe.ring_end = 0;
  const std::uint8_t opcode = r.u8();
  if (opcode > IBV_WR_ATOMIC_FETCH_AND_ADD) return fail("unknown opcode");
  wqe.opcode = static_cast<ibv_wr_opcode>(opcode);
  const std::uint8_t flags = r.u8();
  wqe.signaled = flags & kFlagSignaled;
  wqe.solicited = flags & kFlagSolicited;
  wqe.fence = flags & kFlagFence;
  wqe.is_inline = flags & kFlagInline;
  const std::uint8_t sges = r.u8();
  const std::uint8_t wqe_blocks = r.u8();
  wqe.imm_data = r.u32();
  wqe.wr_id = r.u64();
  wqe.remote_addr = r.u64();
  wqe.rkey = r.u32();
  wqe.length = r.u32();
  wqe.compare_add = r.u64();
  wqe.swap = r.u64();
  if (sges > kMaxSendSge) return fail("more scatter/gather elements than a WQE holds");
  if (wqe_blocks == 0 || std::size_t{wqe_blocks} * kSendBlockBytes > available)
    return fail("WQE longer than the blocks fetched");
  const std::size_t data_room = std::size_t{wqe_blocks} * kSendBlockBytes - kSendControlBytes;
  if (wqe.is_inline) {
    if (wqe.length > data_room) return fail("inline data longer than the WQE");
    wqe.inline_data.resize(wqe.length);
    r.bytes(wqe.inline_data.data(), wqe.length);
  } else {
    if (std::size_t{sges} * kDataSegmentBytes > data_room) return fail("SGEs beyond the WQE");
    for (std::uint8_t i = 0; i < sges; ++i) wqe.sges.push_back(read_sge(r));
  }
  if (!r.ok()) return fail("WQE cut short");
  if (blocks) *blocks = wqe_blocks;
  return true;
}

// Receive WQE (64 bytes): 0 wr_id, 8 SGE count, 12 reserved, 16.. SGEs.
std::array<std::uint8_t, kRecvWqeBytes> encode_recv_wqe(const RecvWqe& wqe) {
  InlineVector<std::uint8_t, kRecvWqeBytes> out;
  auto w = little_endian_writer(out);
  w.u64(wqe.wr_id);
  w.u32(static_cast<std::uint32_t>(wqe.sges.size()));
  w.u32(0);
  for (const ibv_sge& sge : wqe.sges) write_sge(w, sge);
  out.resize(kRecvWqeBytes, 0);
  std::array<std::uint8_t, kRecvWqeBytes> bytes;
  std::copy(out.begin(), out.end(), bytes.begin());
  return bytes;
}

std::optional<RecvWqe> decode_recv_wqe(const std::uint8_t* bytes, std::string* error) {
  Reader r(bytes, kRecvWqeBytes);
  RecvWqe wqe;
  wqe.wr_id = r.u64();
  const std::uint32_t count = r.u32();
  r.u32();
  if (count > kMaxRecvSge) {
    if (error) *error = "more scatter/gather elements than a receive WQE holds";
    return std::nullopt;
  }
  for (std::uint32_t i = 0; i < count; ++i) wqe.sges.push_back(read_sge(r));
  return wqe;
}

// CQE (32 bytes): 0 wr_id, 8 byte_len, 12 imm_data, 16 qp_num, 20 status,
// 21 opcode, 22 wc_flags, 23 owner, 24 vendor_err, 28 wqe_counter.
std::array<std::uint8_t, kCqeBytes> encode_cqe(const Cqe& cqe) {
  InlineVector<std::uint8_t, kCqeBytes> out;
  auto w = little_endian_writer(out);
  w.u64(cqe.wc.wr_id);
  w.u32(cqe.wc.byte_len);
  w.u32(cqe.wc.imm_data);
  w.u32(cqe.wc.qp_num);
  w.u8(cqe.wc.status);
  w.u8(cqe.wc.opcode);
  w.u8(static_cast<std::uint8_t>(cqe.wc.wc_flags));
  w.u8(cqe.owner ? 1 : 0);
  w.u32(cqe.wc.vendor_err);
  w.u32(cqe.wqe_counter);
  std::array<std::uint8_t, kCqeBytes> bytes;
  std::copy(out.begin(), out.end(), bytes.begin());
  return bytes;
}

Cqe decode_cqe(const std::uint8_t* bytes) {
  Reader r(bytes, kCqeBytes);
  Cqe cqe;
  cqe.wc.wr_id = r.u64();
  cqe.wc.byte_len = r.u32();
  cqe.wc.imm_data = r.u32();
  cqe.wc.qp_num = r.u32();
  cqe.wc.status = static_cast<ibv_wc_status>(r.u8());
  cqe.wc.opcode = static_cast<ibv_wc_opcode>(r.u8());
  cqe.wc.wc_flags = r.u8();
  cqe.owner = r.u8() != 0;
  cqe.wc.vendor_err = r.u32();
  cqe.wqe_counter = r.u32();
  return cqe;
}

bool cqe_owner_for(std::uint64_t index, std::uint32_t depth) { return ((index / depth) & 1) == 0; }

std::optional<BarWrite> decode_bar_offset(std::uint64_t offset) {
  auto per_qp = [](std::uint64_t base, std::uint64_t stride, std::uint64_t at,
                   BarWriteKind kind) -> std::optional<BarWrite> {
    const std::uint64_t qpn = (at - base) / stride;
    if (qpn >= kMaxQps || (at - base) % stride != 0) return std::nullopt;
    return BarWrite{kind, static_cast<std::uint32_t>(qpn)};
  };
  if (offset == kBarCommandDoorbell) return BarWrite{BarWriteKind::kCommand, 0};
  if (offset >= kBarBlueFlame)
    return per_qp(kBarBlueFlame, kBarBlueFlameStride, offset, BarWriteKind::kBlueFlame);
  if (offset >= kBarRecvDoorbells)
    return per_qp(kBarRecvDoorbells, kBarDoorbellStride, offset, BarWriteKind::kRecvDoorbell);
  if (offset >= kBarSendDoorbells)
    return per_qp(kBarSendDoorbells, kBarDoorbellStride, offset, BarWriteKind::kSendDoorbell);
  return std::nullopt;
}

std::vector<std::uint8_t> encode_command(const Command& command) {
  std::vector<std::uint8_t> body;
  auto w = little_endian_writer(body);
  switch (command.op) {
    case CommandOp::kCreateCq:
      w.u32(command.create_cq.cqn);
      w.u64(command.create_cq.context_address);
      w.u32(command.create_cq.depth);
      w.u32(command.create_cq.page_bytes);
      write_pages(w, command.create_cq.pages);
      break;
    case CommandOp::kCreateQp: {
      const CreateQpCommand& c = command.create_qp;
      w.u32(c.qpn);
      w.u64(c.context_address);
      w.u32(c.pd);
      w.u32(c.send_cqn);
      w.u32(c.recv_cqn);
      w.u32(c.send_blocks);
      w.u32(c.recv_depth);
      w.u32(c.page_bytes);
      write_pages(w, c.send_pages);
      write_pages(w, c.recv_pages);
      break;
    }
    case CommandOp::kModifyQp: {
      const ModifyQpCommand& c = command.modify_qp;
      const ibv_qp_attr& a = c.attr;
      w.u32(c.qpn);
      w.u32(c.attr_mask);
      w.u8(a.qp_state);
      w.u8(a.cur_qp_state);
      w.u8(a.path_mtu);
      w.u32(a.qkey);
      w.u32(a.rq_psn);
      w.u32(a.sq_psn);
      w.u32(a.dest_qp_num);
      w.u32(a.qp_access_flags);
      w.bytes(a.ah_attr.dgid.data(), a.ah_attr.dgid.size());
      w.bytes(a.ah_attr.dmac.data(), a.ah_attr.dmac.size());
      w.u8(a.ah_attr.sgid_index);
      w.u8(a.ah_attr.hop_limit);
      w.u8(a.ah_attr.traffic_class);
      w.u32(a.ah_attr.flow_label);
      w.u8(a.ah_attr.port_num);
      w.u16(a.pkey_index);
      w.u8(a.max_rd_atomic);
      w.u8(a.max_dest_rd_atomic);
      w.u8(a.min_rnr_timer);
      w.u8(a.port_num);
      w.u8(a.timeout);
      w.u8(a.retry_cnt);
      w.u8(a.rnr_retry);
      break;
    }
    case CommandOp::kDestroyQp:
      w.u32(command.destroy_qp.qpn);
      break;
    case CommandOp::kDeregMr:
      w.u32(command.dereg_mr.mpt_index);
      w.u64(command.dereg_mr.first_mtt);
      w.u32(command.dereg_mr.pages);
      break;
  }
  std::vector<std::uint8_t> out;
  auto h = little_endian_writer(out);
  h.u32(static_cast<std::uint32_t>(command.op));
  h.u32(static_cast<std::uint32_t>(CommandStatus::kPending));
  h.u32(static_cast<std::uint32_t>(body.size()));
  out.insert(out.end(), body.begin(), body.end());
  return out;
}

std::uint32_t command_body_bytes(const std::uint8_t* header) {
  Reader r(header + 8, 4);
  return r.u32();
}

std::optional<Command> decode_command(const std::uint8_t* bytes, std::size_t length,
                                      std::string* error) {
  auto fail = [&](const char* why) -> std::optional<Command> {
    if (error) *error = why;
    return std::nullopt;
  };
  if (length < kCommandHeaderBytes) return fail("command shorter than its header");
  Reader h(bytes, kCommandHeaderBytes);
  const std::uint32_t op = h.u32();
  h.u32();
  const std::uint32_t body = h.u32();
  if (kCommandHeaderBytes + std::size_t{body} > length) return fail("command body cut short");
  Reader r(bytes + kCommandHeaderBytes, body);
  Command command;
  switch (op) {
    case static_cast<std::uint32_t>(CommandOp::kCreateCq):
      command.op = CommandOp::kCreateCq;
      command.create_cq.cqn = r.u32();
      command.create_cq.context_address = r.u64();
      command.create_cq.depth = r.u32();
      command.create_cq.page_bytes = r.u32();
      if (!read_pages(r, command.create_cq.pages)) return fail("bad page list");
      break;
    case static_cast<std::uint32_t>(CommandOp::kCreateQp): {
      command.op = CommandOp::kCreateQp;
      CreateQpCommand& c = command.create_qp;
      c.qpn = r.u32();
      c.context_address = r.u64();
      c.pd = r.u32();
      c.send_cqn = r.u32();
      c.recv_cqn = r.u32();
      c.send_blocks = r.u32();
      c.recv_depth = r.u32();
      c.page_bytes = r.u32();
      if (!read_pages(r, c.send_pages) || !read_pages(r, c.recv_pages))
        return fail("bad page list");
      break;
    }
    case static_cast<std::uint32_t>(CommandOp::kModifyQp): {
      command.op = CommandOp::kModifyQp;
      ModifyQpCommand& c = command.modify_qp;
      ibv_qp_attr& a = c.attr;
      c.qpn = r.u32();
      c.attr_mask = r.u32();
      a.qp_state = static_cast<ibv_qp_state>(r.u8());
      a.cur_qp_state = static_cast<ibv_qp_state>(r.u8());
      a.path_mtu = static_cast<ibv_mtu>(r.u8());
      a.qkey = r.u32();
      a.rq_psn = r.u32();
      a.sq_psn = r.u32();
      a.dest_qp_num = r.u32();
      a.qp_access_flags = r.u32();
      r.bytes(a.ah_attr.dgid.data(), a.ah_attr.dgid.size());
      r.bytes(a.ah_attr.dmac.data(), a.ah_attr.dmac.size());
      a.ah_attr.sgid_index = r.u8();
      a.ah_attr.hop_limit = r.u8();
      a.ah_attr.traffic_class = r.u8();
      a.ah_attr.flow_label = r.u32();
      a.ah_attr.port_num = r.u8();
      a.pkey_index = r.u16();
      a.max_rd_atomic = r.u8();
      a.max_dest_rd_atomic = r.u8();
      a.min_rnr_timer = r.u8();
      a.port_num = r.u8();
      a.timeout = r.u8();
      a.retry_cnt = r.u8();
      a.rnr_retry = r.u8();
      break;
    }
    case static_cast<std::uint32_t>(CommandOp::kDestroyQp):
      command.op = CommandOp::kDestroyQp;
      command.destroy_qp.qpn = r.u32();
      break;
    case static_cast<std::uint32_t>(CommandOp::kDeregMr):
      command.op = CommandOp::kDeregMr;
      command.dereg_mr.mpt_index = r.u32();
      command.dereg_mr.first_mtt = r.u64();
      command.dereg_mr.pages = r.u32();
      break;
    default:
      return fail("unknown command");
  }
  if (!r.ok()) return fail("command body cut short");
  return command;
}

const char* to_string(ibv_wr_opcode opcode) {
  switch (opcode) {
    case IBV_WR_RDMA_WRITE: return "IBV_WR_RDMA_WRITE";
    case IBV_WR_RDMA_WRITE_WITH_IMM: return "IBV_WR_RDMA_WRITE_WITH_IMM";
    case IBV_WR_SEND: return "IBV_WR_SEND";
    case IBV_WR_SEND_WITH_IMM: return "IBV_WR_SEND_WITH_IMM";
    case IBV_WR_RDMA_READ: return "IBV_WR_RDMA_READ";
    case IBV_WR_ATOMIC_CMP_AND_SWP: return "IBV_WR_ATOMIC_CMP_AND_SWP";
    case IBV_WR_ATOMIC_FETCH_AND_ADD: return "IBV_WR_ATOMIC_FETCH_AND_ADD";
  }
  return "unknown opcode";
}

// The strings of libibverbs' ibv_wc_status_str.
const char* ibv_wc_status_str(ibv_wc_status status) {
  switch (status) {
    case IBV_WC_SUCCESS: return "success";
    case IBV_WC_LOC_LEN_ERR: return "local length error";
    case IBV_WC_LOC_QP_OP_ERR: return "local QP operation error";
    case IBV_WC_LOC_PROT_ERR: return "local protection error";
    case IBV_WC_WR_FLUSH_ERR: return "Work Request Flushed Error";
    case IBV_WC_REM_INV_REQ_ERR: return "remote invalid request error";
    case IBV_WC_REM_ACCESS_ERR: return "remote access error";
    case IBV_WC_REM_OP_ERR: return "remote operation error";
    case IBV_WC_RETRY_EXC_ERR: return "transport retry counter exceeded";
    case IBV_WC_RNR_RETRY_EXC_ERR: return "RNR retry counter exceeded";
    case IBV_WC_GENERAL_ERR: return "general error";
  }
  return "unknown";
}

std::uint32_t ibv_mtu_to_bytes(ibv_mtu mtu) {
  if (mtu < IBV_MTU_256 || mtu > IBV_MTU_4096) return 0;
  return 128u << mtu;
}

ibv_mtu roce_active_mtu(std::uint32_t ethernet_mtu) {
  constexpr std::uint32_t kRoceHeaders = 96;
  for (std::uint32_t mtu = 4096; mtu >= 256; mtu /= 2) {
    if (ethernet_mtu >= mtu + kRoceHeaders) return ibv_mtu_from_bytes(mtu);
  }
  return static_cast<ibv_mtu>(0);
}

ibv_mtu ibv_mtu_from_bytes(std::uint32_t bytes) {
  for (int m = IBV_MTU_256; m <= IBV_MTU_4096; ++m)
    if ((128u << m) == bytes) return static_cast<ibv_mtu>(m);
  return static_cast<ibv_mtu>(0);
}

}  // namespace rnicsim
