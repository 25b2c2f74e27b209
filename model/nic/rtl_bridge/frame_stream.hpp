#pragma once
// Clocking one frame through a verilated frame-stream block (rtl/icrc,
// rtl/packet_parser): its s_frame_* stream takes the frame kDataBytes per
// beat, and the block answers on an output port some cycles later.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>

#include "nic/rtl_bridge/clocking.hpp"
#include "nic/rtl_bridge/verilated_ports.hpp"

namespace rnicsim::rtl_bridge {

// Offers the frame one beat per cycle and, each cycle at clock low, asks
// `take_answer(top)` whether the block's answer is valid (it reads it then,
// and the rising edge that ends that cycle takes it: the answer port's ready
// must be held high). Returns the cycle the answer came in, counted from 0
// for the cycle of the first beat; nullopt when none came within
// `max_cycles`. `length` must be at least 1.
template <std::size_t kDataBytes, typename Top, typename TakeAnswer>
std::optional<std::uint64_t> clock_frame_through(Top& top, const std::uint8_t* frame,
                                                 std::size_t length, std::uint64_t max_cycles,
                                                 TakeAnswer&& take_answer) {
  std::size_t offset = 0;
  for (std::uint64_t cycle = 0; cycle <= max_cycles; ++cycle) {
    const std::size_t lanes = std::min(kDataBytes, length - offset);
    top.s_frame_tvalid_i = offset < length;
    set_bytes(top.s_frame_tdata_i, frame + offset, lanes);
    set_low_ones(top.s_frame_tkeep_i, lanes);
    top.s_frame_tlast_i = offset + lanes == length;
    top.clk_i = 0;
    top.eval();
    if (take_answer(top)) {
      top.s_frame_tvalid_i = 0;
      rise(top);
      return cycle;
    }
    if (top.s_frame_tvalid_i && top.s_frame_tready_o) offset += lanes;
    rise(top);
  }
  return std::nullopt;
}

// One frame through a block whose answer comes the cycle after the frame's
// last beat: ceil(length / kDataBytes) cycles after its first, the cycles the
// model's stage charges at that width. An answer at any other cycle is a
// logic_error naming `block` and the frame; an empty frame, which no stream
// can carry (nor the wire), an invalid_argument.
template <std::size_t kDataBytes, typename Top, typename TakeAnswer>
void answer_the_cycle_after_the_last_beat(Top& top, const char* block, const char* stage,
                                          const std::uint8_t* frame, std::size_t length,
                                          TakeAnswer&& take_answer) {
  if (length == 0) {
    throw std::invalid_argument(std::string(block) + ": an empty frame has no beat to send");
  }
  const std::uint64_t beats = (length + kDataBytes - 1) / kDataBytes;
  const std::optional<std::uint64_t> cycle =
      clock_frame_through<kDataBytes>(top, frame, length, beats, take_answer);
  if (cycle == beats) return;
  throw std::logic_error(std::string(block) + " (" + std::to_string(kDataBytes) +
                         " bytes per cycle) answered a " + std::to_string(length) +
                         "-byte frame after " +
                         (cycle ? std::to_string(*cycle) + " cycles" : "more cycles") +
                         ", not the " + std::to_string(beats) + " the " + stage + " charges");
}

}  // namespace rnicsim::rtl_bridge
