// The part of libibverbs' ABI the simulator's library does not implement.
//
// Every function the real libibverbs.so.1 exports (Debian libibverbs1 44.0-2; the list and the
// version of each are in libibverbs.map) that verbs_library.cpp does not implement is defined
// here, so that an unmodified binary links and loads against our library. Each stub prints one
// line to stderr naming itself (report_unsupported), sets errno = EOPNOTSUPP, and returns the
// failure value of its contract (the comments in <infiniband/verbs.h> and the man pages):
//   - nullptr for functions returning a pointer;
//   - EOPNOTSUPP for int functions returning "0 or the value of errno" (most ibv_* verbs);
//   - -1 for int functions returning "0 (or a count) on success, -1 on error";
//   - a function-specific value where the contract says so (noted at the stub);
//   - nothing for void functions.
// Written from the header, the man pages and the real library's symbol table only.

#include "host/app_library/unsupported_verbs.hpp"

#include <errno.h>
#include <infiniband/verbs.h>
#include <stdio.h>
#include <unistd.h>

#include <cstddef>
#include <cstdint>

namespace rnicsim::app {

// Prints "rnicsim libibverbs: <verb> is not supported ..." as one line to stderr (one write, so
// lines from several threads do not interleave), then sets errno = EOPNOTSUPP for the caller.
void report_unsupported(const char* verb) {
  char line[256];
  const int n = snprintf(line, sizeof line,
                         "rnicsim libibverbs: %s is not supported by the simulator's library "
                         "(model/host/app_library/README.md lists the supported verbs)\n",
                         verb);
  if (n > 0) {
    const std::size_t len =
        static_cast<std::size_t>(n) < sizeof line ? static_cast<std::size_t>(n) : sizeof line - 1;
    const ssize_t written = write(STDERR_FILENO, line, len);
    (void)written;  // nothing to do if stderr is closed
  }
  errno = EOPNOTSUPP;
}

}  // namespace rnicsim::app

using rnicsim::app::report_unsupported;

// Exported whatever the build's default visibility; libibverbs.map decides the version.
#define RNICSIM_EXPORT extern "C" __attribute__((visibility("default")))

// One stub: return type, name, parameter types (unnamed: the stub uses none), failure value.
#define UNSUPPORTED(ret, name, params, failure) \
  RNICSIM_EXPORT ret name params {              \
    report_unsupported(#name);                  \
    return failure;                             \
  }
#define UNSUPPORTED_VOID(name, params) \
  RNICSIM_EXPORT void name params { report_unsupported(#name); }

// clang-format off

// ---------------------------------------------------------------------------------------------
// Declared in <infiniband/verbs.h>: exact prototypes.
// ---------------------------------------------------------------------------------------------

// Devices and contexts: importing another process's context; asynchronous events (-1 on error,
// man ibv_get_async_event).
UNSUPPORTED(ibv_context*, ibv_import_device, (int), nullptr)
UNSUPPORTED(int, ibv_get_async_event, (ibv_context*, ibv_async_event*), -1)
UNSUPPORTED_VOID(ibv_ack_async_event, (ibv_async_event*))

// Ports: the extended GID queries (errno value; the table query returns a negative errno value,
// man ibv_query_gid_ex / ibv_query_gid_table) and P_Key lookup (-1 on error).
UNSUPPORTED(int, ibv_get_pkey_index, (ibv_context*, uint8_t, __be16), -1)

// Importing objects shared by another process.
UNSUPPORTED(ibv_pd*, ibv_import_pd, (ibv_context*, uint32_t), nullptr)
UNSUPPORTED_VOID(ibv_unimport_pd, (ibv_pd*))
UNSUPPORTED(ibv_mr*, ibv_import_mr, (ibv_pd*, uint32_t), nullptr)
UNSUPPORTED_VOID(ibv_unimport_mr, (ibv_mr*))
UNSUPPORTED(ibv_dm*, ibv_import_dm, (ibv_context*, uint32_t), nullptr)
UNSUPPORTED_VOID(ibv_unimport_dm, (ibv_dm*))

// Memory regions: dma-buf registration; re-registration fails with IBV_REREG_MR_ERR_INPUT
// ("old MR is valid, input error detected by libibverbs", man ibv_rereg_mr).
UNSUPPORTED(ibv_mr*, ibv_reg_dmabuf_mr, (ibv_pd*, uint64_t, size_t, uint64_t, int, int), nullptr)
UNSUPPORTED(int, ibv_rereg_mr, (ibv_mr*, int, ibv_pd*, void*, size_t, int), IBV_REREG_MR_ERR_INPUT)

// Completion queues.
UNSUPPORTED(int, ibv_resize_cq, (ibv_cq*, int), EOPNOTSUPP)

// Shared receive queues.
UNSUPPORTED(ibv_srq*, ibv_create_srq, (ibv_pd*, ibv_srq_init_attr*), nullptr)
UNSUPPORTED(int, ibv_modify_srq, (ibv_srq*, ibv_srq_attr*, int), EOPNOTSUPP)
UNSUPPORTED(int, ibv_query_srq, (ibv_srq*, ibv_srq_attr*), EOPNOTSUPP)
UNSUPPORTED(int, ibv_destroy_srq, (ibv_srq*), EOPNOTSUPP)

// Queue pairs: the extended (ibv_wr_*) posting interface, ECE, multicast; data-in-order answers
// 0 ("not guaranteed"), its only value other than 1.
UNSUPPORTED(int, ibv_query_qp_data_in_order, (ibv_qp*, ibv_wr_opcode, uint32_t), 0)
UNSUPPORTED(int, ibv_set_ece, (ibv_qp*, ibv_ece*), EOPNOTSUPP)
UNSUPPORTED(int, ibv_query_ece, (ibv_qp*, ibv_ece*), EOPNOTSUPP)
UNSUPPORTED(int, ibv_attach_mcast, (ibv_qp*, const ibv_gid*, uint16_t), EOPNOTSUPP)
UNSUPPORTED(int, ibv_detach_mcast, (ibv_qp*, const ibv_gid*, uint16_t), EOPNOTSUPP)

// Address handles (UD): ibv_init_ah_from_wc returns -1 on error (man ibv_create_ah_from_wc);
// ibv_resolve_eth_l2_from_gid has no documented contract, callers test for non-zero.
UNSUPPORTED(ibv_ah*, ibv_create_ah, (ibv_pd*, ibv_ah_attr*), nullptr)
UNSUPPORTED(int, ibv_init_ah_from_wc, (ibv_context*, uint8_t, ibv_wc*, ibv_grh*, ibv_ah_attr*), -1)
UNSUPPORTED(ibv_ah*, ibv_create_ah_from_wc, (ibv_pd*, ibv_wc*, ibv_grh*, uint8_t), nullptr)
UNSUPPORTED(int, ibv_destroy_ah, (ibv_ah*), EOPNOTSUPP)
UNSUPPORTED(int, ibv_resolve_eth_l2_from_gid, (ibv_context*, ibv_ah_attr*, uint8_t[ETHERNET_LL_SIZE], uint16_t*), EOPNOTSUPP)

// Rate conversions: no error value is documented; -1 (not a multiple or a rate) and
// IBV_RATE_MAX (0, "no specific rate") are what an unknown input yields.
UNSUPPORTED(int, ibv_rate_to_mult, (ibv_rate), -1)
UNSUPPORTED(ibv_rate, mult_to_ibv_rate, (int), IBV_RATE_MAX)
UNSUPPORTED(int, ibv_rate_to_mbps, (ibv_rate), -1)
UNSUPPORTED(ibv_rate, mbps_to_ibv_rate, (int), IBV_RATE_MAX)

// ---------------------------------------------------------------------------------------------
// Exported for applications but declared in no installed header (rdma-core's driver.h and
// marshall.h): exact prototypes where they use only basic types, an empty parameter list where
// they use structs of those headers (extern "C" carries no parameter types; x86-64 callers
// pass arguments in registers the stub ignores).
// ---------------------------------------------------------------------------------------------

// sysfs and fork helpers (rdma-core's driver.h); the fork helpers return -1 on error.
UNSUPPORTED(const char*, ibv_get_sysfs_path, (), nullptr)
UNSUPPORTED(int, ibv_dontfork_range, (void*, size_t), -1)
UNSUPPORTED(int, ibv_dofork_range, (void*, size_t), -1)

// Kernel-ABI struct converters (rdma-core's marshall.h; used by librdmacm), all void.
UNSUPPORTED_VOID(ibv_copy_qp_attr_from_kern, ())
UNSUPPORTED_VOID(ibv_copy_ah_attr_from_kern, ())
UNSUPPORTED_VOID(ibv_copy_path_rec_from_kern, ())
UNSUPPORTED_VOID(ibv_copy_path_rec_to_kern, ())

// Pre-2017 provider registration: the real library exports it only as the hidden (non-default)
// version ibv_register_driver@IBVERBS_1.1, so it is bound here under an internal name (made local
// by libibverbs.map's `local: *`) rather than listed in the map. GCC's symver attribute survives
// link-time optimization; clang (build-fuzz) lacks it and takes the assembler directive.
#if defined(__has_attribute) && __has_attribute(symver)
RNICSIM_EXPORT __attribute__((used, symver("ibv_register_driver@IBVERBS_1.1")))
#else
__asm__(".symver rnicsim_compat_ibv_register_driver, ibv_register_driver@IBVERBS_1.1");
RNICSIM_EXPORT __attribute__((used))
#endif
void rnicsim_compat_ibv_register_driver() { report_unsupported("ibv_register_driver"); }

// ---------------------------------------------------------------------------------------------
// IBVERBS_PRIVATE_34: the interface between libibverbs and its provider drivers (libmlx5 and
// the like); no application calls it, and this library loads no providers. Generic signatures.
// ---------------------------------------------------------------------------------------------

// Providers read this flag; a data object, not a verb, so it reports nothing.
extern "C" {
__attribute__((visibility("default"))) bool verbs_allow_disassociate_destroy = false;
}

// Context and device plumbing.
UNSUPPORTED(ibv_context*, verbs_open_device, (), nullptr)
UNSUPPORTED(void*, _verbs_init_and_alloc_context, (), nullptr)
UNSUPPORTED_VOID(verbs_uninit_context, ())
UNSUPPORTED_VOID(verbs_set_ops, ())
UNSUPPORTED_VOID(verbs_init_cq, ())
UNSUPPORTED_VOID(verbs_register_driver_34, ())
UNSUPPORTED_VOID(__verbs_log, ())
UNSUPPORTED(int, ibv_read_ibdev_sysfs_file, (), -1)

// Kernel command marshalling: execute_ioctl and the ibv_cmd_* return an errno value, except
// ibv_cmd_poll_cq (count or -1); __ioctl_final_num_attrs counts attributes and has no failure
// value, so it answers 0.
UNSUPPORTED(int, execute_ioctl, (), EOPNOTSUPP)
UNSUPPORTED(unsigned int, __ioctl_final_num_attrs, (), 0)
UNSUPPORTED(int, ibv_cmd_advise_mr, (), EOPNOTSUPP)
UNSUPPORTED(int, ibv_cmd_alloc_dm, (), EOPNOTSUPP)
UNSUPPORTED(int, ibv_cmd_alloc_mw, (), EOPNOTSUPP)
UNSUPPORTED(int, ibv_cmd_alloc_pd, (), EOPNOTSUPP)
UNSUPPORTED(int, ibv_cmd_attach_mcast, (), EOPNOTSUPP)
UNSUPPORTED(int, ibv_cmd_close_xrcd, (), EOPNOTSUPP)
UNSUPPORTED(int, ibv_cmd_create_ah, (), EOPNOTSUPP)
UNSUPPORTED(int, ibv_cmd_create_counters, (), EOPNOTSUPP)
UNSUPPORTED(int, ibv_cmd_create_cq, (), EOPNOTSUPP)
UNSUPPORTED(int, ibv_cmd_create_cq_ex, (), EOPNOTSUPP)
UNSUPPORTED(int, ibv_cmd_create_flow, (), EOPNOTSUPP)
UNSUPPORTED(int, ibv_cmd_create_flow_action_esp, (), EOPNOTSUPP)
UNSUPPORTED(int, ibv_cmd_create_qp, (), EOPNOTSUPP)
UNSUPPORTED(int, ibv_cmd_create_qp_ex, (), EOPNOTSUPP)
UNSUPPORTED(int, ibv_cmd_create_qp_ex2, (), EOPNOTSUPP)
UNSUPPORTED(int, ibv_cmd_create_rwq_ind_table, (), EOPNOTSUPP)
UNSUPPORTED(int, ibv_cmd_create_srq, (), EOPNOTSUPP)
UNSUPPORTED(int, ibv_cmd_create_srq_ex, (), EOPNOTSUPP)
UNSUPPORTED(int, ibv_cmd_create_wq, (), EOPNOTSUPP)
UNSUPPORTED(int, ibv_cmd_dealloc_mw, (), EOPNOTSUPP)
UNSUPPORTED(int, ibv_cmd_dealloc_pd, (), EOPNOTSUPP)
UNSUPPORTED(int, ibv_cmd_dereg_mr, (), EOPNOTSUPP)
UNSUPPORTED(int, ibv_cmd_destroy_ah, (), EOPNOTSUPP)
UNSUPPORTED(int, ibv_cmd_destroy_counters, (), EOPNOTSUPP)
UNSUPPORTED(int, ibv_cmd_destroy_cq, (), EOPNOTSUPP)
UNSUPPORTED(int, ibv_cmd_destroy_flow, (), EOPNOTSUPP)
UNSUPPORTED(int, ibv_cmd_destroy_flow_action, (), EOPNOTSUPP)
UNSUPPORTED(int, ibv_cmd_destroy_qp, (), EOPNOTSUPP)
UNSUPPORTED(int, ibv_cmd_destroy_rwq_ind_table, (), EOPNOTSUPP)
UNSUPPORTED(int, ibv_cmd_destroy_srq, (), EOPNOTSUPP)
UNSUPPORTED(int, ibv_cmd_destroy_wq, (), EOPNOTSUPP)
UNSUPPORTED(int, ibv_cmd_detach_mcast, (), EOPNOTSUPP)
UNSUPPORTED(int, ibv_cmd_free_dm, (), EOPNOTSUPP)
UNSUPPORTED(int, ibv_cmd_get_context, (), EOPNOTSUPP)
UNSUPPORTED(int, ibv_cmd_modify_cq, (), EOPNOTSUPP)
UNSUPPORTED(int, ibv_cmd_modify_flow_action_esp, (), EOPNOTSUPP)
UNSUPPORTED(int, ibv_cmd_modify_qp, (), EOPNOTSUPP)
UNSUPPORTED(int, ibv_cmd_modify_qp_ex, (), EOPNOTSUPP)
UNSUPPORTED(int, ibv_cmd_modify_srq, (), EOPNOTSUPP)
UNSUPPORTED(int, ibv_cmd_modify_wq, (), EOPNOTSUPP)
UNSUPPORTED(int, ibv_cmd_open_qp, (), EOPNOTSUPP)
UNSUPPORTED(int, ibv_cmd_open_xrcd, (), EOPNOTSUPP)
UNSUPPORTED(int, ibv_cmd_poll_cq, (), -1)
UNSUPPORTED(int, ibv_cmd_post_recv, (), EOPNOTSUPP)
UNSUPPORTED(int, ibv_cmd_post_send, (), EOPNOTSUPP)
UNSUPPORTED(int, ibv_cmd_post_srq_recv, (), EOPNOTSUPP)
UNSUPPORTED(int, ibv_cmd_query_context, (), EOPNOTSUPP)
UNSUPPORTED(int, ibv_cmd_query_device_any, (), EOPNOTSUPP)
UNSUPPORTED(int, ibv_cmd_query_mr, (), EOPNOTSUPP)
UNSUPPORTED(int, ibv_cmd_query_port, (), EOPNOTSUPP)
UNSUPPORTED(int, ibv_cmd_query_qp, (), EOPNOTSUPP)
UNSUPPORTED(int, ibv_cmd_query_srq, (), EOPNOTSUPP)
UNSUPPORTED(int, ibv_cmd_read_counters, (), EOPNOTSUPP)
UNSUPPORTED(int, ibv_cmd_reg_dm_mr, (), EOPNOTSUPP)
UNSUPPORTED(int, ibv_cmd_reg_dmabuf_mr, (), EOPNOTSUPP)
UNSUPPORTED(int, ibv_cmd_reg_mr, (), EOPNOTSUPP)
UNSUPPORTED(int, ibv_cmd_req_notify_cq, (), EOPNOTSUPP)
UNSUPPORTED(int, ibv_cmd_rereg_mr, (), EOPNOTSUPP)
UNSUPPORTED(int, ibv_cmd_resize_cq, (), EOPNOTSUPP)

// clang-format on
