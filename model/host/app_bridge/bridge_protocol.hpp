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
// CPU model's verbs costs); the notices of real socket activity and
// rdma_cm's exchange are answered at once and cost no simulated time
// (README: simulated time), an rdma_cm event taking the sender's time plus
// the CM's delay (connection_manager.hpp).
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
  // rdma_cm (connection_manager.hpp): the connection exchange, between the
  // programs' libraries through the launcher, not on the simulated wire.
  // Answered at once and untimed, except kCmGetEvent, which waits for one.
  kCmListen,       // CmListen (EADDRINUSE: the port listens already)
  kCmUnlisten,     // CmPort: the listening id is gone
  kCmConnect,      // CmConnect -> CmConnection (the REQ)
  kCmAccept,       // CmAccept (the REP)
  kCmReject,       // CmReject (a REJ)
  kCmEstablished,  // CmConnection (the RTU)
  kCmDisconnect,   // CmConnection (a DREQ, or the DREP to the peer's)
  kCmRelease,      // CmConnection: its id is destroyed (the kernel's CM ends it)
  kCmGetEvent,     // CmChannel -> CmEvent: waits until the channel has one
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

// rdma_cm. Private data travels in fixed arrays, with the limits of the IB
// CM messages that carry it (rdma_connect(3), rdma_accept(3); the kernel's
// rdma_cm puts its own 36-byte header in the REQ's 92 bytes). An event's
// private data is the whole field of its message, zeroed past what the
// sender gave, as the IB CM delivers it.
constexpr std::uint32_t kCmRequestPrivateData = 56;
constexpr std::uint32_t kCmReplyPrivateData = 196;
constexpr std::uint32_t kCmRejectPrivateData = 148;
constexpr std::uint32_t kCmMaxPrivateData = 196;

// IB CM reject reasons an event's status carries (IBTA table 112).
constexpr std::int32_t kCmRejectTimeout = 1;
constexpr std::int32_t kCmRejectInvalidServiceId = 8;
constexpr std::int32_t kCmRejectConsumerDefined = 28;

// One side's connection parameters, as a REQ or a REP carries them.
struct CmParams {
  std::uint32_t qp_num;  // 0: the id has no QP
  std::uint32_t psn;     // its starting PSN
  std::uint8_t gid[16];
  std::uint32_t port;  // the sender's rdma_cm port
  std::uint8_t responder_resources;
  std::uint8_t initiator_depth;
  std::uint8_t retry_count;
  std::uint8_t rnr_retry_count;
  std::uint8_t flow_control;
  std::uint8_t srq;
  std::uint8_t reserved[2];
  std::uint32_t private_data_len;
  std::uint8_t private_data[kCmMaxPrivateData];
};

struct CmChannel {
  std::uint32_t channel;  // the library's number for an event channel
};

struct CmPort {
  std::uint32_t port;
};

struct CmListen {
  std::uint32_t channel;  // where its connection requests go
  std::uint32_t port;
  std::uint32_t backlog;
};

struct CmConnect {
  std::uint32_t channel;  // where the connecting id's events go
  std::uint32_t port;     // the destination: whichever program listens there
  CmParams params;
};

// The connection a request is about, numbered by the launcher, and which
// side of it the requesting id is (a program connected to itself holds both).
struct CmConnection {
  std::uint32_t connection;
  std::uint32_t passive;  // 1: the accepting side's id
};

struct CmAccept {
  std::uint32_t connection;
  std::uint32_t channel;  // where the accepting id's events go
  CmParams params;
};

struct CmReject {
  std::uint32_t connection;
  std::uint32_t private_data_len;
  std::uint8_t private_data[kCmRejectPrivateData];
};

enum class CmEventKind : std::uint32_t {
  kConnectRequest = 1,  // a REQ, on the listener's channel
  kReply,               // the REP, on the connecting side's
  kRejected,            // a REJ (status: its reason), on the connecting or accepting side's
  kEstablished,         // the RTU, on the accepting side's
  kDisconnected,        // the peer's DREQ, or the DREP to one's own
};

struct CmEvent {
  CmEventKind kind;
  std::int32_t status;
  std::uint32_t connection;
  std::uint32_t passive;      // 1: for the accepting side's id
  std::uint32_t listen_port;  // kConnectRequest: the port it came to
  std::uint32_t reserved;
  std::uint64_t time_ps;  // when it arrived: the sender's time plus the CM's delay
  CmParams peer;          // kConnectRequest, kReply; kRejected: its private data
};

}  // namespace rnicsim::bridge
