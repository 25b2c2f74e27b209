#pragma once
// The bridge between an application process and the simulator (rnicsim
// exec): the messages on the local socket that joins the application's
// library (host/app_library) to its node's session in the simulator
// (app_session.hpp). Both sides are built from this header; neither needs
// the other's code. One machine, so fields travel in native byte order.
//
// The application sends a request and blocks until the reply, one at a
// time. Every request carries the application's simulated time (its clock:
// the time of the last reply, advanced by each time call it made since);
// every reply carries the time the application resumes at. A verb request
// is served at the request's time on the node's driver (which charges the
// CPU model's verbs costs); the notices of real socket activity are
// answered at once and cost no simulated time (README: simulated time).
#include <cstdint>

namespace rnicsim::bridge {

// The socket the launcher passes to each application: an inherited
// descriptor, named by this environment variable.
constexpr const char* kSocketVariable = "RNICSIM_BRIDGE_FD";

enum class Request : std::uint32_t {
  kHello = 1,    // -> HelloReply
  kAllocPd,      // -> Handle
  kDeallocPd,    // Handle
  kShareMemory,  // ShareMemory, with a memfd in SCM_RIGHTS
  kRegMr,        // RegMr -> MrReply
  kDeregMr,      // Handle (the lkey)
  kCreateCq,     // CreateCq -> CqReply
  kDestroyCq,    // Handle
  kCreateQp,     // CreateQp -> QpReply
  kModifyQp,     // ModifyQp
  kQueryQp,      // Handle -> QpReply
  kDestroyQp,    // Handle
  kPostSend,     // PostHeader, then SendWr and Sge records -> PostReply
  kPostRecv,     // PostHeader, then RecvWr and Sge records -> PostReply
  kPollCq,       // PollCq -> PollReply and Wc records
  kWaitCqs,      // WaitCqs and Handle records -> Handle (a CQ with a completion)
  kSleep,        // Sleep
  // Notices of the application's real sockets (loopback TCP): they tell the
  // simulator when a blocked application will wake, and at what time.
  kListen,      // Port
  kConnect,     // Stream (local, peer): before the real connect
  kSend,        // StreamBytes: before the real write of that many bytes
  kClose,       // Stream: before the real close
  kBlockBegin,  // Block: about to block in accept or read
  kBlockEnd,    // BlockEnd: returned from it -> the resume time
  kWaitWrite,   // WaitWrite: the program spins on memory until the NIC writes it
};

struct RequestHeader {
  Request kind;
  std::uint32_t body_bytes;
  std::uint64_t time_ps;
};

struct ReplyHeader {
  std::int32_t status;  // 0, or an errno value
  std::uint32_t body_bytes;
  std::uint64_t time_ps;
};

struct Handle {
  std::uint32_t value;
};

struct HelloReply {
  char device_name[32];
  char node_name[32];
  std::uint64_t node_guid;
  std::uint8_t gid[16];             // RoCE v2: the node's IPv4-mapped address
  std::uint64_t realtime_epoch_ns;  // CLOCK_REALTIME at simulated time 0
  // Port 1.
  std::uint8_t port_state;
  std::uint8_t max_mtu;
  std::uint8_t active_mtu;
  std::uint8_t link_layer;
  std::uint32_t gid_table_length;
  std::uint32_t link_gbps;
  // The device.
  std::uint32_t max_qp;
  std::uint32_t max_qp_wr;
  std::uint32_t max_sge;
  std::uint32_t max_cq;
  std::uint32_t max_cqe;
  std::uint32_t max_mr;
  std::uint32_t max_pd;
  std::uint32_t max_qp_rd_atom;
  std::uint32_t max_inline_data;
  std::uint64_t max_mr_size;
  std::uint64_t page_size_cap;
};

struct ShareMemory {
  std::uint64_t address;  // page-aligned, in the application
  std::uint64_t length;   // whole pages
};

struct RegMr {
  std::uint32_t pd;
  std::uint32_t access;
  std::uint64_t address;
  std::uint64_t length;
};

struct MrReply {
  std::uint32_t lkey;
  std::uint32_t rkey;
};

struct CreateCq {
  std::uint32_t entries;
};

struct CqReply {
  std::uint32_t handle;
  std::uint32_t entries;
};

struct QpCap {
  std::uint32_t max_send_wr;
  std::uint32_t max_recv_wr;
  std::uint32_t max_send_sge;
  std::uint32_t max_recv_sge;
  std::uint32_t max_inline_data;
};

struct CreateQp {
  std::uint32_t pd;
  std::uint32_t send_cq;
  std::uint32_t recv_cq;
  QpCap cap;
};

struct QpReply {
  std::uint32_t qp_num;
  std::uint32_t state;
  QpCap cap;
};

// ibv_qp_attr's fields the model reads, with libibverbs' mask bits.
struct ModifyQp {
  std::uint32_t qp_num;
  std::uint32_t mask;
  std::uint32_t state;
  std::uint32_t path_mtu;
  std::uint32_t qkey;
  std::uint32_t rq_psn;
  std::uint32_t sq_psn;
  std::uint32_t dest_qp_num;
  std::uint32_t access;
  std::uint32_t flow_label;
  std::uint16_t pkey_index;
  std::uint8_t max_rd_atomic;
  std::uint8_t max_dest_rd_atomic;
  std::uint8_t min_rnr_timer;
  std::uint8_t port_num;
  std::uint8_t timeout;
  std::uint8_t retry_cnt;
  std::uint8_t rnr_retry;
  std::uint8_t sgid_index;
  std::uint8_t hop_limit;
  std::uint8_t traffic_class;
  std::uint8_t dgid[16];
};

struct PostHeader {
  std::uint32_t qp_num;
  std::uint32_t count;  // work requests that follow
};

struct SendWr {
  std::uint64_t wr_id;
  std::uint64_t remote_addr;
  std::uint64_t compare_add;
  std::uint64_t swap;
  std::uint32_t rkey;
  std::uint32_t imm_data;  // host order
  std::uint32_t opcode;    // libibverbs' enum ibv_wr_opcode
  std::uint32_t send_flags;
  std::uint32_t num_sge;  // Sge records that follow this one
  std::uint32_t reserved;
};

struct RecvWr {
  std::uint64_t wr_id;
  std::uint32_t num_sge;
  std::uint32_t reserved;
};

struct Sge {
  std::uint64_t addr;
  std::uint32_t length;
  std::uint32_t lkey;
};

struct PostReply {
  std::uint32_t bad_index;  // the first refused request, when status != 0
};

struct PollCq {
  std::uint32_t cq;
  std::uint32_t entries;
};

struct PollReply {
  std::uint32_t count;  // Wc records that follow
};

struct Wc {
  std::uint64_t wr_id;
  std::uint32_t status;  // libibverbs' enum ibv_wc_status
  std::uint32_t opcode;  // libibverbs' enum ibv_wc_opcode
  std::uint32_t vendor_err;
  std::uint32_t byte_len;
  std::uint32_t imm_data;  // host order
  std::uint32_t qp_num;
  std::uint32_t wc_flags;
  std::uint32_t reserved;
};

struct WaitCqs {
  std::uint32_t count;  // Handle records that follow
};

struct Sleep {
  std::uint64_t duration_ps;
};

// The bytes a spinning program keeps reading at `address` (registered
// memory): it waits until they differ.
struct WaitWrite {
  std::uint64_t address;
  std::uint32_t length;  // 1 to 8
  std::uint32_t reserved;
  std::uint8_t seen[8];
};

struct Port {
  std::uint32_t port;
};

// A loopback TCP connection's direction, by its two ends' ports.
struct Stream {
  std::uint32_t local_port;
  std::uint32_t peer_port;
};

struct StreamBytes {
  Stream stream;
  std::uint64_t bytes;
};

enum class BlockKind : std::uint32_t { kAccept = 1, kRead };

struct Block {
  BlockKind kind;
  Stream stream;  // kAccept: local_port is the listening port
};

struct BlockEnd {
  Block block;
  std::uint64_t bytes;  // kRead: bytes read (0: the end of the stream); kAccept: 1
};

}  // namespace rnicsim::bridge
