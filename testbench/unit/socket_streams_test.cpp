// SocketStreams (host/app_bridge): when an application blocked on a real
// loopback socket will wake, and the simulated time it wakes at, from the
// notices alone: the later of its own time and the sender's.
#include "host/app_bridge/socket_streams.hpp"

#include <gtest/gtest.h>

namespace rnicsim::bridge {
namespace {

constexpr Stream kClientToServer{40000, 18515};
constexpr Stream kServerToClient{18515, 40000};

Block read_block(const Stream& reader) { return Block{BlockKind::kRead, reader}; }

TEST(SocketStreams, AnAcceptWaitsForAConnectAndWakesAtItsTime) {
  SocketStreams streams;
  const Block accept{BlockKind::kAccept, Stream{18515, 0}};
  EXPECT_FALSE(streams.pending(accept));
  streams.connect(kClientToServer, 5'000);
  EXPECT_TRUE(streams.pending(accept));
  // Blocked since 2 ns, woken by a connect at 5 ns.
  EXPECT_EQ(streams.wake(BlockEnd{Block{BlockKind::kAccept, Stream{18515, 40000}}, 1}, 2'000),
            5'000u);
  EXPECT_FALSE(streams.pending(accept));
  // A process blocked after the connect keeps its own, later, time.
  streams.connect(Stream{40001, 18515}, 5'000);
  EXPECT_EQ(streams.wake(BlockEnd{Block{BlockKind::kAccept, Stream{18515, 40001}}, 1}, 9'000),
            9'000u);
}

TEST(SocketStreams, AReadWakesAtTheLatestSendItsBytesCameFrom) {
  SocketStreams streams;
  const Block server_reads = read_block(kServerToClient);
  EXPECT_FALSE(streams.pending(server_reads));
  streams.send(StreamBytes{kClientToServer, 10}, 1'000);
  streams.send(StreamBytes{kClientToServer, 10}, 3'000);
  // The other direction is another stream.
  EXPECT_FALSE(streams.pending(read_block(kClientToServer)));
  EXPECT_TRUE(streams.pending(server_reads));
  // 15 bytes: all of the first send and part of the second.
  EXPECT_EQ(streams.wake(BlockEnd{server_reads, 15}, 0), 3'000u);
  EXPECT_TRUE(streams.pending(server_reads));
  EXPECT_EQ(streams.wake(BlockEnd{server_reads, 5}, 4'000), 4'000u);
  EXPECT_FALSE(streams.pending(server_reads));
  // 4 bytes of a 10-byte send: the rest is still there to wake on.
  streams.send(StreamBytes{kClientToServer, 10}, 8'000);
  EXPECT_EQ(streams.wake(BlockEnd{server_reads, 4}, 5'000), 8'000u);
  EXPECT_TRUE(streams.pending(server_reads));
}

TEST(SocketStreams, AClosedStreamWakesItsReaderOnceWithTheEnd) {
  SocketStreams streams;
  const Block server_reads = read_block(kServerToClient);
  streams.close(kClientToServer, 7'000);
  EXPECT_TRUE(streams.pending(server_reads));
  EXPECT_EQ(streams.wake(BlockEnd{server_reads, 0}, 1'000), 7'000u);
  EXPECT_FALSE(streams.pending(server_reads));
}

TEST(SocketStreams, AStreamNoNoticeTalksOfWakesNobodyAndKeepsTheReadersTime) {
  SocketStreams streams;
  const Block unknown = read_block(Stream{1, 2});
  EXPECT_FALSE(streams.pending(unknown));
  EXPECT_EQ(streams.wake(BlockEnd{unknown, 100}, 6'000), 6'000u);
}

}  // namespace
}  // namespace rnicsim::bridge
