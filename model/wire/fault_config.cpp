#include "wire/fault_config.hpp"

#include <optional>
#include <string>

#include "common/time_units.hpp"
#include "wire/fault_script.hpp"

namespace rnicsim {
namespace {

config::KeySpec rate_key(const char* name, double default_value, const char* doc) {
  return config::number_key(std::string("faults.") + name, default_value, "", doc)
      .at_least(0)
      .at_most(1);
}

std::optional<config::Violation> bad_script(const config::Json& doc) {
  try {
    parse_fault_script(config::at_path(doc, "faults.script").get<std::string>());
  } catch (const FaultScriptError& e) {
    return config::Violation{"faults.script", e.what()};
  }
  return std::nullopt;
}

}  // namespace

void declare_fault_keys(config::Schema& schema) {
  schema.add(rate_key("loss_rate", 0,
                      "probability that a frame is lost on the cable (in the good state of "
                      "the burst chain)"));
  schema.add(rate_key("burst_enter_rate", 0,
                      "Gilbert-Elliott burst losses: probability per frame of moving from the "
                      "good state to the bad one (0: plain loss at faults.loss_rate)"));
  schema.add(rate_key("burst_exit_rate", 0.25,
                      "probability per frame of moving from the bad state back to the good one "
                      "(mean burst 1 / rate frames)"));
  schema.add(rate_key("burst_loss_rate", 1,
                      "probability that a frame is lost while the chain is in the bad state"));
  schema.add(rate_key("corrupt_rate", 0, "probability that a frame gets bits flipped"));
  schema.add(config::integer_key("faults.corrupt_bits", 1, "bits",
                                 "distinct bits flipped in a corrupted frame (at most the bits "
                                 "the mode may flip)")
                 .at_least(1)
                 .at_most(64));
  schema.add(config::string_key("faults.corrupt_mode", "before_fcs",
                                "before_fcs: bits anywhere, the receiving MAC's FCS check drops "
                                "the frame; after_fcs: bits only where the RoCEv2 ICRC covers "
                                "and does not mask (a switch that rewrites the FCS), so only the "
                                "NIC's ICRC check catches it")
                 .one_of({"before_fcs", "after_fcs"}));
  schema.add(rate_key("duplicate_rate", 0,
                      "probability that a frame arrives twice, the copy one serialization time "
                      "after it"));
  schema.add(rate_key("reorder_rate", 0,
                      "probability that a frame is delayed by a uniform extra delay up to "
                      "faults.reorder_delay_ns, so later frames may overtake it"));
  schema.add(config::number_key("faults.reorder_delay_ns", 1000, "ns",
                                "largest extra delay of a reordered frame")
                 .at_least(0.001)
                 .at_most(1e9));
  schema.add(
      config::string_key("faults.script", "",
                         "scripted faults: ';'-separated entries action[:field=value,...], "
                         "action drop, corrupt, duplicate or delay, fields opcode, qp, "
                         "psn, nth (n-th match, default 1) and ns (delay); each fires once"));
  schema.add_check({"faults.script"}, bad_script);
}

FaultConfig fault_config(const config::Section& faults) {
  FaultConfig c;
  c.loss_rate = faults.number("loss_rate");
  c.burst_enter_rate = faults.number("burst_enter_rate");
  c.burst_exit_rate = faults.number("burst_exit_rate");
  c.burst_loss_rate = faults.number("burst_loss_rate");
  c.corrupt_rate = faults.number("corrupt_rate");
  c.corrupt_bits = static_cast<std::uint32_t>(faults.integer("corrupt_bits"));
  c.corrupt_mode =
      faults.text("corrupt_mode") == "after_fcs" ? CorruptMode::kAfterFcs : CorruptMode::kBeforeFcs;
  c.duplicate_rate = faults.number("duplicate_rate");
  c.reorder_rate = faults.number("reorder_rate");
  c.reorder_delay_ps = to_ps(nanoseconds(faults.number("reorder_delay_ns")));
  c.script = parse_fault_script(faults.text("script"));  // checked when the config loaded
  c.seed = faults.stream_seed();
  return c;
}

}  // namespace rnicsim
