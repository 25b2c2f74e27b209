#pragma once
// The dcqcn.* keys (node section "dcqcn"): whether the NIC runs DCQCN and
// with which preset's parameters. configs/README.md lists them with units and
// the source of each default. Read on switched topologies only (a cable
// between two NICs marks nothing).
#include <cstdint>

#include "common/block_impl.hpp"
#include "config/config.hpp"
#include "config/run_config.hpp"
#include "nic/congestion/dcqcn.hpp"

namespace rnicsim {

struct DcqcnConfig {
  DcqcnParameters rp;                 // preset kOff: no notification point, no rate limiters
  std::uint64_t cnp_interval_ps = 0;  // at most one CNP per QP per this
  std::uint8_t cnp_dscp = 0;          // the DSCP of the CNPs the NIC sends
  BlockImpl impl = BlockImpl::kModel;  // the rate limiters: the model's or rtl/rate_limiter
};

void declare_dcqcn_keys(config::Schema& schema);
// From a node's "dcqcn" section; `line_rate_gbps` is its port's.
DcqcnConfig dcqcn_config(const config::Section& dcqcn, double line_rate_gbps);

}  // namespace rnicsim
