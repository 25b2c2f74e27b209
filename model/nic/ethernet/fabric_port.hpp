#pragma once
// FabricPort: a NIC's Ethernet port on a switched topology, the MAC side of
// the NIC's transmit and receive paths:
//
//   nic.mac_tx --> per-priority queues --> MacPort (PFC, serialization) --> switch
//   switch --> MacPort --> rx (the NIC's receive buffer, link.rx_buffer_bytes) --> nic
//
// Transmit keeps one queue per priority (the class of the frame's DSCP, or
// its PCP when tagged): a paused priority's frames wait in theirs while the
// other priorities' leave, highest priority first. While a priority is
// paused, or its queue backs up, the port asks the NIC's scheduler to hold
// that priority's QPs (set_hold_handler), so the transmit path they share keeps
// carrying the other priorities; the queue has room for what the path
// already holds. (Frames the responder sends, READ responses and ACKs, are
// not held: a long pause of their priority can still fill its queue.)
//
// Receive: the NIC's buffer is shared by every priority, so when it holds
// more than pfc.xoff_bytes the port pauses every lossless priority, and
// resumes them at pfc.xon_bytes (a slow receiver: a PCIe-bound NIC, say).
// It counts the RoCEv2 frames that arrive marked CE, per destination QP.
#include <array>
#include <cstdint>
#include <functional>
#include <systemc>
#include <unordered_map>

#include "common/channel.hpp"
#include "common/ring_queue.hpp"
#include "common/statistics.hpp"
#include "common/transfer.hpp"
#include "formats/ip_fields.hpp"
#include "wire/mac_port.hpp"
#include "wire/receive_buffer.hpp"

namespace rnicsim {

struct FabricPortConfig {
  MacPortConfig mac;
  packet::DscpClasses dscp_classes{};
  // A priority's queue asks the NIC to hold its QPs at this many frames and
  // releases them at half; it holds four times as many, room for the frames
  // already inside the NIC's transmit path when the hold begins.
  std::size_t queue_frames = 64;
  std::uint64_t rx_buffer_bytes = 0;
};

struct FabricPortStats {
  std::uint64_t ce_marked = 0;  // RoCEv2 frames received marked Congestion Experienced
};
const StatisticsTable<FabricPortStats>& fabric_port_statistics();

class FabricPort : public sc_core::sc_module,
                   private TransmitQueues,
                   private EarlyReaderIf<Transfer> {
 public:
  // `mac_tx`: the NIC's transmit channel; when it offers early takes
  // (common/channel.hpp) a frame visible at once goes straight to its queue.
  FabricPort(const sc_core::sc_module_name& name, const FabricPortConfig& config,
             Channel<Transfer>& mac_tx);

  MacPort mac;
  ReceiveBuffer rx;  // bind the NIC's receive side here

  // The priority the port gives a frame.
  std::uint8_t priority_of(const Transfer& frame) const;
  const FabricPortStats& stats() const { return stats_; }
  // Called with the priorities whose queues are backed up, when that changes.
  void set_hold_handler(std::function<void(std::uint8_t held)> handler) {
    hold_handler_ = std::move(handler);
  }
  // CE-marked frames received for the NIC's QP `qpn` (the BTH destination
  // QP): what a notification point turns into CNPs.
  std::uint64_t ce_marked(std::uint32_t qpn) const {
    const auto it = ce_by_qp_.find(qpn);
    return it == ce_by_qp_.end() ? 0 : it->second;
  }

 private:
  bool next_frame(std::uint8_t paused, Transfer& frame) override;
  bool waiting() const override;
  bool take_early(Transfer& frame, const sc_core::sc_time& visible,
                  sc_core::sc_time& taken_at) override;
  void pull();
  bool fill();
  void received(Transfer&& frame);
  void check_buffer();

  FabricPortConfig config_;
  NbPopIf<Transfer>& mac_tx_;
  std::array<RingQueue<Transfer>, packet::kPfcPriorities> queues_;
  sc_core::sc_event pull_event_;
  void update_holds();

  std::uint8_t held_ = 0;
  std::uint8_t paused_ = 0;  // priorities the MAC may not send now
  std::function<void(std::uint8_t)> hold_handler_;
  FabricPortStats stats_;
  std::unordered_map<std::uint32_t, std::uint64_t> ce_by_qp_;
};

}  // namespace rnicsim
