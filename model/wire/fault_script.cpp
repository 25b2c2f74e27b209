#include "wire/fault_script.hpp"

#include <array>
#include <charconv>
#include <utility>

namespace rnicsim {
namespace {

constexpr std::uint32_t kMaxQpOrPsn = 0xFFFFFF;    // 24-bit BTH fields
constexpr std::uint64_t kMaxDelayNs = 1000000000;  // the project's bound on times: 1 s

struct ActionName {
  const char* name;
  FaultAction action;
};
constexpr std::array<ActionName, 4> kActions{{{"drop", FaultAction::kDrop},
                                              {"corrupt", FaultAction::kCorrupt},
                                              {"duplicate", FaultAction::kDuplicate},
                                              {"delay", FaultAction::kDelay}}};

struct ClassName {
  const char* name;
  OpcodeClass group;
};
constexpr std::array<ClassName, 9> kClasses{{{"request", OpcodeClass::kRequest},
                                             {"response", OpcodeClass::kResponse},
                                             {"ack", OpcodeClass::kAck},
                                             {"nak", OpcodeClass::kNak},
                                             {"read_request", OpcodeClass::kReadRequest},
                                             {"read_response", OpcodeClass::kReadResponse},
                                             {"atomic", OpcodeClass::kAtomic},
                                             {"send", OpcodeClass::kSend},
                                             {"write", OpcodeClass::kWrite}}};

std::string class_names() {
  std::string names;
  for (const ClassName& c : kClasses) names += (names.empty() ? "" : ", ") + std::string(c.name);
  return names;
}

std::string_view trim(std::string_view text) {
  const auto space = [](char c) { return c == ' ' || c == '\t'; };
  while (!text.empty() && space(text.front())) text.remove_prefix(1);
  while (!text.empty() && space(text.back())) text.remove_suffix(1);
  return text;
}

// Decimal or 0x hex, nothing else; nullopt if not a whole number of 64 bits.
std::optional<std::uint64_t> parse_number(std::string_view text) {
  int base = 10;
  if (text.size() > 2 && text[0] == '0' && (text[1] == 'x' || text[1] == 'X')) {
    base = 16;
    text.remove_prefix(2);
  }
  std::uint64_t value = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value, base);
  if (text.empty() || error != std::errc() || end != text.data() + text.size()) return std::nullopt;
  return value;
}

// The opcode's transport, bits 7:5 of the BTH opcode.
constexpr std::uint8_t kRc = 0, kUc = 1, kUd = 3;

bool is_send(std::uint8_t transport, std::uint8_t op) {
  const bool base_send = op <= 0x05;  // FIRST, MIDDLE, LAST(+IMM), ONLY(+IMM)
  const bool with_invalidate = transport == kRc && (op == 0x16 || op == 0x17);
  return ((transport == kRc || transport == kUc || transport == kUd) && base_send) ||
         with_invalidate;
}

class EntryParser {
 public:
  explicit EntryParser(std::string_view text) : text_(text) { entry_.text = std::string(text); }

  FaultScriptEntry parse() {
    const std::size_t colon = text_.find(':');
    parse_action(trim(text_.substr(0, colon)));
    bool has_delay = false;
    if (colon != std::string_view::npos) {
      std::string_view fields = text_.substr(colon + 1);
      while (true) {
        const std::size_t comma = fields.find(',');
        has_delay |= parse_field(trim(fields.substr(0, comma)));
        if (comma == std::string_view::npos) break;
        fields.remove_prefix(comma + 1);
      }
    }
    if (entry_.action == FaultAction::kDelay && !has_delay) {
      fail("a delay entry needs ns=<nanoseconds>");
    }
    return entry_;
  }

 private:
  [[noreturn]] void fail(const std::string& reason) const {
    throw FaultScriptError(entry_.text, reason);
  }

  void parse_action(std::string_view name) {
    for (const ActionName& a : kActions) {
      if (name == a.name) {
        entry_.action = a.action;
        return;
      }
    }
    fail("unknown action \"" + std::string(name) + "\" (drop, corrupt, duplicate or delay)");
  }

  // Returns whether the field was `ns`.
  bool parse_field(std::string_view field) {
    const std::size_t equals = field.find('=');
    if (equals == std::string_view::npos) {
      fail("expected field=value, got \"" + std::string(field) + "\"");
    }
    const std::string name(trim(field.substr(0, equals)));
    const std::string_view value = trim(field.substr(equals + 1));
    if (seen_.find("," + name + ",") != std::string::npos) fail(name + " given twice");
    seen_ += "," + name + ",";
    if (name == "opcode") {
      parse_opcode(value);
    } else if (name == "qp") {
      entry_.dest_qp = static_cast<std::uint32_t>(number(name, value, 0, kMaxQpOrPsn));
    } else if (name == "psn") {
      entry_.psn = static_cast<std::uint32_t>(number(name, value, 0, kMaxQpOrPsn));
    } else if (name == "nth") {
      entry_.nth = number(name, value, 1, UINT32_MAX);
    } else if (name == "ns") {
      if (entry_.action != FaultAction::kDelay) fail("ns is for delay entries only");
      entry_.delay_ps = number(name, value, 1, kMaxDelayNs) * 1000;
      return true;
    } else {
      fail("unknown field \"" + name + "\" (opcode, qp, psn, nth, ns)");
    }
    return false;
  }

  void parse_opcode(std::string_view value) {
    for (const ClassName& c : kClasses) {
      if (value == c.name) {
        entry_.opcode_class = c.group;
        return;
      }
    }
    const std::optional<std::uint64_t> number = parse_number(value);
    if (!number || *number > 255) {
      fail("opcode must be a number 0-255 or one of " + class_names() + ", got \"" +
           std::string(value) + "\"");
    }
    entry_.opcode = static_cast<std::uint8_t>(*number);
  }

  std::uint64_t number(const std::string& name, std::string_view value, std::uint64_t low,
                       std::uint64_t high) const {
    const std::optional<std::uint64_t> n = parse_number(value);
    if (!n || *n < low || *n > high) {
      fail(name + " must be a whole number from " + std::to_string(low) + " to " +
           std::to_string(high) + " (decimal or 0x hex), got \"" + std::string(value) + "\"");
    }
    return *n;
  }

  std::string_view text_;
  FaultScriptEntry entry_;
  std::string seen_;  // ",name," of each field given
};

}  // namespace

const char* to_string(FaultAction action) {
  for (const ActionName& a : kActions) {
    if (a.action == action) return a.name;
  }
  return "?";
}

bool in_class(OpcodeClass group, const FrameKey& frame) {
  const std::uint8_t transport = frame.opcode >> 5;
  const std::uint8_t op = frame.opcode & 0x1F;
  const bool rc = transport == kRc;
  // AETH syndrome bits 6:5: 0 ACK, 1 RNR NAK, 3 NAK.
  const int syndrome_type = frame.aeth_syndrome ? (*frame.aeth_syndrome >> 5) & 3 : 0;
  switch (group) {
    case OpcodeClass::kSend:
      return is_send(transport, op);
    case OpcodeClass::kWrite:
      return (rc || transport == kUc) && op >= 0x06 && op <= 0x0B;
    case OpcodeClass::kReadRequest:
      return rc && op == 0x0C;
    case OpcodeClass::kReadResponse:
      return rc && op >= 0x0D && op <= 0x10;
    case OpcodeClass::kAtomic:
      return rc && (op == 0x13 || op == 0x14);
    case OpcodeClass::kAck:
      return rc && (op == 0x12 || (op == 0x11 && syndrome_type == 0));
    case OpcodeClass::kNak:
      return rc && op == 0x11 && syndrome_type != 0;
    case OpcodeClass::kRequest:
      return in_class(OpcodeClass::kSend, frame) || in_class(OpcodeClass::kWrite, frame) ||
             in_class(OpcodeClass::kReadRequest, frame) || in_class(OpcodeClass::kAtomic, frame);
    case OpcodeClass::kResponse:
      return in_class(OpcodeClass::kReadResponse, frame) || (rc && (op == 0x11 || op == 0x12));
  }
  return false;
}

bool FaultScriptEntry::matches(const FrameKey& frame) const {
  return (!opcode_class || in_class(*opcode_class, frame)) &&
         (!opcode || *opcode == frame.opcode) && (!dest_qp || *dest_qp == frame.dest_qp) &&
         (!psn || *psn == frame.psn);
}

FaultScriptError::FaultScriptError(std::string entry, std::string reason)
    : std::runtime_error("bad entry \"" + entry + "\": " + reason),
      entry_(std::move(entry)),
      reason_(std::move(reason)) {}

std::vector<FaultScriptEntry> parse_fault_script(std::string_view text) {
  std::vector<FaultScriptEntry> entries;
  while (true) {
    const std::size_t semicolon = text.find(';');
    const std::string_view entry = trim(text.substr(0, semicolon));
    if (!entry.empty()) entries.push_back(EntryParser(entry).parse());
    if (semicolon == std::string_view::npos) break;
    text.remove_prefix(semicolon + 1);
  }
  return entries;
}

}  // namespace rnicsim
