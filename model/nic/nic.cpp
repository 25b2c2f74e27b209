#include "nic/nic.hpp"

#include "common/clock_domain.hpp"
#include "nic/dma/dma_config.hpp"
#include "nic/dma/request_splitter_rtl.hpp"
#include "nic/packet/icrc_rtl.hpp"
#include "nic/packet/packet_parser_rtl.hpp"
#include "nic/translation/translation_cache_rtl.hpp"
#include "nic/translation/translation_config.hpp"

namespace rnicsim {

void declare_nic_keys(config::Schema& schema) {
  schema.add(config::integer_key("nic.queue_items", 64, "items",
                                 "capacity of each channel between two of the NIC's blocks, "
                                 "counting items still in the previous block's latency")
                 .at_least(1)
                 .at_most(65536));
  schema.add(config::integer_key("nic.ethernet_mtu_bytes", 1500, "bytes",
                                 "the port's Ethernet MTU; its RoCE active MTU (ibv_query_port) "
                                 "is the largest IB MTU that fits with 96 B of headers (1500 "
                                 "gives 1024, 4200 gives 4096); a connection runs at the smaller "
                                 "of its two ends' (perf: and at -m when that is smaller)")
                 .at_least(352)
                 .at_most(9216));
}

NicConfig nic_config(config::RunConfig& run, const std::string& node, const pcie::PcieConfig& pcie,
                     std::uint64_t icm_base, std::optional<std::uint32_t> mtt_cache_entries) {
  NicConfig c;
  c.dma = dma_engine_config(run.node_section(node, "dma"));
  c.request_splitter = request_splitter_config(run.node_section(node, "request_splitter"), pcie);
  c.translation =
      memory_translation_config(run.node_section(node, "translation"), icm_base, mtt_cache_entries);
  c.mpt_cache_impl = parse_block_impl(run.node_section(node, "translation").text("mpt_cache_impl"));
  c.mtt_cache_impl = parse_block_impl(run.node_section(node, "translation").text("mtt_cache_impl"));
  c.packet = packet::packet_block_config(run.node_section(node, "packet"));
  c.icrc = packet::icrc_block_config(run.node_section(node, "icrc"));
  c.transport = transport_config(run.node_section(node, "transport"));
  c.queue_items = run.node_section(node, "nic").integer("queue_items");
  c.ethernet_mtu = run.node_section(node, "nic").integer("ethernet_mtu_bytes");
  return c;
}

ibv_port_attr nic_port_attributes(const NicConfig& config) {
  ibv_port_attr port;
  port.state = IBV_PORT_ACTIVE;
  port.max_mtu = IBV_MTU_4096;
  port.active_mtu = roce_active_mtu(static_cast<std::uint32_t>(config.ethernet_mtu));
  port.gid_tbl_len = 1;
  port.link_layer = IBV_LINK_LAYER_ETHERNET;
  return port;
}

Nic::Nic(const sc_core::sc_module_name& name, const NicConfig& config)
    : sc_core::sc_module(name),
      registers("registers"),
      dma_engine("dma_engine", config.dma),
      request_splitter("request_splitter", config.request_splitter,
                       rtl_bridge::make_split_engine(config.request_splitter.impl,
                                                     config.request_splitter.sizes())),
      translation(
          "translation", config.translation,
          rtl_bridge::make_entry_cache_makers(config.mpt_cache_impl, config.mtt_cache_impl)),
      transmit("transmit", config.queue_items),
      builder("builder", config.packet.builder),
      builder2icrc("builder2icrc", config.queue_items),
      icrc_tx("icrc_tx", config.icrc.timing,
              rtl_bridge::make_icrc_engine(config.icrc.impl, config.icrc.bytes_per_cycle)),
      mac_tx("mac_tx", config.queue_items),
      icrc_rx("icrc_rx", config.icrc.timing,
              rtl_bridge::make_icrc_engine(config.icrc.impl, config.icrc.bytes_per_cycle)),
      icrc2parser("icrc2parser", config.queue_items),
      parser("parser", config.packet.parser,
             rtl_bridge::make_parser_engine(config.packet.parser_impl,
                                            config.packet.parser_bytes_per_cycle)),
      received("received", config.queue_items),
      transport(config.transport, config.address),
      notification_point("notification_point", transport),
      commands("commands", transport, dma_engine.attach("commands", 2), translation),
      requester("requester", transport,
                dma_engine.attach("requester", config.transport.payload_reads), translation),
      demux("demux", config.queue_items,
            ClockDomain(config.transport.clock_mhz).cycles(config.transport.receive_latency_cycles),
            transport, notification_point),
      responder("responder", transport,
                dma_engine.attach("responder", config.transport.responder_dma), translation,
                demux.requests),
      completer("completer", transport,
                dma_engine.attach("completer", config.transport.completer_dma)) {
  registers.to_commands.bind(commands.pcie2nic);
  if (config.transport.context_prefetches > 0) {
    transport.attach_prefetch_port(
        dma_engine.attach("context_prefetch", config.transport.context_prefetches));
  }
  dma_engine.dma2split.bind(request_splitter.dma2split);
  translation.walker2dma.socket.bind(dma_engine.nic2dma);
  builder.in(transmit);
  builder.out(builder2icrc);
  icrc_tx.in(builder2icrc);
  icrc_rx.out(icrc2parser);
  parser.in(icrc2parser);
  parser.out(received);
  requester.sender.out(transmit);
  responder.sender.out(transmit);
  notification_point.out(transmit);
  demux.in(received);
  responder.in(demux.requests);
  completer.in(demux.responses);
  if (!config.ethernet) {
    icrc_tx.out(mac_tx);
    return;
  }
  const EthernetPortConfig& port = *config.ethernet;
  ethernet_ = std::make_unique<EthernetPort>(
      "ethernet", port, dma_engine.attach("ethernet", port.reads_in_flight + 64));
  registers.attach_ethernet_port(ethernet_.get());
  roce_to_mac_ = std::make_unique<Channel<Transfer>>("roce_to_mac", config.queue_items);
  port_to_mac_ = std::make_unique<Channel<Transfer>>("port_to_mac", config.queue_items);
  steer_to_roce_ = std::make_unique<Channel<Transfer>>("steer_to_roce", config.queue_items);
  steer_to_port_ = std::make_unique<Channel<Transfer>>("steer_to_port", port.queue_items);
  delay_to_port_ = std::make_unique<Channel<Transfer>>("delay_to_port", port.queue_items);
  port_rx_delay_ = std::make_unique<FrameDelay>("port_rx_delay", port.frame_latency);
  tx_merge_ = std::make_unique<TxMerge>("tx_merge");
  rx_steer_ = std::make_unique<RxSteer>("rx_steer");
  icrc_tx.out(*roce_to_mac_);
  ethernet_->tx_out(*port_to_mac_);
  tx_merge_->in(*roce_to_mac_);
  tx_merge_->in(*port_to_mac_);
  tx_merge_->out(mac_tx);
  rx_steer_->out(*steer_to_roce_);  // RxSteer::kRocePort
  rx_steer_->out(*steer_to_port_);  // RxSteer::kEthernetPort
  icrc_rx.in(*steer_to_roce_);
  port_rx_delay_->in(*steer_to_port_);
  port_rx_delay_->out(*delay_to_port_);
  ethernet_->rx_in(*delay_to_port_);
}

void Nic::connect_wire(ReceiveBuffer& wire_rx) {
  if (rx_steer_) {
    rx_steer_->in(wire_rx);
  } else {
    icrc_rx.in(wire_rx);
  }
}

}  // namespace rnicsim
