#pragma once
// The RC requester (see transport_shared.hpp for the units).
#include <cstdint>
#include <systemc>

#include "common/byte_pool.hpp"
#include "common/module_macros.hpp"
#include "nic/dma/dma_engine.hpp"
#include "nic/translation/memory_translation.hpp"
#include "nic/transport/ordered_sender.hpp"
#include "nic/transport/transport_shared.hpp"

namespace rnicsim {

class Requester : public sc_core::sc_module {
 public:
  RNICSIM_PROCESS_MODULE(Requester);
  Requester(const sc_core::sc_module_name& name, TransportShared& shared, DmaPort& port,
            MemoryTranslation& translation);

  OrderedSender sender;

 private:
  void run();
  QpContext* pick();
  bool has_work(QpContext& qp) const;
  // Whether `work`'s next packet is within the QP's window of unacknowledged PSNs.
  bool next_packet_in_window(const QpContext& qp, const SendWork& work) const;
  // Whether `work` is still the QP's next to send and may send now.
  bool still_next(QpContext& qp, const SendWork& work) const;
  // Whether request packet `index` of `count` (PSN `psn`) sets AckReq.
  bool asks_for_ack(const QpContext& qp, std::uint32_t index, std::uint32_t count,
                    std::uint32_t psn) const;
  void fetch_wqes(QpContext& qp);
  void take_fetched(QpContext& qp);
  bool start_wqe(QpContext& qp);
  void send_packet(QpContext& qp, SendWork& work);
  void flush(QpContext& qp);
  // A request packet's payload could not be read (the sender did not send it).
  void payload_read_failed(const packet::TransmitRequest& request);

  TransportShared& shared_;
  DmaClient dma_;
  MemoryTranslation& translation_;
  // The WQE start_wqe is starting: the completer reads the QP's ring while
  // the translations wait, so it joins the ring only once complete.
  SendWork starting_;
  SendWqe decoded_;  // a WQE just decoded, copied into the QP's ring if whole
  BytePool fetch_buffers_;    // WQE fetches in flight
  BytePool inline_payloads_;  // inline packets' payloads, until built into frames
  std::uint32_t last_qpn_ = 0;
  sc_core::sc_event hold_over_;  // an RNR hold ends
  // What may give an idle requester work: new work or an RNR hold's end,
  // and a DMA completion while a WQE fetch is in flight (the only DMA it
  // waits for between packets; its sender takes the payload reads'). Built
  // once (`a | b` allocates).
  sc_core::sc_event_or_list work_wake_;
  sc_core::sc_event_or_list work_or_fetch_wake_;
  bool fetch_in_flight_ = false;  // pick() found no work but a QP's WQE fetch in flight
  sc_core::sc_time owed_;        // cycles charged with the next packet
};

}  // namespace rnicsim
