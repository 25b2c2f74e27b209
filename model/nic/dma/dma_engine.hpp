#pragma once
// DmaEngine: the NIC's PCIe requester. NIC blocks attach to it on ports of
// their own (DmaPort) and hand it tagged DMA requests (read or write, up to
// kMaxDmaSegments physical segments, and their buffer); each gets a completion
// with its tag when the data is complete. The engine keeps at most `read_tags`
// memory reads in flight across all requesters (a PCIe tag each) and has the
// request splitter cut its requests into TLPs, which the PCIe link books.
//
// Windows. The engine does not step TLP by TLP: it books windows. A read
// window gives every tag whose last read has left the NIC its next read,
// which leaves when the tag is free (the link knows when: completions are
// booked arithmetically), and the engine looks again once every tag's read has
// left. A request with at most `read_window_tlps` MRds left is booked whole:
// where the ready tags are too few, it also takes the tags whose reads leave
// next, about as the next look would give them (its MRds still leave only
// when their tags are free), so a packet's payload read is one window, not
// two. Its port's next request is then cut one look earlier. A write window
// is at most `write_window_tlps` posted writes, and the next is booked when it
// has left. Requesters with work share each window
// (round robin, the first turn rotating), so a small request waits for at most
// one window of another requester's TLPs, however large its request. Requests
// of one requester are cut in the order they came; their completions come in
// the order their data was complete, which for a read after a write is the
// order they came (reads do not pass posted writes), while a write can
// complete before an earlier, slower read.
//
// `nic2dma` keeps the blocking TLM-2.0 interface for blocks written as
// threads (one range, or segments in a DmaScatterGather extension): each
// initiator bound to it gets a port of its own, and the call returns when the
// request's completion comes (TLM_ADDRESS_ERROR_RESPONSE for a failed read,
// TLM_GENERIC_ERROR_RESPONSE for a malformed request).
#include <cstdint>
#include <memory>
#include <string>
#include <systemc>
#include <tlm>
#include <tlm_utils/multi_passthrough_target_socket.h>
#include <vector>

#include "common/module_macros.hpp"
#include "common/ring_queue.hpp"
#include "nic/dma/dma_request.hpp"
#include "nic/dma/request_splitter.hpp"
#include "pcie/tlp_list.hpp"
#include "common/statistics.hpp"

namespace rnicsim {

// Attach to a request's generic payload to give its physical segments; the
// payload's data buffer holds the segments' bytes back to back and its length
// is their sum. Without it the request is the payload's address and length.
struct DmaScatterGather : tlm::tlm_extension<DmaScatterGather> {
  std::vector<DmaSegment> segments;

  tlm::tlm_extension_base* clone() const override { return new DmaScatterGather(*this); }
  void copy_from(const tlm::tlm_extension_base& other) override {
    segments = static_cast<const DmaScatterGather&>(other).segments;
  }
};

struct DmaEngineConfig {
  std::uint32_t read_tags = 0;          // outstanding memory reads (PCIe tags)
  std::uint32_t write_window_tlps = 0;  // posted write TLPs booked at once
  // A read request with at most this many MRds left is booked whole: the
  // MRds the ready tags cannot take go on the tags whose reads leave next
  // (0: a read window takes ready tags only).
  std::uint32_t read_window_tlps = 0;
};

// Counts over every request so far (no per-request list: a run may make billions).
struct DmaEngineStats {
  std::uint64_t read_requests = 0;
  std::uint64_t write_requests = 0;
  std::uint64_t bytes_read = 0;
  std::uint64_t bytes_written = 0;
  std::uint64_t tlps = 0;             // MRd and MWr TLPs sent
  std::uint64_t failed_requests = 0;  // completed with an error status
  std::uint64_t windows = 0;          // windows of TLPs booked
  std::uint64_t activations = 0;      // runs of the engine's scheduling process
};

// DmaEngineStats's names, units and meanings (common/statistics.hpp).
const StatisticsTable<DmaEngineStats>& dma_engine_statistics();

class DmaEngine;

// Told of each completion a port receives, in the process that completes it
// (the root complex's, as a rule), before the port's completion event wakes
// anyone: a consumer that never waits (a method's work) can take the
// completion there, and the kernel runs no process of its own for it.
class DmaCompletionListener {
 public:
  virtual ~DmaCompletionListener() = default;
  virtual void completion_arrived() = 0;
};

// One requester's attachment to the DMA engine: requests go in, completions
// come out, both without blocking. It holds at most `capacity` requests in
// flight plus completions not yet popped: a requester's own limit.
class DmaPort {
 public:
  const std::string& requester() const { return requester_; }
  std::uint32_t capacity() const { return static_cast<std::uint32_t>(slots_.size()); }
  // Requests in flight plus completions waiting to be popped.
  std::uint32_t occupancy() const {
    return capacity() - static_cast<std::uint32_t>(free_slots_.size()) +
           static_cast<std::uint32_t>(completions_.size());
  }
  bool can_request() const { return occupancy() < capacity(); }
  // Hands the engine a request at the current time (an error without room).
  void request(const DmaRequest& request);
  bool has_completion() const { return !completions_.empty(); }
  // The oldest completion (an error when there is none).
  DmaCompletion pop_completion();
  // Notified when a completion arrives.
  const sc_core::sc_event& completion_event() const { return completion_event_; }
  // Notified when a completion is popped: room for another request.
  const sc_core::sc_event& space_event() const { return space_event_; }
  // One listener per port (nullptr: none); it must not wait, nor request.
  void set_completion_listener(DmaCompletionListener* listener) { listener_ = listener; }

 private:
  friend class DmaEngine;
  struct Slot {
    DmaRequest request;
    std::uint64_t length = 0;
    std::uint64_t booked = 0;        // bytes cut into TLPs so far
    std::uint32_t next_segment = 0;  // where booking goes on
    std::uint32_t segment_offset = 0;
    std::uint32_t windows = 0;       // booked and not done
    bool failed = false;
  };

  DmaPort(DmaEngine& engine, std::string requester, std::uint32_t capacity, bool adapter);
  void add_slots(std::uint32_t count);

  DmaEngine& engine_;
  std::string requester_;
  // The blocking adapter's port: grows with its callers, and completions go
  // straight back to them.
  bool adapter_;
  std::vector<Slot> slots_;
  std::vector<std::uint32_t> free_slots_;
  RingQueue<std::uint32_t> unbooked_;  // slots with bytes still to cut, oldest first
  RingQueue<DmaCompletion> completions_;
  sc_core::sc_event completion_event_;
  sc_core::sc_event space_event_;
  DmaCompletionListener* listener_ = nullptr;
};

class DmaEngine : public sc_core::sc_module, private pcie::TlpWindowListener {
 public:
  tlm_utils::multi_passthrough_target_socket<DmaEngine, 32, tlm::tlm_base_protocol_types, 0,
                                             sc_core::SC_ZERO_OR_MORE_BOUND>
      nic2dma;
  sc_core::sc_port<RequestSplitterIf> dma2split;

  RNICSIM_PROCESS_MODULE(DmaEngine);
  DmaEngine(const sc_core::sc_module_name& name, const DmaEngineConfig& config);

  // A port for one requester keeping at most `max_in_flight` requests; during
  // elaboration. The engine owns it.
  DmaPort& attach(const std::string& requester, std::uint32_t max_in_flight);

  const DmaEngineStats& stats() const { return stats_; }
  // Tags whose read has completed by now.
  std::uint32_t free_tags() const;

 private:
  friend class DmaPort;
  struct Tag {
    sc_core::sc_time free_at;  // its read's last completion has arrived
    sc_core::sc_time sent_by;  // its read has left the NIC: the tag may take the next
  };
  struct Window : pcie::TlpWindow {
    DmaPort* port = nullptr;
    std::uint32_t slot = 0;
  };
  struct AdapterCall {
    sc_core::sc_event done;
    std::uint32_t outstanding = 0;
    bool failed = false;
  };

  void end_of_elaboration() override;
  void b_transport(int initiator, tlm::tlm_generic_payload& request, sc_core::sc_time& delay);
  void schedule();
  bool book_reads(const sc_core::sc_time& now);
  // Moves the tags whose read has left by `now` from sending_tags_ into
  // ready_tags_; whether any tag is ready.
  bool collect_ready_tags(const sc_core::sc_time& now);
  // The first `used` ready tags took reads: they are sending again.
  void release_ready_tags(std::size_t used);
  bool frees_sooner(std::uint32_t a, std::uint32_t b) const {
    return tags_[a].free_at != tags_[b].free_at ? tags_[a].free_at < tags_[b].free_at : a < b;
  }
  bool book_writes(const sc_core::sc_time& now);
  // The port's oldest request with bytes to cut, if it is of `op` (requests
  // with nothing left to cut leave the queue, completing if they were empty).
  DmaPort::Slot* head(DmaPort& port, DmaOp op, const sc_core::sc_time& now);
  // Ports whose head request is of `op`, the round robin's first turn first.
  void collect_ports(DmaOp op, const sc_core::sc_time& now);
  // A window on the port's request `slot`: its runs are every byte still to cut.
  Window& open_window(DmaPort& port, DmaPort::Slot& slot);
  // Has up to `max_tlps` TLPs cut from the window's start and booked.
  BookedTlps book_window(Window& window, std::uint32_t max_tlps, const sc_core::sc_time* earliest);
  // When the `ready` tags left cannot finish the window's request and at
  // most read_window_tlps of its MRds are left, moves the tags whose reads
  // leave soonest behind the ready ones, as many as it lacks; how many.
  std::size_t add_next_tags(const Window& window, std::size_t ready);
  void window_done(pcie::TlpWindow& window) override;
  void complete(DmaPort& port, std::uint32_t slot, const sc_core::sc_time& now);

  DmaEngineConfig config_;
  std::vector<Tag> tags_;
  // Every tag is in one of the two, so a look costs the tags that change
  // list, not every tag. Ready: its read has left, so it may take the next;
  // free soonest first (ties: lowest tag), the order tags take reads in.
  std::vector<std::uint32_t> ready_tags_;
  std::vector<std::uint32_t> sending_tags_;  // its read has not left yet; leaving soonest first
  std::vector<sc_core::sc_time> earliest_;  // scratch
  sc_core::sc_time writes_sent_by_;        // the last write window has left the NIC
  sc_core::sc_time reads_sent_by_;         // every tag's last read has left the NIC
  std::vector<std::unique_ptr<DmaPort>> ports_;
  std::vector<DmaPort*> active_;           // scratch
  std::vector<DmaPort*> adapter_ports_;    // by nic2dma initiator
  std::size_t first_turn_ = 0;
  std::uint32_t unbooked_requests_ = 0;    // requests with bytes to cut, over all ports
  bool elaborated_ = false;
  std::vector<std::unique_ptr<Window>> windows_;
  std::vector<Window*> free_windows_;
  std::vector<std::unique_ptr<AdapterCall>> calls_;
  std::vector<std::uint32_t> free_calls_;
  sc_core::sc_event wake_;
  DmaEngineStats stats_;
};

}  // namespace rnicsim
