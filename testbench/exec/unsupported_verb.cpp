/* A verbs program that calls verbs the simulator's libibverbs does not
 * support: a shared receive queue (an exported verb), a memory window (an
 * inline verb through the context's ops), a UD queue pair, and an extended
 * CQ (an inline verb through the verbs_context's extended ops). Each must fail
 * with a message naming it, and the program goes on (exit 0 when every one
 * failed as it should, 1 otherwise). Built against Debian's libibverbs,
 * run on the simulator's by rnicsim exec. */
#include <infiniband/verbs.h>

#include <cerrno>
#include <cstdio>

int main() {
  int devices = 0;
  ibv_device** list = ibv_get_device_list(&devices);
  if (list == nullptr || devices != 1) return 1;
  ibv_context* context = ibv_open_device(list[0]);
  if (context == nullptr) return 1;
  ibv_pd* pd = ibv_alloc_pd(context);
  ibv_cq* cq = ibv_create_cq(context, 16, nullptr, nullptr, 0);
  if (pd == nullptr || cq == nullptr) return 1;
  int failures = 0;

  ibv_srq_init_attr srq{};
  srq.attr.max_wr = 16;
  srq.attr.max_sge = 1;
  if (ibv_create_srq(pd, &srq) != nullptr || errno != EOPNOTSUPP) ++failures;

  if (ibv_alloc_mw(pd, IBV_MW_TYPE_1) != nullptr || errno != EOPNOTSUPP) ++failures;

  ibv_qp_init_attr ud{};
  ud.send_cq = cq;
  ud.recv_cq = cq;
  ud.cap.max_send_wr = 1;
  ud.cap.max_recv_wr = 1;
  ud.cap.max_send_sge = 1;
  ud.cap.max_recv_sge = 1;
  ud.qp_type = IBV_QPT_UD;
  if (ibv_create_qp(pd, &ud) != nullptr || errno != EOPNOTSUPP) ++failures;

  // An inline extended verb of verbs.h, through the context's extended ops.
  ibv_cq_init_attr_ex cq_ex{};
  cq_ex.cqe = 16;
  if (ibv_create_cq_ex(context, &cq_ex) != nullptr || errno != EOPNOTSUPP) ++failures;

  std::printf("unsupported verbs refused: %d of 4 as expected\n", 4 - failures);
  ibv_free_device_list(list);
  return failures == 0 ? 0 : 1;
}
