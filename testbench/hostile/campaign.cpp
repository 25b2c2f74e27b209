#include "hostile/campaign.hpp"

#include <algorithm>
#include <chrono>
#include <memory>
#include <set>
#include <stdexcept>
#include <systemc>

#include "common/simulation.hpp"
#include "common/time_units.hpp"
#include "config/run_config.hpp"
#include "formats/frame.hpp"
#include "hostile/protection_oracle.hpp"
#include "hostile/retarget.hpp"
#include "nic/protection/access_check.hpp"
#include "nic/protection/request_checks.hpp"
#include "program/experiments/experiments.hpp"
#include "system/memory_snapshot.hpp"
#include "system/rc_connection.hpp"
#include "system/testbed.hpp"

namespace rnicsim::hostile {
namespace {

using testing::RangeSet;

constexpr std::uint32_t kAll = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
                               IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_ATOMIC;
constexpr int kAttackedPd = 1, kBystanderPd = 2;     // the oracle's names for the two PDs
constexpr std::uint64_t kWritableBytes = 8192 - 24;  // not page-aligned: its page goes on
constexpr std::uint64_t kSlotBytes = 2048;           // a bystander WRITE / READ
constexpr std::uint32_t kSlots = 4;
constexpr std::uint32_t kSendBytes = 256;
constexpr std::uint32_t kBystanderReceives = 64;
constexpr std::uint32_t kAttackedReceives = 4;
constexpr std::uint32_t kAttackedWriteBytes = 512;  // b's own WRITEs on an attacked QP
constexpr std::size_t kReported = 8;                // messages kept per list
constexpr std::uint64_t kContextSlotBytes = 512;
constexpr std::uint32_t kReadOnlyPairs = 2;  // attacked pairs whose QPs grant remote reads alone //
                                             // a QP's or CQ's context in host memory

std::vector<std::uint8_t> pattern(std::size_t n, std::uint64_t salt) {
  std::vector<std::uint8_t> out(n);
  std::uint64_t x = salt * 0x9E3779B97F4A7C15ull + 1;
  for (std::size_t i = 0; i < n; ++i) {
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    out[i] = static_cast<std::uint8_t>(x);
  }
  return out;
}

void note(std::vector<std::string>& list, const std::string& what) {
  if (list.size() < kReported) list.push_back(what);
}

const char* state_name(ibv_qp_state s) {
  switch (s) {
    case IBV_QPS_RESET:
      return "RESET";
    case IBV_QPS_INIT:
      return "INIT";
    case IBV_QPS_RTR:
      return "RTR";
    case IBV_QPS_RTS:
      return "RTS";
    case IBV_QPS_ERR:
      return "ERR";
    default:
      return "other";
  }
}

struct Buffer {
  std::size_t node = 0;
  std::uint64_t va = 0;
  std::uint64_t length = 0;  // registered
  ibv_mr* mr = nullptr;
};

// One attacked QP pair's bookkeeping at node b, as its application keeps it.
struct AttackedPair {
  std::size_t index = 0;
  std::set<std::uint64_t> sends;     // wr_ids posted, not completed
  std::set<std::uint64_t> receives;  // wr_ids posted, not completed
  bool failed = false;               // an error completion came: the QP is in ERR
};

class Campaign {
 public:
  Campaign(Testbed& testbed, const CampaignOptions& options, CampaignResult& result,
           const sc_core::sc_time& propagation)
      : testbed_(testbed), options_(options), result_(result), propagation_(propagation) {}

  void body() {
    set_up();
    start_threads();
    while (running_ > 0) sc_core::wait(thread_done_);
    check_memory();
    result_.receive_path = receive_path();
  }

 private:
  VerbsDriver& driver(std::size_t node) { return testbed_.node(node).software().driver; }
  AddressSpace& process(std::size_t node) { return testbed_.node(node).software().process; }
  HostMemory& memory(std::size_t node) { return testbed_.node(node).host.memory; }

  Buffer buffer(std::size_t node, ibv_pd* pd, std::uint64_t allocate, std::uint64_t registered,
                std::uint32_t access, std::uint64_t salt) {
    Buffer b;
    b.node = node;
    b.length = registered;
    b.va = process(node).allocate(allocate);
    b.mr = driver(node).ibv_reg_mr(pd, b.va, registered, access);
    if (b.mr == nullptr)
      throw std::runtime_error("ibv_reg_mr: " + driver(node).last_error_reason());
    const std::vector<std::uint8_t> bytes = pattern(allocate, salt);
    process(node).write(memory(node), b.va, bytes.data(), bytes.size());
    return b;
  }
  std::vector<std::uint8_t> read(const Buffer& b, std::uint64_t offset, std::uint64_t n) {
    std::vector<std::uint8_t> out(n);
    process(b.node).read(memory(b.node), b.va + offset, out.data(), n);
    return out;
  }
  void write(const Buffer& b, std::uint64_t offset, const std::vector<std::uint8_t>& bytes) {
    process(b.node).write(memory(b.node), b.va + offset, bytes.data(), bytes.size());
  }

  void post_send(std::size_t node, ibv_qp* qp, ibv_wr_opcode opcode, const Buffer& local,
                 std::uint32_t length, std::uint64_t local_offset, const Buffer* remote,
                 std::uint64_t remote_offset, std::uint64_t wr_id) {
    ibv_sge sge{local.va + local_offset, length, local.mr->lkey};
    ibv_send_wr wr;
    wr.wr_id = wr_id;
    wr.opcode = opcode;
    wr.sg_list = &sge;
    wr.num_sge = 1;
    wr.send_flags = IBV_SEND_SIGNALED;
    if (remote != nullptr) {
      wr.rdma.remote_addr = remote->va + remote_offset;
      wr.rdma.rkey = remote->mr->rkey;
    }
    if (driver(node).ibv_post_send(qp, &wr, nullptr) != 0)
      throw std::runtime_error("ibv_post_send: " + driver(node).last_error_reason());
  }
  void post_recv(std::size_t node, ibv_qp* qp, const Buffer& buffer, std::uint64_t offset,
                 std::uint32_t length, std::uint64_t wr_id) {
    ibv_sge sge{buffer.va + offset, length, buffer.mr->lkey};
    ibv_recv_wr wr;
    wr.wr_id = wr_id;
    wr.sg_list = &sge;
    wr.num_sge = 1;
    if (driver(node).ibv_post_recv(qp, &wr, nullptr) != 0)
      throw std::runtime_error("ibv_post_recv: " + driver(node).last_error_reason());
  }
  ibv_wc wait_completion(std::size_t node, ibv_cq* cq) {
    ibv_wc wc;
    while (driver(node).ibv_poll_cq(cq, 1, &wc) == 0) driver(node).wait_cq(cq);
    return wc;
  }

  // ---- set-up -------------------------------------------------------------

  void set_up() {
    attacked_options_.qps = options_.attacked_pairs;
    bystander_options_.qps = options_.bystander_pairs;
    bystander_options_.first_psn = 0x200;
    sends_.assign(options_.bystander_pairs, 0);
    a_attacked_ = create_rc_side(testbed_, 0, attacked_options_);
    b_attacked_ = create_rc_side(testbed_, 1, attacked_options_);
    for (std::size_t i = 0; i < options_.attacked_pairs; ++i) connect_pair(i, 0);
    a_bystander_ = create_rc_side(testbed_, 0, bystander_options_);
    b_bystander_ = create_rc_side(testbed_, 1, bystander_options_);
    connect_rc(testbed_, a_bystander_, b_bystander_, bystander_options_);

    // Node b, the attacked PD: regions the oracle must tell apart.
    ibv_pd* pd = b_attacked_.pd;
    for (std::uint64_t i = 0; i < 2; ++i) {
      writable_.push_back(buffer(1, pd, 8192, kWritableBytes, kAll, 10 + i));
      oracle_.registered(writable_.back().va, kWritableBytes, kAttackedPd, kAll);
    }
    read_only_ = buffer(1, pd, 4096, 4096, IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_READ, 20);
    oracle_.registered(read_only_.va, 4096, kAttackedPd,
                       IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_READ);
    local_only_ = buffer(1, pd, 4096, 4096, IBV_ACCESS_LOCAL_WRITE, 21);
    oracle_.registered(local_only_.va, 4096, kAttackedPd, IBV_ACCESS_LOCAL_WRITE);
    const Buffer gone = buffer(1, pd, 4096, 4096, kAll, 22);
    deregistered_rkey_ = gone.mr->rkey;
    oracle_.deregistered(oracle_.registered(gone.va, 4096, kAttackedPd, kAll));
    if (driver(1).ibv_dereg_mr(gone.mr) != 0) throw std::runtime_error("ibv_dereg_mr");
    attacked_source_ = buffer(1, pd, 1024, 1024, IBV_ACCESS_LOCAL_WRITE, 23);
    oracle_.registered(attacked_source_.va, 1024, kAttackedPd, IBV_ACCESS_LOCAL_WRITE);
    for (std::uint32_t i = 0; i < options_.attacked_pairs; ++i) {
      attacked_receive_.push_back(buffer(1, pd, 1024, 1024, IBV_ACCESS_LOCAL_WRITE, 30 + i));
      oracle_.registered(attacked_receive_.back().va, 1024, kAttackedPd, IBV_ACCESS_LOCAL_WRITE);
      oracle_.receive_buffer(attacked_receive_.back().va, 1024);
      oracle_.attacked_qp(kAttackedPd, attacked_access(i));
      a_attacked_target_.push_back(buffer(0, a_attacked_.pd, 1024, 1024, kAll, 40 + i));
      attacked_.push_back(AttackedPair{i, {}, {}, false});
    }
    // Node b, the bystanders' PD: another PD's regions for the frames' rkeys.
    for (std::uint32_t j = 0; j < options_.bystander_pairs; ++j) {
      bystander_target_.push_back(
          buffer(1, b_bystander_.pd, kSlots * kSlotBytes, kSlots * kSlotBytes, kAll, 50 + j));
      oracle_.registered(bystander_target_.back().va, kSlots * kSlotBytes, kBystanderPd, kAll);
      bystander_receive_.push_back(buffer(1, b_bystander_.pd, kBystanderReceives * kSendBytes,
                                          kBystanderReceives * kSendBytes, IBV_ACCESS_LOCAL_WRITE,
                                          60 + j));
      a_source_.push_back(
          buffer(0, a_bystander_.pd, kSlotBytes, kSlotBytes, IBV_ACCESS_LOCAL_WRITE, 70 + j));
      a_readback_.push_back(
          buffer(0, a_bystander_.pd, kSlotBytes, kSlotBytes, IBV_ACCESS_LOCAL_WRITE, 80 + j));
      a_send_.push_back(
          buffer(0, a_bystander_.pd, kSendBytes, kSendBytes, IBV_ACCESS_LOCAL_WRITE, 90 + j));
      a_bystander_target_.push_back(buffer(0, a_bystander_.pd, 1024, 1024, kAll, 100 + j));
      slot_image_.push_back(std::vector<std::vector<std::uint8_t>>(kSlots));
      for (std::uint32_t s = 0; s < kSlots; ++s)
        slot_image_.back()[s] = read(bystander_target_.back(), s * kSlotBytes, kSlotBytes);
      for (std::uint32_t r = 0; r < kBystanderReceives; ++r)
        post_recv(1, b_bystander_.qps[j], bystander_receive_[j], r * kSendBytes, kSendBytes, r);
    }
    bystander_source_b_ = buffer(1, b_bystander_.pd, 1024, 1024, IBV_ACCESS_LOCAL_WRITE, 110);
    for (AttackedPair& pair : attacked_) post_attacked_receives(pair);
    for (const Buffer& b : a_attacked_target_)
      a_attacked_target_before_.push_back(read(b, 0, 1024));
    for (const Buffer& b : a_bystander_target_)
      a_bystander_target_before_.push_back(read(b, 0, 1024));
    snapshot();
    tap_own_frames();
  }

  void post_attacked_receives(AttackedPair& pair) {
    for (std::uint32_t r = 0; r < kAttackedReceives; ++r) {
      const std::uint64_t wr_id = next_wr_id_++;
      post_recv(1, b_attacked_.qps[pair.index], attacked_receive_[pair.index], r * 256, 256, wr_id);
      pair.receives.insert(wr_id);
    }
  }

  void snapshot() {
    for (std::size_t node = 0; node < 2; ++node) {
      RangeSet may_change;
      for (const RcSide* side :
           {node == 0 ? &a_attacked_ : &b_attacked_, node == 0 ? &a_bystander_ : &b_bystander_}) {
        // The rings, and the contexts the NIC writes back (512-byte slots,
        // VerbsDriver::allocate_context).
        RcContexts& contexts = testbed_.node(node).nic.transport.contexts();
        for (const ibv_qp* qp : side->qps) {
          testing::add_queues(may_change, *qp);
          may_change.add(contexts.qp(qp->qp_num)->context_address, kContextSlotBytes);
        }
        for (const auto* cqs : {&side->send_cqs, &side->recv_cqs}) {
          for (const ibv_cq* cq : *cqs) {
            testing::add_queues(may_change, *cq);
            may_change.add(contexts.cq(cq->handle)->context_address, kContextSlotBytes);
          }
        }
      }
      may_change.add(driver(node).mailbox_address(), driver(node).mailbox_bytes());
      // The workload's own writes (checked exactly in check_memory).
      const auto add = [&](const Buffer& b) {
        testing::add_virtual_range(may_change, process(node), b.va, b.length);
      };
      if (node == 1) {
        oracle_.add_hostile_may_change(may_change, process(1));
        for (const Buffer& b : bystander_target_) add(b);
        for (const Buffer& b : bystander_receive_) add(b);
      } else {
        for (const Buffer& b : a_attacked_target_) add(b);
        for (const Buffer& b : a_readback_) add(b);
        for (const Buffer& b : a_source_) add(b);  // the application writes these itself
        for (const Buffer& b : a_send_) add(b);
        for (const Buffer& b : a_bystander_target_) add(b);
      }
      snapshots_.emplace_back(memory(node), std::move(may_change));
    }
  }

  void tap_own_frames() {
    // The model's own frames of the workload, both ways, become templates.
    const auto keep = [this](const Transfer& item, const sc_core::sc_time&) {
      if (own_frames_.size() >= options_.own_templates || !item.bytes()) return;
      const Bytes& bytes = *item.bytes();
      if (packet::parse_frame(bytes.data(), bytes.size()).ok()) own_frames_.push_back(bytes);
    };
    testbed_.wire_to(1).set_tap(keep);
    testbed_.wire_to(0).set_tap(keep);
  }

  HostileTarget target() {
    HostileTarget t;
    t.mac_source = node_address(0).mac;
    t.mac_destination = node_address(1).mac;
    t.ip_source = node_address(0).ipv4;
    t.ip_destination = node_address(1).ipv4;
    std::set<std::uint32_t> used;
    for (const RcSide* side : {&a_attacked_, &b_attacked_, &a_bystander_, &b_bystander_})
      for (const ibv_qp* qp : side->qps) used.insert(qp->qp_num);
    for (const ibv_qp* qp : b_attacked_.qps) t.attacked_qpns.push_back(qp->qp_num);
    for (std::uint32_t q : {*used.rbegin() + 1, *used.rbegin() + 1000, 0xFFFFFFu})
      if (used.count(q) == 0) t.unknown_qpns.push_back(q);
    for (const Buffer& b : writable_) t.writable.push_back({b.va, b.length, b.mr->rkey});
    t.read_only.push_back({read_only_.va, read_only_.length, read_only_.mr->rkey});
    t.read_only.push_back({local_only_.va, local_only_.length, local_only_.mr->rkey});
    for (const Buffer& b : bystander_target_) t.other_pd.push_back({b.va, b.length, b.mr->rkey});
    t.deregistered_rkeys.push_back(deregistered_rkey_);
    RcContexts& contexts = testbed_.node(1).nic.transport.contexts();
    t.expected_psn = [&contexts](std::uint32_t qpn) {
      const QpContext* qp = contexts.qp(qpn);
      return qp != nullptr ? qp->expected_psn : 0u;
    };
    t.pmtu = 1024;
    return t;
  }

  // ---- threads ------------------------------------------------------------

  void start_threads() {
    running_ = 3;
    sc_core::sc_spawn([this] {
      inject();
      injecting_ = false;
      done();
    });
    sc_core::sc_spawn([this] {
      run_bystanders_a();
      done();
    });
    sc_core::sc_spawn([this] {
      run_node_b();
      done();
    });
  }
  void done() {
    --running_;
    thread_done_.notify(sc_core::SC_ZERO_TIME);
  }

  bool wanted(Mutation m) const {
    return options_.only.empty() ||
           std::find(options_.only.begin(), options_.only.end(), m) != options_.only.end();
  }

  bool names_bystander(const std::vector<std::uint8_t>& frame) const {
    const packet::ParseResult parsed =
        packet::parse_frame(frame.data(), frame.size(), packet::IcrcHandling::kSkip);
    if (!parsed.ok()) return false;
    for (const ibv_qp* qp : b_bystander_.qps)
      if (parsed.packet.bth.dest_qp == qp->qp_num) return true;
    return false;
  }

  void send_hostile(std::vector<std::uint8_t> bytes) {
    // On node b's receive port as a frame off the cable arrives: its last
    // bit one propagation delay after it was "sent" now.
    const std::uint64_t size = bytes.size();
    Transfer frame(result_.frames_sent, size * 8, sim_now(),
                   std::make_shared<const Bytes>(std::move(bytes)));
    testbed_.wire_to(1).rx.push(std::move(frame), propagation_);
    ++result_.frames_sent;
  }

  // Frames name the attacked QPs in RTS (all of them when none is): one in
  // ERR drops everything at the first check until its application has
  // reconnected it, and the campaign wants frames to reach the later checks.
  // While none is in RTS the injector waits for one (up to 50 us, then
  // aims at all): a frame at a QP between RTR and RTS would only make its
  // application start over. With one in RTS, one frame in eight may name the
  // next attacked QP too (qpn_other_attacked needs another QP to name).
  void aim_at_live_qps(const HostileTarget& all, HostileTarget& live) {
    for (int waited = 0; waited <= 50; ++waited) {
      live.attacked_qpns.clear();
      for (const ibv_qp* qp : b_attacked_.qps)
        if (nic_state(qp) == IBV_QPS_RTS) live.attacked_qpns.push_back(qp->qp_num);
      if (live.attacked_qpns.size() == 1 && result_.frames_sent % 8 == 0) {
        // qpn_other_attacked needs a second QP to name: the next one, live or
        // not, for one frame in eight (the rest aim at live QPs only).
        const auto at = std::find(all.attacked_qpns.begin(), all.attacked_qpns.end(),
                                  live.attacked_qpns.front());
        live.attacked_qpns.push_back(
            std::next(at) == all.attacked_qpns.end() ? all.attacked_qpns.front() : *std::next(at));
      }
      if (!live.attacked_qpns.empty()) return;
      sc_core::wait(sc_core::sc_time(1, sc_core::SC_US));
    }
    live.attacked_qpns = all.attacked_qpns;
  }

  void inject() {
    sc_core::wait(sc_core::sc_time(20, sc_core::SC_US));  // the workload's frames first
    const HostileTarget aim = target();
    const sc_core::sc_time interval = picoseconds(options_.interval_ps);
    if (options_.source == CampaignOptions::Source::kReplay) {
      // Each capture twice: with its own PSNs (the PSN checks), then each
      // frame aimed, as it leaves, at a live QP's expected PSN (the checks
      // behind them).
      for (const std::string& capture : options_.captures) {
        for (std::vector<std::uint8_t>& frame : retarget_capture(capture, aim, false)) {
          send_hostile(std::move(frame));
          sc_core::wait(interval);
        }
      }
      HostileTarget aim_live = aim;
      for (const std::string& capture : options_.captures) {
        for (const std::vector<std::uint8_t>& frame : roce_frames_of(capture)) {
          aim_at_live_qps(aim, aim_live);
          const std::uint32_t qpn =
              aim_live.attacked_qpns[result_.frames_sent % aim_live.attacked_qpns.size()];
          const packet::ParseResult parsed = packet::parse_frame(frame.data(), frame.size());
          packet::RocePacket headers = retarget_headers(parsed.packet, aim_live, qpn);
          headers.bth.psn = aim_live.expected_psn(qpn);
          send_hostile(packet::build_frame(headers, frame.data() + parsed.packet.payload_offset,
                                           parsed.packet.payload_length));
          sc_core::wait(interval);
        }
      }
      return;
    }
    std::vector<std::vector<std::uint8_t>> templates = own_frames_;
    for (const std::string& capture : options_.captures)
      for (std::vector<std::uint8_t>& f : roce_frames_of(capture))
        templates.push_back(std::move(f));
    FrameMutator mutator(options_.seed, std::move(templates));
    HostileTarget aim_live = aim;
    for (std::uint64_t i = 0; i < options_.frames; ++i) {
      aim_at_live_qps(aim, aim_live);
      HostileFrame frame = mutator.next(aim_live);
      // A frame naming a bystander QP would make it an attacked one.
      while (names_bystander(frame.bytes) || !wanted(frame.mutation)) {
        ++result_.frames_redrawn;
        frame = mutator.next(aim_live);
      }
      ++result_.by_mutation[static_cast<std::size_t>(frame.mutation)];
      send_hostile(std::move(frame.bytes));
      sc_core::wait(interval);
    }
  }

  // Node a: each bystander pair WRITEs a slot of b's region, READs it back
  // and SENDs, for as long as hostile frames arrive, checking each READ.
  void run_bystanders_a() {
    for (std::uint64_t round = 0; injecting_ || round < 4; ++round) {
      for (std::uint32_t j = 0; j < options_.bystander_pairs; ++j) {
        ibv_qp* qp = a_bystander_.qps[j];
        const std::uint32_t slot = round % kSlots;
        const std::vector<std::uint8_t> data = pattern(kSlotBytes, 1000 + round * 16 + j);
        write(a_source_[j], 0, data);
        post_send(0, qp, IBV_WR_RDMA_WRITE, a_source_[j], kSlotBytes, 0, &bystander_target_[j],
                  slot * kSlotBytes, 1);
        expect_success(0, a_bystander_.send_cq, "WRITE");
        slot_image_[j][slot] = data;
        post_send(0, qp, IBV_WR_RDMA_READ, a_readback_[j], kSlotBytes, 0, &bystander_target_[j],
                  slot * kSlotBytes, 2);
        expect_success(0, a_bystander_.send_cq, "READ");
        if (read(a_readback_[j], 0, kSlotBytes) != data)
          note(result_.bystander_errors, "bystander READ returned other bytes than written");
        write(a_send_[j], 0, pattern(kSendBytes, sends_[j]));
        post_send(0, qp, IBV_WR_SEND, a_send_[j], kSendBytes, 0, nullptr, 0, 3);
        expect_success(0, a_bystander_.send_cq, "SEND");
        ++sends_[j];
        result_.bystander_messages += 3;
      }
    }
    bystanders_a_done_ = true;
  }

  void expect_success(std::size_t node, ibv_cq* cq, const char* what) {
    const ibv_wc wc = wait_completion(node, cq);
    if (wc.status != IBV_WC_SUCCESS)
      note(result_.bystander_errors,
           std::string("bystander ") + what + " completed with " + ibv_wc_status_str(wc.status));
  }

  // Node b: its bystander receives (checked and reposted), a WRITE to a now
  // and then on each bystander QP, and the attacked QPs as their
  // application keeps them: receives posted, one WRITE of its own
  // outstanding, completions accounted, a QP in ERR reconnected.
  void run_node_b() {
    std::vector<std::uint64_t> received(options_.bystander_pairs, 0);
    std::uint64_t loop = 0;
    while (injecting_ || !bystanders_a_done_ || bystander_received_ < total_sends()) {
      poll_bystander_receives(received);
      if (loop++ % 16 == 0) write_bystanders_to_a();
      poll_attacked();
      for (AttackedPair& pair : attacked_) keep_attacked(pair);
      sc_core::wait(sc_core::sc_time(1, sc_core::SC_US));
    }
    finish_attacked();
    check_bystander_targets();
  }

  std::uint64_t total_sends() const {
    std::uint64_t n = 0;
    for (std::uint64_t s : sends_) n += s;
    return n;
  }

  void poll_bystander_receives(std::vector<std::uint64_t>& received) {
    ibv_wc wc;
    while (driver(1).ibv_poll_cq(b_bystander_.recv_cq, 1, &wc) == 1) {
      std::uint32_t j = 0;
      while (j < options_.bystander_pairs && b_bystander_.qps[j]->qp_num != wc.qp_num) ++j;
      if (j == options_.bystander_pairs || wc.status != IBV_WC_SUCCESS ||
          wc.byte_len != kSendBytes) {
        note(result_.bystander_errors,
             std::string("bystander receive completed with ") + ibv_wc_status_str(wc.status));
        continue;
      }
      const std::uint64_t slot = wc.wr_id;
      if (read(bystander_receive_[j], slot * kSendBytes, kSendBytes) !=
          pattern(kSendBytes, received[j]))
        note(result_.bystander_errors, "bystander SEND arrived with other bytes than sent");
      ++received[j];
      ++bystander_received_;
      post_recv(1, b_bystander_.qps[j], bystander_receive_[j], slot * kSendBytes, kSendBytes, slot);
    }
  }

  void write_bystanders_to_a() {
    for (std::uint32_t j = 0; j < options_.bystander_pairs; ++j) {
      post_send(1, b_bystander_.qps[j], IBV_WR_RDMA_WRITE, bystander_source_b_, 1024, 0,
                &a_bystander_target_[j], 0, 7);
      const ibv_wc wc = wait_completion(1, b_bystander_.send_cq);
      if (wc.status != IBV_WC_SUCCESS)
        note(result_.bystander_errors,
             std::string("bystander WRITE from b completed with ") + ibv_wc_status_str(wc.status));
      else
        bystander_b_wrote_ = true;
      result_.bystander_messages += 1;
    }
  }

  AttackedPair* attacked_of(std::uint32_t qpn) {
    for (AttackedPair& pair : attacked_)
      if (b_attacked_.qps[pair.index]->qp_num == qpn) return &pair;
    return nullptr;
  }

  void account(const ibv_wc& wc, bool receive) {
    AttackedPair* pair = attacked_of(wc.qp_num);
    ++result_.attacked_completions[std::string(receive ? "recv " : "send ") +
                                   ibv_wc_status_str(wc.status)];
    if (pair == nullptr) {
      note(result_.attacked_errors, "a completion names no attacked QP");
      return;
    }
    std::set<std::uint64_t>& outstanding = receive ? pair->receives : pair->sends;
    if (outstanding.erase(wc.wr_id) != 1)
      note(result_.attacked_errors, "a completion for a work request not outstanding");
    // What IBTA 10.8 and libibverbs allow a requester (send) or responder
    // (receive) completion to carry after hostile frames.
    static const std::set<ibv_wc_status> kSend = {
        IBV_WC_SUCCESS,    IBV_WC_WR_FLUSH_ERR,  IBV_WC_REM_ACCESS_ERR,   IBV_WC_REM_INV_REQ_ERR,
        IBV_WC_REM_OP_ERR, IBV_WC_RETRY_EXC_ERR, IBV_WC_RNR_RETRY_EXC_ERR};
    static const std::set<ibv_wc_status> kReceive = {IBV_WC_SUCCESS, IBV_WC_WR_FLUSH_ERR,
                                                     IBV_WC_LOC_LEN_ERR, IBV_WC_LOC_PROT_ERR};
    if ((receive ? kReceive : kSend).count(wc.status) == 0)
      note(result_.attacked_errors,
           std::string("an attacked QP completed with ") + ibv_wc_status_str(wc.status));
    if (wc.status != IBV_WC_SUCCESS) pair->failed = true;
  }

  void poll_attacked() {
    ibv_wc wc;
    while (driver(1).ibv_poll_cq(b_attacked_.send_cq, 1, &wc) == 1) account(wc, false);
    while (driver(1).ibv_poll_cq(b_attacked_.recv_cq, 1, &wc) == 1) account(wc, true);
  }

  ibv_qp_state nic_state(const ibv_qp* qp) {
    const QpContext* context = testbed_.node(1).nic.transport.contexts().qp(qp->qp_num);
    return context != nullptr ? context->state : IBV_QPS_RESET;
  }

  void keep_attacked(AttackedPair& pair) {
    ibv_qp* qp = b_attacked_.qps[pair.index];
    const bool in_error = pair.failed || nic_state(qp) == IBV_QPS_ERR;
    if (in_error) {
      // Reconnected once every posted request has completed (flushed).
      if (!pair.sends.empty() || !pair.receives.empty() || !injecting_) return;
      reconnect(pair);
      return;
    }
    // (The read-only pairs' far ends would refuse a WRITE.)
    if (pair.sends.empty() && injecting_ &&
        (attacked_access(pair.index) & IBV_ACCESS_REMOTE_WRITE) != 0) {
      const std::uint64_t wr_id = next_wr_id_++;
      post_send(1, qp, IBV_WR_RDMA_WRITE, attacked_source_, kAttackedWriteBytes, 0,
                &a_attacked_target_[pair.index], 0, wr_id);
      pair.sends.insert(wr_id);
    }
  }

  void reconnect(AttackedPair& pair) {
    ibv_qp_attr reset;
    reset.qp_state = IBV_QPS_RESET;
    for (std::size_t node = 0; node < 2; ++node) {
      ibv_qp* qp = (node == 0 ? a_attacked_ : b_attacked_).qps[pair.index];
      if (driver(node).ibv_modify_qp(qp, reset, IBV_QP_STATE) != 0)
        throw std::runtime_error("ibv_modify_qp(RESET): " + driver(node).last_error_reason());
    }
    try {
      connect_pair(pair.index,
                   static_cast<std::uint32_t>(0x1000 * (result_.attacked_reconnects + 1)));
    } catch (const std::runtime_error&) {
      // A hostile frame sent the QP to ERR between RTR and RTS, so the NIC
      // refused RTS: as an application would, try again from RESET.
      ++result_.attacked_reconnects_refused;
      return;
    }
    pair.failed = false;
    ++result_.attacked_reconnects;
    post_attacked_receives(pair);
    keep_attacked(pair);  // its own WRITE at once, before the next frame finds the QP
  }

  // The last kReadOnlyPairs attacked pairs grant remote reads alone: frames
  // at them meet the QP's own rights (and the oracle allows them nothing).
  std::uint32_t attacked_access(std::size_t index) const {
    return index + kReadOnlyPairs >= options_.attacked_pairs
               ? IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_READ
               : attacked_options_.access;
  }

  // Attacked pair `index`, both ends in RESET, to RTS (throws as connect_rc).
  void connect_pair(std::size_t index, std::uint32_t first_psn) {
    RcSide a = a_attacked_, b = b_attacked_;
    a.qps = {a_attacked_.qps[index]};
    b.qps = {b_attacked_.qps[index]};
    RcOptions options = attacked_options_;
    options.first_psn = first_psn;
    options.access = attacked_access(index);
    connect_rc(testbed_, a, b, options);
  }

  void finish_attacked() {
    // Let what is in flight settle, then record each attacked QP's state.
    for (int i = 0; i < 200; ++i) {
      poll_attacked();
      sc_core::wait(sc_core::sc_time(1, sc_core::SC_US));
    }
    for (AttackedPair& pair : attacked_) {
      const ibv_qp_state state = nic_state(b_attacked_.qps[pair.index]);
      ++result_.attacked_end_states[state_name(state)];
      if (state != IBV_QPS_RTS && state != IBV_QPS_ERR)
        note(result_.attacked_errors, std::string("an attacked QP ended in ") + state_name(state));
    }
    // Every request posted completes exactly once: move each QP to ERR,
    // whose flush completes what is left.
    ibv_qp_attr error;
    error.qp_state = IBV_QPS_ERR;
    for (AttackedPair& pair : attacked_)
      if (driver(1).ibv_modify_qp(b_attacked_.qps[pair.index], error, IBV_QP_STATE) != 0)
        throw std::runtime_error("ibv_modify_qp(ERR): " + driver(1).last_error_reason());
    for (int i = 0; i < 1000 && outstanding() > 0; ++i) {
      poll_attacked();
      sc_core::wait(sc_core::sc_time(1, sc_core::SC_US));
    }
    if (outstanding() > 0)
      note(result_.attacked_errors,
           std::to_string(outstanding()) + " work requests on attacked QPs never completed");
  }

  std::size_t outstanding() const {
    std::size_t n = 0;
    for (const AttackedPair& pair : attacked_) n += pair.sends.size() + pair.receives.size();
    return n;
  }

  void check_bystander_targets() {
    for (std::uint32_t j = 0; j < options_.bystander_pairs; ++j) {
      for (std::uint32_t s = 0; s < kSlots; ++s)
        if (read(bystander_target_[j], s * kSlotBytes, kSlotBytes) != slot_image_[j][s])
          note(result_.bystander_errors, "a bystander region holds other bytes than written");
      const std::vector<std::uint8_t> got = read(a_bystander_target_[j], 0, 1024);
      const std::vector<std::uint8_t> want =
          bystander_b_wrote_ ? read(bystander_source_b_, 0, 1024) : a_bystander_target_before_[j];
      if (got != want) note(result_.bystander_errors, "b's bystander WRITE landed other bytes");
    }
    // b's own WRITEs on attacked QPs carry one pattern: a's targets hold it
    // (in the first kAttackedWriteBytes) or what they held before.
    const std::vector<std::uint8_t> source = read(attacked_source_, 0, kAttackedWriteBytes);
    for (std::size_t i = 0; i < a_attacked_target_.size(); ++i) {
      std::vector<std::uint8_t> got = read(a_attacked_target_[i], 0, 1024);
      std::vector<std::uint8_t> written = a_attacked_target_before_[i];
      std::copy(source.begin(), source.end(), written.begin());
      if (got != a_attacked_target_before_[i] && got != written)
        note(result_.attacked_errors, "node a's memory under an attacked QP holds foreign bytes");
    }
  }

  void check_memory() {
    for (std::size_t node = 0; node < 2; ++node)
      for (const std::string& change : snapshots_[node].changes(memory(node)))
        note(result_.memory_violations, std::string(node == 0 ? "node a: " : "node b: ") + change);
  }

  nlohmann::json receive_path() {
    nlohmann::json out = testbed_.node_statistics(1);
    nlohmann::json checks = nlohmann::json::object();
    const TransportStats& stats = testbed_.node(1).nic.transport.stats();
    for (std::size_t i = 0; i < kRequestCheckCount; ++i)
      checks[to_string(static_cast<RequestCheck>(i))] = stats.request_checks[i];
    out["request_checks"] = checks;
    nlohmann::json rejected = nlohmann::json::object();
    const auto& by_error = testbed_.node(1).nic.parser.rejected();
    for (std::size_t i = 0; i < packet::kParseErrorCount; ++i)
      rejected[packet::to_string(static_cast<packet::ParseError>(i))] = by_error[i];
    out["parser_rejected"] = rejected;
    // Node a's QPs send only the bystanders' requests (its attacked QPs
    // never post): what b's checks saw beyond those came from the hostile peer.
    const TransportStats& a = testbed_.node(0).nic.transport.stats();
    nlohmann::json hostile = checks;
    hostile["accepted"] =
        stats.request_checks[0] - std::min(stats.request_checks[0], a.request_packets);
    out["request_checks_hostile"] = hostile;
    out["node_a_request_packets"] = a.request_packets;
    out["node_a_retransmitted_packets"] = a.retransmitted_packets;
    return out;
  }

  Testbed& testbed_;
  const CampaignOptions& options_;
  CampaignResult& result_;
  sc_core::sc_time propagation_;
  ProtectionOracle oracle_;
  RcOptions attacked_options_, bystander_options_;
  RcSide a_attacked_, b_attacked_, a_bystander_, b_bystander_;
  std::vector<Buffer> writable_;
  Buffer read_only_, local_only_, attacked_source_, bystander_source_b_;
  std::uint32_t deregistered_rkey_ = 0;
  std::vector<Buffer> attacked_receive_, a_attacked_target_;
  std::vector<std::vector<std::uint8_t>> a_attacked_target_before_, a_bystander_target_before_;
  std::vector<Buffer> bystander_target_, bystander_receive_, a_source_, a_readback_, a_send_,
      a_bystander_target_;
  std::vector<std::vector<std::vector<std::uint8_t>>> slot_image_;  // [pair][slot]
  std::vector<AttackedPair> attacked_;
  std::vector<testing::MemorySnapshot> snapshots_;
  std::vector<std::vector<std::uint8_t>> own_frames_;
  std::vector<std::uint64_t> sends_;  // SENDs completed per bystander pair
  std::uint64_t bystander_received_ = 0;
  bool bystander_b_wrote_ = false;
  std::uint64_t next_wr_id_ = 100;
  bool injecting_ = true;
  bool bystanders_a_done_ = false;
  int running_ = 0;
  sc_core::sc_event thread_done_;
};

}  // namespace

nlohmann::json CampaignResult::to_json() const {
  nlohmann::json mutations = nlohmann::json::object();
  for (std::size_t i = 0; i < kMutationCount; ++i)
    if (by_mutation[i] > 0) mutations[to_string(static_cast<Mutation>(i))] = by_mutation[i];
  return {{"passed", passed()},
          {"frames_sent", frames_sent},
          {"frames_redrawn", frames_redrawn},
          {"frames_by_mutation", mutations},
          {"node_b_receive_path", receive_path},
          {"memory_violations", memory_violations},
          {"bystander_errors", bystander_errors},
          {"attacked_errors", attacked_errors},
          {"attacked_end_states", attacked_end_states},
          {"attacked_completions", attacked_completions},
          {"attacked_reconnects", attacked_reconnects},
          {"attacked_reconnects_refused", attacked_reconnects_refused},
          {"bystander_messages", bystander_messages},
          {"bounds_check_broken_for_test", bounds_check_is_broken_for_test()},
          {"hang", hang},
          {"simulated_us", simulated_us},
          {"wall_seconds", wall_seconds}};
}

CampaignResult run_campaign(const CampaignOptions& options) {
  config::LoadedConfig loaded;
  loaded.file = "hostile campaign";
  loaded.given = nlohmann::json::object();
  loaded.effective = config::validate(loaded.given, rnicsim_schema(), loaded.file);
  config::RunConfig run(loaded);
  TestbedRequest request;
  request.host_software = true;
  request.verbs = true;
  const TestbedConfig config = testbed_config(run, request);
  Testbed testbed("testbed", config);

  CampaignResult result;
  const auto started = std::chrono::steady_clock::now();
  Campaign campaign(testbed, options, result, config.link.propagation);
  sc_core::sc_spawn([&campaign] {
    campaign.body();
    finish_workload();
  });
  try {
    simulate_workload(1);
  } catch (const WorkloadStalled&) {
    result.hang = true;
  }
  result.simulated_us = sim_now().to_seconds() * 1e6;
  result.wall_seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  return result;
}

}  // namespace rnicsim::hostile
