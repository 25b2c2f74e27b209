// WireCapture on a two-node testbed: both wires' frames, in time order, as
// the senders put them on the wire; in place only once committed.
#include "system/wire_capture.hpp"

#include <unistd.h>

#include <filesystem>
#include <string>
#include <vector>

#include "formats/frame.hpp"
#include "system/bad_rkey_write.hpp"

namespace rnicsim {
namespace {

namespace fs = std::filesystem;
using testing::RcBench;

fs::path capture_path(const std::string& name) {
  return fs::temp_directory_path() /
         ("rnicsim_wire_capture_" + std::to_string(getpid()) + "_" + name + ".pcap");
}

fs::path staging_of(const fs::path& path) {
  return path.string() + ".partial-" + std::to_string(getpid());
}

struct Captured {
  std::uint64_t time_ns;
  packet::ParseResult parsed;
};

std::vector<Captured> read_capture(const fs::path& path) {
  packet::PcapReader reader(path.string());
  packet::PcapRecord record;
  std::vector<Captured> frames;
  while (reader.next(record)) {
    EXPECT_EQ(record.original_length, record.data.size());
    frames.push_back({record.time_ns, packet::parse_frame(record.data.data(), record.data.size())});
  }
  return frames;
}

TEST(WireCapture, ABadRkeyWriteAndItsNakAreBothOnTheCapture) {
  const fs::path path = capture_path("nak");
  RcBench bench;
  WireCapture capture(path);
  capture.tap(bench.testbed().wire_to(0));
  capture.tap(bench.testbed().wire_to(1));
  ibv_wc_status status = IBV_WC_SUCCESS;
  bench.run([&] { status = testing::bad_rkey_write(bench); });
  EXPECT_EQ(status, IBV_WC_REM_ACCESS_ERR);
  EXPECT_TRUE(fs::exists(staging_of(path)));
  EXPECT_FALSE(fs::exists(path));
  capture.commit();
  EXPECT_FALSE(fs::exists(staging_of(path)));

  const std::vector<Captured> frames = read_capture(path);
  fs::remove(path);
  ASSERT_EQ(frames.size(), 2U);
  const packet::RocePacket& write = frames[0].parsed.packet;
  const packet::RocePacket& nak = frames[1].parsed.packet;
  EXPECT_TRUE(frames[0].parsed.ok());
  EXPECT_TRUE(frames[1].parsed.ok());
  EXPECT_EQ(write.ethernet.source, node_address(0).mac);
  EXPECT_EQ(write.bth.opcode, 0x0A);  // RC RDMA WRITE ONLY
  ASSERT_TRUE(write.reth);
  EXPECT_EQ(write.reth->rkey & 0x100, 0x100U);
  EXPECT_EQ(nak.ethernet.source, node_address(1).mac);
  EXPECT_EQ(nak.bth.opcode, 0x11);  // RC ACKNOWLEDGE
  EXPECT_EQ(nak.bth.psn, write.bth.psn);
  ASSERT_TRUE(nak.aeth);
  EXPECT_EQ(nak.aeth->syndrome, 0x62);  // NAK: remote access error
  EXPECT_LT(frames[0].time_ns, frames[1].time_ns);
}

TEST(WireCapture, WithoutACommitNothingIsLeft) {
  const fs::path path = capture_path("uncommitted");
  {
    RcBench bench;
    WireCapture capture(path);
    capture.tap(bench.testbed().wire_to(1));
    bench.run([&] { testing::bad_rkey_write(bench); });
    EXPECT_TRUE(fs::exists(staging_of(path)));
  }
  EXPECT_FALSE(fs::exists(staging_of(path)));
  EXPECT_FALSE(fs::exists(path));
}

}  // namespace
}  // namespace rnicsim
