#include "switch/switch_config.hpp"

#include <vector>

#include "common/time_units.hpp"
#include "formats/ip_fields.hpp"

namespace rnicsim {

namespace {

std::uint8_t class_mask(const config::Json& list) {
  std::uint8_t mask = 0;
  for (const auto c : list.get<std::vector<unsigned>>()) {
    mask = static_cast<std::uint8_t>(mask | (1u << c));
  }
  return mask;
}

}  // namespace

void declare_qos_keys(config::Schema& schema) {
  config::Json classes = config::Json::array();
  for (int dscp = 0; dscp < 64; ++dscp) classes.push_back(dscp >> 3);
  schema.add(config::integer_list_key(
                 "qos.dscp_classes", classes, "classes",
                 "64 entries: the priority and traffic class (0-7) of an untagged IPv4 frame with "
                 "DSCP i (the QP's traffic_class >> 2); a tagged frame takes its PCP. The default "
                 "is the class selector, DSCP >> 3. Read by switches and by NICs on a switched "
                 "topology")
                 .at_least(0)
                 .at_most(7));
  schema.add_check(
      {"qos.dscp_classes"}, [](const config::Json& doc) -> std::optional<config::Violation> {
        if (config::at_path(doc, "qos.dscp_classes").size() == 64) return std::nullopt;
        return config::Violation{"qos.dscp_classes", "needs exactly 64 entries, one per DSCP"};
      });
  schema.add(config::string_key("qos.ecn", "not_ect",
                                "the ECN codepoint of the RoCEv2 frames a NIC sends on a switched "
                                "topology (RFC 3168): not_ect, ect0 or ect1; switches mark "
                                "ECN-capable frames CE")
                 .one_of({"not_ect", "ect0", "ect1"}));
}

void declare_switch_keys(config::Schema& schema) {
  schema.add(config::integer_key("switch.buffer_bytes", 16777216, "bytes",
                                 "the switch's packet buffer: queue reserves, PFC headroom and the "
                                 "shared pool")
                 .at_least(4096)
                 .at_most(4294967296));
  schema.add(config::integer_key("switch.queue_reserve_bytes", 0, "bytes",
                                 "each egress queue's (port, class) own space, used before the "
                                 "shared pool")
                 .at_most(1073741824));
  schema.add(config::number_key("switch.dt_alpha", 1, "",
                                "dynamic threshold: an egress queue may hold alpha x the shared "
                                "pool's free bytes (lossy classes)")
                 .greater_than(0)
                 .at_most(1024));
  schema.add(config::integer_key("switch.headroom_bytes", 32768, "bytes",
                                 "PFC headroom per ingress port and lossless priority: taken once "
                                 "the ingress is paused, by the frames still arriving")
                 .at_most(1073741824));
  schema.add(config::number_key("switch.forwarding_ns", 500, "ns",
                                "from a frame's usable arrival (its last bit; with cut-through its "
                                "header) to its place in the egress queue")
                 .at_least(0)
                 .at_most(1e6));
  schema.add(config::boolean_key("switch.cut_through", false,
                                 "forward once the first 64 bytes are in instead of the whole "
                                 "frame (never finishing before the frame's last bit is in)"));
  schema.add(config::integer_list_key("switch.strict_classes", config::Json::array({7}), "classes",
                                      "classes served by strict priority, highest first, ahead of "
                                      "the DWRR classes")
                 .at_least(0)
                 .at_most(7));
  schema.add(config::integer_list_key("switch.dwrr_weights",
                                      config::Json::array({1, 1, 1, 1, 1, 1, 1, 1}), "",
                                      "8 entries: each class's DWRR weight (its share of what the "
                                      "strict classes leave)")
                 .at_least(1)
                 .at_most(1024));
  schema.add_check(
      {"switch.dwrr_weights"}, [](const config::Json& doc) -> std::optional<config::Violation> {
        if (config::at_path(doc, "switch.dwrr_weights").size() == 8) return std::nullopt;
        return config::Violation{"switch.dwrr_weights", "needs exactly 8 entries, one per class"};
      });
  schema.add(config::integer_key("switch.dwrr_quantum_bytes", 9216, "bytes",
                                 "bytes a DWRR class of weight 1 may send per round")
                 .at_least(64)
                 .at_most(1048576));
  schema.add(config::boolean_key("switch.ecn", true,
                                 "mark ECN-capable frames CE by the RED profile (switch.ecn_*)"));
  schema.add(config::integer_list_key("switch.ecn_classes",
                                      config::Json::array({0, 1, 2, 3, 4, 5, 6, 7}), "classes",
                                      "the classes whose queues mark")
                 .at_least(0)
                 .at_most(7));
  schema.add(config::integer_key("switch.ecn_kmin_bytes", 5120, "bytes",
                                 "RED Kmin: no marks below this egress queue depth (DCQCN paper: "
                                 "5 KB)")
                 .at_most(1073741824));
  schema.add(config::integer_key("switch.ecn_kmax_bytes", 204800, "bytes",
                                 "RED Kmax: marking rises linearly to switch.ecn_pmax here and is "
                                 "certain above (DCQCN paper: 200 KB)")
                 .at_most(1073741824));
  schema.add(config::number_key("switch.ecn_pmax", 0.01, "",
                                "RED Pmax: the marking probability at Kmax (DCQCN paper: 1%)")
                 .at_least(0)
                 .at_most(1));
  schema.add_check(
      {"switch.ecn_kmin_bytes", "switch.ecn_kmax_bytes"},
      [](const config::Json& doc) -> std::optional<config::Violation> {
        if (config::integer_at(doc, "switch.ecn_kmin_bytes") <=
            config::integer_at(doc, "switch.ecn_kmax_bytes")) {
          return std::nullopt;
        }
        return config::Violation{"switch.ecn_kmax_bytes", "must be at least switch.ecn_kmin_bytes"};
      });
  schema.add(config::string_key("switch.non_ect_policy", "tail_drop",
                                "a frame that is not ECN-capable where one would be marked: "
                                "tail_drop (kept until the buffer refuses it) or red_drop (dropped "
                                "with the marking probability)")
                 .one_of({"tail_drop", "red_drop"}));
}

std::uint8_t qos_ecn(const config::Section& qos) {
  const std::string ecn = qos.text("ecn");
  if (ecn == "ect0") return static_cast<std::uint8_t>(packet::Ecn::kEct0);
  if (ecn == "ect1") return static_cast<std::uint8_t>(packet::Ecn::kEct1);
  return static_cast<std::uint8_t>(packet::Ecn::kNotEct);
}

DscpClasses qos_dscp_classes(const config::Section& qos) {
  DscpClasses classes{};
  const auto list = qos.at("dscp_classes").get<std::vector<unsigned>>();
  for (std::size_t i = 0; i < classes.size(); ++i) classes[i] = static_cast<std::uint8_t>(list[i]);
  return classes;
}

SwitchConfig switch_config(config::RunConfig& run, const std::string& name) {
  const config::Section s = run.node_section(name, "switch");
  SwitchConfig c;
  c.buffer.buffer_bytes = s.integer("buffer_bytes");
  c.buffer.queue_reserve_bytes = s.integer("queue_reserve_bytes");
  c.buffer.alpha = s.number("dt_alpha");
  c.buffer.headroom_bytes = s.integer("headroom_bytes");
  c.buffer.pfc = pfc_config(run.node_section(name, "pfc"));
  c.scheduler.strict = class_mask(s.at("strict_classes"));
  const auto weights = s.at("dwrr_weights").get<std::vector<std::uint32_t>>();
  for (std::size_t i = 0; i < c.scheduler.weights.size(); ++i) c.scheduler.weights[i] = weights[i];
  c.scheduler.quantum_bytes = static_cast<std::uint32_t>(s.integer("dwrr_quantum_bytes"));
  c.ecn.enabled = s.boolean("ecn");
  c.ecn.kmin_bytes = s.integer("ecn_kmin_bytes");
  c.ecn.kmax_bytes = s.integer("ecn_kmax_bytes");
  c.ecn.pmax = s.number("ecn_pmax");
  c.ecn_classes = class_mask(s.at("ecn_classes"));
  c.red_drop_non_ect = s.text("non_ect_policy") == "red_drop";
  c.forwarding = nanoseconds(s.number("forwarding_ns"));
  c.cut_through = s.boolean("cut_through");
  c.dscp_classes = qos_dscp_classes(run.node_section(name, "qos"));
  c.seed = s.stream_seed();
  return c;
}

}  // namespace rnicsim
