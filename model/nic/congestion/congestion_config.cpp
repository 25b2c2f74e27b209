#include "nic/congestion/congestion_config.hpp"

#include <cmath>

namespace rnicsim {
namespace {

constexpr std::uint64_t kPsPerUs = 1'000'000;

}  // namespace

void declare_dcqcn_keys(config::Schema& schema) {
  using config::integer_key;
  using config::number_key;
  schema.add(config::string_key("dcqcn.mode", "off",
                                "DCQCN in the NIC: off, paper (Zhu et al., SIGCOMM 2015: dcqcn.g, "
                                "dcqcn.*_timer_us, dcqcn.byte_counter_bytes, ...) or firmware "
                                "(ConnectX's parameters: dcqcn.rpg_*, dcqcn.dce_tcp_*, ...); read "
                                "on switched topologies")
                 .one_of({"off", "paper", "firmware"}));
  schema.add(config::string_key("dcqcn.impl", "model",
                                "implementation of the NIC's rate limiters (the reaction point's "
                                "per-QP state and pacing): model, or rtl (rtl/rate_limiter, "
                                "verilated; 1024 QPs)")
                 .one_of({"model", "rtl"}));
  schema.add(integer_key("dcqcn.cnp_dscp", 48, "",
                         "the DSCP of the CNPs the NIC sends (NVIDIA's cnp_dscp default); its "
                         "class by qos.dscp_classes")
                 .at_most(63));
  // The paper's preset.
  schema.add(number_key("dcqcn.g", 1.0 / 256, "",
                        "paper: alpha's gain g (paper: 1/256), to the nearest 2^-20 (alpha's "
                        "fixed point)")
                 .at_least(1e-6)
                 .at_most(1));
  schema.add(number_key("dcqcn.alpha_timer_us", 55, "us",
                        "paper: alpha = (1 - g) alpha after this long without a CNP (paper: 55)")
                 .at_least(0.001)
                 .at_most(1e6));
  schema.add(number_key("dcqcn.rate_increase_timer_us", 55, "us",
                        "paper: a rate-increase event every this long since the last cut (T; "
                        "paper: 55)")
                 .at_least(0.001)
                 .at_most(1e6));
  schema.add(integer_key("dcqcn.byte_counter_bytes", 10000000, "bytes",
                         "paper: a rate-increase event every this many bytes sent since the last "
                         "cut (B; paper: 10 MB)")
                 .at_least(64)
                 .at_most(1ULL << 40));
  schema.add(integer_key("dcqcn.fast_recovery_events", 5, "events",
                         "paper: F: fast recovery while both event counts are below it, additive "
                         "increase once one reaches it, hyper increase once both do (paper: 5)")
                 .at_least(1)
                 .at_most(1 << 20));
  schema.add(number_key("dcqcn.ai_rate_mbps", 40, "Mbit/s",
                        "paper: additive increase step R_AI (paper: 40)")
                 .at_least(0)
                 .at_most(1e6));
  schema.add(number_key("dcqcn.hai_rate_mbps", 200, "Mbit/s",
                        "paper: hyper increase step R_HAI (the authors' ns-3 code, "
                        "bobzhuyb/ns3-rdma mix/config.txt: 200)")
                 .at_least(0)
                 .at_most(1e6));
  schema.add(number_key("dcqcn.min_rate_mbps", 100, "Mbit/s",
                        "paper: a cut never goes below this (the authors' ns-3 code: 100)")
                 .at_least(0.001)
                 .at_most(1e6));
  schema.add(number_key("dcqcn.cnp_interval_us", 50, "us",
                        "paper: at most one CNP per QP per this long (paper: 50)")
                 .at_least(0)
                 .at_most(1e6));
  // The firmware preset, by NVIDIA's names.
  schema.add(
      number_key("dcqcn.rpg_time_reset_us", 300, "us", "firmware: rate-increase timer period")
          .at_least(1)
          .at_most(1e6));
  schema.add(integer_key("dcqcn.rpg_byte_reset_bytes", 32767, "bytes",
                         "firmware: rate-increase byte counter")
                 .at_least(64)
                 .at_most(1ULL << 32));
  schema.add(integer_key("dcqcn.rpg_threshold", 1, "events",
                         "firmware: F, the increase events before additive (one counter) and "
                         "hyper (both) increase")
                 .at_least(1)
                 .at_most(31));
  schema.add(number_key("dcqcn.rpg_ai_rate_mbps", 5, "Mbit/s", "firmware: additive increase step")
                 .at_least(0)
                 .at_most(1e6));
  schema.add(number_key("dcqcn.rpg_hai_rate_mbps", 50, "Mbit/s", "firmware: hyper increase step")
                 .at_least(0)
                 .at_most(1e6));
  schema.add(integer_key("dcqcn.rpg_gd", 11, "",
                         "firmware: a cut is RC x (1 - alpha / 2^rpg_gd), alpha in 1/1024ths: "
                         "the log2 of the decrease divisor, not a gain (11: alpha / 2)")
                 .at_most(15));
  schema.add(integer_key("dcqcn.rpg_min_dec_fac_percent", 50, "%",
                         "firmware: a cut leaves at least this share of the rate")
                 .at_least(1)
                 .at_most(100));
  schema.add(
      number_key("dcqcn.rpg_min_rate_mbps", 1, "Mbit/s", "firmware: a cut never goes below this")
          .at_least(0.001)
          .at_most(1e6));
  schema.add(number_key("dcqcn.rate_to_set_on_first_cnp_mbps", 0, "Mbit/s",
                        "firmware: the rate (current and target) a QP's first CNP sets; 0: the "
                        "first CNP cuts as the others do")
                 .at_least(0)
                 .at_most(1e6));
  schema.add(integer_key("dcqcn.initial_alpha_value", 1023, "1/1024",
                         "firmware: alpha before the first CNP, in 1/1024ths")
                 .at_most(1023));
  schema.add(integer_key("dcqcn.dce_tcp_g", 1019, "1/1024",
                         "firmware: alpha's gain g = (1024 - dce_tcp_g) / 1024 each "
                         "dcqcn.dce_tcp_rtt_us")
                 .at_most(1023));
  schema.add(number_key("dcqcn.dce_tcp_rtt_us", 1, "us",
                        "firmware: alpha moves once per this period (up if a CNP came)")
                 .at_least(0.001)
                 .at_most(1e6));
  schema.add(number_key("dcqcn.rate_reduce_monitor_period_us", 4, "us",
                        "firmware: the rate is cut at most once per this period")
                 .at_least(0)
                 .at_most(1e6));
  schema.add(config::boolean_key("dcqcn.clamp_tgt_rate", false,
                                 "firmware: every cut sets the target rate to the current one "
                                 "(without it, only the first cut after an increase event)"));
  schema.add(number_key("dcqcn.min_time_between_cnps_us", 4, "us",
                        "firmware: at most one CNP per QP per this long")
                 .at_least(0)
                 .at_most(1e6));
}

DcqcnConfig dcqcn_config(const config::Section& dcqcn, double line_rate_gbps) {
  DcqcnConfig c;
  c.rp.line_rate_bps = static_cast<std::uint64_t>(std::llround(line_rate_gbps * 1e9));
  c.impl = parse_block_impl(dcqcn.text("impl"));
  const std::string mode = dcqcn.text("mode");
  if (mode == "off") return c;
  const auto us = [&dcqcn](const char* key) {
    return static_cast<std::uint64_t>(dcqcn.number(key) * kPsPerUs + 0.5);
  };
  // Rates in whole bit/s, fractions of alpha in 2^-20ths (dcqcn.hpp).
  const auto mbps = [&dcqcn](const char* key) {
    return static_cast<std::uint64_t>(std::llround(dcqcn.number(key) * 1e6));
  };
  const auto in_1024ths = [&dcqcn](const char* key) {
    return static_cast<std::uint32_t>(dcqcn.integer(key)) << 10;
  };
  c.cnp_dscp = static_cast<std::uint8_t>(dcqcn.integer("cnp_dscp"));
  DcqcnParameters& p = c.rp;
  if (mode == "paper") {
    p.preset = DcqcnPreset::kPaper;
    p.g = static_cast<std::uint32_t>(std::llround(dcqcn.number("g") * kAlphaOne));
    p.initial_alpha = kAlphaOne;
    p.cut_shift = 21;  // alpha / 2
    p.alpha_period_ps = us("alpha_timer_us");
    p.timer_ps = us("rate_increase_timer_us");
    p.byte_counter_bytes = dcqcn.integer("byte_counter_bytes");
    p.threshold = static_cast<std::uint32_t>(dcqcn.integer("fast_recovery_events"));
    p.additive_increase_bps = mbps("ai_rate_mbps");
    p.hyper_increase_bps = mbps("hai_rate_mbps");
    p.min_rate_bps = mbps("min_rate_mbps");
    c.cnp_interval_ps = us("cnp_interval_us");
    return c;
  }
  p.preset = DcqcnPreset::kFirmware;
  p.timer_ps = us("rpg_time_reset_us");
  p.byte_counter_bytes = dcqcn.integer("rpg_byte_reset_bytes");
  p.threshold = static_cast<std::uint32_t>(dcqcn.integer("rpg_threshold"));
  p.additive_increase_bps = mbps("rpg_ai_rate_mbps");
  p.hyper_increase_bps = mbps("rpg_hai_rate_mbps");
  // alpha / 2^rpg_gd with alpha in 1/1024ths: alpha in 2^-20ths shifted by 10 more.
  p.cut_shift = 10 + static_cast<std::uint32_t>(dcqcn.integer("rpg_gd"));
  p.min_decrease_percent = static_cast<std::uint32_t>(dcqcn.integer("rpg_min_dec_fac_percent"));
  p.min_rate_bps = mbps("rpg_min_rate_mbps");
  p.first_cnp_rate_bps = mbps("rate_to_set_on_first_cnp_mbps");
  p.initial_alpha = in_1024ths("initial_alpha_value");
  p.g = kAlphaOne - in_1024ths("dce_tcp_g");
  p.alpha_period_ps = us("dce_tcp_rtt_us");
  p.reduce_monitor_ps = us("rate_reduce_monitor_period_us");
  p.clamp_target = dcqcn.boolean("clamp_tgt_rate");
  c.cnp_interval_ps = us("min_time_between_cnps_us");
  return c;
}

}  // namespace rnicsim
