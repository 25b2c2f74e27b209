#pragma once
// The error run the capture tests record: node a RDMA WRITEs 100 bytes to
// node b with an rkey that names no region, so b's responder answers with a
// NAK (AETH syndrome 0x62, remote access error) and a's WQE completes with
// IBV_WC_REM_ACCESS_ERR. Called from a bench's application thread.
#include "system/rc_bench.hpp"

namespace rnicsim::testing {

inline ibv_wc_status bad_rkey_write(RcBench& bench) {
  bench.connect();
  const Buffer src = bench.buffer(0, 100, kAllAccess);
  const Buffer dst = bench.buffer(1, 100, kAllAccess);
  bench.fill(src, pattern(100, 5));
  const ibv_sge sge{src.va, 100, src.mr->lkey};
  // Another MPT index in the rkey: no such region.
  ibv_send_wr wr = signaled_write(sge, dst.va, dst.mr->rkey ^ 0x100, 1);
  if (bench.driver(0).ibv_post_send(bench.a.qps[0], &wr, nullptr) != 0) return IBV_WC_GENERAL_ERR;
  return bench.next_completion(0, bench.a.send_cq).status;
}

}  // namespace rnicsim::testing
