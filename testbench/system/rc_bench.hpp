#pragma once
// RcBench: two nodes of a testbed with their drivers attached, and an
// application thread that runs a test's body (verbs need a thread: they
// take CPU time and wait for the NIC). Buffers are registered memory of one
// node's process, written and read back untimed for checks.
#include <gtest/gtest.h>

#include <functional>
#include <memory>
#include <string>
#include <systemc>
#include <vector>

#include "common/simulation.hpp"
#include "config/run_config.hpp"
#include "program/experiments/experiments.hpp"
#include "system/rc_connection.hpp"
#include "system/testbed.hpp"

namespace rnicsim::testing {

inline config::LoadedConfig loaded_config(const config::Json& given) {
  config::LoadedConfig c;
  c.file = "test";
  c.given = given;
  c.effective = config::validate(given, rnicsim_schema(), "test");
  return c;
}

struct Buffer {
  std::size_t node = 0;
  std::uint64_t va = 0;
  std::uint64_t length = 0;
  ibv_mr* mr = nullptr;
};

class RcBench {
 public:
  explicit RcBench(const config::Json& given = config::Json::object())
      : run_(loaded_config(given)) {
    TestbedRequest request;
    request.host_software = true;
    request.verbs = true;
    testbed_ = std::make_unique<Testbed>("testbed", testbed_config(run_, request));
  }

  Testbed& testbed() { return *testbed_; }
  VerbsDriver& driver(std::size_t node) { return testbed_->node(node).software().driver; }
  HostMemory& memory(std::size_t node) { return testbed_->node(node).host.memory; }

  // Runs `body` in an application thread; the run ends when it returns.
  void run(std::function<void()> body) {
    sc_core::sc_spawn([body] {
      body();
      finish_workload();
    });
    simulate_workload(1);
  }

  // Sides a and b, connected (call from the body).
  void connect(const RcOptions& options = RcOptions{}) {
    options_ = options;
    a = create_rc_side(*testbed_, 0, options);
    b = create_rc_side(*testbed_, 1, options);
    connect_rc(*testbed_, a, b, options);
  }

  Buffer buffer(std::size_t node, std::uint64_t length, std::uint32_t access) {
    HostSoftware& s = testbed_->node(node).software();
    Buffer buf;
    buf.node = node;
    buf.length = length;
    buf.va = s.process.allocate(std::max<std::uint64_t>(length, 1));
    RcSide& side = node == 0 ? a : b;
    buf.mr = s.driver.ibv_reg_mr(side.pd, buf.va, std::max<std::uint64_t>(length, 1), access);
    return buf;
  }
  void fill(const Buffer& buf, const std::vector<std::uint8_t>& bytes, std::uint64_t offset = 0) {
    testbed_->node(buf.node).software().process.write(memory(buf.node), buf.va + offset,
                                                       bytes.data(), bytes.size());
  }
  std::vector<std::uint8_t> contents(const Buffer& buf, std::uint64_t offset, std::uint64_t n) {
    std::vector<std::uint8_t> out(n);
    testbed_->node(buf.node).software().process.read(memory(buf.node), buf.va + offset,
                                                      out.data(), n);
    return out;
  }

  // Waits for and returns the next completion of `cq`.
  ibv_wc next_completion(std::size_t node, ibv_cq* cq) {
    ibv_wc wc;
    while (driver(node).ibv_poll_cq(cq, 1, &wc) == 0) driver(node).wait_cq(cq);
    return wc;
  }

  RcSide a;
  RcSide b;

 private:
  config::RunConfig run_;
  std::unique_ptr<Testbed> testbed_;
  RcOptions options_;
};

// A signaled RDMA WRITE or READ (`opcode`) between `sge`'s bytes and
// `remote_va` under `rkey`; `sge` must outlive the post.
inline ibv_send_wr signaled_rdma(ibv_wr_opcode opcode, const ibv_sge& sge,
                                 std::uint64_t remote_va, std::uint32_t rkey,
                                 std::uint64_t wr_id) {
  ibv_send_wr wr;
  wr.wr_id = wr_id;
  wr.opcode = opcode;
  wr.sg_list = &sge;
  wr.num_sge = 1;
  wr.send_flags = IBV_SEND_SIGNALED;
  wr.rdma.remote_addr = remote_va;
  wr.rdma.rkey = rkey;
  return wr;
}

inline ibv_send_wr signaled_write(const ibv_sge& sge, std::uint64_t remote_va, std::uint32_t rkey,
                                  std::uint64_t wr_id) {
  return signaled_rdma(IBV_WR_RDMA_WRITE, sge, remote_va, rkey, wr_id);
}

// A signaled work request of `opcode` on `sge` (may be null: no SGE),
// aimed at `remote` (may be null) for RDMA and atomics.
inline ibv_send_wr work_request(ibv_wr_opcode opcode, const ibv_sge* sge, std::uint64_t wr_id,
                                const Buffer* remote) {
  ibv_send_wr wr;
  wr.wr_id = wr_id;
  wr.opcode = opcode;
  wr.sg_list = sge;
  wr.num_sge = sge ? 1 : 0;
  wr.send_flags = IBV_SEND_SIGNALED;
  if (remote) {
    wr.rdma.remote_addr = remote->va;
    wr.rdma.rkey = remote->mr->rkey;
    wr.atomic.remote_addr = remote->va;
    wr.atomic.rkey = remote->mr->rkey;
  }
  return wr;
}

// `length` bytes of `b` from `offset`, under its lkey.
inline ibv_sge sge_of(const Buffer& b, std::uint32_t length, std::uint64_t offset = 0) {
  return ibv_sge{b.va + offset, length, b.mr->lkey};
}

// Every access right a region can grant.
inline constexpr std::uint32_t kAllAccess = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
                                            IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_ATOMIC;

// Bytes i * 7 + salt.
inline std::vector<std::uint8_t> pattern(std::size_t n, std::uint8_t salt) {
  std::vector<std::uint8_t> b(n);
  for (std::size_t i = 0; i < n; ++i) b[i] = static_cast<std::uint8_t>(i * 7 + salt);
  return b;
}

}  // namespace rnicsim::testing
