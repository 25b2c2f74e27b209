#pragma once
// One frame as the JSON object `rnicsim decode` prints: index, time_ns,
// length and, for RoCEv2, the BTH and extended-header fields, payload_len and
// icrc_ok; a frame that fails a check has `error` with the reason instead of
// the fields the failing check did not reach.
#include <cstddef>
#include <cstdint>

#include <nlohmann/json.hpp>

namespace rnicsim::packet {

nlohmann::ordered_json describe_frame(std::uint64_t index, std::uint64_t time_ns,
                              const std::uint8_t* frame, std::size_t length);

}  // namespace rnicsim::packet
