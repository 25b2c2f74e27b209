#include "formats/frame_json.hpp"

#include "formats/frame.hpp"
#include "formats/opcodes.hpp"

namespace rnicsim::packet {

nlohmann::ordered_json describe_frame(std::uint64_t index, std::uint64_t time_ns,
                              const std::uint8_t* frame, std::size_t length) {
  nlohmann::ordered_json out = {{"index", index}, {"time_ns", time_ns}, {"length", length}};
  const ParseResult parsed = parse_frame(frame, length);
  if (parsed.error && *parsed.error != ParseError::kIcrcMismatch) {
    out["error"] = to_string(*parsed.error);
    return out;
  }
  const RocePacket& p = parsed.packet;
  const Bth& bth = p.bth;
  out["opcode"] = bth.opcode;
  out["opcode_name"] = find_opcode(bth.opcode)->name;
  out["dest_qp"] = bth.dest_qp;
  out["psn"] = bth.psn;
  out["ack_req"] = bth.ack_req;
  out["pad"] = bth.pad_count;
  out["pkey"] = bth.pkey;
  out["se"] = bth.solicited_event;
  out["mig_req"] = bth.mig_req;
  if (p.reth) {
    out["va"] = p.reth->virtual_address;
    out["rkey"] = p.reth->rkey;
    out["dma_len"] = p.reth->dma_length;
  }
  if (p.aeth) {
    out["syndrome"] = p.aeth->syndrome;
    out["msn"] = p.aeth->msn;
  }
  if (p.atomic_eth) {
    out["atomic_va"] = p.atomic_eth->virtual_address;
    out["atomic_rkey"] = p.atomic_eth->rkey;
    out["swap_add"] = p.atomic_eth->swap_add;
    out["compare"] = p.atomic_eth->compare;
  }
  if (p.atomic_ack_eth) out["orig_data"] = p.atomic_ack_eth->original_data;
  if (p.imm_dt) out["imm"] = p.imm_dt->value;
  if (p.ieth) out["invalidate_rkey"] = p.ieth->rkey;
  if (p.deth) {
    out["qkey"] = p.deth->qkey;
    out["src_qp"] = p.deth->source_qp;
  }
  out["payload_len"] = p.payload_length;
  out["icrc"] = parsed.icrc_received;
  out["icrc_ok"] = parsed.icrc_ok;
  if (parsed.error) out["error"] = to_string(*parsed.error);
  return out;
}

}  // namespace rnicsim::packet
