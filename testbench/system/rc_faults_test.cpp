// RC under scripted faults: each scenario drops, duplicates or withholds one
// packet and checks the exact packets both wires carried (opcode, PSN and
// AETH syndrome, read back from the pcap, which records each frame as its
// sender put it on the wire, before the fault), the completions, the bytes
// and the counters. The behaviour follows the IBTA's RC rules as Linux rxe
// implements them (drivers/infiniband/sw/rxe: rxe_comp.c's retry paths,
// rxe_resp.c's duplicate handling); where rxe departs from the spec it is
// said at the test.
#include <unistd.h>

#include <filesystem>
#include <sstream>
#include <string>
#include <vector>

#include "formats/frame.hpp"
#include "formats/pcap.hpp"
#include "system/rc_bench.hpp"
#include "system/wire_capture.hpp"

namespace rnicsim {
namespace {

using testing::Buffer;
using testing::kAllAccess;
using testing::pattern;
using testing::RcBench;
using testing::sge_of;
using testing::work_request;

const char* rc_opcode_name(std::uint8_t opcode) {
  static const char* const kNames[] = {
      "SEND_FIRST",          "SEND_MIDDLE",         "SEND_LAST",          "SEND_LAST_IMM",
      "SEND_ONLY",           "SEND_ONLY_IMM",       "WRITE_FIRST",        "WRITE_MIDDLE",
      "WRITE_LAST",          "WRITE_LAST_IMM",      "WRITE_ONLY",         "WRITE_ONLY_IMM",
      "READ_REQUEST",        "READ_RESPONSE_FIRST", "READ_RESPONSE_MIDDLE", "READ_RESPONSE_LAST",
      "READ_RESPONSE_ONLY",  "ACK",                 "ATOMIC_ACK",         "CMP_SWAP",
      "FETCH_ADD"};
  return opcode < sizeof(kNames) / sizeof(kNames[0]) ? kNames[opcode] : "?";
}

// One packet as the pcap holds it: "a>b WRITE_FIRST 0", "b>a NAK_SEQ 1".
// An ACK's name says its AETH syndrome: ACK, RNR_NAK, NAK_SEQ, NAK_<hex>.
struct WirePacket {
  std::uint64_t time_ns = 0;
  std::string line;
};

std::vector<WirePacket> read_capture(const std::string& path) {
  std::vector<WirePacket> out;
  packet::PcapReader reader(path);
  packet::PcapRecord record;
  while (reader.next(record)) {
    const packet::ParseResult parsed =
        packet::parse_frame(record.data.data(), record.data.size(), packet::IcrcHandling::kSkip);
    EXPECT_TRUE(parsed.ok()) << "record " << out.size() + 1 << " does not parse";
    if (!parsed.ok()) continue;
    const packet::RocePacket& p = parsed.packet;
    std::ostringstream line;
    line << (p.ethernet.source[5] == 1 ? "a>b " : "b>a ");
    if (p.bth.opcode == 0x11 && p.aeth) {
      const std::uint8_t s = p.aeth->syndrome;
      if ((s & 0x60) == 0) line << "ACK";
      else if ((s & 0x60) == 0x20) line << "RNR_NAK";
      else if (s == 0x60) line << "NAK_SEQ";
      else line << "NAK_" << std::hex << static_cast<int>(s) << std::dec;
    } else {
      line << rc_opcode_name(p.bth.opcode);
    }
    line << " " << p.bth.psn;
    out.push_back({record.time_ns, line.str()});
  }
  return out;
}

// The packets one direction carried ("a>b" or "b>a"), one per line: each
// direction's order is exact, while how the two interleave depends on the
// time each side takes to answer.
std::string sent_by(const std::vector<WirePacket>& packets, const std::string& direction) {
  std::string out;
  for (const WirePacket& p : packets)
    if (p.line.compare(0, direction.size(), direction) == 0) out += p.line + "\n";
  return out;
}

std::string joined(const std::vector<std::string>& lines) {
  std::string out;
  for (const std::string& l : lines) out += l + "\n";
  return out;
}

std::vector<std::string> repeated(const std::string& line, int times) {
  return std::vector<std::string>(static_cast<std::size_t>(times), line);
}

ibv_qp_state qp_state(RcBench& bench, std::size_t node, const ibv_qp* qp) {
  return bench.testbed().node(node).nic.transport.contexts().qp(qp->qp_num)->state;
}

// An RcBench whose two wires are captured, with `faults` given as the
// config's faults section (scripted faults: configs/README.md).
class FaultBench {
 public:
  explicit FaultBench(const config::Json& given)
      : path_(std::filesystem::temp_directory_path() /
              ("rc_faults_" + std::to_string(::getpid()) + "_" + std::to_string(++count_) +
               ".pcap")),
        bench(given),
        capture_(path_) {
    capture_.tap(bench.testbed().wire_to(0));
    capture_.tap(bench.testbed().wire_to(1));
  }
  ~FaultBench() { std::filesystem::remove(path_); }

  // The packets both wires carried, in time order (call after run()).
  std::vector<WirePacket> packets() {
    capture_.commit();
    return read_capture(path_.string());
  }
  const TransportStats& stats(std::size_t node) {
    return bench.testbed().node(node).nic.transport.stats();
  }

 private:
  static inline int count_ = 0;
  std::filesystem::path path_;

 public:
  RcBench bench;

 private:
  WireCapture capture_;
};

config::Json faults_script(const std::string& node, const std::string& script) {
  config::Json given;
  given["nodes"][node]["faults"]["script"] = script;
  return given;
}

// An 8-packet RDMA WRITE (8 KiB at PMTU 1024, PSNs 0 to 7) from a to b,
// whose completion and bytes it checks.
void write_8k(FaultBench& f) {
  RcBench& bench = f.bench;
  bench.connect();
  const Buffer src = bench.buffer(0, 8192, kAllAccess);
  const Buffer dst = bench.buffer(1, 8192, kAllAccess);
  bench.fill(src, pattern(8192, 5));
  const ibv_sge sge = sge_of(src, 8192);
  ibv_send_wr wr = work_request(IBV_WR_RDMA_WRITE, &sge, 7, &dst);
  ASSERT_EQ(bench.driver(0).ibv_post_send(bench.a.qps[0], &wr, nullptr), 0);
  const ibv_wc wc = bench.next_completion(0, bench.a.send_cq);
  EXPECT_EQ(wc.status, IBV_WC_SUCCESS) << ibv_wc_status_str(wc.status);
  EXPECT_EQ(wc.wr_id, 7u);
  EXPECT_EQ(bench.contents(dst, 0, 8192), pattern(8192, 5));
  ibv_wc none;
  EXPECT_EQ(bench.driver(0).ibv_poll_cq(bench.a.send_cq, 1, &none), 0);
  // Packets still on their way (a retry's overlap) land before the run ends.
  sc_core::wait(50, sc_core::SC_US);
}

std::vector<std::string> write_packets(std::uint32_t from, std::uint32_t to) {
  std::vector<std::string> out;
  for (std::uint32_t psn = from; psn <= to; ++psn) {
    const char* name = psn == 0 ? "WRITE_FIRST" : psn == 7 ? "WRITE_LAST" : "WRITE_MIDDLE";
    out.push_back("a>b " + std::string(name) + " " + std::to_string(psn));
  }
  return out;
}

std::vector<std::string> operator+(std::vector<std::string> a, const std::vector<std::string>& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

// The responder NAKs the first packet past the lost one with a PSN sequence
// error, once (IBTA 9.7.5.1.1: the packets after it are dropped silently);
// the requester goes back to the lost PSN and sends it and everything after
// it again (go-back-N).
TEST(RcFaults, LostMiddlePacketOfAWriteIsNakedOnceAndSentAgainFromIt) {
  FaultBench f(faults_script("a", "drop:opcode=write,psn=3"));
  f.bench.run([&] { write_8k(f); });
  const std::vector<WirePacket> packets = f.packets();
  EXPECT_EQ(sent_by(packets, "a>b"), joined(write_packets(0, 7) + write_packets(3, 7)));
  EXPECT_EQ(sent_by(packets, "b>a"), joined({"b>a NAK_SEQ 3", "b>a ACK 7"}));
  EXPECT_EQ(f.stats(1).naks_sent, 1u);
  EXPECT_EQ(f.stats(1).out_of_sequence, 4u);  // PSNs 4 to 7 the first time
  EXPECT_EQ(f.stats(0).packet_seq_err, 1u);
  EXPECT_EQ(f.stats(0).retransmitted_packets, 5u);
  EXPECT_EQ(f.stats(0).local_ack_timeout_err, 0u);
}

TEST(RcFaults, LostFirstPacketOfAWriteIsNakedAtItsPsn) {
  FaultBench f(faults_script("a", "drop:opcode=write,psn=0"));
  f.bench.run([&] { write_8k(f); });
  const std::vector<WirePacket> packets = f.packets();
  EXPECT_EQ(sent_by(packets, "a>b"), joined(write_packets(0, 7) + write_packets(0, 7)));
  EXPECT_EQ(sent_by(packets, "b>a"), joined({"b>a NAK_SEQ 0", "b>a ACK 7"}));
  EXPECT_EQ(f.stats(0).packet_seq_err, 1u);
  EXPECT_EQ(f.stats(0).retransmitted_packets, 8u);
}

// Nothing follows the last packet, so nothing tells the responder of the
// loss: the requester's transport timer (4.096 us x 2^timeout) expires and
// it goes back to the oldest unacknowledged PSN. The responder acknowledges
// each duplicate again without writing it again.
TEST(RcFaults, LostLastPacketOfAWriteIsSentAgainWhenTheTimerExpires) {
  FaultBench f(faults_script("a", "drop:opcode=write,psn=7"));
  f.bench.run([&] { write_8k(f); });
  const std::vector<WirePacket> packets = f.packets();
  EXPECT_EQ(sent_by(packets, "a>b"), joined(write_packets(0, 7) + write_packets(0, 7)));
  // Each duplicate is acknowledged again (through PSN 6), then the last.
  EXPECT_EQ(sent_by(packets, "b>a"), joined(repeated("b>a ACK 6", 7) + repeated("b>a ACK 7", 1)));
  ASSERT_GE(packets.size(), 9u);
  // timeout 14: 67.108864 ms after the first packet, plus the requester's
  // few cycles before the packet it sends again (under 1 us).
  const double period_ns = 4096.0 * (1 << 14);
  EXPECT_GE(static_cast<double>(packets[8].time_ns - packets[0].time_ns), period_ns);
  EXPECT_LT(static_cast<double>(packets[8].time_ns - packets[0].time_ns), period_ns + 1000);
  EXPECT_EQ(f.stats(0).local_ack_timeout_err, 1u);
  EXPECT_EQ(f.stats(1).duplicate_requests, 7u);
}

TEST(RcFaults, LostAckIsRecoveredByTheTimerAndTheDuplicateIsNotWrittenTwice) {
  FaultBench f(faults_script("b", "drop:opcode=ack"));
  f.bench.run([&] { write_8k(f); });
  const std::vector<WirePacket> packets = f.packets();
  EXPECT_EQ(sent_by(packets, "a>b"), joined(write_packets(0, 7) + write_packets(0, 7)));
  // The first is lost; then each duplicate is acknowledged again.
  EXPECT_EQ(sent_by(packets, "b>a"), joined(repeated("b>a ACK 7", 9)));
  EXPECT_EQ(f.stats(0).local_ack_timeout_err, 1u);
  EXPECT_EQ(f.stats(1).duplicate_requests, 8u);
}

// A READ response that skips a PSN tells the requester the one before was
// lost (an implied NAK): it asks again for the rest only, with the missing
// PSN and the RETH moved on by the bytes already placed, and the responder
// reads them again from memory (IBTA 9.7.5.1.4; rxe waits for the timer
// instead).
TEST(RcFaults, LostReadResponseInTheMiddleIsAskedForAgainFromItsPsn) {
  FaultBench f(faults_script("b", "drop:opcode=read_response,psn=1"));
  f.bench.run([&] {
    RcBench& bench = f.bench;
    bench.connect();
    const Buffer local = bench.buffer(0, 4096, kAllAccess);
    const Buffer remote = bench.buffer(1, 4096, kAllAccess);
    bench.fill(remote, pattern(4096, 9));
    const ibv_sge sge = sge_of(local, 4096);
    ibv_send_wr wr = work_request(IBV_WR_RDMA_READ, &sge, 3, &remote);
    ASSERT_EQ(bench.driver(0).ibv_post_send(bench.a.qps[0], &wr, nullptr), 0);
    const ibv_wc wc = bench.next_completion(0, bench.a.send_cq);
    EXPECT_EQ(wc.status, IBV_WC_SUCCESS) << ibv_wc_status_str(wc.status);
    EXPECT_EQ(wc.byte_len, 4096u);
    EXPECT_EQ(bench.contents(local, 0, 4096), pattern(4096, 9));
  });
  const std::vector<WirePacket> packets = f.packets();
  EXPECT_EQ(sent_by(packets, "a>b"), joined({"a>b READ_REQUEST 0", "a>b READ_REQUEST 1"}));
  EXPECT_EQ(sent_by(packets, "b>a"),
            joined({"b>a READ_RESPONSE_FIRST 0", "b>a READ_RESPONSE_MIDDLE 1",
                    "b>a READ_RESPONSE_MIDDLE 2", "b>a READ_RESPONSE_LAST 3",
                    "b>a READ_RESPONSE_FIRST 1", "b>a READ_RESPONSE_MIDDLE 2",
                    "b>a READ_RESPONSE_LAST 3"}));
  EXPECT_GE(f.stats(0).implied_nak_seq_err, 1u);
  EXPECT_EQ(f.stats(0).retransmitted_packets, 1u);
  EXPECT_EQ(f.stats(1).duplicate_requests, 1u);
}

// The wire delivers a SEND twice: the responder executes it once (one
// receive completion) and acknowledges the duplicate again.
TEST(RcFaults, DuplicatedSendIsExecutedOnceAndAcknowledgedTwice) {
  FaultBench f(faults_script("a", "duplicate:opcode=send"));
  f.bench.run([&] {
    RcBench& bench = f.bench;
    bench.connect();
    const Buffer src = bench.buffer(0, 512, kAllAccess);
    const Buffer dst = bench.buffer(1, 1024, kAllAccess);
    bench.fill(src, pattern(512, 1));
    ibv_sge recv_sge = sge_of(dst, 1024);
    ibv_recv_wr recv;
    recv.wr_id = 50;
    recv.sg_list = &recv_sge;
    recv.num_sge = 1;
    ASSERT_EQ(bench.driver(1).ibv_post_recv(bench.b.qps[0], &recv, nullptr), 0);
    recv.wr_id = 51;
    ASSERT_EQ(bench.driver(1).ibv_post_recv(bench.b.qps[0], &recv, nullptr), 0);
    const ibv_sge sge = sge_of(src, 512);
    ibv_send_wr wr = work_request(IBV_WR_SEND, &sge, 4, nullptr);
    ASSERT_EQ(bench.driver(0).ibv_post_send(bench.a.qps[0], &wr, nullptr), 0);
    EXPECT_EQ(bench.next_completion(0, bench.a.send_cq).status, IBV_WC_SUCCESS);
    const ibv_wc received = bench.next_completion(1, bench.b.recv_cq);
    EXPECT_EQ(received.wr_id, 50u);
    EXPECT_EQ(received.byte_len, 512u);
    EXPECT_EQ(bench.contents(dst, 0, 512), pattern(512, 1));
    sc_core::wait(sc_core::sc_time(10, sc_core::SC_US));
    ibv_wc none;
    EXPECT_EQ(bench.driver(1).ibv_poll_cq(bench.b.recv_cq, 1, &none), 0);  // 51 stays posted
  });
  const std::vector<WirePacket> packets = f.packets();
  EXPECT_EQ(sent_by(packets, "a>b"), joined({"a>b SEND_ONLY 0"}));
  EXPECT_EQ(sent_by(packets, "b>a"), joined({"b>a ACK 0", "b>a ACK 0"}));
  EXPECT_EQ(f.stats(1).duplicate_requests, 1u);
}

// A fetch-and-add whose ACK is lost is sent again when the timer expires;
// the responder answers the duplicate with the value it returned the first
// time and does not add again (IBTA 9.7.5.1.5: atomics execute at most once).
TEST(RcFaults, DuplicateAtomicIsAnsweredFromTheSavedResultNotExecutedAgain) {
  FaultBench f(faults_script("b", "drop:opcode=18"));  // ATOMIC ACKNOWLEDGE
  f.bench.run([&] {
    RcBench& bench = f.bench;
    bench.connect();
    const Buffer local = bench.buffer(0, 8, kAllAccess);
    const Buffer remote = bench.buffer(1, 8, kAllAccess);
    bench.fill(remote, {100, 0, 0, 0, 0, 0, 0, 0});
    const ibv_sge sge = sge_of(local, 8);
    ibv_send_wr wr = work_request(IBV_WR_ATOMIC_FETCH_AND_ADD, &sge, 8, &remote);
    wr.atomic.compare_add = 5;
    ASSERT_EQ(bench.driver(0).ibv_post_send(bench.a.qps[0], &wr, nullptr), 0);
    EXPECT_EQ(bench.next_completion(0, bench.a.send_cq).status, IBV_WC_SUCCESS);
    EXPECT_EQ(bench.contents(local, 0, 8), (std::vector<std::uint8_t>{100, 0, 0, 0, 0, 0, 0, 0}));
    EXPECT_EQ(bench.contents(remote, 0, 8), (std::vector<std::uint8_t>{105, 0, 0, 0, 0, 0, 0, 0}));
  });
  const std::vector<WirePacket> packets = f.packets();
  EXPECT_EQ(sent_by(packets, "a>b"), joined({"a>b FETCH_ADD 0", "a>b FETCH_ADD 0"}));
  EXPECT_EQ(sent_by(packets, "b>a"), joined({"b>a ATOMIC_ACK 0", "b>a ATOMIC_ACK 0"}));
  EXPECT_EQ(f.stats(0).local_ack_timeout_err, 1u);
  EXPECT_EQ(f.stats(1).duplicate_requests, 1u);
}

// Node a's frames all lost; `wqes` 64 B WRITEs posted at once on a QP with
// timeout 10 (4.194304 ms) and retry_cnt 3. Returns their completions.
std::vector<ibv_wc> write_over_a_dead_link(FaultBench& f, int wqes) {
  std::vector<ibv_wc> completions;
  f.bench.run([&] {
    RcBench& bench = f.bench;
    RcOptions options;
    options.timeout = 10;
    options.retry_cnt = 3;
    bench.connect(options);
    const Buffer src = bench.buffer(0, 64, kAllAccess);
    const Buffer dst = bench.buffer(1, 64, kAllAccess);
    const ibv_sge sge = sge_of(src, 64);
    std::vector<ibv_send_wr> wrs;
    for (int i = 0; i < wqes; ++i) wrs.push_back(work_request(IBV_WR_RDMA_WRITE, &sge, i + 1, &dst));
    for (int i = 0; i + 1 < wqes; ++i) wrs[i].next = &wrs[i + 1];
    ASSERT_EQ(bench.driver(0).ibv_post_send(bench.a.qps[0], &wrs[0], nullptr), 0);
    for (int i = 0; i < wqes; ++i) completions.push_back(bench.next_completion(0, bench.a.send_cq));
    EXPECT_EQ(qp_state(bench, 0, bench.a.qps[0]), IBV_QPS_ERR);
    EXPECT_EQ(qp_state(bench, 1, bench.b.qps[0]), IBV_QPS_RTS);
  });
  return completions;
}

config::Json dead_link(const char* backoff) {
  config::Json given;
  given["nodes"]["a"]["faults"]["loss_rate"] = 1.0;
  given["transport"]["ack_timeout_backoff"] = backoff;
  return given;
}

// Every packet a sends is lost: the requester sends the WRITE retry_cnt + 1
// times, one timeout period apart, then completes it with
// IBV_WC_RETRY_EXC_ERR and moves its QP to ERR, flushing the WQE behind it.
// The responder never heard of it and stays in RTS (it has no timer).
TEST(RcFaults, DeadLinkEndsInRetryExceededAfterRetryCntPlusOneTransmissions) {
  FaultBench f(dead_link("fixed"));
  const std::vector<ibv_wc> completions = write_over_a_dead_link(f, 2);
  ASSERT_EQ(completions.size(), 2u);
  EXPECT_EQ(completions[0].wr_id, 1u);
  EXPECT_EQ(completions[0].status, IBV_WC_RETRY_EXC_ERR) << ibv_wc_status_str(completions[0].status);
  EXPECT_EQ(completions[1].wr_id, 2u);
  EXPECT_EQ(completions[1].status, IBV_WC_WR_FLUSH_ERR) << ibv_wc_status_str(completions[1].status);
  const std::vector<WirePacket> packets = f.packets();
  // Both WQEs' packets leave at once (PSN 0 and 1); each timeout sends both again.
  std::vector<std::string> expected;
  for (int transmission = 0; transmission < 4; ++transmission) {
    expected.push_back("a>b WRITE_ONLY 0");
    expected.push_back("a>b WRITE_ONLY 1");
  }
  ASSERT_EQ(sent_by(packets, "a>b"), joined(expected));
  EXPECT_EQ(sent_by(packets, "b>a"), "");
  const double period_ns = 4096.0 * (1 << 10);
  for (std::size_t t = 1; t < 4; ++t) {
    const double gap = static_cast<double>(packets[2 * t].time_ns - packets[2 * (t - 1)].time_ns);
    EXPECT_GE(gap, period_ns) << "transmission " << t;
    EXPECT_LT(gap, period_ns + 1000) << "transmission " << t;
  }
  // mlx5 counts the expiries that retry; the fourth ends the WQE instead.
  EXPECT_EQ(f.stats(0).local_ack_timeout_err, 3u);
  EXPECT_EQ(f.stats(0).retry_exceeded, 1u);
}

// A SEND that finds no receive WQE is answered with an RNR NAK carrying the
// responder's min_rnr_timer (1: 10 us); the requester sends it again that
// much later, rnr_retry times (IBTA 9.7.5.2.8).
void rnr_send(FaultBench& f, bool post_late, ibv_wc_status expected) {
  RcBench& bench = f.bench;
  RcOptions options;
  options.min_rnr_timer = 1;  // 10 us
  options.rnr_retry = 2;
  bench.connect(options);
  const Buffer src = bench.buffer(0, 64, kAllAccess);
  const Buffer dst = bench.buffer(1, 64, kAllAccess);
  bench.fill(src, pattern(64, 8));
  const ibv_sge sge = sge_of(src, 64);
  ibv_send_wr send = work_request(IBV_WR_SEND, &sge, 1, nullptr);
  ASSERT_EQ(bench.driver(0).ibv_post_send(bench.a.qps[0], &send, nullptr), 0);
  if (post_late) {
    sc_core::wait(15, sc_core::SC_US);  // one RNR NAK and one retry go by
    const ibv_sge recv_sge = sge_of(dst, 64);
    ibv_recv_wr recv;
    recv.sg_list = &recv_sge;
    recv.num_sge = 1;
    ASSERT_EQ(bench.driver(1).ibv_post_recv(bench.b.qps[0], &recv, nullptr), 0);
  }
  const ibv_wc wc = bench.next_completion(0, bench.a.send_cq);
  EXPECT_EQ(wc.status, expected) << ibv_wc_status_str(wc.status);
  if (post_late) {
    EXPECT_EQ(bench.contents(dst, 0, 64), pattern(64, 8));
  }
  // The responder has no retry timer: its QP stays in RTS either way.
  EXPECT_EQ(qp_state(bench, 1, bench.b.qps[0]), IBV_QPS_RTS);
}

TEST(RcFaults, RnrWithAReceivePostedLateSucceedsOnARetry) {
  FaultBench f(config::Json::object());
  f.bench.run([&] { rnr_send(f, true, IBV_WC_SUCCESS); });
  const std::vector<WirePacket> packets = f.packets();
  EXPECT_EQ(sent_by(packets, "a>b"), joined(repeated("a>b SEND_ONLY 0", 3)));
  EXPECT_EQ(sent_by(packets, "b>a"), joined({"b>a RNR_NAK 0", "b>a RNR_NAK 0", "b>a ACK 0"}));
  // Each retry waits the NAK's 10 us after it arrived.
  ASSERT_EQ(packets.size(), 6u);
  EXPECT_GE(packets[2].time_ns - packets[1].time_ns, 10000u);
  EXPECT_EQ(f.stats(0).rnr_nak_retry_err, 2u);
}

TEST(RcFaults, RnrWithNoReceiveEverEndsInRnrRetryExceeded) {
  FaultBench f(config::Json::object());
  f.bench.run([&] { rnr_send(f, false, IBV_WC_RNR_RETRY_EXC_ERR); });
  const std::vector<WirePacket> packets = f.packets();
  // The first try and rnr_retry (2) retries, each NAKed.
  EXPECT_EQ(sent_by(packets, "a>b"), joined(repeated("a>b SEND_ONLY 0", 3)));
  EXPECT_EQ(sent_by(packets, "b>a"), joined(repeated("b>a RNR_NAK 0", 3)));
  EXPECT_EQ(qp_state(f.bench, 0, f.bench.a.qps[0]), IBV_QPS_ERR);
}

// RNR waits are rnr_retry's, not retry_cnt's (IBTA 9.7.5.2.8): an RNR NAK
// stops the transport timer, so a receiver not ready for far longer than the
// timeout period (here 20 RNR rounds of 10 us against 8.2 us, with one
// retry_cnt retry) still ends in success with rnr_retry 7 (for ever).
TEST(RcFaults, RnrWaitsLongerThanTheTimeoutUseNoRetryCntRetry) {
  FaultBench f(config::Json::object());
  f.bench.run([&] {
    RcBench& bench = f.bench;
    RcOptions options;
    options.min_rnr_timer = 1;  // 10 us
    options.rnr_retry = 7;
    options.timeout = 1;  // 8.192 us
    options.retry_cnt = 1;
    bench.connect(options);
    const Buffer src = bench.buffer(0, 64, kAllAccess);
    const Buffer dst = bench.buffer(1, 64, kAllAccess);
    bench.fill(src, pattern(64, 8));
    const ibv_sge sge = sge_of(src, 64);
    ibv_send_wr send = work_request(IBV_WR_SEND, &sge, 1, nullptr);
    ASSERT_EQ(bench.driver(0).ibv_post_send(bench.a.qps[0], &send, nullptr), 0);
    sc_core::wait(200, sc_core::SC_US);
    const ibv_sge recv_sge = sge_of(dst, 64);
    ibv_recv_wr recv;
    recv.sg_list = &recv_sge;
    recv.num_sge = 1;
    ASSERT_EQ(bench.driver(1).ibv_post_recv(bench.b.qps[0], &recv, nullptr), 0);
    const ibv_wc wc = bench.next_completion(0, bench.a.send_cq);
    EXPECT_EQ(wc.status, IBV_WC_SUCCESS) << ibv_wc_status_str(wc.status);
    EXPECT_EQ(bench.contents(dst, 0, 64), pattern(64, 8));
  });
  EXPECT_EQ(f.stats(0).local_ack_timeout_err, 0u);
  EXPECT_GE(f.stats(0).rnr_nak_retry_err, 15u);
}

// transport.ack_timeout_backoff exponential: each timeout in a row doubles
// the period (4.2, 8.4, 16.8 ms at timeout 10), as ConnectX-5 is reported to
// back off; the last expiry ends the WQE as before.
TEST(RcFaults, ExponentialBackoffDoublesThePeriodAtEachTimeoutInARow) {
  FaultBench f(dead_link("exponential"));
  const std::vector<ibv_wc> completions = write_over_a_dead_link(f, 1);
  ASSERT_EQ(completions.size(), 1u);
  EXPECT_EQ(completions[0].status, IBV_WC_RETRY_EXC_ERR) << ibv_wc_status_str(completions[0].status);
  const std::vector<WirePacket> packets = f.packets();
  ASSERT_EQ(sent_by(packets, "a>b"), joined(repeated("a>b WRITE_ONLY 0", 4)));
  for (std::size_t t = 1; t < 4; ++t) {
    const double period_ns = 4096.0 * (1 << 10) * (1 << (t - 1));
    const auto gap = static_cast<double>(packets[t].time_ns - packets[t - 1].time_ns);
    EXPECT_GE(gap, period_ns) << "transmission " << t;
    EXPECT_LT(gap, period_ns + 1000) << "transmission " << t;
  }
  EXPECT_EQ(f.stats(0).local_ack_timeout_err, 3u);
}

// A NAK that arrives after ACKs past its PSN is older than they are (here
// delayed on the wire): a duplicate response, discarded (IBTA vol. 1
// 9.7.5.2, the requester's checks of a response PSN; rxe's completer drops a
// response older than its oldest WQE likewise). PSN 3 of a 64-packet WRITE is
// lost; the responder's NAK for it is held back on the wire, so the transport
// timer (8.2 us) recovers the loss, and the resend's ACKs (every 4th packet)
// move past PSN 3 while the WRITE is still outstanding. Then the NAK arrives
// and must change nothing: the WRITE goes twice in all, never a third time.
TEST(RcFaults, StaleNakAfterLaterAcksIsIgnored) {
  config::Json given = faults_script("a", "drop:opcode=write,psn=3");
  given["nodes"]["b"]["faults"]["script"] = "delay:opcode=nak,ns=7500";
  given["transport"]["ack_request_packets"] = 4;
  FaultBench f(given);
  f.bench.run([&] {
    RcBench& bench = f.bench;
    RcOptions options;
    options.timeout = 1;  // 8.192 us
    bench.connect(options);
    const Buffer src = bench.buffer(0, 65536, kAllAccess);
    const Buffer dst = bench.buffer(1, 65536, kAllAccess);
    bench.fill(src, pattern(65536, 9));
    const ibv_sge sge = sge_of(src, 65536);
    ibv_send_wr wr = work_request(IBV_WR_RDMA_WRITE, &sge, 1, &dst);
    ASSERT_EQ(bench.driver(0).ibv_post_send(bench.a.qps[0], &wr, nullptr), 0);
    const ibv_wc wc = bench.next_completion(0, bench.a.send_cq);
    EXPECT_EQ(wc.status, IBV_WC_SUCCESS) << ibv_wc_status_str(wc.status);
    EXPECT_EQ(bench.contents(dst, 0, 65536), pattern(65536, 9));
    sc_core::wait(50, sc_core::SC_US);
  });
  const std::vector<WirePacket> packets = f.packets();
  std::vector<std::string> expected;
  for (std::uint32_t psn = 0; psn < 64; ++psn) {
    const char* name = psn == 0 ? "WRITE_FIRST" : psn == 63 ? "WRITE_LAST" : "WRITE_MIDDLE";
    expected.push_back("a>b " + std::string(name) + " " + std::to_string(psn));
  }
  // The timer goes back to the oldest unacknowledged PSN, 0 (PSN 3 was the
  // first to ask for an ACK): the WRITE goes twice, whole.
  EXPECT_EQ(sent_by(packets, "a>b"), joined(expected + expected));
  EXPECT_EQ(f.stats(0).local_ack_timeout_err, 1u);
  EXPECT_EQ(f.stats(0).retransmitted_packets, 64u);
  EXPECT_EQ(f.stats(0).stale_naks, 1u);
  EXPECT_EQ(f.stats(0).packet_seq_err, 0u);
  // The scenario held: the NAK (its time in the capture is when b sent it)
  // arrived after an ACK past PSN 3 and before the WRITE's last ACK.
  auto sent_at = [&](const std::string& line) -> std::uint64_t {
    for (const WirePacket& p : packets)
      if (p.line == line) return p.time_ns;
    ADD_FAILURE() << "no " << line;
    return 0;
  };
  const std::uint64_t nak_arrives_ns = sent_at("b>a NAK_SEQ 3") + 7500;
  EXPECT_GT(nak_arrives_ns, sent_at("b>a ACK 7"));
  EXPECT_LT(nak_arrives_ns, sent_at("b>a ACK 63"));
}

// An ACK for a PSN the requester never sent acknowledges nothing: it is
// counted and ignored, and the QP goes on.
TEST(RcFaults, GhostAckForAPsnNeverSentIsIgnored) {
  FaultBench f(config::Json::object());
  f.bench.run([&] {
    RcBench& bench = f.bench;
    bench.connect();
    packet::TransmitRequest ghost;
    ghost.single_packet = true;
    ghost.header_template = bench.testbed().node(1).nic.transport.header_template(
        *bench.testbed().node(1).nic.transport.contexts().qp(bench.b.qps[0]->qp_num));
    ghost.header_template.bth.opcode = 0x11;
    ghost.header_template.bth.psn = 0x500;
    ghost.header_template.aeth = packet::Aeth{0x1F, 0};
    bench.testbed().node(1).nic.transmit.push(std::move(ghost), sc_core::SC_ZERO_TIME);
    sc_core::wait(sc_core::sc_time(10, sc_core::SC_US));
    write_8k(f);
  });
  EXPECT_EQ(f.stats(0).ghost_responses, 1u);
  EXPECT_EQ(f.stats(0).retransmitted_packets, 0u);
}

}  // namespace
}  // namespace rnicsim
