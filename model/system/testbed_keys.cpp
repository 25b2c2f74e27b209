#include "system/testbed_keys.hpp"

#include "host/driver/verbs_config.hpp"
#include "host/kernel/kernel_config.hpp"
#include "host/memory/host_memory_config.hpp"
#include "nic/congestion/congestion_config.hpp"
#include "nic/dma/dma_config.hpp"
#include "nic/ethernet/ethernet_config.hpp"
#include "nic/nic.hpp"
#include "nic/packet/packet_blocks.hpp"
#include "nic/translation/translation_config.hpp"
#include "nic/transport/transport_config.hpp"
#include "pcie/pcie_config.hpp"
#include "stage_view/stage_view_config.hpp"
#include "switch/switch_config.hpp"
#include "system/topology.hpp"
#include "wire/fault_config.hpp"
#include "wire/link_config.hpp"
#include "wire/pfc.hpp"

namespace rnicsim {

void declare_testbed_keys(config::Schema& schema) {
  // The blocks inside a node (a host and its NIC) read these sections, each
  // node its own copy: nodes.<node>.<section>.<key> overrides one node's.
  for (const char* section :
       {"host", "pcie", "dma", "request_splitter", "translation", "packet", "icrc", "nic",
        "transport", "verbs", "faults", "ethernet", "kernel", "pfc", "qos", "switch", "dcqcn"}) {
    schema.add_node_section(section);
  }
  declare_nic_keys(schema);
  declare_ethernet_keys(schema);
  declare_kernel_keys(schema);
  declare_host_memory_keys(schema);
  declare_stage_view_keys(schema);
  declare_dma_keys(schema);
  declare_link_keys(schema);
  declare_fault_keys(schema);
  pcie::declare_pcie_keys(schema);
  declare_translation_keys(schema);
  packet::declare_packet_keys(schema);
  declare_transport_keys(schema);
  declare_verbs_keys(schema);
  declare_topology_keys(schema);
  declare_pfc_keys(schema);
  declare_qos_keys(schema);
  declare_switch_keys(schema);
  declare_dcqcn_keys(schema);
}

}  // namespace rnicsim
