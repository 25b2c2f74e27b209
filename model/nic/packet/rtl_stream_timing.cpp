#include "nic/packet/rtl_stream_timing.hpp"

#include <cstdint>
#include <optional>

namespace rnicsim::packet {

namespace {

// The widths every frame-stream twin is verilated at: 8 and 64 bytes per
// cycle, a 64-bit and a 512-bit datapath.
bool verilated_width(std::uint64_t width) { return width == 8 || width == 64; }

std::optional<config::Violation> rtl_timing_violation(const config::Json& doc,
                                                      const RtlStreamKeys& keys) {
  if (config::at_path(doc, keys.impl).get<std::string>() != "rtl") return std::nullopt;
  const std::uint64_t width = config::integer_at(doc, keys.width);
  if (!verilated_width(width)) {
    return config::Violation{keys.width, "must be 8 or 64 with " + keys.impl + " rtl, the widths " +
                                             keys.rtl + " is verilated at (got " +
                                             std::to_string(width) + ")"};
  }
  const std::uint64_t latency = config::integer_at(doc, keys.latency);
  if (latency != 0) {
    return config::Violation{keys.latency, "must be 0 with " + keys.impl + " rtl: the RTL gives "
                                               "its result the cycle after a frame's last beat "
                                               "(got " +
                                               std::to_string(latency) + ")"};
  }
  return std::nullopt;
}

}  // namespace

void add_rtl_stream_timing_check(config::Schema& schema, const RtlStreamKeys& keys) {
  schema.add_check({keys.impl, keys.width, keys.latency},
                   [keys](const config::Json& doc) { return rtl_timing_violation(doc, keys); });
}

}  // namespace rnicsim::packet
