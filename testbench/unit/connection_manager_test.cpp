// ConnectionManager (host/app_bridge): rdma_cm's exchange between the
// attached programs, each message kCmMessagePs after its sender's time, the
// events of a channel in (time, sequence) order, and outcomes that do not
// depend on which program's request the launcher saw first.
#include "host/app_bridge/connection_manager.hpp"

#include <gtest/gtest.h>

#include <cerrno>
#include <cstring>
#include <string>
#include <vector>

namespace rnicsim::bridge {
namespace {

constexpr std::uint64_t kUs = 1'000'000;
constexpr std::uint64_t kCm = kCmMessagePs;
constexpr std::uint32_t kServer = 0;
constexpr std::uint32_t kClient = 1;
constexpr CmEndpoint kServerChannel{kServer, 1};
constexpr CmEndpoint kClientChannel{kClient, 1};
constexpr std::uint32_t kPort = 18515;

CmParams params(std::uint32_t qp_num, const std::string& private_data = "") {
  CmParams p{};
  p.qp_num = qp_num;
  p.psn = qp_num * 3;
  p.gid[15] = static_cast<std::uint8_t>(qp_num);
  p.private_data_len = static_cast<std::uint32_t>(private_data.size());
  std::memcpy(p.private_data, private_data.data(), private_data.size());
  return p;
}

CmConnect connect_to(std::uint32_t port, const CmParams& p) { return CmConnect{1, port, p}; }

// The next event of the channel, which must be there.
CmEvent next(ConnectionManager& cm, const CmEndpoint& channel) {
  EXPECT_TRUE(cm.has_event(channel));
  const std::optional<CmEvent> event = cm.take_event(channel);
  if (!event) {
    ADD_FAILURE() << "no event on channel " << channel.channel << " of program " << channel.app;
    return CmEvent{};
  }
  return *event;
}

// A listen, a connect, its request taken, the accept and the RTU.
std::uint32_t establish(ConnectionManager& cm) {
  EXPECT_EQ(cm.listen(kServer, CmListen{1, kPort, 1}, 1 * kUs), 0);
  std::uint32_t id = 0;
  EXPECT_EQ(cm.connect(kClient, connect_to(kPort, params(0x100)), 2 * kUs, &id), 0);
  next(cm, kServerChannel);
  EXPECT_EQ(cm.accept(kServer, CmAccept{id, 1, params(0x200)}, 10 * kUs), 0);
  next(cm, kClientChannel);
  EXPECT_EQ(cm.established(kClient, CmConnection{id, 0}, 20 * kUs), 0);
  next(cm, kServerChannel);
  return id;
}

TEST(ConnectionManager, AConnectionTakesARequestAReplyAndAnRtuEachOneMessageLater) {
  ConnectionManager cm;
  ASSERT_EQ(cm.listen(kServer, CmListen{1, kPort, 1}, 1 * kUs), 0);
  std::uint32_t id = 0;
  ASSERT_EQ(cm.connect(kClient, connect_to(kPort, params(0x100, "hello")), 2 * kUs, &id), 0);
  EXPECT_FALSE(cm.has_event(kClientChannel));

  const CmEvent request = next(cm, kServerChannel);
  EXPECT_EQ(request.kind, CmEventKind::kConnectRequest);
  EXPECT_EQ(request.time_ps, 2 * kUs + kCm);
  EXPECT_EQ(request.connection, id);
  EXPECT_EQ(request.passive, 1u);
  EXPECT_EQ(request.listen_port, kPort);
  EXPECT_EQ(request.peer.qp_num, 0x100u);
  EXPECT_EQ(request.peer.psn, 0x300u);
  // The REQ's whole private-data field: what was given, then zeros.
  EXPECT_EQ(request.peer.private_data_len, kCmRequestPrivateData);
  EXPECT_EQ(std::string(reinterpret_cast<const char*>(request.peer.private_data), 6),
            std::string("hello\0", 6));

  ASSERT_EQ(cm.accept(kServer, CmAccept{id, 1, params(0x200, "reply")}, 10 * kUs), 0);
  const CmEvent reply = next(cm, kClientChannel);
  EXPECT_EQ(reply.kind, CmEventKind::kReply);
  EXPECT_EQ(reply.time_ps, 10 * kUs + kCm);
  EXPECT_EQ(reply.passive, 0u);
  EXPECT_EQ(reply.peer.qp_num, 0x200u);
  EXPECT_EQ(reply.peer.private_data_len, kCmReplyPrivateData);

  ASSERT_EQ(cm.established(kClient, CmConnection{id, 0}, 20 * kUs), 0);
  const CmEvent established = next(cm, kServerChannel);
  EXPECT_EQ(established.kind, CmEventKind::kEstablished);
  EXPECT_EQ(established.time_ps, 20 * kUs + kCm);
  EXPECT_FALSE(cm.has_event(kServerChannel));
  EXPECT_FALSE(cm.has_event(kClientChannel));
  EXPECT_FALSE(cm.holds());
}

TEST(ConnectionManager, PrivateDataBeyondWhatTheMessageCarriesIsRefused) {
  ConnectionManager cm;
  ASSERT_EQ(cm.listen(kServer, CmListen{1, kPort, 1}, 0), 0);
  std::uint32_t id = 0;
  EXPECT_EQ(cm.connect(kClient, connect_to(kPort, params(1, std::string(57, 'x'))), 0, &id),
            EINVAL);
  ASSERT_EQ(cm.connect(kClient, connect_to(kPort, params(1, std::string(56, 'x'))), 0, &id), 0);
  next(cm, kServerChannel);
  CmParams reply = params(2);
  reply.private_data_len = 197;
  EXPECT_EQ(cm.accept(kServer, CmAccept{id, 1, reply}, 0), EINVAL);
  CmReject reject{id, 149, {}};
  EXPECT_EQ(cm.reject(kServer, reject, 0), EINVAL);
}

TEST(ConnectionManager, ASecondListenOnAPortIsAddressInUseUntilTheFirstIsGone) {
  ConnectionManager cm;
  EXPECT_EQ(cm.listen(kServer, CmListen{1, kPort, 1}, 0), 0);
  EXPECT_EQ(cm.listen(kClient, CmListen{1, kPort, 1}, 0), EADDRINUSE);
  EXPECT_EQ(cm.unlisten(kClient, kPort, 0), EINVAL);  // not its listener
  EXPECT_EQ(cm.unlisten(kServer, kPort, 0), 0);
  EXPECT_EQ(cm.listen(kServer, CmListen{2, kPort, 1}, 0), 0);
}

// perftest -R: the server's listening id goes and a new one listens on the
// same port while the client may already be connecting.
TEST(ConnectionManager, AConnectToAPortNobodyListensOnWaitsForTheListener) {
  ConnectionManager cm;
  std::uint32_t id = 0;
  ASSERT_EQ(cm.connect(kClient, connect_to(kPort, params(0x100)), 2 * kUs, &id), 0);
  EXPECT_TRUE(cm.holds());
  EXPECT_FALSE(cm.has_event(kClientChannel));
  // The listener, later in simulated time than the REQ's arrival: it
  // arrives when the listen is made.
  ASSERT_EQ(cm.listen(kServer, CmListen{3, kPort, 1}, 30 * kUs), 0);
  EXPECT_FALSE(cm.holds());
  const CmEvent request = next(cm, CmEndpoint{kServer, 3});
  EXPECT_EQ(request.kind, CmEventKind::kConnectRequest);
  EXPECT_EQ(request.time_ps, 30 * kUs);
  // A listener earlier in simulated time: the REQ's own arrival.
  std::uint32_t second = 0;
  ASSERT_EQ(cm.connect(kClient, connect_to(kPort + 1, params(0x101)), 40 * kUs, &second), 0);
  ASSERT_EQ(cm.listen(kServer, CmListen{3, kPort + 1, 1}, 5 * kUs), 0);
  EXPECT_EQ(next(cm, CmEndpoint{kServer, 3}).time_ps, 40 * kUs + kCm);
}

TEST(ConnectionManager, AHeldConnectIsRefusedOnceEveryProgramWaits) {
  ConnectionManager cm;
  std::uint32_t id = 0;
  ASSERT_EQ(cm.connect(kClient, connect_to(kPort, params(0x100)), 2 * kUs, &id), 0);
  cm.resolve_held();
  EXPECT_FALSE(cm.holds());
  const CmEvent rejected = next(cm, kClientChannel);
  EXPECT_EQ(rejected.kind, CmEventKind::kRejected);
  EXPECT_EQ(rejected.status, kCmRejectInvalidServiceId);
  EXPECT_EQ(rejected.time_ps, 2 * kUs + 2 * kCm);  // the REQ there, the REJ back
  // A listener now is too late for it.
  ASSERT_EQ(cm.listen(kServer, CmListen{1, kPort, 1}, 50 * kUs), 0);
  EXPECT_FALSE(cm.has_event(kServerChannel));
}

TEST(ConnectionManager, ARejectCarriesItsReasonAndPrivateData) {
  ConnectionManager cm;
  ASSERT_EQ(cm.listen(kServer, CmListen{1, kPort, 1}, 0), 0);
  std::uint32_t id = 0;
  ASSERT_EQ(cm.connect(kClient, connect_to(kPort, params(0x100)), 2 * kUs, &id), 0);
  // Not before the request was taken: the program cannot know the id yet.
  EXPECT_EQ(cm.accept(kServer, CmAccept{id, 1, params(0x200)}, 3 * kUs), EINVAL);
  next(cm, kServerChannel);
  CmReject reject{id, 3, {'n', 'o', '!'}};
  ASSERT_EQ(cm.reject(kServer, reject, 9 * kUs), 0);
  const CmEvent rejected = next(cm, kClientChannel);
  EXPECT_EQ(rejected.kind, CmEventKind::kRejected);
  EXPECT_EQ(rejected.status, kCmRejectConsumerDefined);
  EXPECT_EQ(rejected.time_ps, 9 * kUs + kCm);
  EXPECT_EQ(rejected.peer.private_data_len, kCmRejectPrivateData);
  EXPECT_EQ(rejected.peer.private_data[2], '!');
  EXPECT_EQ(cm.accept(kServer, CmAccept{id, 1, params(0x200)}, 10 * kUs), EINVAL);
}

TEST(ConnectionManager, ADisconnectReachesThePeerAtOnceAndItsCallerWithThePeersAnswer) {
  ConnectionManager cm;
  const std::uint32_t id = establish(cm);
  ASSERT_EQ(cm.disconnect(kClient, CmConnection{id, 0}, 100 * kUs), 0);
  // The server's DISCONNECTED: the DREQ's arrival.
  const CmEvent server = next(cm, kServerChannel);
  EXPECT_EQ(server.kind, CmEventKind::kDisconnected);
  EXPECT_EQ(server.time_ps, 100 * kUs + kCm);
  // The client's own waits: the server might still cross it with a DREQ.
  EXPECT_TRUE(cm.holds());
  EXPECT_FALSE(cm.has_event(kClientChannel));
  // The server answers after it heard: a DREP, and no second event for it.
  ASSERT_EQ(cm.disconnect(kServer, CmConnection{id, 1}, 106 * kUs), 0);
  EXPECT_FALSE(cm.holds());
  const CmEvent client = next(cm, kClientChannel);
  EXPECT_EQ(client.kind, CmEventKind::kDisconnected);
  EXPECT_EQ(client.time_ps, 100 * kUs + 2 * kCm);
  EXPECT_FALSE(cm.has_event(kServerChannel));
  EXPECT_FALSE(cm.has_event(kClientChannel));
  // Again: nothing more.
  EXPECT_EQ(cm.disconnect(kClient, CmConnection{id, 0}, 130 * kUs), 0);
  EXPECT_FALSE(cm.has_event(kClientChannel));
}

// Both sides disconnect before the other's DREQ arrives: each side's event
// is the earlier of its own DREP and the peer's DREQ, in either order.
TEST(ConnectionManager, CrossingDisconnectsEndTheSameWhicheverTheLauncherSawFirst) {
  for (const bool client_first : {true, false}) {
    SCOPED_TRACE(client_first ? "client's request first" : "server's request first");
    ConnectionManager cm;
    const std::uint32_t id = establish(cm);
    const auto client = [&] { cm.disconnect(kClient, CmConnection{id, 0}, 100 * kUs); };
    const auto server = [&] { cm.disconnect(kServer, CmConnection{id, 1}, 102 * kUs); };
    if (client_first) {
      client();
      server();
    } else {
      server();
      client();
    }
    EXPECT_FALSE(cm.holds());
    EXPECT_EQ(next(cm, kClientChannel).time_ps, 102 * kUs + kCm);  // the server's DREQ
    EXPECT_EQ(next(cm, kServerChannel).time_ps, 100 * kUs + kCm);  // the client's DREQ
    EXPECT_FALSE(cm.has_event(kClientChannel));
    EXPECT_FALSE(cm.has_event(kServerChannel));
  }
}

TEST(ConnectionManager, AHeldDrepGoesOnceThePeersClockPassesTheDreq) {
  ConnectionManager cm;
  const std::uint32_t id = establish(cm);
  ASSERT_EQ(cm.disconnect(kClient, CmConnection{id, 0}, 100 * kUs), 0);
  cm.advance(kServer, 104 * kUs);  // it could still send a DREQ that crosses
  EXPECT_FALSE(cm.has_event(kClientChannel));
  cm.advance(kServer, 105 * kUs);
  EXPECT_EQ(next(cm, kClientChannel).time_ps, 100 * kUs + 2 * kCm);
  // Its later disconnect is an answer: the client's event stands.
  ASSERT_EQ(cm.disconnect(kServer, CmConnection{id, 1}, 200 * kUs), 0);
  EXPECT_FALSE(cm.has_event(kClientChannel));
}

TEST(ConnectionManager, AHeldDrepGoesWhenEveryProgramWaitsOrThePeerEnds) {
  {
    ConnectionManager cm;
    const std::uint32_t id = establish(cm);
    ASSERT_EQ(cm.disconnect(kClient, CmConnection{id, 0}, 100 * kUs), 0);
    cm.resolve_held();
    EXPECT_EQ(next(cm, kClientChannel).time_ps, 100 * kUs + 2 * kCm);
  }
  {
    ConnectionManager cm;
    const std::uint32_t id = establish(cm);
    ASSERT_EQ(cm.disconnect(kClient, CmConnection{id, 0}, 100 * kUs), 0);
    cm.ended(kServer, 101 * kUs);
    // Its kernel's DREQ went when it ended, before the client's DREP.
    EXPECT_EQ(next(cm, kClientChannel).time_ps, 101 * kUs + kCm);
    EXPECT_FALSE(cm.holds());
  }
}

// A program that disconnects and then destroys its id (or ends) before its
// peer's clock passes the DREQ leaves no held DREP behind: nothing would take
// it, and a launcher waiting for it would never stop waiting.
TEST(ConnectionManager, ADisconnectThenDestroyedIdHoldsNothing) {
  ConnectionManager cm;
  const std::uint32_t id = establish(cm);
  ASSERT_EQ(cm.disconnect(kClient, CmConnection{id, 0}, 100 * kUs), 0);
  EXPECT_TRUE(cm.holds());
  cm.release(kClient, CmConnection{id, 0}, 101 * kUs);
  EXPECT_FALSE(cm.holds());
  EXPECT_FALSE(cm.has_event(kClientChannel));
  // The server still learns of the disconnect, one message after the DREQ.
  EXPECT_EQ(next(cm, kServerChannel).time_ps, 100 * kUs + kCm);
}

TEST(ConnectionManager, ADestroyedIdOrAnEndedProgramDisconnectsItsConnections) {
  ConnectionManager cm;
  const std::uint32_t id = establish(cm);
  cm.release(kServer, CmConnection{id, 1}, 50 * kUs);
  const CmEvent client = next(cm, kClientChannel);
  EXPECT_EQ(client.kind, CmEventKind::kDisconnected);
  EXPECT_EQ(client.time_ps, 50 * kUs + kCm);
  // The server's id is gone: nothing for it, and its requests are refused.
  EXPECT_EQ(cm.disconnect(kServer, CmConnection{id, 1}, 60 * kUs), EINVAL);
  ASSERT_EQ(cm.disconnect(kClient, CmConnection{id, 0}, 60 * kUs), 0);
  EXPECT_FALSE(cm.has_event(kServerChannel));
  EXPECT_FALSE(cm.has_event(kClientChannel));
  EXPECT_FALSE(cm.holds());
}

TEST(ConnectionManager, ARequestTheListenerNeverTookIsRejectedWhenItStopsListening) {
  ConnectionManager cm;
  ASSERT_EQ(cm.listen(kServer, CmListen{1, kPort, 1}, 0), 0);
  std::uint32_t id = 0;
  ASSERT_EQ(cm.connect(kClient, connect_to(kPort, params(0x100)), 2 * kUs, &id), 0);
  ASSERT_EQ(cm.unlisten(kServer, kPort, 20 * kUs), 0);
  EXPECT_FALSE(cm.has_event(kServerChannel));
  const CmEvent rejected = next(cm, kClientChannel);
  EXPECT_EQ(rejected.kind, CmEventKind::kRejected);
  EXPECT_EQ(rejected.status, kCmRejectConsumerDefined);
  EXPECT_EQ(rejected.time_ps, 20 * kUs + kCm);
}

TEST(ConnectionManager, AChannelsEventsComeInTimeOrderThenInTheOrderTheyWereMade) {
  ConnectionManager cm;
  ASSERT_EQ(cm.listen(kServer, CmListen{1, kPort, 4}, 0), 0);
  std::vector<std::uint32_t> ids(3);
  // Made in this order, arriving at 25, 15 and 15 us.
  ASSERT_EQ(cm.connect(kClient, connect_to(kPort, params(1)), 20 * kUs, &ids[0]), 0);
  ASSERT_EQ(cm.connect(kClient, connect_to(kPort, params(2)), 10 * kUs, &ids[1]), 0);
  ASSERT_EQ(cm.connect(kClient, connect_to(kPort, params(3)), 10 * kUs, &ids[2]), 0);
  EXPECT_EQ(next(cm, kServerChannel).connection, ids[1]);
  EXPECT_EQ(next(cm, kServerChannel).connection, ids[2]);
  const CmEvent last = next(cm, kServerChannel);
  EXPECT_EQ(last.connection, ids[0]);
  EXPECT_EQ(last.time_ps, 20 * kUs + kCm);
  EXPECT_FALSE(cm.has_event(kServerChannel));
}

}  // namespace
}  // namespace rnicsim::bridge
