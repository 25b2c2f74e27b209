#include "interface/qp_state.hpp"

#include <cerrno>

namespace rnicsim {
namespace {

// Attributes an RC QP may change again once it is running (RTS to RTS).
constexpr std::uint32_t kRunningOptional = IBV_QP_CUR_STATE | IBV_QP_ACCESS_FLAGS |
                                           IBV_QP_ALT_PATH | IBV_QP_PATH_MIG_STATE |
                                           IBV_QP_MIN_RNR_TIMER;

std::string mask_names(std::uint32_t mask) {
  static const char* const kNames[] = {
      "STATE",        "CUR_STATE", "EN_SQD_ASYNC_NOTIFY", "ACCESS_FLAGS",    "PKEY_INDEX",
      "PORT",         "QKEY",      "AV",                  "PATH_MTU",        "TIMEOUT",
      "RETRY_CNT",    "RNR_RETRY", "RQ_PSN",              "MAX_QP_RD_ATOMIC", "ALT_PATH",
      "MIN_RNR_TIMER", "SQ_PSN",   "MAX_DEST_RD_ATOMIC",  "PATH_MIG_STATE",  "CAP",
      "DEST_QPN"};
  std::string names;
  for (std::uint32_t bit = 0; bit < sizeof kNames / sizeof kNames[0]; ++bit) {
    if (mask & (1U << bit)) names += (names.empty() ? "IBV_QP_" : ", IBV_QP_") + std::string(kNames[bit]);
  }
  return names;
}

}  // namespace

const char* to_string(ibv_qp_state state) {
  switch (state) {
    case IBV_QPS_RESET: return "RESET";
    case IBV_QPS_INIT: return "INIT";
    case IBV_QPS_RTR: return "RTR";
    case IBV_QPS_RTS: return "RTS";
    case IBV_QPS_SQD: return "SQD";
    case IBV_QPS_SQE: return "SQE";
    case IBV_QPS_ERR: return "ERR";
  }
  return "unknown";
}

TransitionMasks rc_transition_masks(ibv_qp_state from, ibv_qp_state to) {
  // Any state may go to RESET or ERR with the state alone.
  if (to == IBV_QPS_RESET || to == IBV_QPS_ERR) return {true, IBV_QP_STATE, IBV_QP_CUR_STATE};
  switch (from) {
    case IBV_QPS_RESET:
      if (to == IBV_QPS_INIT) {
        return {true, IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_ACCESS_FLAGS, 0};
      }
      break;
    case IBV_QPS_INIT:
      if (to == IBV_QPS_INIT) {
        return {true, IBV_QP_STATE, IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_ACCESS_FLAGS};
      }
      if (to == IBV_QPS_RTR) {
        return {true,
                IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN | IBV_QP_RQ_PSN |
                    IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER,
                IBV_QP_ALT_PATH | IBV_QP_ACCESS_FLAGS | IBV_QP_PKEY_INDEX};
      }
      break;
    case IBV_QPS_RTR:
      if (to == IBV_QPS_RTS) {
        return {true,
                IBV_QP_STATE | IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY |
                    IBV_QP_SQ_PSN | IBV_QP_MAX_QP_RD_ATOMIC,
                kRunningOptional};
      }
      break;
    case IBV_QPS_RTS:
      if (to == IBV_QPS_RTS) return {true, IBV_QP_STATE, kRunningOptional};
      if (to == IBV_QPS_SQD) return {true, IBV_QP_STATE, IBV_QP_EN_SQD_ASYNC_NOTIFY};
      break;
    case IBV_QPS_SQD:
      if (to == IBV_QPS_RTS) return {true, IBV_QP_STATE, kRunningOptional};
      if (to == IBV_QPS_SQD) {
        return {true, IBV_QP_STATE,
                IBV_QP_AV | IBV_QP_ALT_PATH | IBV_QP_ACCESS_FLAGS | IBV_QP_PKEY_INDEX |
                    IBV_QP_PORT | IBV_QP_PATH_MIG_STATE | IBV_QP_MIN_RNR_TIMER |
                    IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY |
                    IBV_QP_MAX_QP_RD_ATOMIC | IBV_QP_MAX_DEST_RD_ATOMIC};
      }
      break;
    case IBV_QPS_SQE:
      if (to == IBV_QPS_RTS) return {true, IBV_QP_STATE, IBV_QP_CUR_STATE | IBV_QP_ACCESS_FLAGS};
      break;
    case IBV_QPS_ERR:
      break;
  }
  return {};
}

int check_modify(ibv_qp_state current, ibv_qp_state to, std::uint32_t attr_mask,
                 std::string* why) {
  const auto refuse = [why](const std::string& reason) {
    if (why) *why = reason;
    return EINVAL;
  };
  if (!(attr_mask & IBV_QP_STATE)) return refuse("the mask lacks IBV_QP_STATE");
  const TransitionMasks masks = rc_transition_masks(current, to);
  if (!masks.allowed) {
    return refuse(std::string("no transition from ") + to_string(current) + " to " +
                  to_string(to));
  }
  if (const std::uint32_t missing = masks.required & ~attr_mask) {
    return refuse(std::string(to_string(current)) + " to " + to_string(to) + " needs " +
                  mask_names(missing));
  }
  if (const std::uint32_t extra = attr_mask & ~(masks.required | masks.optional)) {
    return refuse(std::string(to_string(current)) + " to " + to_string(to) + " does not take " +
                  mask_names(extra));
  }
  if (why) why->clear();
  return 0;
}

}  // namespace rnicsim
