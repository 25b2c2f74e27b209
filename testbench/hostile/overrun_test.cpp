// The campaign's whole-memory check against a NIC whose bounds check lets one
// byte past a region's end through: this program links the test-only
// rnicsim_access_check_overrun (model/nic/protection/README.md), so the
// check must report the changed byte. A check that cannot catch this is no
// check.
#include <gtest/gtest.h>

#include <string>

#include "hostile/campaign.hpp"
#include "nic/protection/access_check.hpp"

namespace rnicsim::hostile {
namespace {

TEST(HostileOverrun, WholeMemoryCheckCatchesAOneByteOverrun) {
  ASSERT_TRUE(bounds_check_is_broken_for_test()) << "linked the real bounds check";
  CampaignOptions o;
  o.frames = 300;
  o.seed = 3;
  o.only = {Mutation::kRethStraddleByOne};
  const CampaignResult r = run_campaign(o);
  EXPECT_FALSE(r.hang);
  ASSERT_FALSE(r.memory_violations.empty()) << "the overrun went unseen";
  EXPECT_NE(r.memory_violations.front().find("node b"), std::string::npos)
      << r.memory_violations.front();
}

}  // namespace
}  // namespace rnicsim::hostile
