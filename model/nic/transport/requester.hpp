#pragma once
// The RC requester (see transport_shared.hpp for the units).
#include <cstdint>
#include <systemc>
#include <vector>

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

  // Each engine's occupancy: the time it spent in turns.
  std::vector<sc_core::sc_time> engine_busy() const;

 private:
  // One WQE-processing engine: it takes one QP with work at a time and does
  // one turn for it (a WQE fetch, or a WQE start and its packet, or a
  // packet), waiting inside the turn for its cycles, translations and QP
  // context; the QP is its own until the turn ends, so a QP's chain is
  // serial while engines work on different QPs at once.
  struct Engine {
    std::uint32_t index = 0;
    // The WQE start_wqe is starting: the completer reads the QP's ring while
    // the translations wait, so it joins the ring only once complete.
    SendWork starting;
    SendWqe decoded;  // a WQE just decoded, copied into the QP's ring if whole
    std::uint32_t last_qpn = 0;
    bool fetch_in_flight = false;  // pick() found no work but a QP's WQE fetch in flight
    sc_core::sc_time owed;         // cycles charged with the next packet
    sc_core::sc_time busy;         // time spent in turns (occupancy)
  };

  void run(Engine& engine);
  QpContext* pick(Engine& engine);
  // Whether `engine` may take `qp` (the QP-to-engine assignment).
  bool assigned(const Engine& engine, const QpContext& qp) const;
  bool has_work(QpContext& qp) const;
  // Whether `qp`, with no work now, waits only for an event that makes it a
  // candidate again (so it may leave the candidates).
  bool idle(const QpContext& qp) const;
  // Whether `work`'s next packet is within the QP's window of unacknowledged PSNs.
  bool next_packet_in_window(const QpContext& qp, const SendWork& work) const;
  // Whether `work` is still the QP's next to send and may send now.
  bool still_next(QpContext& qp, const SendWork& work) const;
  // Whether request packet `index` of `count` (PSN `psn`) sets AckReq.
  bool asks_for_ack(const QpContext& qp, std::uint32_t index, std::uint32_t count,
                    std::uint32_t psn) const;
  void turn(Engine& engine, QpContext& qp);
  void fetch_wqes(Engine& engine, QpContext& qp);
  void take_fetched(Engine& engine, QpContext& qp);
  bool start_wqe(Engine& engine, QpContext& qp);
  void send_packet(Engine& engine, QpContext& qp, SendWork& work);
  void flush(Engine& engine, QpContext& qp);
  // A request packet's payload could not be read (the sender did not send it).
  void payload_read_failed(const packet::TransmitRequest& request);

  TransportShared& shared_;
  DmaClient dma_;
  MemoryTranslation& translation_;
  std::vector<Engine> engines_;
  BytePool fetch_buffers_;    // WQE fetches in flight
  BytePool inline_payloads_;  // inline packets' payloads, until built into frames
  sc_core::sc_event hold_over_;  // an RNR hold ends
  bool sender_in_use_ = false;   // an engine is queueing a packet at the sender
  sc_core::sc_event sender_free_;
  // What may give an idle engine work: new work or an RNR hold's end,
  // and a DMA completion while a WQE fetch is in flight (the only DMA it
  // waits for between packets; its sender takes the payload reads'). Built
  // once (`a | b` allocates).
  sc_core::sc_event_or_list work_wake_;
  sc_core::sc_event_or_list work_or_fetch_wake_;
};

}  // namespace rnicsim
