#include "cosim/frame_stimulus.hpp"

#include <algorithm>
#include <filesystem>
#include <optional>
#include <utility>

#include "own_frames.hpp"
#include "formats/frame.hpp"
#include "formats/headers.hpp"
#include "formats/icrc.hpp"
#include "formats/opcodes.hpp"
#include "formats/pcap.hpp"
#include "random_packets.hpp"

namespace rnicsim::cosim {

using packet::IcrcLocation;

Bytes from_hex(const std::string& hex) {
  Bytes bytes(hex.size() / 2);
  for (std::size_t i = 0; i < bytes.size(); ++i) {
    bytes[i] = static_cast<std::uint8_t>(std::stoul(hex.substr(2 * i, 2), nullptr, 16));
  }
  return bytes;
}

std::vector<Frame> captured_frames() {
  std::vector<std::filesystem::path> files;
  for (const auto& entry :
       std::filesystem::directory_iterator(std::string(RNICSIM_TEST_DATA_DIR) + "/roce/captures")) {
    if (entry.path().extension() == ".pcap") files.push_back(entry.path());
  }
  std::sort(files.begin(), files.end());
  std::vector<Frame> frames;
  for (const auto& file : files) {
    packet::PcapReader reader(file.string());
    packet::PcapRecord record;
    for (int n = 1; reader.next(record); ++n) {
      if (record.data.empty()) continue;
      frames.push_back({file.filename().string() + " #" + std::to_string(n), record.data});
    }
  }
  return frames;
}

std::vector<Frame> own_frames() {
  std::vector<Frame> frames;
  for (const testbench::OwnFrame& f : testbench::own_frames()) frames.push_back({f.name, f.bytes});
  return frames;
}

Bytes random_roce_frame(std::mt19937_64& rng) {
  static const std::vector<std::uint8_t> opcodes = testbench::supported_opcodes();
  static constexpr std::uint32_t kPmtus[] = {256, 512, 1024, 2048, 4096};
  const std::uint8_t opcode = opcodes[rng() % opcodes.size()];
  const packet::OpcodeInfo& info = *packet::find_opcode(opcode);
  const std::uint32_t pmtu = kPmtus[rng() % 5];
  std::size_t size = 0;
  do {
    size = rng() % (pmtu + 1);
  } while (!packet::payload_length_ok(info.payload, size, pmtu));
  const Bytes payload = testbench::random_bytes(rng, size);
  return packet::build_frame(testbench::random_headers(opcode, rng() % 2 == 0, rng() % 4 == 0, rng),
                             payload.data(), payload.size());
}

std::size_t ip_offset_of(const Bytes& frame) {
  return packet::load_be16(frame.data() + 12) == packet::kEtherTypeVlan ? 18 : 14;
}

void fix_icrc(Bytes& frame) {
  if (const std::optional<IcrcLocation> at = packet::locate_icrc(frame.data(), frame.size())) {
    packet::store_icrc(
        packet::compute_icrc(frame.data() + at->ip_offset, at->icrc_offset - at->ip_offset),
        frame.data() + at->icrc_offset);
  }
}

void fix_ipv4_checksum(Bytes& frame) {
  const std::size_t ip = ip_offset_of(frame);
  if (frame.size() <= ip || frame[ip] >> 4 != 4) return;
  const std::size_t header = 4u * (frame[ip] & 0xFu);
  if (header < packet::Ipv4Header::kSize || frame.size() < ip + header) return;
  packet::store_be16(packet::ipv4_header_checksum(frame.data() + ip, header),
                     frame.data() + ip + 10);
}

void add_ipv4_options(Bytes& frame, std::size_t words, std::mt19937_64& rng) {
  const std::size_t ip = ip_offset_of(frame);
  if (frame[ip] >> 4 != 4) return;
  const Bytes options = testbench::random_bytes(rng, 4 * words);
  frame.insert(frame.begin() + static_cast<std::ptrdiff_t>(ip + packet::Ipv4Header::kSize),
               options.begin(), options.end());
  frame[ip] = static_cast<std::uint8_t>(0x40 | (5 + words));
  packet::store_be16(
      static_cast<std::uint16_t>(packet::load_be16(frame.data() + ip + 2) + 4 * words),
      frame.data() + ip + 2);
  fix_ipv4_checksum(frame);
  fix_icrc(frame);
}

void grow_before_icrc(Bytes& frame, std::size_t count, std::mt19937_64& rng) {
  const std::optional<IcrcLocation> at = packet::locate_icrc(frame.data(), frame.size());
  if (!at) return;
  const Bytes more = testbench::random_bytes(rng, count);
  frame.insert(frame.begin() + static_cast<std::ptrdiff_t>(at->icrc_offset), more.begin(),
               more.end());
  const std::size_t ip = at->ip_offset;
  const bool ipv6 = frame[ip] >> 4 == 6;
  const std::size_t udp = ip + (ipv6 ? packet::Ipv6Header::kSize : 4u * (frame[ip] & 0xFu));
  for (const std::size_t length_at : {ip + (ipv6 ? 4 : 2), udp + 4}) {
    packet::store_be16(
        static_cast<std::uint16_t>(packet::load_be16(frame.data() + length_at) + count),
        frame.data() + length_at);
  }
  fix_ipv4_checksum(frame);
  fix_icrc(frame);
}

Frame random_frame(std::size_t index, std::mt19937_64& rng) {
  Bytes frame = random_roce_frame(rng);
  const std::size_t ip = ip_offset_of(frame);
  const bool ipv6 = frame[ip] >> 4 == 6;
  const std::size_t udp = ip + (ipv6 ? 40 : 20);
  std::string how;
  const std::size_t choice = rng() % 16;
  switch (choice) {
    case 0:
    case 1:
    case 2:
      how = "intact";
      break;
    case 3:  // anywhere, masked fields and the ICRC itself included
      frame[rng() % frame.size()] ^= static_cast<std::uint8_t>(1u << (rng() % 8));
      how = "bit flipped";
      break;
    case 4: {  // a variant field: the ICRC must not notice
      const std::size_t v4[] = {1, 8, 10, 11};
      const std::size_t v6[] = {0, 1, 2, 3, 7};
      const std::size_t at = ipv6 ? v6[rng() % 5] : v4[rng() % 4];
      // IPv6 byte 0: only its low nibble (the traffic class's high one) is variant.
      const unsigned bits = ipv6 && at == 0 ? 0x0Fu : 0xFFu;
      frame[ip + at] ^= static_cast<std::uint8_t>((rng() & bits) | 1);
      frame[udp + (rng() % 2 == 0 ? 6 : 7)] ^= static_cast<std::uint8_t>(rng() | 1);
      frame[udp + 8 + 4] ^= static_cast<std::uint8_t>(rng() | 1);
      how = "variant fields changed";
      break;
    }
    case 5: {
      const Bytes pad = testbench::random_bytes(rng, 1 + rng() % 80);
      frame.insert(frame.end(), pad.begin(), pad.end());
      how = "Ethernet padding";
      break;
    }
    case 6:
      add_ipv4_options(frame, 1 + rng() % 10, rng);
      how = "IPv4 options";
      break;
    case 7:
      frame.resize(1 + rng() % frame.size());
      how = "cut short";
      break;
    case 8:
    case 9:
      grow_before_icrc(frame, 1 + rng() % 63, rng);
      how = "ICRC field moved";
      if (rng() % 2 == 0) {
        frame.resize(frame.size() + 1 + rng() % 40, 0);
        how += ", padded";
      }
      break;
    default: {  // one bit of a header field the ICRC engine reads
      struct Field {
        const char* name;
        std::size_t at;
        std::size_t bytes;
      };
      const Field fields[] = {{"EtherType", ip - 2, 2},
                              {"IP version or IHL", ip, 1},
                              {"IP length", ip + (ipv6 ? 4 : 2), 2},
                              {"IP protocol", ip + (ipv6 ? 6 : 9), 1},
                              {"UDP port", udp + 2, 2},
                              {"UDP length", udp + 4, 2}};
      const Field& field = fields[choice - 10];
      frame[field.at + rng() % field.bytes] ^= static_cast<std::uint8_t>(1u << (rng() % 8));
      how = field.name;
      break;
    }
  }
  return {"random #" + std::to_string(index) + " (" + how + ")", std::move(frame)};
}

std::vector<Frame> random_frames(std::size_t count, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<Frame> frames;
  for (std::size_t i = 0; i < count; ++i) frames.push_back(random_frame(i, rng));
  return frames;
}

std::vector<Frame> frames_longer_than_the_counter(std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<Frame> frames;
  for (int i = 0; i < 3; ++i) {
    Bytes frame = random_roce_frame(rng);
    frame.resize(300 * 1024 + static_cast<std::size_t>(i) * 7, 0x5A);
    frames.push_back({"long frame " + std::to_string(i), std::move(frame)});
  }
  frames.push_back({"after the long ones", random_roce_frame(rng)});
  return frames;
}

std::vector<Frame> header_corners() {
  std::mt19937_64 rng(0xC0DE);
  const Bytes payload = testbench::random_bytes(rng, 24);
  std::vector<std::pair<std::string, Bytes>> layouts;
  for (const bool ipv6 : {false, true}) {
    for (const bool vlan : {false, true}) {
      layouts.emplace_back(std::string(ipv6 ? "IPv6" : "IPv4") + (vlan ? " VLAN" : ""),
                           packet::build_frame(testbench::random_headers(0x04, ipv6, vlan, rng),
                                               payload.data(), payload.size()));
    }
  }
  Bytes options = layouts.front().second;
  add_ipv4_options(options, 10, rng);
  layouts.emplace_back("IPv4 options", options);

  std::vector<Frame> frames;
  for (const auto& [name, frame] : layouts) {
    for (std::size_t cut = 1; cut <= frame.size(); ++cut) {
      frames.push_back({name + " cut to " + std::to_string(cut),
                        Bytes(frame.begin(), frame.begin() + static_cast<std::ptrdiff_t>(cut))});
    }
    for (std::size_t grow = 0; grow < 128; ++grow) {
      Bytes moved = frame;
      grow_before_icrc(moved, grow, rng);
      frames.push_back({name + " ICRC moved by " + std::to_string(grow), std::move(moved)});
    }
  }
  const Bytes& ipv4 = layouts.front().second;
  const std::size_t ip = 14;
  for (std::size_t ihl = 0; ihl < 5; ++ihl) {
    Bytes frame = ipv4;
    const std::size_t removed = 4 * (5 - ihl);
    frame.erase(frame.begin() + static_cast<std::ptrdiff_t>(ip + 4 * ihl),
                frame.begin() + static_cast<std::ptrdiff_t>(ip + 20));
    frame[ip] = static_cast<std::uint8_t>(0x40 | ihl);
    packet::store_be16(
        static_cast<std::uint16_t>(packet::load_be16(frame.data() + ip + 2) - removed),
        frame.data() + ip + 2);
    frames.push_back({"IPv4 IHL " + std::to_string(ihl), std::move(frame)});
  }
  for (std::uint16_t udp_length = 8; udp_length < 28; ++udp_length) {
    Bytes frame = ipv4;
    frame.resize(ip + 20 + udp_length);
    packet::store_be16(static_cast<std::uint16_t>(20 + udp_length), frame.data() + ip + 2);
    packet::store_be16(udp_length, frame.data() + ip + 20 + 4);
    fix_ipv4_checksum(frame);
    frames.push_back({"UDP length " + std::to_string(udp_length), std::move(frame)});
  }
  return frames;
}


}  // namespace rnicsim::cosim
