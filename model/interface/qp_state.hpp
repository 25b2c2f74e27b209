#pragma once
// RC queue pair states and the rules of ibv_modify_qp, as libibverbs and the
// InfiniBand specification (vol. 1, 10.3 and 11.2.5) give them.
//
// A transition is legal only between the states the specification allows,
// and only with the attribute mask it requires for an RC QP: every required
// attribute present, nothing outside required + optional. The driver applies
// a modify only when check_modify() returns 0; the errno values are the ones
// libibverbs returns (EINVAL).
#include <cstdint>
#include <string>

namespace rnicsim {

enum ibv_qp_state : std::uint8_t {
  IBV_QPS_RESET,
  IBV_QPS_INIT,
  IBV_QPS_RTR,
  IBV_QPS_RTS,
  IBV_QPS_SQD,
  IBV_QPS_SQE,
  IBV_QPS_ERR,
};

// Values as in <infiniband/verbs.h>, so masks read the same as in C code.
enum ibv_qp_attr_mask : std::uint32_t {
  IBV_QP_STATE = 1 << 0,
  IBV_QP_CUR_STATE = 1 << 1,
  IBV_QP_EN_SQD_ASYNC_NOTIFY = 1 << 2,
  IBV_QP_ACCESS_FLAGS = 1 << 3,
  IBV_QP_PKEY_INDEX = 1 << 4,
  IBV_QP_PORT = 1 << 5,
  IBV_QP_QKEY = 1 << 6,
  IBV_QP_AV = 1 << 7,
  IBV_QP_PATH_MTU = 1 << 8,
  IBV_QP_TIMEOUT = 1 << 9,
  IBV_QP_RETRY_CNT = 1 << 10,
  IBV_QP_RNR_RETRY = 1 << 11,
  IBV_QP_RQ_PSN = 1 << 12,
  IBV_QP_MAX_QP_RD_ATOMIC = 1 << 13,
  IBV_QP_ALT_PATH = 1 << 14,
  IBV_QP_MIN_RNR_TIMER = 1 << 15,
  IBV_QP_SQ_PSN = 1 << 16,
  IBV_QP_MAX_DEST_RD_ATOMIC = 1 << 17,
  IBV_QP_PATH_MIG_STATE = 1 << 18,
  IBV_QP_CAP = 1 << 19,
  IBV_QP_DEST_QPN = 1 << 20,
};

const char* to_string(ibv_qp_state state);

// The attributes an RC transition from `from` to `to` requires and may take.
struct TransitionMasks {
  bool allowed = false;
  std::uint32_t required = 0;
  std::uint32_t optional = 0;
};
TransitionMasks rc_transition_masks(ibv_qp_state from, ibv_qp_state to);

// 0 when an RC QP in `current` may take `attr_mask` (which must include
// IBV_QP_STATE, naming `to`), else EINVAL; `why` then says what is wrong.
int check_modify(ibv_qp_state current, ibv_qp_state to, std::uint32_t attr_mask,
                 std::string* why = nullptr);

}  // namespace rnicsim
