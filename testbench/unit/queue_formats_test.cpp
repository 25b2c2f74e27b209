// The command mailbox's layout (transport/queue_formats), byte for byte as
// nic/transport/README.md draws it.
#include "interface/queue_formats.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace rnicsim {
namespace {

TEST(RoceActiveMtu, FollowsTheKernelsIboeGetMtu) {
  const auto bytes = [](std::uint32_t ethernet_mtu) {
    return ibv_mtu_to_bytes(roce_active_mtu(ethernet_mtu));
  };
  EXPECT_EQ(bytes(1500), 1024u);
  EXPECT_EQ(bytes(4200), 4096u);
  EXPECT_EQ(bytes(9000), 4096u);
  // 96 bytes of RoCE headers come off first.
  EXPECT_EQ(bytes(4192), 4096u);
  EXPECT_EQ(bytes(4191), 2048u);
  EXPECT_EQ(bytes(2144), 2048u);
  EXPECT_EQ(bytes(2143), 1024u);
  EXPECT_EQ(bytes(1120), 1024u);
  EXPECT_EQ(bytes(1119), 512u);
  EXPECT_EQ(bytes(608), 512u);
  EXPECT_EQ(bytes(607), 256u);
  EXPECT_EQ(bytes(352), 256u);
  EXPECT_EQ(static_cast<int>(roce_active_mtu(351)), 0);
}

TEST(CommandMailbox, DeregMrIsOpFiveWithIndexMttRangeAndPages) {
  Command command;
  command.op = CommandOp::kDeregMr;
  command.dereg_mr.mpt_index = 0x01020304;
  command.dereg_mr.first_mtt = 0x1112131415161718;
  command.dereg_mr.pages = 0x21222324;
  const std::vector<std::uint8_t> bytes = encode_command(command);
  EXPECT_EQ(bytes, (std::vector<std::uint8_t>{
                       5, 0, 0, 0,                                        // op: DEREG_MR
                       0, 0, 0, 0,                                        // status: pending
                       16, 0, 0, 0,                                       // body bytes
                       0x04, 0x03, 0x02, 0x01,                            // MPT index
                       0x18, 0x17, 0x16, 0x15, 0x14, 0x13, 0x12, 0x11,  // first MTT entry
                       0x24, 0x23, 0x22, 0x21}));                         // pages
  EXPECT_EQ(command_body_bytes(bytes.data()), 16U);
  const std::optional<Command> decoded = decode_command(bytes.data(), bytes.size(), nullptr);
  ASSERT_TRUE(decoded.has_value());
  EXPECT_EQ(decoded->op, CommandOp::kDeregMr);
  EXPECT_EQ(decoded->dereg_mr.mpt_index, 0x01020304U);
  EXPECT_EQ(decoded->dereg_mr.first_mtt, 0x1112131415161718U);
  EXPECT_EQ(decoded->dereg_mr.pages, 0x21222324U);
}

TEST(CommandMailbox, ADeregMrBodyCutShortIsRefused) {
  Command command;
  command.op = CommandOp::kDeregMr;
  std::vector<std::uint8_t> bytes = encode_command(command);
  bytes[8] = 12;  // the body claims 12 bytes: pages is missing
  bytes.resize(bytes.size() - 4);
  std::string error;
  EXPECT_FALSE(decode_command(bytes.data(), bytes.size(), &error).has_value());
  EXPECT_EQ(error, "command body cut short");
}

}  // namespace
}  // namespace rnicsim
