#pragma once
// Nic: the NIC's blocks and their wiring, nothing else.
//
//   translation.walker2dma   --> dma_engine.nic2dma        (table walks are DMA reads)
//   dma_engine.dma2split     --> request_splitter.dma2split   (requests cut into TLPs)
//   request_splitter.split2pcie --> the host's PCIe link      (bound by Node)
//
//   transmit --> builder --> icrc_tx --> mac_tx ......... the wire (bound by Testbed)
//   the wire's receive buffer ..> icrc_rx --> parser --> received
//
//   host MMIO --> registers --> commands (doorbells, BlueFlame, driver commands)
//                           --> the Ethernet port (when there is one; below)
//   commands --> translation   (a deregistration command drops cached entries)
//   requester ------------------------------------------> transmit
//   received --> demux --> responder (requests) ---------> transmit
//                      --> completer (responses)
//                      --> CNPs to the QPs' rate limiters (transport.rate_limiters())
//                      --> CE marks to notification_point -> CNPs --> transmit
//
// The transport units (nic/transport/transport_shared.hpp) share the QP and CQ contexts
// and each has its own DMA port; the requester and responder translate
// through `translation`. `transmit` takes their packet descriptors;
// `received` holds the packets that passed the ICRC and header checks.
// Blocks keep their own timing, config keys and statistics; see their READMEs.
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <systemc>

#include "common/block_impl.hpp"
#include "common/channel.hpp"
#include "config/config.hpp"
#include "config/run_config.hpp"
#include "interface/verbs_types.hpp"
#include "nic/bar_decoder.hpp"
#include "nic/congestion/notification_point.hpp"
#include "nic/dma/dma_engine.hpp"
#include "nic/dma/request_splitter.hpp"
#include "nic/ethernet/ethernet_config.hpp"
#include "nic/ethernet/ethernet_port.hpp"
#include "nic/ethernet/port_switch.hpp"
#include "nic/packet/icrc_blocks.hpp"
#include "nic/packet/packet_blocks.hpp"
#include "nic/translation/memory_translation.hpp"
#include "nic/transport/command_unit.hpp"
#include "nic/transport/completer.hpp"
#include "nic/transport/receive_demux.hpp"
#include "nic/transport/requester.hpp"
#include "nic/transport/responder.hpp"
#include "nic/transport/transport_config.hpp"
#include "nic/transport/transport_shared.hpp"
#include "pcie/pcie_config.hpp"
#include "wire/receive_buffer.hpp"

namespace rnicsim {

struct NicConfig {
  DmaEngineConfig dma;
  RequestSplitterConfig request_splitter;
  MemoryTranslationConfig translation;
  // Which implementation each translation cache runs (translation.mpt_cache_impl,
  // translation.mtt_cache_impl); the NIC hands the unit the makers for them.
  BlockImpl mpt_cache_impl = BlockImpl::kModel;
  BlockImpl mtt_cache_impl = BlockImpl::kModel;
  packet::PacketBlockConfig packet;
  packet::IcrcBlockConfig icrc;
  TransportConfig transport;
  NicAddress address;           // set by the testbed, per node
  std::size_t queue_items = 0;  // capacity of each channel between two blocks
  // The port's; its RoCE active MTU follows from it (roce_active_mtu).
  std::uint64_t ethernet_mtu = 0;
  // The plain Ethernet port, for experiments that run a kernel network stack;
  // without it the MAC carries RoCE alone and the wire feeds the ICRC checker.
  std::optional<EthernetPortConfig> ethernet;
};

void declare_nic_keys(config::Schema& schema);

// Node `node`'s NIC: its "nic", "dma", "request_splitter", "translation", "packet" and "icrc"
// sections; `pcie` gives the request sizes, `icm_base` where the host keeps its tables. An
// experiment that sets the MTT cache size itself passes it as `mtt_cache_entries`.
NicConfig nic_config(config::RunConfig& run, const std::string& node,
                     const pcie::PcieConfig& pcie, std::uint64_t icm_base,
                     std::optional<std::uint32_t> mtt_cache_entries = std::nullopt);

// The NIC's one port as a verbs driver reports it (ibv_query_port): active,
// Ethernet link layer, its active MTU from nic.ethernet_mtu_bytes
// (roce_active_mtu), max MTU 4096, one GID (the node's IPv4 address).
ibv_port_attr nic_port_attributes(const NicConfig& config);

class Nic : public sc_core::sc_module {
 public:
  Nic(const sc_core::sc_module_name& name, const NicConfig& config);

  // Binds the NIC's receive side to the wire's receive buffer (Testbed does).
  void connect_wire(ReceiveBuffer& wire_rx);
  // The Ethernet port; null when the NIC has none (NicConfig::ethernet).
  EthernetPort* ethernet_port() { return ethernet_.get(); }
  const EthernetPort* ethernet_port() const { return ethernet_.get(); }

  BarDecoder registers;  // host MMIO in: to `commands`, or to the Ethernet port

  DmaEngine dma_engine;
  RequestSplitter request_splitter;
  MemoryTranslation translation;

  Channel<packet::TransmitRequest> transmit;
  packet::PacketBuilder builder;
  Channel<packet::OutgoingFrame> builder2icrc;
  packet::IcrcInserter icrc_tx;
  Channel<Transfer> mac_tx;  // frames for the wire

  packet::IcrcChecker icrc_rx;  // `in` bound to the wire's receive buffer
  Channel<Transfer> icrc2parser;
  packet::PacketParser parser;
  Channel<packet::ReceivedPacket> received;

  TransportShared transport;
  NotificationPoint notification_point;  // DCQCN's (nic/congestion/); idle with dcqcn.mode off
  CommandUnit commands;
  Requester requester;
  ReceiveDemux demux;
  Responder responder;
  Completer completer;

 private:
  // With the Ethernet port: the MAC is shared (nic/ethernet/port_switch.hpp).
  //   icrc_tx --> roce_to_mac --> tx_merge --> mac_tx
  //   port    --> port_to_mac -->
  //   wire rx --> rx_steer --> steer_to_roce --> icrc_rx
  //                        --> steer_to_port --> port_rx_delay --> delay_to_port --> port
  std::unique_ptr<EthernetPort> ethernet_;
  std::unique_ptr<Channel<Transfer>> roce_to_mac_, port_to_mac_, steer_to_roce_, steer_to_port_,
      delay_to_port_;
  std::unique_ptr<FrameDelay> port_rx_delay_;
  std::unique_ptr<TxMerge> tx_merge_;
  std::unique_ptr<RxSteer> rx_steer_;
};

}  // namespace rnicsim
