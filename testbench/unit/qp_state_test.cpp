// ibv_modify_qp's rules for an RC QP: the path a perftest connection takes,
// the masks each step requires, and the transitions that do not exist.
#include "interface/qp_state.hpp"

#include <gtest/gtest.h>

#include <cerrno>
#include <string>

namespace rnicsim {
namespace {

// The masks perftest and the rdma-core examples pass to connect an RC QP.
constexpr std::uint32_t kToInit =
    IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_ACCESS_FLAGS;
constexpr std::uint32_t kToRtr = IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN |
                                 IBV_QP_RQ_PSN | IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER;
constexpr std::uint32_t kToRts = IBV_QP_STATE | IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT |
                                 IBV_QP_RNR_RETRY | IBV_QP_SQ_PSN | IBV_QP_MAX_QP_RD_ATOMIC;

TEST(QpState, TheConnectionPathTakesExactlyItsMasks) {
  EXPECT_EQ(check_modify(IBV_QPS_RESET, IBV_QPS_INIT, kToInit), 0);
  EXPECT_EQ(check_modify(IBV_QPS_INIT, IBV_QPS_RTR, kToRtr), 0);
  EXPECT_EQ(check_modify(IBV_QPS_RTR, IBV_QPS_RTS, kToRts), 0);
}

TEST(QpState, AMissingRequiredAttributeIsNamed) {
  std::string why;
  EXPECT_EQ(check_modify(IBV_QPS_INIT, IBV_QPS_RTR, kToRtr & ~IBV_QP_DEST_QPN, &why), EINVAL);
  EXPECT_EQ(why, "INIT to RTR needs IBV_QP_DEST_QPN");
  EXPECT_EQ(check_modify(IBV_QPS_RTR, IBV_QPS_RTS, IBV_QP_STATE | IBV_QP_SQ_PSN, &why), EINVAL);
  EXPECT_EQ(why,
            "RTR to RTS needs IBV_QP_TIMEOUT, IBV_QP_RETRY_CNT, IBV_QP_RNR_RETRY, "
            "IBV_QP_MAX_QP_RD_ATOMIC");
}

TEST(QpState, AnAttributeTheTransitionDoesNotTakeIsRefused) {
  std::string why;
  EXPECT_EQ(check_modify(IBV_QPS_RESET, IBV_QPS_INIT, kToInit | IBV_QP_SQ_PSN, &why), EINVAL);
  EXPECT_EQ(why, "RESET to INIT does not take IBV_QP_SQ_PSN");
  // Once running, the path and PSNs are fixed; access flags and the RNR timer may change.
  EXPECT_EQ(check_modify(IBV_QPS_RTS, IBV_QPS_RTS, IBV_QP_STATE | IBV_QP_DEST_QPN), EINVAL);
  EXPECT_EQ(check_modify(IBV_QPS_RTS, IBV_QPS_RTS,
                         IBV_QP_STATE | IBV_QP_ACCESS_FLAGS | IBV_QP_MIN_RNR_TIMER),
            0);
}

TEST(QpState, StatesCannotBeSkippedAndErrLeadsOnlyToReset) {
  std::string why;
  EXPECT_EQ(check_modify(IBV_QPS_RESET, IBV_QPS_RTR, kToRtr, &why), EINVAL);
  EXPECT_EQ(why, "no transition from RESET to RTR");
  EXPECT_EQ(check_modify(IBV_QPS_INIT, IBV_QPS_RTS, kToRts), EINVAL);
  EXPECT_EQ(check_modify(IBV_QPS_ERR, IBV_QPS_INIT, kToInit), EINVAL);
  EXPECT_EQ(check_modify(IBV_QPS_ERR, IBV_QPS_RTS, kToRts), EINVAL);
  EXPECT_EQ(check_modify(IBV_QPS_ERR, IBV_QPS_RESET, IBV_QP_STATE), 0);
}

TEST(QpState, EveryStateMayGoToErrOrResetWithTheStateAlone) {
  for (const ibv_qp_state from : {IBV_QPS_RESET, IBV_QPS_INIT, IBV_QPS_RTR, IBV_QPS_RTS,
                                  IBV_QPS_SQD, IBV_QPS_SQE, IBV_QPS_ERR}) {
    EXPECT_EQ(check_modify(from, IBV_QPS_ERR, IBV_QP_STATE), 0) << to_string(from);
    EXPECT_EQ(check_modify(from, IBV_QPS_RESET, IBV_QP_STATE), 0) << to_string(from);
  }
}

TEST(QpState, TheMaskMustNameTheState) {
  std::string why;
  EXPECT_EQ(check_modify(IBV_QPS_RESET, IBV_QPS_INIT, kToInit & ~IBV_QP_STATE, &why), EINVAL);
  EXPECT_EQ(why, "the mask lacks IBV_QP_STATE");
}

TEST(QpState, TheSendQueueErrorStateReturnsToRts) {
  EXPECT_EQ(check_modify(IBV_QPS_SQE, IBV_QPS_RTS, IBV_QP_STATE), 0);
  EXPECT_EQ(check_modify(IBV_QPS_SQE, IBV_QPS_RTR, kToRtr), EINVAL);
}

}  // namespace
}  // namespace rnicsim
