#include "system/statistics_catalog.hpp"

#include "host/kernel/kernel_stack.hpp"
#include "host/kernel/tcp_connection.hpp"
#include "host/memory/host_memory.hpp"
#include "nic/congestion/congestion_statistics.hpp"
#include "nic/dma/dma_engine.hpp"
#include "nic/dma/request_splitter.hpp"
#include "nic/ethernet/ethernet_port.hpp"
#include "nic/ethernet/fabric_port.hpp"
#include "nic/packet/icrc_blocks.hpp"
#include "nic/translation/memory_translation.hpp"
#include "nic/transport/transport_shared.hpp"
#include "pcie/link_direction.hpp"
#include "pcie/pcie_link.hpp"
#include "switch/switch.hpp"
#include "wire/fault_injector.hpp"
#include "wire/mac_port.hpp"
#include "wire/receive_buffer.hpp"

namespace rnicsim {

namespace {

template <typename Table>
DocumentedStatistics entry(const char* readme, const Table& table) {
  return DocumentedStatistics{readme, table.block(), table.statistics()};
}

}  // namespace

std::vector<DocumentedStatistics> statistics_catalog() {
  DocumentedStatistics wire = entry("model/wire/README.md", wire_stage_statistics());
  for (const auto& more : {fault_statistics().statistics(), receive_buffer_statistics().statistics()}) {
    wire.statistics.insert(wire.statistics.end(), more.begin(), more.end());
  }
  DocumentedStatistics direction = entry("model/pcie/README.md", pcie::link_direction_statistics());
  direction.block = "pcie_upstream, pcie_downstream";
  return {
      entry("model/host/memory/README.md", host_memory_statistics()),
      entry("model/host/kernel/README.md", kernel_stack_statistics()),
      entry("model/host/kernel/README.md", kernel::tcp_statistics()),
      entry("model/pcie/README.md", pcie::pcie_link_statistics()),
      direction,
      entry("model/nic/dma/README.md", dma_engine_statistics()),
      entry("model/nic/dma/README.md", request_splitter_statistics()),
      entry("model/nic/translation/README.md", translation_statistics()),
      entry("model/nic/packet/README.md", packet::icrc_check_statistics()),
      entry("model/nic/transport/README.md", transport_statistics()),
      entry("model/nic/congestion/README.md", notification_point_statistics()),
      entry("model/nic/congestion/README.md", reaction_point_statistics()),
      entry("model/nic/ethernet/README.md", ethernet_port_statistics()),
      entry("model/nic/ethernet/README.md", fabric_port_statistics()),
      wire,
      entry("model/wire/README.md", mac_port_statistics()),
      entry("model/wire/README.md", mac_priority_statistics()),
      entry("model/switch/README.md", switch_queue_statistics()),
      entry("model/switch/README.md", switch_ingress_statistics()),
  };
}

std::string statistics_readme_text(const DocumentedStatistics& entry) {
  return "`" + entry.block + "` in statistics.json:\n\n" + statistics_markdown(entry.statistics);
}

}  // namespace rnicsim
