#include "program/experiments/collectives/rank_link.hpp"

#include <deque>
#include <stdexcept>
#include <string>

#include "common/simulation.hpp"
#include "program/experiments/collectives/collectives_config.hpp"
#include "system/rc_connection.hpp"

namespace rnicsim {
namespace {

constexpr std::uint32_t kInlineBytes = kInlineSendBytes;
constexpr std::uint64_t kMaxCqEntries = 16384;
constexpr int kCompletionsPerPoll = 16;

template <class T>
T* checked(T* result, VerbsDriver& driver, const std::string& what) {
  if (result == nullptr) fail_run(what + " failed: " + driver.last_error_reason());
  return result;
}

// Completions of the eager QPs' receives carry this tag in wr_id, with the
// peer and the bounce slot; a request's wr_id is its number.
constexpr std::uint64_t kEagerTag = 1ULL << 63;
constexpr int kEagerPeerShift = 24;

class RdmaRankLink : public RankLink {
 public:
  RdmaRankLink(std::size_t rank, Node& node, const std::string& name,
               const RdmaRankOptions& options)
      : rank_(rank),
        node_(node),
        driver_(node.software().driver),
        core_(name + ".app_core"),
        options_(options) {
    driver_.use_core(&core_);
  }

  void open(std::uint64_t va, std::uint64_t bytes, int cq_entries) {
    pd_ = checked(driver_.ibv_alloc_pd(), driver_, "ibv_alloc_pd");
    cq_ = checked(driver_.ibv_create_cq(cq_entries), driver_, "ibv_create_cq");
    mr_ = register_memory(va, bytes);
  }

  // This rank's side of the RC connections to `peer`: QP 0 carries the
  // messages above the eager size into posted receives, QP 1 the eager ones.
  RcSide side(std::size_t node, std::size_t peer) {
    ibv_qp_init_attr init;
    init.send_cq = cq_;
    init.recv_cq = cq_;
    init.cap.max_send_wr = options_.queue_depth;
    init.cap.max_recv_wr = options_.queue_depth;
    init.cap.max_send_sge = 1;
    init.cap.max_recv_sge = 1;
    init.cap.max_inline_data = kInlineBytes;
    Peer& p = peers_[peer];
    p.direct = checked(driver_.ibv_create_qp(pd_, init), driver_, "ibv_create_qp");
    p.eager = checked(driver_.ibv_create_qp(pd_, init), driver_, "ibv_create_qp");
    RcSide s;
    s.driver = &driver_;
    s.node = node;
    s.pd = pd_;
    s.send_cq = cq_;
    s.recv_cq = cq_;
    s.qps = {p.direct, p.eager};
    return s;
  }

  // Once connected: every peer's eager receives posted into bounce buffers.
  void post_eager_receives() {
    if (options_.eager_depth == 0) return;
    const std::uint64_t slot_bytes = options_.eager_bytes;
    const std::uint64_t bytes = peers_.size() * options_.eager_depth * slot_bytes;
    const std::uint64_t va = node_.software().process.allocate(bytes);
    bounce_mr_ = register_memory(va, bytes);
    std::uint64_t next = va;
    for (auto& [peer, p] : peers_) {
      p.bounce = next;
      next += options_.eager_depth * slot_bytes;
      for (std::uint32_t slot = 0; slot < options_.eager_depth; ++slot) post_bounce(peer, slot);
    }
  }

  Request isend(std::size_t peer, std::uint64_t va, std::uint64_t bytes) override {
    library_work();
    const Request r = next_request(false);
    ibv_sge sge{va, static_cast<std::uint32_t>(bytes), mr_->lkey};
    ibv_send_wr wr;
    wr.wr_id = r;
    wr.sg_list = &sge;
    wr.num_sge = 1;
    wr.opcode = IBV_WR_SEND;
    wr.send_flags = IBV_SEND_SIGNALED | (bytes <= kInlineBytes ? IBV_SEND_INLINE : 0u);
    Peer& p = peer_at(peer);
    if (driver_.ibv_post_send(eager(bytes) ? p.eager : p.direct, &wr, nullptr) != 0) {
      fail_run("rank " + std::to_string(rank_) + ": ibv_post_send to rank " + std::to_string(peer) +
               " failed: " + driver_.last_error_reason());
    }
    return r;
  }

  Request irecv(std::size_t peer, std::uint64_t va, std::uint64_t bytes) override {
    library_work();
    const Request r = next_request(true);
    Peer& p = peer_at(peer);
    if (eager(bytes)) {
      // Matched, in order, with what arrives in the bounce buffers.
      p.expected.push_back({r, va, bytes});
      match(peer);
      return r;
    }
    ibv_sge sge{va, static_cast<std::uint32_t>(bytes), mr_->lkey};
    ibv_recv_wr wr;
    wr.wr_id = r;
    wr.sg_list = &sge;
    wr.num_sge = 1;
    if (driver_.ibv_post_recv(p.direct, &wr, nullptr) != 0) {
      fail_run("rank " + std::to_string(rank_) + ": ibv_post_recv from rank " +
               std::to_string(peer) + " failed: " + driver_.last_error_reason());
    }
    return r;
  }

  bool takes_bytes_at_post(std::uint64_t bytes) const override { return bytes <= kInlineBytes; }

  void wait(Request request) override {
    while (!done(request)) {
      const int n = driver_.ibv_poll_cq(cq_, kCompletionsPerPoll, completions_);
      if (n == 0) {
        driver_.wait_cq(cq_);
        continue;
      }
      for (int k = 0; k < n; ++k) {
        const ibv_wc& wc = completions_[k];
        if (wc.status != IBV_WC_SUCCESS) {
          fail_run("rank " + std::to_string(rank_) + ": a message completed with " +
                   ibv_wc_status_str(wc.status));
        }
        if (wc.wr_id & kEagerTag) {
          const std::size_t peer =
              static_cast<std::size_t>((wc.wr_id & ~kEagerTag) >> kEagerPeerShift);
          const std::uint32_t slot =
              static_cast<std::uint32_t>(wc.wr_id & ((1u << kEagerPeerShift) - 1));
          peer_at(peer).arrived.push_back({slot, wc.byte_len});
          match(peer);
        } else {
          complete(wc.wr_id);
        }
      }
    }
  }

  CpuCore& core() override { return core_; }
  std::vector<const CpuCore*> cores() const override { return {&core_}; }

 private:
  struct Expected {
    Request request;
    std::uint64_t va, bytes;
  };
  struct Arrival {
    std::uint32_t slot, bytes;
  };
  struct Peer {
    ibv_qp* direct = nullptr;
    ibv_qp* eager = nullptr;
    std::uint64_t bounce = 0;       // its eager_depth bounce buffers
    std::deque<Expected> expected;  // eager receives the rank asked for, in order
    std::deque<Arrival> arrived;    // eager messages not yet asked for
  };

  bool eager(std::uint64_t bytes) const {
    return options_.eager_depth > 0 && bytes <= options_.eager_bytes;
  }

  ibv_mr* register_memory(std::uint64_t va, std::uint64_t bytes) {
    return checked(driver_.ibv_reg_mr(
                       pd_, va, bytes,
                       IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ),
                   driver_, "ibv_reg_mr");
  }

  void post_bounce(std::size_t peer, std::uint32_t slot) {
    Peer& p = peer_at(peer);
    ibv_sge sge{p.bounce + std::uint64_t{slot} * options_.eager_bytes,
                static_cast<std::uint32_t>(options_.eager_bytes), bounce_mr_->lkey};
    ibv_recv_wr wr;
    wr.wr_id = kEagerTag | (std::uint64_t{peer} << kEagerPeerShift) | slot;
    wr.sg_list = &sge;
    wr.num_sge = 1;
    if (driver_.ibv_post_recv(p.eager, &wr, nullptr) != 0) {
      fail_run("rank " + std::to_string(rank_) +
               ": ibv_post_recv of an eager buffer failed: " + driver_.last_error_reason());
    }
  }

  // Pairs eager arrivals with the receives asked for, in order: the bytes
  // are copied to the rank's buffer and the bounce buffer posted again.
  void match(std::size_t peer) {
    Peer& p = peer_at(peer);
    while (!p.expected.empty() && !p.arrived.empty()) {
      const Expected e = p.expected.front();
      const Arrival a = p.arrived.front();
      p.expected.pop_front();
      p.arrived.pop_front();
      if (a.bytes != e.bytes) {
        fail_run("rank " + std::to_string(rank_) + ": an eager message of " +
                 std::to_string(a.bytes) + " bytes from rank " + std::to_string(peer) + " where " +
                 std::to_string(e.bytes) + " were expected");
      }
      copy_.resize(e.bytes);
      AddressSpace& process = node_.software().process;
      process.read(node_.host.memory, p.bounce + std::uint64_t{a.slot} * options_.eager_bytes,
                   copy_.data(), e.bytes);
      process.write(node_.host.memory, e.va, copy_.data(), e.bytes);
      const double ns = static_cast<double>(e.bytes) * 8 / options_.copy_gbps;
      core_.run(picoseconds(static_cast<std::uint64_t>(ns * 1000 + 0.5)), CpuWork::kCopy);
      post_bounce(peer, a.slot);
      complete(e.request);
    }
  }

  Peer& peer_at(std::size_t peer) {
    const auto it = peers_.find(peer);
    if (it == peers_.end()) throw std::logic_error("rank has no QP to that peer");
    return it->second;
  }
  void library_work() {
    if (options_.step_cost != sc_core::SC_ZERO_TIME)
      core_.run(options_.step_cost, CpuWork::kLibrary);
  }

  std::size_t rank_;
  Node& node_;
  VerbsDriver& driver_;
  CpuCore core_;
  RdmaRankOptions options_;
  ibv_pd* pd_ = nullptr;
  ibv_cq* cq_ = nullptr;
  ibv_mr* mr_ = nullptr;
  ibv_mr* bounce_mr_ = nullptr;
  std::map<std::size_t, Peer> peers_;
  std::vector<std::uint8_t> copy_;
  ibv_wc completions_[kCompletionsPerPoll];
};

// One direction of one connection: its requests, done in order by one thread.
struct TcpQueue {
  struct Item {
    RankLink::Request request;
    std::uint64_t va;
    std::uint64_t bytes;
  };
  std::deque<Item> items;
  sc_core::sc_event added;
};

class TcpRankLink : public RankLink {
 public:
  TcpRankLink(KernelStack& stack, const std::map<std::size_t, std::size_t>& connection,
              const sc_core::sc_time& step_cost)
      : stack_(stack), step_cost_(step_cost) {
    for (const auto& [peer, index] : connection) {
      auto& q = queues_[peer];
      q.connection = index;
      sc_core::sc_spawn([this, peer = peer] { serve(peer, true); },
                        sc_core::sc_gen_unique_name("tcp_send"));
      sc_core::sc_spawn([this, peer = peer] { serve(peer, false); },
                        sc_core::sc_gen_unique_name("tcp_recv"));
    }
  }

  Request isend(std::size_t peer, std::uint64_t va, std::uint64_t bytes) override {
    return queue(peer, true, va, bytes);
  }
  Request irecv(std::size_t peer, std::uint64_t va, std::uint64_t bytes) override {
    return queue(peer, false, va, bytes);
  }
  // The send worker copies the bytes into the socket when it gets to them.
  bool takes_bytes_at_post(std::uint64_t) const override { return false; }
  void wait(Request request) override {
    while (!done(request)) sc_core::wait(completed_);
  }
  CpuCore& core() override { return stack_.app_core(); }
  std::vector<const CpuCore*> cores() const override {
    return {&stack_.app_core(), &stack_.softirq_core()};
  }

 private:
  struct PeerQueues {
    std::size_t connection = 0;
    TcpQueue send, receive;
  };

  Request queue(std::size_t peer, bool send, std::uint64_t va, std::uint64_t bytes) {
    if (step_cost_ != sc_core::SC_ZERO_TIME) stack_.app_core().run(step_cost_, CpuWork::kLibrary);
    const Request r = next_request(!send);
    const auto it = queues_.find(peer);
    if (it == queues_.end()) throw std::logic_error("rank has no connection to that peer");
    TcpQueue& q = send ? it->second.send : it->second.receive;
    q.items.push_back({r, va, bytes});
    q.added.notify(sc_core::SC_ZERO_TIME);
    return r;
  }

  void serve(std::size_t peer, bool send) {
    PeerQueues& p = queues_.at(peer);
    TcpQueue& q = send ? p.send : p.receive;
    for (;;) {
      while (q.items.empty()) sc_core::wait(q.added);
      const TcpQueue::Item item = q.items.front();
      q.items.pop_front();
      if (send) {
        stack_.send(p.connection, item.va, item.bytes);
      } else {
        stack_.recv(p.connection, item.va, item.bytes);
      }
      complete(item.request);
      completed_.notify(sc_core::SC_ZERO_TIME);
    }
  }

  KernelStack& stack_;
  sc_core::sc_time step_cost_;
  std::map<std::size_t, PeerQueues> queues_;
  sc_core::sc_event completed_;
};

}  // namespace

std::vector<std::unique_ptr<RankLink>> connect_rdma_ranks(
    Testbed& testbed, const std::vector<std::string>& names,
    const std::vector<std::pair<std::size_t, std::size_t>>& pairs,
    const std::vector<std::uint64_t>& buffer_va, std::uint64_t buffer_bytes,
    const RdmaRankOptions& options) {
  std::vector<RdmaRankLink*> links;
  std::vector<std::unique_ptr<RankLink>> out;
  const std::size_t ranks = names.size();
  std::vector<std::size_t> peers(ranks, 0);
  for (const auto& [a, b] : pairs) ++peers[a], ++peers[b];
  for (std::size_t r = 0; r < ranks; ++r) {
    auto link = std::make_unique<RdmaRankLink>(r, testbed.node(r), names[r], options);
    // Room for every completion an operation leaves before the rank polls:
    // its messages and every eager buffer. (A CQ's page list must fit one
    // command mailbox page: at most kMaxCqEntries.)
    const std::uint64_t entries = 2 * std::uint64_t{options.eager_depth + options.queue_depth} *
                                  std::max<std::size_t>(1, peers[r]);
    link->open(buffer_va[r], buffer_bytes,
               static_cast<int>(std::min<std::uint64_t>(entries, kMaxCqEntries)));
    links.push_back(link.get());
    out.push_back(std::move(link));
  }
  RcOptions o;
  o.mtu = options.mtu;
  o.traffic_class = options.traffic_class;
  for (const auto& [a, b] : pairs) {
    RcSide side_a = links[a]->side(a, b);
    RcSide side_b = links[b]->side(b, a);
    try {
      connect_rc(testbed, side_a, side_b, o);
    } catch (const std::runtime_error& e) {
      fail_run("connecting ranks " + std::to_string(a) + " and " + std::to_string(b) + ": " +
               e.what());
    }
  }
  for (RdmaRankLink* link : links) link->post_eager_receives();
  return out;
}

std::vector<std::unique_ptr<RankLink>> tcp_ranks(
    std::vector<KernelStack*> stacks,
    const std::vector<std::map<std::size_t, std::size_t>>& connection,
    const sc_core::sc_time& step_cost) {
  std::vector<std::unique_ptr<RankLink>> out;
  for (std::size_t r = 0; r < stacks.size(); ++r) {
    out.push_back(std::make_unique<TcpRankLink>(*stacks[r], connection[r], step_cost));
  }
  return out;
}

}  // namespace rnicsim
