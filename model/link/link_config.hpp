#pragma once
#include "config/config.hpp"
#include "link/wire_framing.hpp"
#include "link/wire_link.hpp"

namespace rnicsim {

void declare_link_keys(config::Schema& schema);
WireLinkConfig wire_link_config(const config::Json& doc);
WireFraming::Kind framing_kind(const config::Json& doc);

}  // namespace rnicsim
