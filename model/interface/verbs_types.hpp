#pragma once
// The libibverbs types the driver's API and the NIC's completions share:
// work requests, scatter/gather elements, work completions, QP attributes.
// Names and values follow <infiniband/verbs.h>, so code reads as it would
// against libibverbs; fields rnicsim does not model are left out.
#include <array>
#include <cstdint>

#include "interface/qp_state.hpp"

namespace rnicsim {

enum ibv_wr_opcode : std::uint8_t {
  IBV_WR_RDMA_WRITE = 0,
  IBV_WR_RDMA_WRITE_WITH_IMM = 1,
  IBV_WR_SEND = 2,
  IBV_WR_SEND_WITH_IMM = 3,
  IBV_WR_RDMA_READ = 4,
  IBV_WR_ATOMIC_CMP_AND_SWP = 5,
  IBV_WR_ATOMIC_FETCH_AND_ADD = 6,
};
const char* to_string(ibv_wr_opcode opcode);

enum ibv_send_flags : std::uint32_t {
  IBV_SEND_FENCE = 1 << 0,
  IBV_SEND_SIGNALED = 1 << 1,
  IBV_SEND_SOLICITED = 1 << 2,
  IBV_SEND_INLINE = 1 << 3,
};

enum ibv_wc_status : std::uint8_t {
  IBV_WC_SUCCESS = 0,
  IBV_WC_LOC_LEN_ERR = 1,
  IBV_WC_LOC_QP_OP_ERR = 2,
  IBV_WC_LOC_PROT_ERR = 4,
  IBV_WC_WR_FLUSH_ERR = 5,
  IBV_WC_REM_INV_REQ_ERR = 9,
  IBV_WC_REM_ACCESS_ERR = 10,
  IBV_WC_REM_OP_ERR = 11,
  IBV_WC_RETRY_EXC_ERR = 12,
  IBV_WC_RNR_RETRY_EXC_ERR = 13,
  IBV_WC_GENERAL_ERR = 21,
};
const char* ibv_wc_status_str(ibv_wc_status status);

enum ibv_wc_opcode : std::uint8_t {
  IBV_WC_SEND = 0,
  IBV_WC_RDMA_WRITE = 1,
  IBV_WC_RDMA_READ = 2,
  IBV_WC_COMP_SWAP = 3,
  IBV_WC_FETCH_ADD = 4,
  IBV_WC_RECV = 128,
  IBV_WC_RECV_RDMA_WITH_IMM = 129,
};

enum ibv_wc_flags : std::uint8_t {
  IBV_WC_WITH_IMM = 1 << 1,
};

enum ibv_mtu : std::uint8_t {
  IBV_MTU_256 = 1,
  IBV_MTU_512 = 2,
  IBV_MTU_1024 = 3,
  IBV_MTU_2048 = 4,
  IBV_MTU_4096 = 5,
};
// 256..4096 for a valid enum value, 0 otherwise.
std::uint32_t ibv_mtu_to_bytes(ibv_mtu mtu);
// IBV_MTU_* for 256..4096; 0 for any other number.
ibv_mtu ibv_mtu_from_bytes(std::uint32_t bytes);

enum ibv_port_state : std::uint8_t {
  IBV_PORT_NOP = 0,
  IBV_PORT_DOWN = 1,
  IBV_PORT_INIT = 2,
  IBV_PORT_ARMED = 3,
  IBV_PORT_ACTIVE = 4,
  IBV_PORT_ACTIVE_DEFER = 5,
};
constexpr std::uint8_t IBV_LINK_LAYER_ETHERNET = 2;

// ibv_query_port's answer: the fields a RoCE port fills (libibverbs' names).
struct ibv_port_attr {
  ibv_port_state state = IBV_PORT_NOP;
  ibv_mtu max_mtu = IBV_MTU_4096;
  ibv_mtu active_mtu = IBV_MTU_1024;
  int gid_tbl_len = 0;
  std::uint16_t lid = 0;  // no LIDs on RoCE
  std::uint8_t link_layer = IBV_LINK_LAYER_ETHERNET;
};

// A RoCE port's active MTU: the largest IB MTU that fits in the Ethernet MTU
// with 96 bytes of headers (GRH 40, UDP 8, BTH 12, XRC ETH 4, AtomicETH 28,
// ICRC 4), as Linux's iboe_get_mtu; 1500 gives 1024, 4200 gives 4096. 0 when
// not even 256 fits (below 352).
ibv_mtu roce_active_mtu(std::uint32_t ethernet_mtu);

struct ibv_sge {
  std::uint64_t addr = 0;
  std::uint32_t length = 0;
  std::uint32_t lkey = 0;
};

// At most this many scatter/gather elements per work request.
constexpr std::uint32_t kMaxSendSge = 16;
constexpr std::uint32_t kMaxRecvSge = 3;
// At most this many bytes of inline data per work request (max_inline_data).
constexpr std::uint32_t kMaxInlineData = 1024;

struct ibv_send_wr {
  std::uint64_t wr_id = 0;
  const ibv_sge* sg_list = nullptr;
  std::uint32_t num_sge = 0;
  ibv_wr_opcode opcode = IBV_WR_SEND;
  std::uint32_t send_flags = 0;
  std::uint32_t imm_data = 0;  // host order here; the wire carries it big-endian
  struct {
    std::uint64_t remote_addr = 0;
    std::uint32_t rkey = 0;
  } rdma;
  struct {
    std::uint64_t remote_addr = 0;
    std::uint64_t compare_add = 0;
    std::uint64_t swap = 0;
    std::uint32_t rkey = 0;
  } atomic;
  const ibv_send_wr* next = nullptr;
};

struct ibv_recv_wr {
  std::uint64_t wr_id = 0;
  const ibv_sge* sg_list = nullptr;
  std::uint32_t num_sge = 0;
  const ibv_recv_wr* next = nullptr;
};

struct ibv_wc {
  std::uint64_t wr_id = 0;
  ibv_wc_status status = IBV_WC_SUCCESS;
  ibv_wc_opcode opcode = IBV_WC_SEND;
  std::uint32_t vendor_err = 0;
  std::uint32_t byte_len = 0;
  std::uint32_t imm_data = 0;
  std::uint32_t qp_num = 0;
  std::uint32_t wc_flags = 0;
};

// RoCE address vector: the peer's GID and, where libibverbs would have the
// kernel resolve it from the GID, its MAC address.
struct ibv_ah_attr {
  std::array<std::uint8_t, 16> dgid{};
  std::array<std::uint8_t, 6> dmac{};
  std::uint8_t sgid_index = 0;
  std::uint8_t hop_limit = 64;
  std::uint8_t traffic_class = 0;
  std::uint32_t flow_label = 0;
  std::uint8_t port_num = 1;
};

struct ibv_qp_attr {
  ibv_qp_state qp_state = IBV_QPS_RESET;
  ibv_qp_state cur_qp_state = IBV_QPS_RESET;
  ibv_mtu path_mtu = IBV_MTU_1024;
  std::uint32_t qkey = 0;
  std::uint32_t rq_psn = 0;
  std::uint32_t sq_psn = 0;
  std::uint32_t dest_qp_num = 0;
  std::uint32_t qp_access_flags = 0;
  ibv_ah_attr ah_attr;
  std::uint16_t pkey_index = 0;
  std::uint8_t max_rd_atomic = 0;       // READ/atomic requests this QP keeps outstanding
  std::uint8_t max_dest_rd_atomic = 0;  // READ/atomic requests it serves at once
  std::uint8_t min_rnr_timer = 0;       // 5-bit RNR timer code (REFERENCE section 5)
  std::uint8_t port_num = 1;
  std::uint8_t timeout = 0;    // local ACK timeout 4.096 us x 2^timeout; 0 = infinite
  std::uint8_t retry_cnt = 0;  // 3 bits
  std::uint8_t rnr_retry = 0;  // 3 bits; 7 = infinite
};

struct ibv_qp_cap {
  std::uint32_t max_send_wr = 0;
  std::uint32_t max_recv_wr = 0;
  std::uint32_t max_send_sge = 1;
  std::uint32_t max_recv_sge = 1;
  std::uint32_t max_inline_data = 0;
};

}  // namespace rnicsim
