#pragma once
// What the driver and the NIC exchange through host memory and MMIO: the
// layouts of send and receive work queue entries (WQEs), completion queue
// entries (CQEs), the NIC's register window (BAR) and the command mailbox.
// Everything is little-endian, as host memory is. nic/transport/README.md draws
// the layouts; these functions are the only code that reads or writes them.
#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "common/inline_vector.hpp"
#include "interface/verbs_types.hpp"

namespace rnicsim {

// ---- Send queue -----------------------------------------------------------
// The send queue is a ring of 64-byte basic blocks. A WQE takes one or more
// consecutive blocks: a 48-byte control segment, then its data segments
// (16 bytes per scatter/gather element) or its inline data, padded to whole
// blocks. The driver's producer index counts blocks.
constexpr std::uint32_t kSendBlockBytes = 64;
constexpr std::uint32_t kSendControlBytes = 48;
constexpr std::uint32_t kDataSegmentBytes = 16;
// The longest WQE: one with the most inline data a QP may have.
constexpr std::uint32_t kMaxSendWqeBlocks =
    (kSendControlBytes + kMaxInlineData + kSendBlockBytes - 1) / kSendBlockBytes;
using SendWqeBytes = InlineVector<std::uint8_t, kMaxSendWqeBlocks * kSendBlockBytes>;

struct SendWqe {
  ibv_wr_opcode opcode = IBV_WR_SEND;
  bool signaled = false;
  bool solicited = false;
  bool fence = false;
  bool is_inline = false;
  std::uint64_t wr_id = 0;
  std::uint32_t imm_data = 0;
  std::uint32_t length = 0;  // message bytes: the SGEs' sum, or the inline bytes
  std::uint64_t remote_addr = 0;
  std::uint32_t rkey = 0;
  std::uint64_t compare_add = 0;
  std::uint64_t swap = 0;
  InlineVector<ibv_sge, kMaxSendSge> sges;  // empty when inline; held inline (max_send_sge)
  // Up to kMaxInlineData bytes: a vector, so that the many WQEs without inline
  // data do not carry that room; the NIC's WQE records reuse its capacity.
  std::vector<std::uint8_t> inline_data;
  // Not in the WQE's bytes: the NIC notes where in the ring the WQE ended.
  std::uint32_t ring_end = 0;
};

// Blocks a WQE with `sges` elements or `inline_bytes` of inline data takes.
std::uint32_t send_wqe_blocks(std::uint32_t sges, std::uint32_t inline_bytes, bool is_inline);
// The WQE's blocks, send_wqe_blocks() of them.
SendWqeBytes encode_send_wqe(const SendWqe& wqe);
// Decodes the WQE at the start of `bytes` into `wqe` (every field set; its
// inline data keeps its capacity); false (and `error`) when the bytes hold
// fewer blocks than the WQE says or the control segment is malformed (an
// unknown opcode, too many SGEs, inline longer than the WQE).
bool decode_send_wqe(const std::uint8_t* bytes, std::size_t available, SendWqe& wqe,
                     std::uint32_t* blocks, std::string* error);

// ---- Receive queue --------------------------------------------------------
// A ring of 64-byte entries: wr_id, the element count, then up to
// kMaxRecvSge data segments. The producer index counts entries.
constexpr std::uint32_t kRecvWqeBytes = 64;

struct RecvWqe {
  std::uint64_t wr_id = 0;
  InlineVector<ibv_sge, kMaxRecvSge> sges;
};
std::array<std::uint8_t, kRecvWqeBytes> encode_recv_wqe(const RecvWqe& wqe);
std::optional<RecvWqe> decode_recv_wqe(const std::uint8_t* bytes, std::string* error);

// ---- Completion queue -----------------------------------------------------
// A ring of 32-byte entries. The owner bit tells the driver whether an
// entry is new: the NIC writes 1 on the first pass over the ring, 0 on the
// second, and so on, so a zeroed ring holds no completion.
constexpr std::uint32_t kCqeBytes = 32;

struct Cqe {
  ibv_wc wc;
  bool owner = false;
  // Send CQEs: the send ring position just past the completed WQE, so the
  // driver knows which blocks the NIC is done with (mlx5's wqe_counter).
  std::uint32_t wqe_counter = 0;
};
std::array<std::uint8_t, kCqeBytes> encode_cqe(const Cqe& cqe);
Cqe decode_cqe(const std::uint8_t* bytes);
// The owner value of a new entry at ring position `index` of a `depth`-entry ring.
bool cqe_owner_for(std::uint64_t index, std::uint32_t depth);

// ---- The NIC's register window (BAR) ----------------------------------------
// Offsets from the window's base; every write is a posted MMIO write.
//   command doorbell: 8 bytes, the physical address of a command mailbox
//   send doorbell of QP n: 4 bytes, the send producer index (blocks)
//   receive doorbell of QP n: 4 bytes, the receive producer index (entries)
//   BlueFlame of QP n: 4 bytes of producer index, 4 reserved, then the
//     WQE's blocks, so the NIC need not fetch it (the driver uses it for a
//     WQE of at most bar_blueflame_bytes)
constexpr std::uint64_t kBarCommandDoorbell = 0x0;
constexpr std::uint64_t kBarSendDoorbells = 0x1000;
// QP numbers run below kMaxQps (2^18: a run of 100,000 QPs per NIC fits;
// the BTH's destination QP field has 24 bits).
constexpr std::uint32_t kMaxQps = 1u << 18;
constexpr std::uint64_t kBarDoorbellStride = 8;
constexpr std::uint64_t kBarBlueFlameStride = 512;
constexpr std::uint64_t kBarRecvDoorbells = kBarSendDoorbells + kMaxQps * kBarDoorbellStride;
constexpr std::uint64_t kBarBlueFlame = kBarRecvDoorbells + kMaxQps * kBarDoorbellStride;
static_assert(kBarBlueFlame + kMaxQps * kBarBlueFlameStride <= 0x10000000,
              "the BlueFlame windows end before the Ethernet registers");

enum class BarWriteKind : std::uint8_t { kCommand, kSendDoorbell, kRecvDoorbell, kBlueFlame };
struct BarWrite {
  BarWriteKind kind = BarWriteKind::kCommand;
  std::uint32_t qpn = 0;
};
// nullopt for an offset outside the registers.
std::optional<BarWrite> decode_bar_offset(std::uint64_t offset);

// ---- Commands ---------------------------------------------------------------
// The driver writes a command into its mailbox (one page of host memory),
// rings the command doorbell with the mailbox's address, and polls the
// mailbox's status word, which the NIC writes last, by DMA.
enum class CommandOp : std::uint32_t {
  kCreateCq = 1,
  kCreateQp = 2,
  kModifyQp = 3,
  kDestroyQp = 4,
  kDeregMr = 5,
};
enum class CommandStatus : std::uint32_t { kPending = 0, kOk = 1, kBadParameter = 2, kBadState = 3 };
constexpr std::uint64_t kCommandStatusOffset = 4;  // where the NIC writes CommandStatus

struct CreateCqCommand {
  std::uint32_t cqn = 0;
  std::uint64_t context_address = 0;  // where the NIC keeps the CQ's context
  std::uint32_t depth = 0;             // entries, a power of two
  std::uint32_t page_bytes = 0;        // the ring's page size
  std::vector<std::uint64_t> pages;    // the ring's physical pages, in order
};

struct CreateQpCommand {
  std::uint32_t qpn = 0;
  std::uint64_t context_address = 0;  // where the NIC keeps the QP's context
  std::uint32_t pd = 0;
  std::uint32_t send_cqn = 0;
  std::uint32_t recv_cqn = 0;
  std::uint32_t send_blocks = 0;  // send ring size in blocks, a power of two
  std::uint32_t recv_depth = 0;   // receive ring size in entries, a power of two
  std::uint32_t page_bytes = 0;   // the rings' page size
  std::vector<std::uint64_t> send_pages;
  std::vector<std::uint64_t> recv_pages;
};

struct ModifyQpCommand {
  std::uint32_t qpn = 0;
  std::uint32_t attr_mask = 0;
  ibv_qp_attr attr;
};

struct DestroyQpCommand {
  std::uint32_t qpn = 0;
};

// The driver has cleared the MR's MPT entry and freed its MTT range: the NIC
// drops what it caches of them.
struct DeregMrCommand {
  std::uint32_t mpt_index = 0;
  std::uint64_t first_mtt = 0;  // the MR's page list in the MTT
  std::uint32_t pages = 0;
};

struct Command {
  CommandOp op = CommandOp::kCreateCq;
  CreateCqCommand create_cq;
  CreateQpCommand create_qp;
  ModifyQpCommand modify_qp;
  DestroyQpCommand destroy_qp;
  DeregMrCommand dereg_mr;
};

// The mailbox's bytes: op, status (pending), body length, body.
std::vector<std::uint8_t> encode_command(const Command& command);
// Bytes of the header that gives the body's length.
constexpr std::uint32_t kCommandHeaderBytes = 12;
// The longest body the NIC reads: a CREATE_CQ's page list for 16384 QPs of
// 128 CQEs of 32 B each (64 MiB, 16384 page addresses of 8 B at 4 KiB pages),
// with room for its fixed fields.
constexpr std::uint32_t kMaxCommandBodyBytes = (1u << 17) + 64;
std::uint32_t command_body_bytes(const std::uint8_t* header);
// nullopt (and `error`) for an unknown op or a body that does not parse.
std::optional<Command> decode_command(const std::uint8_t* bytes, std::size_t length,
                                      std::string* error);

}  // namespace rnicsim
