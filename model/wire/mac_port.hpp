#pragma once
// MacPort: one Ethernet port of a fabric, both directions: a MAC that
// serializes frames onto its cable and one that receives the peer's. Switch
// ports and NIC ports on a switched topology are the same MacPort, so PFC
// (wire/pfc.hpp) has one implementation:
//
//   queues --next_frame(paused)--> transmit --cable--> peer.arrive --> deliver
//   receive: a PFC frame pauses or resumes this port's own transmit
//   buffer_level(priorities, bytes): the owner's receive buffer for them; past
//                     XOFF (or back at XON) one pause (or resume) goes out
//                     ahead of data
// The PFC arithmetic is the port's PfcUnit (wire/pfc_unit.hpp), the model's or
// the verilated RTL twin's by pfc.impl.
//
// Timing is arithmetic: a frame occupies the cable for its framed bits
// (FCS, minimum-frame padding, preamble and gap) at the port's rate; its last
// bit reaches the peer a propagation delay after it left. The MAC asks its
// queues for a frame only when it is free, so a pause that arrives while a
// frame is being serialized stops the next one, never that one. The cable
// never waits for the receiver: what the receiver cannot hold it drops.
#include <cstdint>
#include <functional>
#include <memory>
#include <systemc>
#include <vector>

#include "common/ring_queue.hpp"
#include "common/statistics.hpp"
#include "common/transfer.hpp"
#include "formats/mac_control.hpp"
#include "wire/pfc.hpp"
#include "wire/pfc_unit.hpp"
#include "wire/wire_framing.hpp"

namespace rnicsim {

// The frames a MAC may send. It asks whenever it is free to start one.
class TransmitQueues {
 public:
  virtual ~TransmitQueues() = default;
  // The next frame, of a priority whose bit in `paused` is clear; false when
  // there is none.
  virtual bool next_frame(std::uint8_t paused, Transfer& frame) = 0;
  // Whether any frame waits, paused or not. The MAC looks again at the end
  // of a frame only then; queues that get a frame later call wake_transmit.
  virtual bool waiting() const = 0;
};

struct MacPortConfig {
  double gbps = 100;
  sc_core::sc_time propagation;  // last bit out to last bit in
  PfcConfig pfc;
  packet::MacAddress address{};  // the source of the port's pause frames
};

struct MacPortStats {
  std::uint64_t frames_sent = 0;  // data frames, pauses excluded
  std::uint64_t bytes_sent = 0;
  std::uint64_t frames_received = 0;
  std::uint64_t bytes_received = 0;
  std::uint64_t pause_frames_sent = 0;  // PFC frames, pauses and resumes
  std::uint64_t pause_frames_received = 0;
};
const StatisticsTable<MacPortStats>& mac_port_statistics();

struct MacPriorityStats {
  std::uint64_t pauses_sent = 0;  // PFC frames asking this priority to pause
  std::uint64_t resumes_sent = 0;
  std::uint64_t pauses_received = 0;  // honoured (lossless priority, PFC on)
  std::uint64_t resumes_received = 0;
  sc_core::sc_time paused;  // time this port could not send the priority
};
const StatisticsTable<MacPriorityStats>& mac_priority_statistics();

class MacPort : public sc_core::sc_module {
 public:
  using Deliver = std::function<void(Transfer&& frame)>;
  using Tap = std::function<void(const Transfer& frame, const sc_core::sc_time& first_bit)>;

  // `deliver` gets each received frame that is not a MAC Control frame, as
  // its last bit arrives.
  MacPort(const sc_core::sc_module_name& name, const MacPortConfig& config, TransmitQueues& queues,
          Deliver deliver);

  // The cable: this port's frames go to `peer` (call once per direction).
  void connect(MacPort& peer) { peer_ = &peer; }
  // Frames were queued: the MAC starts one now if it is idle (in the
  // caller's activation), else looks again when the frame on the cable ends.
  void wake_transmit();
  // The receiving side's buffer holds `bytes` for `priorities` (bit p:
  // priority p): above XOFF, or back at XON, one pause or resume naming the
  // lossless ones whose state changes goes out next, and the pause is sent
  // again every refresh while any stays congested.
  void buffer_level(std::uint8_t priorities, std::uint64_t bytes);
  // Asked at every refresh, before the pause is sent again: the owner may
  // re-examine its buffer (buffer_level) for a drain it could not see.
  void set_recheck(std::function<void()> recheck) { recheck_ = std::move(recheck); }
  // Every frame the port sends is shown to each tap (a capture, a meter).
  void add_tap(Tap tap) { taps_.push_back(std::move(tap)); }
  // Called with the priorities this port may not send (bit p), whenever a
  // pause or resume arrives or a pause runs out.
  void set_pause_handler(std::function<void(std::uint8_t paused)> handler) {
    pause_handler_ = std::move(handler);
  }

  // The peer's side of the cable: `frame`'s last bit arrives at `arrives_at`.
  void arrive(Transfer&& frame, const sc_core::sc_time& arrives_at);

  const MacPortStats& stats() const { return stats_; }
  MacPriorityStats priority_stats(unsigned priority) const;
  // Bit i: priority i may not start a frame now.
  std::uint8_t paused_now();

 private:
  struct Arrival {
    sc_core::sc_time at;
    Transfer frame;
  };

  void transmit();
  void start_next(const sc_core::sc_time& now);
  void receive();
  void refresh();
  void report_pauses();
  void send(Transfer&& frame, const sc_core::sc_time& now);
  // Moves the PFC unit's new frames to the control queue, and arms the
  // refresh for when the unit has one due.
  void take_pfc_frames();
  // Before a call into the PFC unit that a refresh is due by: the owner's
  // recheck first.
  void recheck_before_refresh();

  MacPortConfig config_;
  TransmitQueues& queues_;
  Deliver deliver_;
  MacPort* peer_ = nullptr;
  WireFraming framing_;
  std::unique_ptr<PfcUnit> pfc_;
  std::vector<Tap> taps_;
  std::function<void()> recheck_;
  std::function<void(std::uint8_t)> pause_handler_;
  std::uint8_t reported_paused_ = 0;
  sc_core::sc_event expiry_event_;

  sc_core::sc_time busy_until_;
  bool choosing_ = false;        // start_next is running: a wake-up from inside it waits a delta
  RingQueue<Transfer> control_;  // pause frames, sent ahead of data
  std::uint64_t refresh_at_ps_ = 0;  // when the unit's refresh falls due; 0: none armed
  bool rechecking_ = false;
  RingQueue<Arrival> arrivals_;  // on the cable toward this port, in order
  std::uint64_t frames_built_ = 0;
  sc_core::sc_event transmit_event_;
  sc_core::sc_event receive_event_;
  sc_core::sc_event refresh_event_;
  MacPortStats stats_;
  MacPriorityStats priority_stats_[packet::kPfcPriorities];
};

}  // namespace rnicsim
