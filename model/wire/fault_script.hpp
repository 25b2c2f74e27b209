#pragma once
// FaultScript: faults a test asks for by name, frame by frame, instead of by
// chance. The text is a ';'-separated list of entries:
//
//   drop:opcode=read_response,qp=5,nth=3    the 3rd READ RESPONSE to QP 5 is lost
//   corrupt:opcode=ack                      the first ACK gets flipped bits
//   duplicate:opcode=send,psn=12            the first SEND with PSN 12 arrives twice
//   delay:qp=3,nth=2,ns=500                 the 2nd frame to QP 3 arrives 500 ns late
//
// Match fields, all optional and ANDed: `opcode` (a class name, see
// OpcodeClass, or a number 0-255), `qp` (destination QP), `psn`, and `nth`
// (act on the n-th frame that matches the entry, 1-based, default 1).
// Numbers are decimal or 0x hex. Each entry fires once; its matches are
// counted per entry by whoever runs the script (one wire direction).
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace rnicsim {

enum class FaultAction { kDrop, kCorrupt, kDuplicate, kDelay };
const char* to_string(FaultAction action);

// Groups of BTH opcodes a script can name.
enum class OpcodeClass {
  kRequest,   // what a requester sends: send, write, read_request, atomic
  kResponse,  // what a responder sends: read_response, ack, nak
  kAck,       // ACKNOWLEDGE with an ACK syndrome, or ATOMIC ACKNOWLEDGE
  kNak,       // ACKNOWLEDGE with an RNR NAK or NAK syndrome
  kReadRequest,
  kReadResponse,  // FIRST, MIDDLE, LAST or ONLY
  kAtomic,        // COMPARE & SWAP, FETCH & ADD
  kSend,          // every SEND opcode, RC, UC or UD
  kWrite,         // every RDMA WRITE opcode, RC or UC
};

// What a script entry sees of a frame: its BTH (and AETH, for ACKs).
struct FrameKey {
  std::uint8_t opcode = 0;
  std::uint32_t dest_qp = 0;
  std::uint32_t psn = 0;
  std::optional<std::uint8_t> aeth_syndrome;  // present on ACKNOWLEDGE frames
};

bool in_class(OpcodeClass group, const FrameKey& frame);

struct FaultScriptEntry {
  FaultAction action = FaultAction::kDrop;
  std::optional<OpcodeClass> opcode_class;
  std::optional<std::uint8_t> opcode;
  std::optional<std::uint32_t> dest_qp;
  std::optional<std::uint32_t> psn;
  std::uint64_t nth = 1;
  std::uint64_t delay_ps = 0;  // delay entries: the extra time on the cable
  std::string text;            // the entry as written, for traces and errors

  bool matches(const FrameKey& frame) const;
};

// A bad entry: which one, as written, and why.
class FaultScriptError : public std::runtime_error {
 public:
  FaultScriptError(std::string entry, std::string reason);
  const std::string& entry() const { return entry_; }
  const std::string& reason() const { return reason_; }

 private:
  std::string entry_;
  std::string reason_;
};

// Throws FaultScriptError for the first bad entry. Blank entries (a trailing
// ';') are skipped; "" gives an empty script.
std::vector<FaultScriptEntry> parse_fault_script(std::string_view text);

}  // namespace rnicsim
