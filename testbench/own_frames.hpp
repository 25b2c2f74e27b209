#pragma once
// RoCEv2 frames we build ourselves (build_frame, plus a UDP checksum written
// byte by byte) for the features no capture we may redistribute carries: a
// CNP with BECN, ECN and DSCP in the TOS, a reserved BTH byte-4 bit and FECN,
// MigReq, pad counts 1 to 3, a non-zero UDP checksum, IPv6 traffic class,
// flow label and hop limit, a VLAN tag, UD SEND ONLY WITH IMMEDIATE.
//
// Their ICRC comes from our own code, so it proves nothing by itself: the
// ctest golden.own_frames_match_scapy_and_tshark recomputes every ICRC with
// scapy and reads every header field back with tshark (check_own_frames.py,
// which states the expected values a second time, independently of this
// file). The unit tests check what our parser makes of the same frames.
#include <cstdint>
#include <string>
#include <vector>

namespace rnicsim::testbench {

struct OwnFrame {
  std::string name;
  std::vector<std::uint8_t> bytes;  // Ethernet header to ICRC, no FCS
};

// Always the same frames in the same order.
const std::vector<OwnFrame>& own_frames();

// The frame called `name`; throws std::out_of_range if there is none.
const std::vector<std::uint8_t>& own_frame(const std::string& name);

}  // namespace rnicsim::testbench
