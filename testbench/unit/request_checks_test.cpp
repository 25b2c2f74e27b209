// The responder's decision functions and the memory key check
// (model/nic/protection): each verdict, at the edges that decide it.
#include "nic/protection/request_checks.hpp"

#include <gtest/gtest.h>

#include <cstdint>

#include "nic/protection/access_check.hpp"

namespace rnicsim {
namespace {

ResponderQpView ready_qp(std::uint32_t expected_psn = 100) {
  ResponderQpView qp;
  qp.ready = true;
  qp.expected_psn = expected_psn;
  qp.pmtu = 1024;
  return qp;
}

packet::RocePacket request(std::uint8_t opcode, std::uint32_t psn, std::size_t payload) {
  packet::RocePacket p;
  p.bth.opcode = opcode;
  p.bth.psn = psn;
  p.payload_length = payload;
  return p;
}

constexpr std::uint8_t kSendFirst = 0x00, kSendMiddle = 0x01, kSendLast = 0x02, kSendOnly = 0x04,
                       kWriteFirst = 0x06, kWriteMiddle = 0x07, kWriteOnly = 0x0A,
                       kReadRequest = 0x0C, kReadResponseOnly = 0x10, kAck = 0x11, kFetchAdd = 0x14,
                       kUcSendOnly = 0x24, kUdSendOnly = 0x64;

TEST(RequestChecks, QpNotReadyIsDroppedBeforeAnythingElse) {
  ResponderQpView qp = ready_qp();
  qp.ready = false;
  EXPECT_EQ(check_request_header(qp, request(kSendOnly, 100, 10)), RequestCheck::kNoQp);
  EXPECT_EQ(check_request_header(qp, request(kUcSendOnly, 7, 10)), RequestCheck::kNoQp);
}

TEST(RequestChecks, UcAndUdOpcodesToAnRcQpAreDropped) {
  EXPECT_EQ(check_request_header(ready_qp(), request(kUcSendOnly, 100, 10)),
            RequestCheck::kWrongTransport);
  EXPECT_EQ(check_request_header(ready_qp(), request(kUdSendOnly, 100, 10)),
            RequestCheck::kWrongTransport);
  EXPECT_EQ(check_request_header(ready_qp(), request(0x1F, 100, 0)), RequestCheck::kWrongTransport);
}

TEST(RequestChecks, PsnAgainstExpectedWrapsAt24Bits) {
  EXPECT_EQ(check_request_header(ready_qp(100), request(kSendOnly, 99, 10)),
            RequestCheck::kDuplicate);
  EXPECT_EQ(check_request_header(ready_qp(100), request(kSendOnly, 101, 10)),
            RequestCheck::kOutOfSequence);
  // Across the wrap: 0xFFFFFF is just before 0, 1 just after.
  EXPECT_EQ(check_request_header(ready_qp(0), request(kSendOnly, 0xFFFFFF, 10)),
            RequestCheck::kDuplicate);
  EXPECT_EQ(check_request_header(ready_qp(0xFFFFFF), request(kSendOnly, 0, 10)),
            RequestCheck::kOutOfSequence);
  // Half the PSN space away counts as behind (psn_diff's [-2^23, 2^23)).
  EXPECT_EQ(check_request_header(ready_qp(0), request(kSendOnly, (1u << 23) - 1, 10)),
            RequestCheck::kOutOfSequence);
  EXPECT_EQ(check_request_header(ready_qp(0), request(kSendOnly, 1u << 23, 10)),
            RequestCheck::kDuplicate);
}

TEST(RequestChecks, ResponsesOnTheRequestPathAreInvalidRequests) {
  EXPECT_EQ(check_request_header(ready_qp(), request(kAck, 100, 0)), RequestCheck::kNotRequest);
  EXPECT_EQ(check_request_header(ready_qp(), request(kReadResponseOnly, 100, 8)),
            RequestCheck::kNotRequest);
  EXPECT_EQ(nak_syndrome(RequestCheck::kNotRequest), 0x61);
}

TEST(RequestChecks, OpcodeSequence) {
  ResponderQpView idle = ready_qp();
  EXPECT_EQ(check_request_header(idle, request(kSendMiddle, 100, 1024)),
            RequestCheck::kOpcodeSequence);
  EXPECT_EQ(check_request_header(idle, request(kSendLast, 100, 4)), RequestCheck::kOpcodeSequence);
  EXPECT_EQ(check_request_header(idle, request(kSendFirst, 100, 1024)), RequestCheck::kAccepted);
  ResponderQpView in_send = ready_qp();
  in_send.in_message = true;
  in_send.message_is_send = true;
  EXPECT_EQ(check_request_header(in_send, request(kSendFirst, 100, 1024)),
            RequestCheck::kOpcodeSequence);
  EXPECT_EQ(check_request_header(in_send, request(kSendMiddle, 100, 1024)),
            RequestCheck::kAccepted);
  // A WRITE's MIDDLE inside a SEND, a READ between a message's packets.
  EXPECT_EQ(check_request_header(in_send, request(kWriteMiddle, 100, 1024)),
            RequestCheck::kOpcodeSequence);
  EXPECT_EQ(check_request_header(in_send, request(kReadRequest, 100, 0)),
            RequestCheck::kOpcodeSequence);
  EXPECT_EQ(check_request_header(idle, request(kReadRequest, 100, 0)), RequestCheck::kAccepted);
}

TEST(RequestChecks, PayloadAgainstThePathMtu) {
  ResponderQpView qp = ready_qp();  // PMTU 1024
  EXPECT_EQ(check_request_header(qp, request(kWriteFirst, 100, 1023)),
            RequestCheck::kPayloadLength);
  EXPECT_EQ(check_request_header(qp, request(kWriteFirst, 100, 1024)), RequestCheck::kAccepted);
  EXPECT_EQ(check_request_header(qp, request(kWriteOnly, 100, 1025)), RequestCheck::kPayloadLength);
  EXPECT_EQ(check_request_header(qp, request(kWriteOnly, 100, 0)), RequestCheck::kAccepted);
}

TEST(RequestChecks, RemoteRights) {
  EXPECT_EQ(check_remote_right(IBV_ACCESS_REMOTE_READ, kWriteOnly), RequestCheck::kNoRemoteRight);
  EXPECT_EQ(check_remote_right(IBV_ACCESS_REMOTE_WRITE, kWriteOnly), RequestCheck::kAccepted);
  EXPECT_EQ(check_remote_right(IBV_ACCESS_REMOTE_WRITE, kReadRequest),
            RequestCheck::kNoRemoteRight);
  EXPECT_EQ(check_remote_right(IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ, kFetchAdd),
            RequestCheck::kNoRemoteRight);
  EXPECT_EQ(check_remote_right(0, kSendOnly), RequestCheck::kAccepted);
  EXPECT_EQ(nak_syndrome(RequestCheck::kNoRemoteRight), 0x62);
}

TEST(RequestChecks, AtomicAlignment) {
  EXPECT_EQ(check_atomic_alignment(0x1000), RequestCheck::kAccepted);
  EXPECT_EQ(check_atomic_alignment(0x1004), RequestCheck::kAtomicAlignment);
  EXPECT_EQ(check_atomic_alignment(0x1001), RequestCheck::kAtomicAlignment);
}

TEST(RequestChecks, MessageLength) {
  // A SEND may be shorter than its receive buffer, never longer.
  EXPECT_EQ(check_message_length(true, true, 0, 10, 100), RequestCheck::kAccepted);
  EXPECT_EQ(check_message_length(true, false, 96, 5, 100), RequestCheck::kMessageTooLong);
  // A WRITE fills exactly its RETH length.
  EXPECT_EQ(check_message_length(false, true, 0, 99, 100), RequestCheck::kMessageTooShort);
  EXPECT_EQ(check_message_length(false, true, 0, 100, 100), RequestCheck::kAccepted);
  EXPECT_EQ(check_message_length(false, false, 0, 64, 100), RequestCheck::kAccepted);
  EXPECT_EQ(check_message_length(false, true, 64, 37, 100), RequestCheck::kMessageTooLong);
  // A length that would wrap an offset sum.
  EXPECT_EQ(check_message_length(false, true, 8, UINT64_MAX - 4, 100),
            RequestCheck::kMessageTooLong);
}

MptEntry region(std::uint64_t base, std::uint64_t length) {
  MptEntry m;
  m.valid = true;
  m.key_variant = 0x33;
  m.access = IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ;
  m.pd = 5;
  m.base_va = base;
  m.length = length;
  return m;
}

TEST(AccessCheck, KeyPdRightsInOrder) {
  const std::uint32_t key = make_key(7, 0x33);
  MptEntry m = region(0x1000, 100);
  EXPECT_EQ(check_region_access(key, m, 0x1000, 100, IBV_ACCESS_REMOTE_WRITE, 5),
            TranslationStatus::kOk);
  EXPECT_EQ(check_region_access(make_key(7, 0x34), m, 0x1000, 1, IBV_ACCESS_REMOTE_WRITE, 5),
            TranslationStatus::kStaleKey);
  EXPECT_EQ(check_region_access(key, m, 0x1000, 1, IBV_ACCESS_REMOTE_WRITE, 6),
            TranslationStatus::kPdMismatch);
  EXPECT_EQ(check_region_access(key, m, 0x1000, 1, IBV_ACCESS_REMOTE_ATOMIC, 5),
            TranslationStatus::kAccessDenied);
  m.valid = false;
  EXPECT_EQ(check_region_access(key, m, 0x1000, 1, IBV_ACCESS_REMOTE_WRITE, 5),
            TranslationStatus::kInvalidKey);
}

TEST(AccessCheck, BoundsToTheByte) {
  ASSERT_FALSE(bounds_check_is_broken_for_test());
  const std::uint32_t key = make_key(7, 0x33);
  const MptEntry m = region(0x1000, 100);
  const auto at = [&](std::uint64_t va, std::uint64_t length) {
    return check_region_access(key, m, va, length, IBV_ACCESS_REMOTE_WRITE, 5);
  };
  EXPECT_EQ(at(0x1000 + 99, 1), TranslationStatus::kOk);
  EXPECT_EQ(at(0x1000 + 99, 2), TranslationStatus::kOutOfBounds);  // one byte past the end
  EXPECT_EQ(at(0x1000 + 100, 1), TranslationStatus::kOutOfBounds);
  EXPECT_EQ(at(0x0FFF, 1), TranslationStatus::kOutOfBounds);
  EXPECT_EQ(at(0x1000, 101), TranslationStatus::kOutOfBounds);
  // va + length wrapping past 2^64 lands "inside" by a sum, never by offsets.
  EXPECT_EQ(at(0x1010, UINT64_MAX - 0x100), TranslationStatus::kOutOfBounds);
  EXPECT_EQ(at(UINT64_MAX, 0x2000), TranslationStatus::kOutOfBounds);
}

}  // namespace
}  // namespace rnicsim
