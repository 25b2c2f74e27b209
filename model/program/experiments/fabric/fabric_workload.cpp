#include "program/experiments/fabric/fabric_workload.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>

#include "common/module_macros.hpp"
#include "common/simulation.hpp"
#include "common/time_units.hpp"
#include "system/application_api.hpp"
#include "system/rc_connection.hpp"

namespace rnicsim {
namespace {

constexpr std::uint32_t kAllAccess = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
                                     IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_ATOMIC;

// Completions taken per poll (perftest polls up to 16 at a time).
constexpr int kCompletionsPerPoll = 16;

struct Region {
  std::uint64_t va = 0;
  ibv_mr* mr = nullptr;
};

// One flow's QPs, buffers and progress.
struct Flow {
  FlowSpec spec;
  RcSide source, destination;
  std::vector<Region> at_source, at_destination;  // per QP, `bytes` each
  std::vector<std::uint32_t> last_psn;            // per QP: the progress PSN last read
  std::vector<std::uint64_t> in_order;            // per QP: packets delivered in order so far
  std::vector<std::uint64_t> receives_posted;     // per QP (a send's)
  std::uint64_t packets_per_message = 1;
  FlowOutcome outcome;

  // Messages that go on QP q: messages q, q + qps, ...
  std::uint64_t messages_on(std::uint32_t q) const {
    return spec.messages / spec.qps + (q < spec.messages % spec.qps ? 1 : 0);
  }
};

std::vector<std::uint8_t> pattern(std::uint64_t bytes, std::size_t flow, std::uint32_t qp) {
  std::vector<std::uint8_t> data(bytes);
  const std::uint32_t salt = static_cast<std::uint32_t>(flow * 131 + qp * 7 + 1);
  for (std::uint64_t i = 0; i < bytes; ++i) data[i] = static_cast<std::uint8_t>(i * 13 + salt);
  return data;
}

}  // namespace

class FabricWorkload::Threads : public sc_core::sc_module {
 public:
  RNICSIM_PROCESS_MODULE(Threads);
  Threads(const sc_core::sc_module_name& name, Testbed& testbed, const TrafficConfig& traffic,
          const std::vector<std::uint8_t>& traffic_classes, RunProgress& progress,
          Observer observer)
      : sc_core::sc_module(name),
        testbed_(testbed),
        traffic_(traffic),
        traffic_classes_(traffic_classes),
        progress_(progress),
        observer_(std::move(observer)),
        flows_(traffic.flows.size()) {
    for (std::size_t i = 0; i < flows_.size(); ++i) flows_[i].spec = traffic.flows[i];
    SC_THREAD(set_up);
    SC_METHOD(sample);
    sensitive << sample_event_;
    dont_initialize();
  }

  std::size_t flow_count() const { return flows_.size(); }
  const FlowOutcome& outcome(std::size_t i) const { return flows_[i].outcome; }
  std::uint64_t time_zero_ps() const { return time_zero_ps_; }

 private:
  VerbsDriver& driver(std::size_t node) { return testbed_.node(node).software().driver; }
  HostSoftware& software(std::size_t node) { return testbed_.node(node).software(); }

  Region region(std::size_t node, std::uint64_t bytes, ibv_pd* pd) {
    Region r;
    r.va = software(node).process.allocate(bytes);
    r.mr = driver(node).ibv_reg_mr(pd, r.va, bytes, kAllAccess);
    if (r.mr == nullptr) {
      fail_run("ibv_reg_mr of " + std::to_string(bytes) + " bytes on node " + std::to_string(node) +
               " failed: " + driver(node).last_error_reason());
    }
    return r;
  }

  std::uint32_t active_mtu(std::size_t node) {
    ibv_port_attr port;
    if (driver(node).ibv_query_port(1, &port) != 0) fail_run("ibv_query_port failed");
    return ibv_mtu_to_bytes(port.active_mtu);
  }

  void set_up_flow(std::size_t i) {
    Flow& f = flows_[i];
    const FlowSpec& s = f.spec;
    RcOptions o;
    o.qps = s.qps;
    o.cap.max_send_wr = static_cast<std::uint32_t>(traffic_.depth);
    o.cap.max_recv_wr = static_cast<std::uint32_t>(traffic_.depth);
    o.cap.max_send_sge = 1;
    o.cap.max_recv_sge = 1;
    o.cap.max_inline_data = 0;
    o.cq_entries = static_cast<int>(std::uint64_t{traffic_.depth} * s.qps);
    f.outcome.mtu = std::min(active_mtu(s.source), active_mtu(s.destination));
    o.mtu = ibv_mtu_from_bytes(f.outcome.mtu);
    o.traffic_class = traffic_classes_[i];
    o.timeout = traffic_.qp_timeout;
    try {
      f.source = create_rc_side(testbed_, s.source, o);
      f.destination = create_rc_side(testbed_, s.destination, o);
      connect_rc(testbed_, f.source, f.destination, o);
    } catch (const std::runtime_error& e) {
      fail_run("flow " + std::to_string(i) + " (" + s.key + "): " + e.what());
    }
    f.packets_per_message =
        std::max<std::uint64_t>(1, (s.bytes + f.outcome.mtu - 1) / f.outcome.mtu);
    for (std::uint32_t q = 0; q < s.qps; ++q) {
      f.at_source.push_back(region(s.source, s.bytes, f.source.pd));
      f.at_destination.push_back(region(s.destination, s.bytes, f.destination.pd));
      const std::vector<std::uint8_t> data = pattern(s.bytes, i, q);
      const std::size_t sender = s.data_sender();
      const Region& from = sender == s.source ? f.at_source[q] : f.at_destination[q];
      software(sender).process.write(testbed_.node(sender).host.memory, from.va, data.data(),
                                     data.size());
    }
    f.last_psn.assign(s.qps, 0);
    f.in_order.assign(s.qps, 0);
    f.receives_posted.assign(s.qps, 0);
    if (s.verb == FlowVerb::kSend) {
      for (std::uint32_t q = 0; q < s.qps; ++q) {
        const std::uint64_t n = std::min<std::uint64_t>(f.messages_on(q), traffic_.depth);
        for (std::uint64_t m = 0; m < n; ++m) post_receive(f, q);
      }
    }
  }

  void post_receive(Flow& f, std::uint32_t q) {
    const Region& r = f.at_destination[q];
    ibv_sge sge{r.va, static_cast<std::uint32_t>(f.spec.bytes), r.mr->lkey};
    ibv_recv_wr wr;
    wr.wr_id = q;
    wr.sg_list = &sge;
    wr.num_sge = 1;
    if (driver(f.spec.destination).ibv_post_recv(f.destination.qps[q], &wr, nullptr) != 0) {
      fail_run("ibv_post_recv failed: " + driver(f.spec.destination).last_error_reason());
    }
    ++f.receives_posted[q];
  }

  // The in-order progress PSN of flow f's QP q at its data receiver.
  std::uint32_t progress_psn(Flow& f, std::uint32_t q) {
    const bool read = f.spec.verb == FlowVerb::kRead;
    const std::size_t node = read ? f.spec.source : f.spec.destination;
    const ibv_qp* qp = read ? f.source.qps[q] : f.destination.qps[q];
    const std::optional<QpProgress> p = testbed_.node(node).nic.transport.qp_progress(qp->qp_num);
    if (!p) return f.last_psn[q];
    return read ? p->acked_psn : p->expected_psn;
  }

  void update(Flow& f) {
    std::uint64_t bytes = 0;
    for (std::uint32_t q = 0; q < f.spec.qps; ++q) {
      const std::uint32_t psn = progress_psn(f, q);
      f.in_order[q] += (psn - f.last_psn[q]) & kPsnMask;
      f.last_psn[q] = psn;
      const std::uint64_t messages = f.in_order[q] / f.packets_per_message;
      const std::uint64_t partial = f.in_order[q] % f.packets_per_message;
      bytes += std::min(messages, f.messages_on(q)) * f.spec.bytes +
               std::min<std::uint64_t>(partial * f.outcome.mtu, f.spec.bytes);
    }
    f.outcome.delivered_bytes = bytes;
  }

  void set_up() {
    for (std::size_t i = 0; i < flows_.size(); ++i) set_up_flow(i);
    for (Flow& f : flows_) {
      for (std::uint32_t q = 0; q < f.spec.qps; ++q) f.last_psn[q] = progress_psn(f, q);
    }
    time_zero_ps_ = to_ps(sim_now());
    for (std::size_t i = 0; i < flows_.size(); ++i) {
      sc_core::sc_spawn([this, i] { run_flow(i); }, ("flow" + std::to_string(i)).c_str());
    }
    sample_event_.notify(picoseconds(traffic_.sample_ns * 1000));
  }

  void sample() {
    const std::uint64_t now = now_ns();
    for (Flow& f : flows_) {
      // Flows not started have nothing to read, finished ones read their last at the end.
      if (f.outcome.finished || f.spec.start_ns > now) continue;
      update(f);
    }
    observer_(now);
    if (finished_ < flows_.size()) {
      sample_event_.notify(picoseconds(traffic_.sample_ns * 1000));
    }
  }

  std::uint64_t now_ns() const { return (to_ps(sim_now()) - time_zero_ps_) / 1000; }

  // Posts message `message` of flow `flow`, signaled or not.
  void post(Flow& f, std::size_t flow, std::uint64_t message, bool signaled) {
    const std::uint32_t q = static_cast<std::uint32_t>(message % f.spec.qps);
    const bool read = f.spec.verb == FlowVerb::kRead;
    const Region& local = f.at_source[q];
    const Region& remote = f.at_destination[q];
    ibv_sge sge{local.va, static_cast<std::uint32_t>(f.spec.bytes), local.mr->lkey};
    ibv_send_wr wr;
    wr.wr_id = message;
    wr.sg_list = &sge;
    wr.num_sge = 1;
    wr.send_flags = signaled ? std::uint32_t{IBV_SEND_SIGNALED} : 0u;
    wr.opcode = read                             ? IBV_WR_RDMA_READ
                : f.spec.verb == FlowVerb::kSend ? IBV_WR_SEND
                                                 : IBV_WR_RDMA_WRITE;
    wr.rdma.remote_addr = remote.va;
    wr.rdma.rkey = remote.mr->rkey;
    VerbsDriver& d = driver(f.spec.source);
    if (d.ibv_post_send(f.source.qps[q], &wr, nullptr) != 0) {
      fail_run("flow " + std::to_string(flow) + ": ibv_post_send failed: " + d.last_error_reason());
    }
  }

  // As perftest does: every cq_moderation-th message of a QP asks for a
  // completion, and so does its last; a completion retires the QP's
  // messages up to it (RC completes a QP's messages in order).
  void run_flow(std::size_t i) {
    Flow& f = flows_[i];
    const FlowSpec& s = f.spec;
    sc_core::wait(picoseconds(s.start_ns * 1000));
    f.outcome.start_ns = now_ns();
    VerbsDriver& d = driver(s.source);
    const std::uint64_t moderation = std::min(traffic_.cq_moderation, traffic_.depth);
    std::vector<std::uint64_t> posted_on(s.qps, 0), done_on(s.qps, 0);
    std::vector<ibv_wc> completions(kCompletionsPerPoll);
    std::uint64_t posted = 0;
    while (f.outcome.messages_completed < s.messages) {
      while (posted < s.messages) {
        const std::uint32_t q = static_cast<std::uint32_t>(posted % s.qps);
        if (posted_on[q] - done_on[q] >= traffic_.depth) break;
        const std::uint64_t index = posted_on[q]++;
        post(f, i, posted++, (index + 1) % moderation == 0 || index + 1 == f.messages_on(q));
      }
      int n;
      while ((n = d.ibv_poll_cq(f.source.send_cq, kCompletionsPerPoll, completions.data())) == 0) {
        d.wait_cq(f.source.send_cq);
      }
      for (int k = 0; k < n; ++k) {
        const ibv_wc& wc = completions[k];
        if (wc.status != IBV_WC_SUCCESS) {
          fail_run("flow " + std::to_string(i) + " (" + s.key + "): message " +
                   std::to_string(wc.wr_id) + " completed with " + ibv_wc_status_str(wc.status));
        }
        const std::uint32_t q = static_cast<std::uint32_t>(wc.wr_id % s.qps);
        const std::uint64_t done = wc.wr_id / s.qps + 1;
        const std::uint64_t retired = done - done_on[q];
        done_on[q] = done;
        f.outcome.messages_completed += retired;
        progress_.advance(retired);
        if (s.verb == FlowVerb::kSend) take_receives(f, retired);
      }
    }
    finish(i);
  }

  // Sends completed, so their receives were taken: the destination takes
  // their completions and, while messages remain for a QP, posts another.
  void take_receives(Flow& f, std::uint64_t count) {
    VerbsDriver& d = driver(f.spec.destination);
    for (std::uint64_t taken = 0; taken < count; ++taken) {
      ibv_wc wc;
      while (d.ibv_poll_cq(f.destination.recv_cq, 1, &wc) == 0) d.wait_cq(f.destination.recv_cq);
      if (wc.status != IBV_WC_SUCCESS) {
        fail_run(f.spec.key + ": a receive completed with " +
                 std::string(ibv_wc_status_str(wc.status)));
      }
      const std::uint32_t q = static_cast<std::uint32_t>(wc.wr_id);
      if (f.receives_posted[q] < f.messages_on(q)) post_receive(f, q);
    }
  }

  void finish(std::size_t i) {
    Flow& f = flows_[i];
    f.outcome.finish_ns = now_ns();
    update(f);
    check_bytes(i);
    const bool read = f.spec.verb == FlowVerb::kRead;
    const std::size_t receiver = f.spec.data_receiver();
    for (std::uint32_t q = 0; q < f.spec.qps; ++q) {
      const std::optional<QpProgress> p =
          testbed_.node(f.spec.source).nic.transport.qp_progress(f.source.qps[q]->qp_num);
      if (p) f.outcome.retransmitted_packets += p->retransmitted_packets;
      if (testbed_.switched()) {
        const ibv_qp* qp = read ? f.source.qps[q] : f.destination.qps[q];
        f.outcome.ce_marked_packets += testbed_.port_of(receiver).ce_marked(qp->qp_num);
      }
    }
    f.outcome.finished = true;
    if (++finished_ == flows_.size()) observer_(now_ns());
    finish_workload();
  }

  void check_bytes(std::size_t i) {
    Flow& f = flows_[i];
    const std::size_t receiver = f.spec.data_receiver();
    for (std::uint32_t q = 0; q < f.spec.busy_qps(); ++q) {
      const Region& r = receiver == f.spec.source ? f.at_source[q] : f.at_destination[q];
      std::vector<std::uint8_t> got(f.spec.bytes);
      software(receiver).process.read(testbed_.node(receiver).host.memory, r.va, got.data(),
                                      got.size());
      if (got != pattern(f.spec.bytes, i, q)) {
        fail_run("flow " + std::to_string(i) + " (" + f.spec.key + "), QP " + std::to_string(q) +
                 ": the bytes that arrived differ from those sent");
      }
    }
  }

  Testbed& testbed_;
  const TrafficConfig& traffic_;
  const std::vector<std::uint8_t>& traffic_classes_;
  RunProgress& progress_;
  Observer observer_;
  std::vector<Flow> flows_;
  std::size_t finished_ = 0;
  std::uint64_t time_zero_ps_ = 0;
  sc_core::sc_event sample_event_;
};

FabricWorkload::FabricWorkload(const char* name, Testbed& testbed, const TrafficConfig& traffic,
                               const std::vector<std::uint8_t>& traffic_classes,
                               RunProgress& progress, Observer observer)
    : threads_(std::make_unique<Threads>(name, testbed, traffic, traffic_classes, progress,
                                         std::move(observer))) {}

FabricWorkload::~FabricWorkload() = default;

std::size_t FabricWorkload::flow_count() const { return threads_->flow_count(); }
const FlowOutcome& FabricWorkload::flow(std::size_t i) const { return threads_->outcome(i); }
std::uint64_t FabricWorkload::time_zero_ps() const { return threads_->time_zero_ps(); }

}  // namespace rnicsim
