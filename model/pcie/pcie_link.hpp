#pragma once
// PcieLink: the PCIe link between a NIC and its host, with the host's root
// complex and optional IOMMU.
//
//   NIC --nic2pcie (windows of TLPs)--> [upstream]   --> root complex --pcie2mem--> host memory
//   NIC <-------- completions --------- [downstream] <--
//   host CPU --host2pcie (MMIO writes, LT)--------> [downstream] --pcie2nic--> NIC registers
//
// The NIC books a window of TLPs at a time (TlpListIf): the link works out,
// arithmetically, when each TLP leaves the NIC, when the root complex answers
// a read (its latency, the IOMMU's, any earlier posted write) and when the
// completions have crossed back, and calls the window's listener once, when
// its last TLP is done: for reads the data is then in the requester's buffer,
// for writes in host memory. Reads are copied from host memory when the
// window is done, so a posted write that reaches memory before then shows in
// them (PCIe lets posted writes pass reads); posted writes stay in order,
// and reads do not pass them.
//
// Each direction serializes TLPs and DLLPs at the link rate; a receiver
// returns an ACK and an UpdateFC DLLP on the other direction per configured
// number of bytes received, booked once per window (README.md says why).
#include <cstdint>
#include <functional>
#include <memory>
#include <systemc>
#include <tlm>
#include <tlm_utils/multi_passthrough_initiator_socket.h>
#include <tlm_utils/multi_passthrough_target_socket.h>
#include <tlm_utils/simple_initiator_socket.h>
#include <vector>

#include "common/module_macros.hpp"
#include "pcie/iotlb.hpp"
#include "pcie/link_direction.hpp"
#include "pcie/pcie_config.hpp"
#include "pcie/tlp_list.hpp"
#include "common/statistics.hpp"

namespace rnicsim::pcie {

struct PcieLinkStats {
  std::uint64_t read_requests = 0;
  std::uint64_t completions = 0;
  std::uint64_t write_requests = 0;
  std::uint64_t mmio_writes = 0;
  std::uint64_t unsupported_requests = 0;  // reads completed with an error, writes dropped
  std::uint64_t windows = 0;               // windows of TLPs booked
  std::uint64_t activations = 0;           // runs of the root complex's process
};

// PcieLinkStats's names, units and meanings (common/statistics.hpp).
const StatisticsTable<PcieLinkStats>& pcie_link_statistics();

class PcieLink : public sc_core::sc_module, public TlpListIf {
 public:
  sc_core::sc_export<TlpListIf> nic2pcie;
  tlm_utils::simple_initiator_socket<PcieLink> pcie2mem;
  tlm_utils::multi_passthrough_target_socket<PcieLink, 32, tlm::tlm_base_protocol_types, 0,
                                             sc_core::SC_ZERO_OR_MORE_BOUND>
      host2pcie;
  tlm_utils::multi_passthrough_initiator_socket<PcieLink, 32, tlm::tlm_base_protocol_types, 1,
                                                sc_core::SC_ZERO_OR_MORE_BOUND>
      pcie2nic;

  RNICSIM_PROCESS_MODULE(PcieLink);
  PcieLink(const sc_core::sc_module_name& name, const PcieConfig& config);

  void book(TlpWindow& window, Tlp* tlps, std::uint32_t count) override;

  // Called with every TLP the link books, once its times are set (tests, traces).
  void set_tlp_observer(std::function<void(TlpKind, const Tlp&)> observer) {
    tlp_observer_ = std::move(observer);
  }

  const PcieConfig& config() const { return config_; }
  const LinkDirectionStats& upstream_stats() const { return upstream_.stats(); }
  const LinkDirectionStats& downstream_stats() const { return downstream_.stats(); }
  const PcieLinkStats& stats() const { return stats_; }
  const Iotlb& iotlb() const { return iotlb_; }

 private:
  // Work the root complex does at a set time, in time order; equal times in
  // the order scheduled, which keeps posted writes ahead of later reads.
  struct Action {
    enum class Kind : std::uint8_t { kWindowDone, kDeliverMmio };
    sc_core::sc_time at;
    Kind kind;
    void* item;  // the TlpWindow, or the Mmio
  };
  struct Mmio {
    std::uint64_t address = 0;
    std::vector<std::uint8_t> data;  // capacity kept when the record is reused
  };

  // The completions answering one read, as one train on the downstream wire.
  struct CompletionTrain {
    std::uint32_t count = 0;
    std::uint64_t wire_bytes = 0;
    sc_core::sc_time duration;
    sc_core::sc_time last;  // the last completion's share of the duration
  };
  CompletionTrain completion_train(std::uint64_t address, std::uint32_t length) const;
  // Bytes a request TLP takes on the link: the spec's header and framing with
  // its payload, or on the ideal link its payload alone.
  std::uint32_t read_request_bytes(std::uint64_t address) const;
  std::uint32_t write_request_bytes(std::uint64_t address, std::uint32_t payload) const;
  // The ideal link's TLPs: payload bits alone, the window's pad left off its
  // last TLP; each TLP's time is the window's running total rounded, less the
  // total before it, so a window takes exactly its bits however it is cut.
  std::uint64_t ideal_bits(const TlpWindow& window, const Tlp& tlp, bool last) const {
    return 8ULL * tlp.length - (last ? window.pad_bits : 0);
  }
  static sc_core::sc_time ideal_time(const LinkDirection& direction, std::uint64_t bits_before,
                                     std::uint64_t bits) {
    return direction.bits_time(bits_before + bits) - direction.bits_time(bits_before);
  }
  void book_reads(TlpWindow& window, Tlp* tlps, std::uint32_t count, const sc_core::sc_time& now);
  void book_writes(TlpWindow& window, Tlp* tlps, std::uint32_t count,
                   const sc_core::sc_time& now);
  // Whether host memory has [address, address + length), and its access delay.
  bool probe_memory(std::uint64_t address, std::uint64_t length, sc_core::sc_time& delay);
  void host_b_transport(int initiator, tlm::tlm_generic_payload& payload,
                        sc_core::sc_time& delay);
  void schedule(Action::Kind kind, void* item, const sc_core::sc_time& at);
  void run_root_complex();
  void finish_window(TlpWindow& window);
  void deliver_mmio(Mmio& mmio);
  // Sets up a host-memory or register access of `length` bytes at `data`.
  static void set_access(tlm::tlm_generic_payload& access, tlm::tlm_command command,
                         std::uint64_t address, std::uint8_t* data, std::uint32_t length);
  // When a TLP arriving at `arrival` has its address translated.
  sc_core::sc_time translated_at(std::uint64_t address, const sc_core::sc_time& arrival);
  // The receiver acknowledges a window's `bytes` of TLPs on the other
  // direction: their ACK and UpdateFC DLLPs as one stretch, in its first idle
  // time from `now`, when the window is booked (README.md says why).
  void acknowledge(LinkDirection& reverse, std::uint64_t& ack_bytes, std::uint64_t& fc_bytes,
                   std::uint64_t bytes, const sc_core::sc_time& now);

  PcieConfig config_;
  LinkDirection upstream_;
  LinkDirection downstream_;
  std::uint64_t upstream_ack_bytes_ = 0;
  std::uint64_t upstream_fc_bytes_ = 0;
  std::uint64_t downstream_ack_bytes_ = 0;
  std::uint64_t downstream_fc_bytes_ = 0;
  Iotlb iotlb_;
  sc_core::sc_time full_completion_time_;  // the wire time of a completion_bytes completion
  sc_core::sc_time last_posted_write_;  // when the newest posted write reaches memory
  sc_core::sc_time last_write_sent_;    // when the newest posted write has left the NIC
  tlm::tlm_generic_payload memory_access_;  // reused: a payload allocates when built
  tlm::tlm_generic_payload mmio_access_;
  // Sorted by time, equal times in the order scheduled; those before
  // next_action_ are done. Most actions come due after all those waiting, so
  // one goes in from the back with a comparison or two, and comes out in one.
  std::vector<Action> actions_;
  std::size_t next_action_ = 0;
  sc_core::sc_event action_due_;
  std::vector<std::unique_ptr<Mmio>> mmio_pool_;
  std::vector<Mmio*> free_mmio_;
  std::function<void(TlpKind, const Tlp&)> tlp_observer_;
  PcieLinkStats stats_;
};

}  // namespace rnicsim::pcie
