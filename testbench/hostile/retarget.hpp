#pragma once
// Captured RoCEv2 frames aimed at the campaign's target (frame_mutator.hpp):
// replayed as they are, or taken as FrameMutator's templates.
#include <cstdint>
#include <string>
#include <vector>

#include "formats/frame.hpp"
#include "hostile/frame_mutator.hpp"

namespace rnicsim::hostile {

// Every RoCEv2 frame of a pcap that parses (other records skipped), rewritten to the target:
// MACs and IPv4 addresses (an IPv6 frame is rebuilt as IPv4), destination QPN = attacked_qpns[i %
// n], PSN left as captured unless `use_expected_psn`; ICRC recomputed. Returns frames in file
// order. A VLAN tag is dropped: node b's port is untagged. Throws std::invalid_argument for a
// target without attacked QPNs (or without expected_psn when it is asked for), packet::PcapError
// for a file that is not pcap.
std::vector<std::vector<std::uint8_t>> retarget_capture(const std::string& pcap_path,
                                                        const HostileTarget& target,
                                                        bool use_expected_psn);

// Every RoCEv2 frame of a pcap that parses, unchanged (the templates for FrameMutator).
// "Parses" includes a correct ICRC: a frame that arrived damaged is no template.
std::vector<std::vector<std::uint8_t>> roce_frames_of(const std::string& pcap_path);

// The headers of a parsed frame aimed at the target: its MACs, its IPv4 addresses (IPv6
// becomes IPv4 with the traffic class and hop limit as TOS and TTL), no VLAN tag,
// destination QPN `qpn`. Everything else, the PSN included, stays as it was.
packet::RocePacket retarget_headers(const packet::RocePacket& headers, const HostileTarget& target,
                                    std::uint32_t qpn);

}  // namespace rnicsim::hostile
