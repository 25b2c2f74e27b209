#pragma once
// The host driver's verbs, named after libibverbs.
//
// Queue verbs (queue_verbs.cpp): ibv_create_cq and ibv_create_qp allocate
// their rings in host pages and send the NIC a command (a mailbox in host
// memory, its address written to the command doorbell by MMIO; the driver
// waits for the NIC's status word). ibv_modify_qp checks the transition
// (interface/qp_state.hpp) and sends it as a command. ibv_post_send writes
// WQEs into the send ring and rings the doorbell by MMIO (a small single WQE
// goes with the doorbell: BlueFlame); ibv_post_recv likewise. ibv_poll_cq
// reads CQEs from the ring. Each verb charges its CPU time (verbs.*) to the
// calling SC_THREAD; the layouts are interface/queue_formats.hpp's.
//
// A command goes in a one-page mailbox; the first longer one (a CQ or QP
// with a long page list) gets a mailbox of physically contiguous pages that
// holds the longest body the NIC reads (kMaxCommandBodyBytes), and a command
// beyond that fails its verb with EINVAL.
//
// ibv_reg_mr pins a buffer of the process's address space, takes a free MPT
// index, gives it a new key variant, and writes the MPT entry and the MR's
// page list (one MTT entry per page) into the NIC's tables in host memory.
// ibv_dereg_mr clears the entry's valid bit; the NIC then refuses the key,
// and a later registration at the same index gets a different variant, so
// a kept key stays refused. The NIC caches table entries, so deregistration
// then sends it a DEREG_MR command (MPT index and MTT range) through the
// mailbox, as the queue verbs do theirs, and returns once the NIC has dropped
// them (verbs.command_ns of CPU time, then the NIC's round trip). A driver
// without a platform (attach) has no NIC to command: it calls its
// invalidate listeners instead, free of time (block tests that wire a
// translation unit to the driver directly), and throws std::logic_error
// when it has none. ibv_reg_mr's CPU time is not
// modelled yet.
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <systemc>
#include <unordered_map>
#include <vector>

#include "host/cpu/cpu_core.hpp"
#include "host/driver/address_space.hpp"
#include "host/driver/verbs_config.hpp"
#include "host/memory/host_memory.hpp"
#include "host/memory/page_allocator.hpp"
#include "interface/mpt_format.hpp"
#include "interface/queue_formats.hpp"
#include "interface/ring_layout.hpp"

namespace rnicsim {

struct ibv_pd {
  std::uint32_t handle;
};

struct ibv_mr {
  std::uint64_t addr;
  std::uint64_t length;
  std::uint32_t lkey;
  std::uint32_t rkey;
  std::uint32_t access;
  std::uint32_t pd_handle;
  std::uint64_t first_mtt;  // driver bookkeeping
  std::uint32_t pages;
};

struct ibv_cq {
  std::uint32_t handle = 0;  // the CQ number
  int cqe = 0;               // entries
  RingLayout ring;
  std::uint64_t consumer = 0;  // CQEs taken
};

struct ibv_qp_init_attr {
  ibv_cq* send_cq = nullptr;
  ibv_cq* recv_cq = nullptr;
  ibv_qp_cap cap;
};

struct ibv_qp {
  std::uint32_t qp_num = 0;
  ibv_qp_state state = IBV_QPS_RESET;
  ibv_pd* pd = nullptr;
  ibv_cq* send_cq = nullptr;
  ibv_cq* recv_cq = nullptr;
  ibv_qp_cap cap;
  RingLayout send_ring;  // 64 B blocks
  RingLayout recv_ring;
  std::uint32_t send_producer = 0;  // blocks
  std::uint32_t send_consumer = 0;  // blocks the NIC is done with (from CQEs)
  std::uint32_t recv_producer = 0;
  std::uint32_t recv_consumer = 0;
};

// What the driver needs of its host to drive a NIC.
struct DriverPlatform {
  // A posted MMIO write to the NIC's registers, issued after `cpu` of CPU
  // time (the verb's own work); call from an SC_THREAD.
  std::function<void(std::uint64_t offset, const std::uint8_t* data, std::uint32_t length,
                     const sc_core::sc_time& cpu)>
      mmio_write;
  PageAllocator* pages = nullptr;
  VerbsConfig verbs;
};

class VerbsDriver {
 public:
  VerbsDriver(HostMemory& memory, const AddressSpace& space, const IcmLayout& icm,
              const ibv_port_attr& port);

  // Gives the queue verbs their host; they throw std::logic_error without it.
  void attach(const DriverPlatform& platform) { platform_ = platform; }
  // Charges the verbs' CPU time to `core` from now on: posting (with the
  // doorbell's MMIO issue) and a poll that finds a completion as kVerbs work,
  // a poll that finds none and the waits of wait_cq and wait_write as
  // spinning. Commands (CQ and QP set-up, ibv_dereg_mr) are not charged.
  // Without a core the calling thread only waits the same times.
  void use_core(CpuCore* core) { core_ = core; }
  // The same for the calling SC_THREAD alone, so that several application
  // threads of one host each charge their own core; the others keep the
  // use_core one. Call from the thread itself (nullptr: back to use_core's).
  void use_core_for_this_thread(CpuCore* core);

  // The NIC's port: 0 and its attributes for port 1 (a NIC has one), else
  // EINVAL. Takes no time: the driver learned them when it loaded.
  int ibv_query_port(std::uint8_t port_num, ibv_port_attr* attr);

  // Queue verbs. They return nullptr or an errno value and set last_error().
  // Call them from an SC_THREAD: they take CPU time and talk to the NIC.
  ibv_cq* ibv_create_cq(int cqe);
  ibv_qp* ibv_create_qp(ibv_pd* pd, const ibv_qp_init_attr& init);
  int ibv_modify_qp(ibv_qp* qp, const ibv_qp_attr& attr, std::uint32_t attr_mask);
  int ibv_destroy_qp(ibv_qp* qp);
  // 0, or ENOMEM (send queue full), EINVAL (a malformed request, a QP not in
  // RTS or SQD... as libibverbs) with *bad_wr pointing at the first refused.
  int ibv_post_send(ibv_qp* qp, const ibv_send_wr* wr, const ibv_send_wr** bad_wr);
  int ibv_post_recv(ibv_qp* qp, const ibv_recv_wr* wr, const ibv_recv_wr** bad_wr);
  // Up to `entries` completions; 0 when none is there. Never waits.
  int ibv_poll_cq(ibv_cq* cq, int entries, ibv_wc* wc);
  // A spinning poller's wait: returns once the CQ holds a new completion,
  // the time the CPU takes to notice it included. (Not a verb: perftest
  // spins on ibv_poll_cq; this spares the simulation the spinning.)
  void wait_cq(ibv_cq* cq);
  // wait_cq for at most `at_most` of spinning: true once the CQ holds a new
  // completion (noticed as wait_cq does), false when the time ran out first.
  // An application outside the simulation polls this way (host/app_bridge).
  bool wait_cq_for(ibv_cq* cq, const sc_core::sc_time& at_most);
  // Whether the CQ holds a completion ibv_poll_cq has not taken. Untimed.
  bool cq_has_completion(const ibv_cq* cq) const;
  // Notified when the NIC writes the page of the CQ's next entry.
  const sc_core::sc_event& cq_written(const ibv_cq* cq);
  // The same for memory a process spins on (perftest's write_lat polls the
  // last byte of its buffer): returns when the NIC next writes [va, va+length).
  void wait_write(std::uint64_t va, std::uint64_t length);
  // When the write that last ended wait_cq or wait_write reached memory.
  const sc_core::sc_time& last_landed() const { return landed_; }

  ibv_pd* ibv_alloc_pd();
  // Returns nullptr and sets last_error(): EINVAL for remote write or atomic
  // access without local write (as the IB spec requires) or a range the
  // address space does not map; ENOMEM when the MPT or MTT is full.
  ibv_mr* ibv_reg_mr(ibv_pd* pd, std::uint64_t addr, std::uint64_t length, std::uint32_t access);
  // 0, or EINVAL for an MR this driver does not hold or the NIC refused.
  // With a platform, call it from an SC_THREAD (it waits for the NIC).
  int ibv_dereg_mr(ibv_mr* mr);

  // The command mailbox's physical bytes (none before the first command):
  // memory the driver and the NIC share, as the rings are.
  std::uint64_t mailbox_address() const { return mailbox_; }
  std::uint64_t mailbox_bytes() const { return mailbox_bytes_; }

  int last_error() const { return last_error_; }
  std::string last_error_reason() const { return last_reason_; }

  // Called on deregistration with the MPT index and the MR's MTT range, by a
  // driver with no platform only: with one, the NIC hears of it by command.
  using InvalidateListener =
      std::function<void(std::uint32_t mpt_index, std::uint64_t first_mtt, std::uint32_t pages)>;
  void on_invalidate(InvalidateListener listener) { listeners_.push_back(std::move(listener)); }

 private:
  void write_mpt(std::uint32_t index, const MptEntry& entry);
  const DriverPlatform& platform() const;
  // Sends a command and waits for its status.
  CommandStatus run_command(const Command& command);
  std::vector<std::uint64_t> allocate_ring(std::uint64_t bytes);
  std::uint64_t allocate_context();
  // An MMIO write after `cpu` of the verb's CPU time (one wait for both).
  void mmio(std::uint64_t offset, const std::uint8_t* data, std::uint32_t length,
            const sc_core::sc_time& cpu = sc_core::SC_ZERO_TIME);
  // The same for a doorbell: `index`'s low `bytes` bytes, little-endian.
  void ring_doorbell(std::uint64_t offset, std::uint64_t index, std::uint32_t bytes,
                     const sc_core::sc_time& cpu = sc_core::SC_ZERO_TIME);
  int fail(int error, std::string reason);
  // The calling thread does verb work for `time` (on the core, if any).
  void work(const sc_core::sc_time& time);
  // It spins until `event`, or for `time`.
  void spin_until(const sc_core::sc_event& event);
  void spin_until(const sc_core::sc_event& event, const sc_core::sc_time& at_most);
  void spin_for(const sc_core::sc_time& time);
  // The calling thread's core: its own, else use_core's (nullptr: none).
  CpuCore* core() const;
  // Fails (EINVAL, naming `verb`) for a command longer than the NIC reads.
  bool fits_mailbox(const Command& command, const char* verb);

  HostMemory& memory_;
  const AddressSpace& space_;
  IcmLayout icm_;
  ibv_port_attr port_;
  std::vector<std::unique_ptr<ibv_pd>> pds_;
  std::vector<std::unique_ptr<ibv_mr>> mrs_;
  std::vector<std::uint8_t> variants_;       // next key variant per MPT index
  std::vector<bool> mpt_in_use_;
  std::vector<std::pair<std::uint64_t, std::uint64_t>> free_mtt_;  // (first, count) ranges
  std::vector<InvalidateListener> listeners_;
  int last_error_ = 0;
  std::string last_reason_;

  std::optional<DriverPlatform> platform_;
  std::vector<std::unique_ptr<ibv_cq>> cqs_;
  std::vector<std::unique_ptr<ibv_qp>> qps_;
  std::unordered_map<std::uint32_t, ibv_qp*> qp_by_number_;  // for ibv_poll_cq
  // The command mailbox: one page, or contiguous pages for the longest command.
  std::uint64_t mailbox_ = 0;
  std::uint64_t mailbox_bytes_ = 0;
  std::uint64_t context_page_ = 0;     // contexts handed out from this page
  std::uint32_t contexts_left_ = 0;
  std::uint32_t next_qpn_ = 0x100;     // QP numbers, never reused
  SendWqe posting_;                    // the WQE ibv_post_send is encoding
  sc_core::sc_time landed_;
  CpuCore* core_ = nullptr;
  std::unordered_map<const sc_core::sc_object*, CpuCore*> thread_cores_;  // by SC_THREAD
};

}  // namespace rnicsim
