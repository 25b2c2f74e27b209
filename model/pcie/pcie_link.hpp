#pragma once
// PcieLink: the PCIe link between a NIC and its host, with the host's root
// complex and optional IOMMU.
//
//   NIC DMA engine --nic2pcie (TLPs, TLM-2.0 AT)--> [upstream]   --> root complex --pcie2mem--> host memory
//   NIC DMA engine <--------- completions --------- [downstream] <--
//   host CPU --host2pcie (MMIO writes, LT)--------> [downstream] --pcie2nic--> NIC registers
//
// Memory read request (MRd): the NIC sends BEGIN_REQ; the link answers
// END_REQ with the delay until the request has left the NIC. The root complex
// reads host memory (after its latency, the IOMMU's, and any earlier posted
// write), returns the data in completions, and once the last completion byte
// has reached the NIC the link calls BEGIN_RESP back; the data is then in the
// payload's buffer. Memory write (MWr) is posted: the link copies the data,
// completes at once with the delay until it has left the NIC, and writes host
// memory when it arrives. Posted writes stay in order, and reads do not pass
// them (PCIe ordering rules).
//
// Each direction serializes TLPs and DLLPs at the link rate; a receiver
// returns an ACK and an UpdateFC DLLP on the other direction per configured
// number of bytes received.
#include <cstdint>
#include <memory>
#include <systemc>
#include <tlm>
#include <tlm_utils/multi_passthrough_initiator_socket.h>
#include <tlm_utils/multi_passthrough_target_socket.h>
#include <tlm_utils/peq_with_get.h>
#include <tlm_utils/simple_initiator_socket.h>
#include <tlm_utils/simple_target_socket.h>
#include <unordered_map>
#include <vector>

#include "common/module_macros.hpp"
#include "pcie/iotlb.hpp"
#include "pcie/link_direction.hpp"
#include "pcie/pcie_config.hpp"

namespace rnicsim::pcie {

struct PcieLinkStats {
  std::uint64_t read_requests = 0;
  std::uint64_t completions = 0;
  std::uint64_t write_requests = 0;
  std::uint64_t mmio_writes = 0;
  std::uint64_t unsupported_requests = 0;  // completed with an error status
};

class PcieLink : public sc_core::sc_module {
 public:
  tlm_utils::simple_target_socket<PcieLink> nic2pcie;
  tlm_utils::simple_initiator_socket<PcieLink> pcie2mem;
  tlm_utils::multi_passthrough_target_socket<PcieLink, 32, tlm::tlm_base_protocol_types, 0,
                                             sc_core::SC_ZERO_OR_MORE_BOUND>
      host2pcie;
  tlm_utils::multi_passthrough_initiator_socket<PcieLink, 32, tlm::tlm_base_protocol_types, 1,
                                                sc_core::SC_ZERO_OR_MORE_BOUND>
      pcie2nic;

  RNICSIM_PROCESS_MODULE(PcieLink);
  PcieLink(const sc_core::sc_module_name& name, const PcieConfig& config);

  const PcieConfig& config() const { return config_; }
  const LinkDirectionStats& upstream_stats() const { return upstream_.stats(); }
  const LinkDirectionStats& downstream_stats() const { return downstream_.stats(); }
  const PcieLinkStats& stats() const { return stats_; }
  const Iotlb& iotlb() const { return iotlb_; }

 private:
  // Work the root complex does at a set time, in time order; equal times in
  // the order scheduled, which keeps posted writes ahead of later reads.
  struct RootComplexEvent {
    enum class Kind { kReadMemory, kReturnCompletions, kDeliverCompletions, kWriteMemory, kDeliverMmio };
    Kind kind;
    tlm::tlm_generic_payload* read = nullptr;  // the NIC's MRd, for the read steps
    std::uint64_t address = 0;                 // for writes
    std::vector<std::uint8_t> data;
  };

  tlm::tlm_sync_enum nb_transport_fw(tlm::tlm_generic_payload& payload, tlm::tlm_phase& phase,
                                     sc_core::sc_time& delay);
  void host_b_transport(int initiator, tlm::tlm_generic_payload& payload,
                        sc_core::sc_time& delay);
  void run_root_complex();
  void schedule(std::unique_ptr<RootComplexEvent> event, const sc_core::sc_time& at);
  void handle(RootComplexEvent& event);
  // A write of the event's data, for host memory or the NIC's registers.
  static void set_posted_write(RootComplexEvent& event, tlm::tlm_generic_payload& write);
  // When a TLP arriving at `arrival` has its address translated.
  sc_core::sc_time translated_at(std::uint64_t address, const sc_core::sc_time& arrival);
  // A receiver acknowledges `bytes` of TLPs on the other direction.
  void acknowledge(LinkDirection& reverse, std::uint64_t& ack_bytes, std::uint64_t& fc_bytes,
                   std::uint32_t bytes);

  PcieConfig config_;
  LinkDirection upstream_;
  LinkDirection downstream_;
  std::uint64_t upstream_ack_bytes_ = 0;
  std::uint64_t upstream_fc_bytes_ = 0;
  std::uint64_t downstream_ack_bytes_ = 0;
  std::uint64_t downstream_fc_bytes_ = 0;
  Iotlb iotlb_;
  sc_core::sc_time last_posted_write_;  // when the newest posted write reaches memory
  tlm_utils::peq_with_get<RootComplexEvent> root_complex_;
  std::unordered_map<RootComplexEvent*, std::unique_ptr<RootComplexEvent>> scheduled_;
  PcieLinkStats stats_;
};

}  // namespace rnicsim::pcie
