#include "wire/pfc.hpp"

namespace rnicsim {

void declare_pfc_keys(config::Schema& schema) {
  schema.add(config::boolean_key("pfc.enabled", false,
                                 "priority flow control (IEEE 802.1Qbb) in this node's MACs: "
                                 "pauses sent when a lossless priority's receive buffer passes "
                                 "pfc.xoff_bytes, and honoured on transmit"));
  schema.add(config::integer_list_key("pfc.priorities",
                                      config::Json::array({0, 1, 2, 3, 4, 5, 6, 7}), "priorities",
                                      "the lossless priorities (0-7): PFC pauses and honours "
                                      "only these")
                 .at_least(0)
                 .at_most(7));
  schema.add(config::integer_key("pfc.xoff_bytes", 262144, "bytes",
                                 "pause a priority when the receiver holds more than this many of "
                                 "its bytes (a NIC: in its receive buffer; a switch: from one "
                                 "ingress port and priority)")
                 .at_least(64)
                 .at_most(1073741824));
  schema.add(config::integer_key("pfc.xon_bytes", 131072, "bytes",
                                 "resume the priority when the receiver holds this many or fewer "
                                 "(at most pfc.xoff_bytes)")
                 .at_least(0)
                 .at_most(1073741824));
  schema.add(config::integer_key("pfc.pause_quanta", 65535, "quanta",
                                 "the pause time a PFC frame asks for, in quanta of 512 bit times "
                                 "(65535 at 100 Gbit/s: 335.5 us)")
                 .at_least(1)
                 .at_most(65535));
  schema.add(config::integer_key("pfc.refresh_quanta", 32768, "quanta",
                                 "while a priority stays above XON the pause is sent again after "
                                 "this many quanta (below pfc.pause_quanta, so the peer never "
                                 "resumes in between)")
                 .at_least(1)
                 .at_most(65535));
  schema.add(config::string_key("pfc.impl", "model",
                                "implementation of the MACs' PFC unit (pause timers, XOFF/XON, "
                                "pause frames): model (C++) or rtl (the verilated "
                                "rtl/pfc_unit; needs a link rate whose 512-bit pause quantum is "
                                "a whole number of picoseconds)")
                 .one_of({"model", "rtl"}));
  schema.add_check(
      {"pfc.xoff_bytes", "pfc.xon_bytes"},
      [](const config::Json& doc) -> std::optional<config::Violation> {
        if (config::integer_at(doc, "pfc.xon_bytes") <= config::integer_at(doc, "pfc.xoff_bytes")) {
          return std::nullopt;
        }
        return config::Violation{"pfc.xon_bytes", "must be at most pfc.xoff_bytes"};
      });
  schema.add_check({"pfc.pause_quanta", "pfc.refresh_quanta"},
                   [](const config::Json& doc) -> std::optional<config::Violation> {
                     if (config::integer_at(doc, "pfc.refresh_quanta") <
                         config::integer_at(doc, "pfc.pause_quanta")) {
                       return std::nullopt;
                     }
                     return config::Violation{
                         "pfc.refresh_quanta",
                         "must be below pfc.pause_quanta, or the peer resumes before the refresh"};
                   });
}

PfcConfig pfc_config(const config::Section& pfc) {
  PfcConfig c;
  c.enabled = pfc.boolean("enabled");
  c.priorities = 0;
  for (const auto p : pfc.at("priorities").get<std::vector<unsigned>>()) {
    c.priorities = static_cast<std::uint8_t>(c.priorities | (1u << p));
  }
  c.xoff_bytes = pfc.integer("xoff_bytes");
  c.xon_bytes = pfc.integer("xon_bytes");
  c.pause_quanta = static_cast<std::uint16_t>(pfc.integer("pause_quanta"));
  c.refresh_quanta = static_cast<std::uint16_t>(pfc.integer("refresh_quanta"));
  c.impl = parse_block_impl(pfc.text("impl"));
  return c;
}

}  // namespace rnicsim
