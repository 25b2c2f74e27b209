#include "program/experiments/perf/perf_workload.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <memory>
#include <ostream>
#include <set>
#include <stdexcept>
#include <string>
#include <unordered_map>

#include "common/message_breakdown.hpp"
#include "common/ring_queue.hpp"
#include "common/run_progress.hpp"
#include "common/simulation.hpp"
#include "common/statistics.hpp"
#include "common/time_units.hpp"
#include "system/rc_connection.hpp"

namespace rnicsim {
namespace {


using perf::PerfOptions;
using perf::PerfTest;

constexpr std::uint32_t kAllAccess = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
                                     IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_ATOMIC;

std::uint64_t now_ps() { return to_ps(sim_now()); }

// A QP's buffer: a slice of its side's one MR.
struct Region {
  std::uint64_t va = 0;
  ibv_mr* mr = nullptr;
};

// perftest's buffer (linux-rdma/perftest at 00b55b6660d0, src/perftest_resources.c:
// ctx_init's buff_size, create_mr and create_single_mr; src/perftest_communication.c:
// set_up_connection's vaddr): one MR per side, not one per QP (that is
// --mr_per_qp, not modelled), of INC(BUFF_SIZE(size, cycle_buffer), cache line)
// x 2 x QPs bytes for the largest size. QP i posts from (and reads into) slot
// i at i x BUFF_SIZE(size, cycle_buffer), and gives its peer slot QPs + i, in
// the second half, to write, read or receive into. cycle_buffer is the page
// size (sysconf(_SC_PAGESIZE)): 4 KiB on the hosts perftest runs on. Each
// message here uses its slot's start; perftest's BW tests step messages of up
// to 2 KiB through the 4 KiB in cache lines (increase_loc_addr), not modelled.
constexpr std::uint64_t kCycleBuffer = 4096;
constexpr std::uint64_t kCacheLine = 64;

struct Buffer {
  std::uint64_t va = 0;
  std::uint64_t slot_bytes = 0;  // BUFF_SIZE(size, cycle_buffer)
  ibv_mr* mr = nullptr;
  Region slot(std::uint64_t i) const { return {va + i * slot_bytes, mr}; }
};

}  // namespace

// The application threads of perftest's client and server. Their sides are
// 0 (the client) and 1 (the server); `ends` gives each side's testbed node.
class PerfWorkload::Threads : public sc_core::sc_module {
 public:
  RNICSIM_PROCESS_MODULE(Threads);
  Threads(const sc_core::sc_module_name& name, Testbed& testbed, const PerfEnds& ends,
          const PerfOptions& options, std::ostream& report, RunProgress& progress)
      : sc_core::sc_module(name),
        testbed_(testbed),
        node_{ends.client, ends.server},
        cpu_{ends.client_name + ".cpu", ends.server_name + ".cpu"},
        options_(options),
        report_(report),
        progress_(progress) {
    // Each application thread runs on its own core, which the verbs charge;
    // thread 0's is the driver's default. The server runs a thread per
    // client thread in send_bw, whose receives it reposts; else one.
    const std::uint32_t threads[2] = {options.threads, options.is_send() ? options.threads : 1};
    const std::string* names[2] = {&ends.client_name, &ends.server_name};
    for (std::size_t side = 0; side < 2; ++side) {
      for (std::uint32_t t = 0; t < threads[side]; ++t) {
        cores_[side].push_back(std::make_unique<CpuCore>(
            *names[side] + ".app_core" + (t == 0 ? std::string() : std::to_string(t))));
      }
      driver(side).use_core(cores_[side].front().get());
    }
    SC_THREAD(client);
    SC_THREAD(server);
    for (std::uint32_t t = 1; t < threads[0]; ++t) {
      sc_core::sc_spawn([this, t] { client_worker(t); }, ("client" + std::to_string(t)).c_str());
    }
    for (std::uint32_t t = 1; t < threads[1]; ++t) {
      sc_core::sc_spawn([this, t] { server_worker(t); }, ("server" + std::to_string(t)).c_str());
    }
  }

  PerfResult result;
  const CpuCore& core(std::size_t side) const { return *cores_[side].front(); }
  std::vector<const CpuCore*> cores(std::size_t side) const {
    std::vector<const CpuCore*> all;
    for (const auto& c : cores_[side]) all.push_back(c.get());
    return all;
  }
  // When set-up ended and the first size started: the CPU's figures are over
  // the measured part of the run, as the kernel TCP tests' (which need none).
  const sc_core::sc_time& measured_from() const { return measured_from_; }
  // The wall-clock moment set-up ended (speed.json's set-up time).
  std::chrono::steady_clock::time_point set_up_done_wall() const { return set_up_done_wall_; }

 private:
  Node& node_of(std::size_t side) { return testbed_.node(node_[side]); }
  VerbsDriver& driver(std::size_t side) { return node_of(side).software().driver; }
  HostSoftware& software(std::size_t side) { return node_of(side).software(); }

  Buffer buffer(std::size_t node, std::uint64_t largest, RcSide& side) {
    Buffer b;
    b.slot_bytes = std::max(largest, kCycleBuffer);
    const std::uint64_t line_rounded = (b.slot_bytes + kCacheLine - 1) / kCacheLine * kCacheLine;
    const std::uint64_t length = line_rounded * 2 * options_.qps;
    b.va = software(node).process.allocate(length);
    b.mr = driver(node).ibv_reg_mr(side.pd, b.va, length, kAllAccess);
    if (b.mr == nullptr) {
      fail_run("ibv_reg_mr of " + std::to_string(length) + " bytes failed (errno " +
               std::to_string(driver(node).last_error()) + ")");
    }
    return b;
  }

  // Slot q is what QP q posts from and reads into, slot QPs + q what the peer
  // accesses; a read's source is the peer's, its sink the reader's own.
  Region source(std::size_t node, std::uint32_t q) const {
    return buffers_[node].slot(options_.is_read() ? options_.qps + q : q);
  }
  Region sink(std::size_t node, std::uint32_t q) const {
    return buffers_[node].slot(options_.is_read() ? q : options_.qps + q);
  }

  // The connection's MTU: each end's port reports its own active MTU, and
  // the pair runs at the smaller one (perftest takes its port's active MTU,
  // or -m when that is smaller, on each side).
  void choose_mtu() {
    ibv_port_attr ports[2];
    for (std::size_t i = 0; i < 2; ++i) {
      if (driver(i).ibv_query_port(1, &ports[i]) != 0)
        fail_run("ibv_query_port failed (errno " + std::to_string(driver(i).last_error()) + ")");
    }
    active_mtu_ =
        std::min(ibv_mtu_to_bytes(ports[0].active_mtu), ibv_mtu_to_bytes(ports[1].active_mtu));
    mtu_ = perf::effective_mtu(options_, active_mtu_);
  }

  void set_up() {
    choose_mtu();
    RcOptions o;
    o.qps = options_.qps;
    o.cap.max_send_wr = std::max<std::uint32_t>(1, options_.tx_depth);
    o.cap.max_recv_wr = std::max<std::uint32_t>(1, options_.rx_depth);
    o.cap.max_send_sge = 1;
    o.cap.max_recv_sge = 1;
    o.cap.max_inline_data = options_.inline_size;
    // Each thread's CQs take its QPs' completions.
    const std::uint32_t qps_per_thread = (options_.qps + options_.threads - 1) / options_.threads;
    o.cq_groups = options_.threads;
    o.cq_entries = static_cast<int>(std::max<std::uint64_t>(
        1, std::uint64_t{std::max(o.cap.max_send_wr, o.cap.max_recv_wr)} * qps_per_thread));
    o.mtu = ibv_mtu_from_bytes(mtu_);
    o.max_rd_atomic = 16;
    o.timeout = options_.qp_timeout;
    a_ = create_rc_side(testbed_, node_[0], o);
    b_ = create_rc_side(testbed_, node_[1], o);
    connect_rc(testbed_, a_, b_, o);
    for (std::uint32_t q = 0; q < options_.qps; ++q) {
      qp_index_[0][a_.qps[q]->qp_num] = q;
      qp_index_[1][b_.qps[q]->qp_num] = q;
    }
    const std::uint64_t largest = options_.sizes.back();
    buffers_[0] = buffer(0, largest, a_);
    buffers_[1] = buffer(1, largest, b_);
    for (std::uint32_t q = 0; q < options_.qps; ++q) {
      fill(0, source(0, q), std::max<std::uint64_t>(largest, 8), 0x11 + q);
      fill(1, source(1, q), std::max<std::uint64_t>(largest, 8), 0x77 + q);
    }
    print_banner(o);
  }

  void fill(std::size_t node, const Region& r, std::uint64_t length, std::uint32_t salt) {
    std::vector<std::uint8_t> bytes(length);
    for (std::size_t i = 0; i < bytes.size(); ++i)
      bytes[i] = static_cast<std::uint8_t>(i * 13 + salt);
    software(node).process.write(node_of(node).host.memory, r.va, bytes.data(),
                                 bytes.size());
  }

  std::vector<std::uint8_t> contents(std::size_t node, std::uint64_t va, std::uint64_t n) {
    std::vector<std::uint8_t> out(n);
    software(node).process.read(node_of(node).host.memory, va, out.data(), n);
    return out;
  }

  void print_banner(const RcOptions& o) {
    perf::BannerInfo info;
    info.active_mtu = active_mtu_;
    info.out_reads = o.max_rd_atomic;
    for (std::uint32_t q = 0; q < options_.qps; ++q) {
      perf::QpAddress local, remote;
      local.qpn = a_.qps[q]->qp_num;
      local.psn = (o.first_psn + q) & 0xFFFFFF;
      local.out_reads = o.max_rd_atomic;
      // Each side prints the buffer its peer's requests access, as perftest
      // does: the server's is what the client's RETH or atomic header carries.
      local.rkey = remote_target(0, q).mr->rkey;
      local.vaddr = remote_target(0, q).va;
      local.gid = node_gid(node_[0]);
      remote.qpn = b_.qps[q]->qp_num;
      remote.psn = (local.psn + 0x1000) & 0xFFFFFF;
      remote.out_reads = o.max_rd_atomic;
      remote.rkey = remote_target(1, q).mr->rkey;
      remote.vaddr = remote_target(1, q).va;
      remote.gid = node_gid(node_[1]);
      info.local.push_back(local);
      info.remote.push_back(remote);
    }
    report_ << perf::format_banner(options_, info) << perf::format_table_header(options_);
  }

  // The buffer of `node` that the other node's requests on QP `q` access:
  // READs read its source, the other verbs write its sink.
  Region remote_target(std::size_t node, std::uint32_t q) const {
    return options_.is_read() ? source(node, q) : sink(node, q);
  }

  // A work request of `node`'s on QP `q`, to the peer's buffer.
  ibv_send_wr request(std::size_t node, std::uint32_t q, std::uint64_t bytes, const ibv_sge& sge,
                      bool signaled, std::uint64_t wr_id) {
    ibv_send_wr wr;
    wr.wr_id = wr_id;
    wr.sg_list = &sge;
    wr.num_sge = 1;
    wr.send_flags = signaled ? std::uint32_t{IBV_SEND_SIGNALED} : 0u;
    if (options_.sends_inline(bytes) && !options_.is_read() && !options_.is_atomic())
      wr.send_flags |= IBV_SEND_INLINE;
    const Region target = remote_target(1 - node, q);
    if (options_.is_write()) {
      wr.opcode = IBV_WR_RDMA_WRITE;
    } else if (options_.is_read()) {
      wr.opcode = IBV_WR_RDMA_READ;
    } else if (options_.is_send()) {
      wr.opcode = IBV_WR_SEND;
    } else {
      wr.opcode = options_.atomic_type == perf::AtomicType::kCmpAndSwap
                      ? IBV_WR_ATOMIC_CMP_AND_SWP
                      : IBV_WR_ATOMIC_FETCH_AND_ADD;
      wr.atomic.remote_addr = target.va;
      wr.atomic.rkey = target.mr->rkey;
      wr.atomic.compare_add = 1;
      wr.atomic.swap = 1;
    }
    wr.rdma.remote_addr = target.va;
    wr.rdma.rkey = target.mr->rkey;
    return wr;
  }

  void post(std::size_t node, ibv_qp* qp, const ibv_send_wr& wr) {
    const ibv_send_wr* bad = nullptr;
    if (driver(node).ibv_post_send(qp, &wr, &bad) != 0)
      fail_run("ibv_post_send failed: " + driver(node).last_error_reason());
  }

  void post_recv(std::size_t node, ibv_qp* qp, const Region& into, std::uint64_t bytes) {
    const ibv_sge sge{into.va, static_cast<std::uint32_t>(std::max<std::uint64_t>(bytes, 1)),
                      into.mr->lkey};
    ibv_recv_wr wr;
    wr.sg_list = &sge;
    wr.num_sge = 1;
    if (driver(node).ibv_post_recv(qp, &wr, nullptr) != 0)
      fail_run("ibv_post_recv failed: " + driver(node).last_error_reason());
  }

  // Waits for one completion and checks its status.
  ibv_wc completion(std::size_t node, ibv_cq* cq) {
    ibv_wc wc;
    while (driver(node).ibv_poll_cq(cq, 1, &wc) == 0) driver(node).wait_cq(cq);
    check(wc);
    return wc;
  }

  static void check(const ibv_wc& wc) {
    if (wc.status != IBV_WC_SUCCESS) {
      std::ostringstream qp;
      qp << std::hex << wc.qp_num;
      fail_run(std::string("a completion with status ") + ibv_wc_status_str(wc.status) +
               " (QP 0x" + qp.str() + ")");
    }
  }

  // perftest's write_lat: each side writes into the other's buffer, and each
  // spins on the last byte of its own until the peer's write lands.
  void write_lat_side(std::size_t node, std::uint64_t bytes, std::vector<std::uint64_t>* posts) {
    RcSide& side = node == 0 ? a_ : b_;
    const Region source = this->source(node, 0);
    const Region sink = this->sink(node, 0);
    const std::uint64_t last = std::max<std::uint64_t>(bytes, 1) - 1;
    for (std::uint64_t i = 0; i < options_.iterations; ++i) {
      const auto marker = static_cast<std::uint8_t>(i % 255 + 1);
      if (node == 1) {
        await_byte(1, sink.va + last, marker);
        breakdown().end(cpu_[1], "write noticed", driver(1).last_landed(), "data in memory");
      }
      if (bytes > 0) software(node).process.write(node_of(node).host.memory,
                                                  source.va + last, &marker, 1);
      if (posts) posts->push_back(now_ps());
      if (node == 0) breakdown().begin(cpu_[0]);
      const ibv_sge sge{source.va, static_cast<std::uint32_t>(bytes), source.mr->lkey};
      post(node, side.qps[0], request(node, 0, bytes, sge, true, i));
      if (node == 0) await_byte(0, sink.va + last, marker);
      completion(node, side.send_cq);
      if (node == 0) progress_.advance();
    }
  }

  void await_byte(std::size_t node, std::uint64_t va, std::uint8_t value) {
    for (;;) {
      std::uint8_t byte = 0;
      software(node).process.read(node_of(node).host.memory, va, &byte, 1);
      if (byte == value) return;
      driver(node).wait_write(va, 1);
    }
  }

  void send_lat_side(std::size_t node, std::uint64_t bytes, std::vector<std::uint64_t>* posts) {
    RcSide& side = node == 0 ? a_ : b_;
    const Region source = this->source(node, 0);
    const Region sink = this->sink(node, 0);
    for (std::uint64_t i = 0; i < options_.iterations; ++i) {
      // A receive is reposted for each one used while iterations remain for it.
      const bool repost = i + options_.rx_depth < options_.iterations;
      if (node == 1) {
        completion(1, side.recv_cq);
        breakdown().end(cpu_[1], "receive polled", driver(1).last_landed(), "CQE in memory");
        if (repost) post_recv(1, side.qps[0], sink, bytes);
      }
      if (posts) posts->push_back(now_ps());
      if (node == 0) breakdown().begin(cpu_[0]);
      const ibv_sge sge{source.va, static_cast<std::uint32_t>(bytes), source.mr->lkey};
      post(node, side.qps[0], request(node, 0, bytes, sge, true, i));
      if (node == 0) {
        completion(0, side.recv_cq);
        if (repost) post_recv(0, side.qps[0], sink, bytes);
      }
      completion(node, side.send_cq);
      if (node == 0) progress_.advance();
    }
  }

  // read_lat and atomic_lat: the client alone, one request at a time.
  void request_lat(std::uint64_t bytes, std::vector<std::uint64_t>& posts) {
    for (std::uint64_t i = 0; i < options_.iterations; ++i) {
      posts.push_back(now_ps());
      breakdown().begin(cpu_[0]);
      const Region into = sink(0, 0);
      const ibv_sge sge{into.va, static_cast<std::uint32_t>(bytes), into.mr->lkey};
      post(0, a_.qps[0], request(0, 0, bytes, sge, true, i));
      completion(0, a_.send_cq);
      breakdown().end(cpu_[0], "completion polled", driver(0).last_landed(), "CQE in memory");
      progress_.advance();
    }
  }

  // The BW tests' client thread `thread`: on its QPs (q % threads ==
  // thread), keeps tx_depth messages outstanding per QP, signals every
  // cq_moderation-th, and polls its own send CQ. It records when each message
  // was posted and when the completion covering it was polled, numbering
  // messages across threads in the order they are posted. Without a peak it
  // keeps only the first post and the last completion, as perftest does (its
  // time arrays then have one entry), so a long run's memory stays flat.
  void bw_client(std::uint32_t thread, std::uint64_t bytes) {
    const std::uint64_t iters = pass_iterations_;
    const std::uint32_t threads = options_.threads;
    const bool every_message = measuring_ && options_.measures_peak();
    std::vector<std::uint32_t> mine;  // its QPs; QP mine[j] is q = thread + j x threads
    for (std::uint32_t q = thread; q < options_.qps; q += threads) mine.push_back(q);
    const std::uint64_t total = iters * mine.size();
    std::vector<std::uint64_t> sent(mine.size(), 0), done(mine.size(), 0);
    // Posted, not completed; a ring, as a deque would allocate every few messages.
    std::vector<RingQueue<std::uint64_t>> open(mine.size());
    // The QPs with room to post, in ascending order: a round posts to them as
    // a scan of every QP would, without visiting the full ones.
    std::set<std::uint32_t> ready;
    for (std::uint32_t j = 0; j < mine.size(); ++j) ready.insert(ready.end(), j);
    ibv_cq* const cq = a_.send_cqs[thread];
    std::uint64_t finished = 0;
    std::vector<ibv_wc> wcs(std::max<std::uint32_t>(16, options_.cqe_poll_batch()));
    while (finished < total) {
      bool posted_any = false;
      for (auto it = ready.begin(); it != ready.end(); it = ready.erase(it)) {
        const std::uint32_t j = *it;
        const std::uint32_t q = mine[j];
        while (sent[j] < iters && sent[j] - done[j] < options_.tx_depth) {
          const bool signaled = (sent[j] + 1) % options_.cq_moderation == 0 || sent[j] + 1 == iters;
          const Region from = options_.is_read() ? sink(0, q) : source(0, q);
          const ibv_sge sge{from.va, static_cast<std::uint32_t>(bytes), from.mr->lkey};
          const std::uint64_t id = next_message_++;
          if (every_message || id == 0) posted_[every_message ? id : 0] = now_ps();
          post(0, a_.qps[q], request(0, q, bytes, sge, signaled, id));
          open[j].push_back(id);
          ++sent[j];
          posted_any = true;
        }
      }
      const int n = driver(0).ibv_poll_cq(cq, static_cast<int>(wcs.size()), wcs.data());
      for (int k = 0; k < n; ++k) {
        check(wcs[static_cast<std::size_t>(k)]);
        const std::uint64_t id = wcs[static_cast<std::size_t>(k)].wr_id;
        const std::uint32_t j = qp_index(0, wcs[static_cast<std::size_t>(k)].qp_num) / threads;
        while (!open[j].empty() && open[j].front() <= id) {
          // Simulated time never goes back: the latest write is the last completion.
          completed_[every_message ? open[j].front() : 0] = now_ps();
          open[j].pop_front();
          ++done[j];
          ++finished;
          if (measuring_) progress_.advance();
        }
        if (sent[j] < iters && sent[j] - done[j] < options_.tx_depth) ready.insert(j);
      }
      if (n == 0 && !posted_any) driver(0).wait_cq(cq);
    }
  }

  // send_bw's server thread `thread`: keeps rx_depth receives posted per QP
  // of its own (q % threads == thread), polling its own receive CQ.
  void bw_server(std::uint32_t thread, std::uint64_t bytes) {
    std::uint64_t own_qps = 0;
    for (std::uint32_t q = thread; q < options_.qps; q += options_.threads) ++own_qps;
    const std::uint64_t total = pass_iterations_ * own_qps;
    // A QP's receive is reposted while its messages still to arrive exceed
    // the receives it has posted: per QP, as perftest's server counts them,
    // so a QP whose messages come first cannot take another QP's receives.
    std::vector<std::uint64_t> received(options_.qps, 0);
    ibv_cq* const cq = b_.recv_cqs[thread];
    std::vector<ibv_wc> wcs(16);
    for (std::uint64_t got = 0; got < total;) {
      const int n = driver(1).ibv_poll_cq(cq, 16, wcs.data());
      if (n == 0) {
        driver(1).wait_cq(cq);
        continue;
      }
      for (int k = 0; k < n; ++k) {
        check(wcs[static_cast<std::size_t>(k)]);
        const std::uint32_t q = qp_index(1, wcs[static_cast<std::size_t>(k)].qp_num);
        ++got;
        if (++received[q] + first_receives() <= pass_iterations_) {
          post_recv(1, b_.qps[q], sink(1, q), bytes);
        }
      }
    }
  }

  // The index of side `node`'s QP numbered `qpn`.
  std::uint32_t qp_index(std::size_t node, std::uint32_t qpn) const {
    const auto found = qp_index_[node].find(qpn);
    if (found == qp_index_[node].end())
      throw std::logic_error(std::string("a completion for a QP the ") +
                             (node == 0 ? "client" : "server") + " does not have");
    return found->second;
  }

  // Write and read move the whole buffer: the target must hold the source's bytes.
  void check_data(std::uint64_t bytes) {
    if (bytes == 0 || !(options_.is_write() || options_.is_read() || options_.is_send())) return;
    for (std::uint32_t q = 0; q < options_.qps; ++q) {
      const bool read = options_.is_read();
      const Region from = source(read ? 1 : 0, q);
      const Region to = sink(read ? 0 : 1, q);
      const std::uint64_t n = options_.is_latency() && !read ? bytes - 1 : bytes;
      if (contents(read ? 1 : 0, from.va, n) != contents(read ? 0 : 1, to.va, n))
        fail_run("after " + std::to_string(bytes) + " B messages QP " + std::to_string(q) +
                 "'s target does not hold the source's bytes");
    }
  }

  void client() {
    try {
      set_up();
    } catch (const std::runtime_error& e) {
      // The simulated host's physical memory ran out for the queues, CQs and
      // buffers set-up allocates (a real ibv_create_qp or ibv_reg_mr fails
      // with ENOMEM): the run fails, naming the keys that size it.
      fail_run(std::string("set-up failed: ") + e.what() +
               " (the host's physical memory: host.memory_bytes, in pages of host.page_bytes)");
      return;
    }
    measured_from_ = sim_now();
    set_up_done_wall_ = std::chrono::steady_clock::now();
    for (std::size_t s = 0; s < options_.sizes.size(); ++s) {
      const std::uint64_t bytes = options_.sizes[s];
      size_ = bytes;
      if (options_.sizes.size() > 1) {
        progress_.set_note("size " + std::to_string(s + 1) + " of " +
                           std::to_string(options_.sizes.size()) + ": " + std::to_string(bytes) +
                           " B");
      }
      if (options_.is_bw() && options_.warmup > 0) warm_up(bytes);
      pass_iterations_ = options_.iterations;
      measuring_ = true;
      start_pass(bytes);
      std::vector<std::uint64_t> posts, completed;
      if (options_.is_latency()) {
        posts.reserve(options_.iterations);  // one post time per iteration
        if (options_.is_write()) {
          write_lat_side(0, bytes, &posts);
        } else if (options_.is_send()) {
          send_lat_side(0, bytes, &posts);
        } else {
          request_lat(bytes, posts);
        }
      } else {
        const std::uint64_t kept = options_.measures_peak() ? options_.total_messages() : 1;
        posted_.assign(kept, 0);
        completed_.assign(kept, 0);
        next_message_ = 0;
        bw_client(0, bytes);
        await_client_threads();  // they write posted_ and completed_ until done
        posts = std::move(posted_);
        completed = std::move(completed_);
      }
      await_server_threads();
      progress_.finish();  // the row goes where the progress line was
      if (options_.is_latency()) {
        result.latency.push_back(perf::latency_row(bytes, posts, options_.test));
        report_ << perf::format_latency_row(result.latency.back());
        if (options_.breakdown) result.breakdowns.push_back({bytes, breakdown().take()});
      } else {
        result.bandwidth.push_back(perf::bw_row(bytes, posts, completed, options_));
        report_ << perf::format_bw_row(result.bandwidth.back(), options_.report_gbits);
      }
      report_.flush();
      check_data(bytes);
    }
    report_ << perf::format_table_footer();
    finish_workload();
  }

  // The receives posted per QP before a pass of send tests.
  std::uint64_t first_receives() const {
    return measuring_ ? options_.rx_depth
                      : std::min<std::uint64_t>(options_.rx_depth, pass_iterations_);
  }

  // Starts a pass of size `bytes` (its receives posted first, as perftest's
  // server posts them before a size) on every thread.
  void start_pass(std::uint64_t bytes) {
    if (options_.is_send()) {
      for (std::uint32_t q = 0; q < options_.qps; ++q) {
        for (std::uint64_t k = 0; k < first_receives(); ++k) {
          post_recv(1, b_.qps[q], sink(1, q), bytes);
          if (options_.is_latency()) post_recv(0, a_.qps[q], sink(0, q), bytes);
        }
      }
    }
    ++sizes_started_;
    size_start_.notify(sc_core::SC_ZERO_TIME);
  }

  // Waits for the client threads other than 0 to finish a BW pass.
  void await_client_threads() {
    while (clients_done_ + 1 < options_.threads) sc_core::wait(client_finished_);
    clients_done_ = 0;
  }

  // Waits for the server threads to finish the pass.
  void await_server_threads() {
    while (servers_done_ < cores_[1].size()) sc_core::wait(server_finished_);
    servers_done_ = 0;
  }

  // --warmup: a BW pass of `warmup` messages per QP, completed and not measured.
  void warm_up(std::uint64_t bytes) {
    const nlohmann::json before = testbed_.statistics();
    pass_iterations_ = options_.warmup;
    measuring_ = false;
    start_pass(bytes);
    posted_.assign(1, 0);
    completed_.assign(1, 0);
    next_message_ = 0;
    bw_client(0, bytes);
    await_client_threads();
    await_server_threads();
    const nlohmann::json added = statistics_combined(testbed_.statistics(), before, -1);
    warmup_statistics =
        warmup_statistics.is_null() ? added : statistics_combined(warmup_statistics, added, +1);
  }

  static MessageBreakdown& breakdown() { return MessageBreakdown::instance(); }

  void server() {
    for (std::uint64_t sizes_served = 0;; ++sizes_served) {
      while (sizes_started_ == sizes_served) sc_core::wait(size_start_);
      const std::uint64_t bytes = size_;
      if (options_.is_latency()) {
        if (options_.is_write()) write_lat_side(1, bytes, nullptr);
        if (options_.is_send()) send_lat_side(1, bytes, nullptr);
      } else if (options_.is_send()) {
        bw_server(0, bytes);
      }
      ++servers_done_;
      server_finished_.notify(sc_core::SC_ZERO_TIME);
    }
  }

  // Client thread `thread` (1 and up): its share of each size's messages.
  void client_worker(std::uint32_t thread) {
    driver(0).use_core_for_this_thread(cores_[0][thread].get());
    for (std::uint64_t sizes_run = 0;; ++sizes_run) {
      while (sizes_started_ == sizes_run) sc_core::wait(size_start_);
      bw_client(thread, size_);
      ++clients_done_;
      client_finished_.notify(sc_core::SC_ZERO_TIME);
    }
  }

  // send_bw's server thread `thread` (1 and up).
  void server_worker(std::uint32_t thread) {
    driver(1).use_core_for_this_thread(cores_[1][thread].get());
    for (std::uint64_t sizes_served = 0;; ++sizes_served) {
      while (sizes_started_ == sizes_served) sc_core::wait(size_start_);
      bw_server(thread, size_);
      ++servers_done_;
      server_finished_.notify(sc_core::SC_ZERO_TIME);
    }
  }

  Testbed& testbed_;
  const std::size_t node_[2];   // each side's testbed node
  const std::string cpu_[2];    // each side's CPU, as --breakdown names it
  std::vector<std::unique_ptr<CpuCore>> cores_[2];  // each side's, per thread
  const PerfOptions& options_;
  std::uint32_t mtu_ = 0;         // the connection's path MTU
  std::uint32_t active_mtu_ = 0;  // the smaller of the two ports' active MTUs
  std::ostream& report_;
  RunProgress& progress_;
  RcSide a_, b_;
  sc_core::sc_time measured_from_;
  std::chrono::steady_clock::time_point set_up_done_wall_{};
  Buffer buffers_[2];
  std::unordered_map<std::uint32_t, std::uint32_t> qp_index_[2];  // QP number -> index
  sc_core::sc_event size_start_, server_finished_, client_finished_;
  std::uint64_t size_ = 0;
  std::uint64_t sizes_started_ = 0;
  std::size_t servers_done_ = 0;    // server threads done with the size
  std::uint32_t clients_done_ = 0;  // client threads other than 0 done with it
  // A BW size's post and completion times (bw_client), shared by the threads.
  std::vector<std::uint64_t> posted_, completed_;
  std::uint64_t next_message_ = 0;
  std::uint64_t pass_iterations_ = 0;  // messages per QP in this pass
  bool measuring_ = true;              // false in the --warmup pass

 public:
  nlohmann::json warmup_statistics;  // what the warm-up passes added (PerfWorkload)
};


PerfWorkload::PerfWorkload(const char* name, Testbed& testbed, const PerfEnds& ends,
                           const perf::PerfOptions& options, std::ostream& report,
                           RunProgress& progress)
    : threads_(std::make_unique<Threads>(name, testbed, ends, options, report, progress)) {}

PerfWorkload::~PerfWorkload() = default;

PerfResult& PerfWorkload::result() { return threads_->result; }
const CpuCore& PerfWorkload::core(std::size_t side) const { return threads_->core(side); }
std::vector<const CpuCore*> PerfWorkload::cores(std::size_t side) const {
  return threads_->cores(side);
}
const sc_core::sc_time& PerfWorkload::measured_from() const { return threads_->measured_from(); }
const nlohmann::json& PerfWorkload::warmup_statistics() const {
  return threads_->warmup_statistics;
}
std::chrono::steady_clock::time_point PerfWorkload::set_up_done_wall() const {
  return threads_->set_up_done_wall();
}

}  // namespace rnicsim
