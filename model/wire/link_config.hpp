#pragma once
#include "config/config.hpp"
#include "config/run_config.hpp"
#include "wire/wire_framing.hpp"
#include "wire/wire_link.hpp"

namespace rnicsim {

void declare_link_keys(config::Schema& schema);
// From the "link" section.
WireLinkConfig wire_link_config(const config::Section& link);
WireFraming::Kind framing_kind(const config::Section& link);

}  // namespace rnicsim
