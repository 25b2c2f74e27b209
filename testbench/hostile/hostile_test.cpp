// A hostile peer against a running NIC (campaign.hpp): mutated frames and
// replayed captures into node b while a verbs workload runs; the whole-memory
// check, the bystanders and the attacked QPs' completions must hold.
#include <gtest/gtest.h>

#include <string>

#include "hostile/campaign.hpp"
#include "nic/protection/access_check.hpp"

namespace rnicsim::hostile {
namespace {

std::string capture(const std::string& name) {
  return std::string(RNICSIM_SOURCE_DIR) + "/testbench/data/roce/captures/" + name;
}

const char* const kCaptures[] = {"pingpong_rc.pcap",    "pingpong_uc.pcap",  "pingpong_ud.pcap",
                                 "rdma_atomic_bw.pcap", "rdma_cm.pcap",      "rdma_read_bw.pcap",
                                 "rdma_read_lat.pcap",  "rdma_send_bw.pcap", "rdma_write_bw.pcap",
                                 "rdma_write_lat.pcap", "rping.pcap"};

std::vector<std::string> every_capture() {
  std::vector<std::string> out;
  for (const char* name : kCaptures) out.push_back(capture(name));
  return out;
}

void expect_passed(const CampaignResult& r) {
  EXPECT_FALSE(r.hang);
  EXPECT_TRUE(r.memory_violations.empty()) << r.to_json()["memory_violations"].dump(1);
  EXPECT_TRUE(r.bystander_errors.empty()) << r.to_json()["bystander_errors"].dump(1);
  EXPECT_TRUE(r.attacked_errors.empty()) << r.to_json()["attacked_errors"].dump(1);
  EXPECT_GT(r.bystander_messages, 0u);
}

TEST(HostileCampaign, ShortMutationCampaign) {
  ASSERT_FALSE(bounds_check_is_broken_for_test());
  CampaignOptions o;
  o.frames = 10000;
  o.seed = 7;
  o.captures = every_capture();
  const CampaignResult r = run_campaign(o);
  EXPECT_EQ(r.frames_sent, o.frames);
  expect_passed(r);
  // Frames reached the deep checks, not only the parser: keys were refused,
  // hostile requests (the bystanders' own taken out) accepted, and attacked
  // QPs went to ERR and back.
  const nlohmann::json& checks = r.receive_path["request_checks_hostile"];
  EXPECT_GT(checks["accepted"].get<std::uint64_t>(), 100u);
  EXPECT_GT(r.receive_path["transport"]["key_rejections"].get<std::uint64_t>(), 10u);
  EXPECT_GT(r.attacked_reconnects, 10u);
}

TEST(HostileCampaign, ReplayOfEveryCaptureRetargeted) {
  CampaignOptions o;
  o.source = CampaignOptions::Source::kReplay;
  o.captures = every_capture();
  const CampaignResult r = run_campaign(o);
  EXPECT_GT(r.frames_sent, 500u);  // the captures' RoCEv2 frames, twice
  expect_passed(r);
  EXPECT_GT(r.receive_path["request_checks_hostile"]["accepted"].get<std::uint64_t>(), 0u);
}

// The campaign of record (results/hostile): a million frames.
TEST(HostileCampaign, MillionFrames) {
  CampaignOptions o;
  o.frames = 1000000;
  o.seed = 1;
  o.captures = every_capture();
  const CampaignResult r = run_campaign(o);
  EXPECT_EQ(r.frames_sent, o.frames);
  expect_passed(r);
}

}  // namespace
}  // namespace rnicsim::hostile
