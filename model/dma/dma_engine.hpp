#pragma once
// DmaEngine: the NIC's PCIe requester. NIC blocks hand it DMA requests (a
// TLM-2.0 blocking call on `nic2dma`: read or write, one contiguous range or
// a scatter/gather list of physical segments); it cuts each request into TLPs
// (reads at MRRS, writes at MPS, never across 4 KiB), keeps at most `read_tags`
// reads in flight across all requests, and returns when the request is done:
// a read when its last completion has arrived (the data then sits in the
// caller's buffer, in segment order), a write when its last TLP has left
// (writes are posted). Requests from several callers interleave TLP by TLP.
// A request whose segments do not add up to its data length, with byte
// enables, or neither read nor write, gets TLM_GENERIC_ERROR_RESPONSE.
#include <cstdint>
#include <deque>
#include <memory>
#include <systemc>
#include <tlm>
#include <tlm_utils/multi_passthrough_target_socket.h>
#include <tlm_utils/simple_initiator_socket.h>
#include <unordered_map>
#include <vector>

namespace rnicsim {

// Attach to a request's generic payload to give its physical segments; the
// payload's data buffer holds the segments' bytes back to back and its length
// is their sum. Without it the request is the payload's address and length.
struct DmaScatterGather : tlm::tlm_extension<DmaScatterGather> {
  struct Segment {
    std::uint64_t address;
    std::uint32_t length;
  };
  std::vector<Segment> segments;

  tlm::tlm_extension_base* clone() const override { return new DmaScatterGather(*this); }
  void copy_from(const tlm::tlm_extension_base& other) override {
    segments = static_cast<const DmaScatterGather&>(other).segments;
  }
};

struct DmaEngineConfig {
  std::uint32_t read_tags = 0;   // outstanding read requests (PCIe tags)
  std::uint32_t mrrs_bytes = 0;  // max read request size
  std::uint32_t mps_bytes = 0;   // max payload size
};

// Counts over every request so far (no per-request list: a run may make billions).
struct DmaEngineStats {
  std::uint64_t read_requests = 0;
  std::uint64_t write_requests = 0;
  std::uint64_t bytes_read = 0;
  std::uint64_t bytes_written = 0;
  std::uint64_t tlps = 0;            // MRd and MWr TLPs sent
  std::uint64_t failed_requests = 0; // answered with an error response
};

class DmaEngine : public sc_core::sc_module {
 public:
  tlm_utils::multi_passthrough_target_socket<DmaEngine, 32, tlm::tlm_base_protocol_types, 0,
                                             sc_core::SC_ZERO_OR_MORE_BOUND>
      nic2dma;
  tlm_utils::simple_initiator_socket<DmaEngine> dma2pcie;

  DmaEngine(const sc_core::sc_module_name& name, const DmaEngineConfig& config);

  const DmaEngineStats& stats() const { return stats_; }
  std::uint32_t free_tags() const { return free_tags_; }

 private:
  struct Request {
    std::uint32_t outstanding_reads = 0;
    bool failed = false;
    sc_core::sc_event reads_done;
  };

  void b_transport(int initiator, tlm::tlm_generic_payload& request, sc_core::sc_time& delay);
  tlm::tlm_sync_enum nb_transport_bw(tlm::tlm_generic_payload& tlp, tlm::tlm_phase& phase,
                                     sc_core::sc_time& delay);
  // Sends one TLP and waits until it has left the NIC.
  void send(tlm::tlm_generic_payload& tlp);
  tlm::tlm_generic_payload* acquire_tlp();
  // Read tags go to waiting requests first come, first served: a freed tag is
  // handed to the oldest waiter, which alone wakes (however many wait).
  void acquire_tag();
  void release_tag();

  DmaEngineConfig config_;
  std::uint32_t free_tags_;
  std::deque<sc_core::sc_event*> tag_waiters_;   // oldest first
  bool request_port_busy_ = false;               // a TLP between BEGIN_REQ and END_REQ
  std::deque<sc_core::sc_event*> port_waiters_;  // senders waiting for the port, oldest first
  std::vector<std::unique_ptr<tlm::tlm_generic_payload>> tlp_pool_;
  std::vector<tlm::tlm_generic_payload*> free_tlps_;
  std::unordered_map<tlm::tlm_generic_payload*, Request*> read_owner_;
  DmaEngineStats stats_;
};

}  // namespace rnicsim
