#pragma once
// What decides a received frame inside the packet parser: the model's
// parse_frame or the verilated RTL twin (rtl/packet_parser, through
// model/nic/rtl_bridge). Both answer every check but the ICRC, which the receive
// ICRC block has made (IcrcHandling::kSkip).
#include <cstddef>
#include <cstdint>
#include <memory>

#include "formats/frame.hpp"

namespace rnicsim::packet {

class ParserEngine {
 public:
  virtual ~ParserEngine() = default;
  // `frame`: the Ethernet header first, no FCS. On success the result's
  // packet holds every header and where the payload lies; on failure, the
  // first check that failed.
  virtual ParseResult parse(const std::uint8_t* frame, std::size_t length) = 0;
  // "model", or the RTL block's folder ("rtl/packet_parser").
  virtual const char* name() const = 0;
};

// The model: parse_frame without the ICRC.
std::unique_ptr<ParserEngine> make_model_parser_engine();

}  // namespace rnicsim::packet
