#pragma once
// Nic: the NIC's blocks and their wiring, nothing else.
//
//   translation.walker2dma   --> dma_engine.nic2dma        (table walks are DMA reads)
//   dma_engine.dma2split     --> request_split.dma2split   (requests cut into TLPs)
//   request_split.split2pcie --> the host's PCIe link      (bound by Node)
//
//   transmit --> builder --> icrc_tx --> mac_tx ......... the wire (bound by Testbed)
//   the wire's receive buffer ..> icrc_rx --> parser --> received
//
//   host MMIO --> commands (doorbells, BlueFlame, driver commands)
//   commands --> translation   (a deregistration command drops cached entries)
//   requester ------------------------------------------> transmit
//   received --> demux --> responder (requests) ---------> transmit
//                      --> completer (responses)
//
// The transport units (transport/rc_units.hpp) share the QP and CQ contexts
// and each has its own DMA port; the requester and responder translate
// through `translation`. `transmit` takes their packet descriptors;
// `received` holds the packets that passed the ICRC and header checks.
// Blocks keep their own timing, config keys and statistics; see their READMEs.
#include <cstdint>
#include <optional>
#include <string>
#include <systemc>

#include "common/block_impl.hpp"
#include "common/channel.hpp"
#include "config/config.hpp"
#include "config/run_config.hpp"
#include "dma/dma_engine.hpp"
#include "dma/request_splitter.hpp"
#include "mtt/memory_translation.hpp"
#include "packet/icrc_blocks.hpp"
#include "packet/packet_blocks.hpp"
#include "pcie/pcie_config.hpp"
#include "transport/rc_units.hpp"
#include "transport/transport_config.hpp"

namespace rnicsim {

struct NicConfig {
  DmaEngineConfig dma;
  RequestSplitterConfig request_split;
  MemoryTranslationConfig translation;
  // Which implementation each translation cache runs (mtt.mpt_cache_impl,
  // mtt.mtt_cache_impl); the NIC hands the unit the makers for them.
  BlockImpl mpt_cache_impl = BlockImpl::kModel;
  BlockImpl mtt_cache_impl = BlockImpl::kModel;
  packet::PacketBlockConfig packet;
  packet::IcrcBlockConfig icrc;
  TransportConfig transport;
  NicAddress address;           // set by the testbed, per node
  std::size_t queue_items = 0;  // capacity of each channel between two blocks
  std::uint64_t ethernet_mtu = 0;  // the port's; its RoCE active MTU follows from it
};

void declare_nic_keys(config::Schema& schema);

// Node `node`'s NIC: its "nic", "dma", "request_split", "mtt", "packet" and "icrc" sections;
// `pcie` gives the request sizes, `icm_base` where the host keeps its tables.
// An experiment that sets the MTT cache size itself passes it as `mtt_cache_entries`.
NicConfig nic_config(config::RunConfig& run, const std::string& node,
                     const pcie::PcieConfig& pcie, std::uint64_t icm_base,
                     std::optional<std::uint32_t> mtt_cache_entries = std::nullopt);

class Nic : public sc_core::sc_module {
 public:
  Nic(const sc_core::sc_module_name& name, const NicConfig& config);

  DmaEngine dma_engine;
  RequestSplitter request_split;
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
  CommandUnit commands;
  Requester requester;
  ReceiveDemux demux;
  Responder responder;
  Completer completer;
};

}  // namespace rnicsim
