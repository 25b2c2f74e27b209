#include "formats/pcap.hpp"

#include <array>
#include <filesystem>
#include <system_error>

namespace rnicsim::packet {
namespace {

constexpr std::uint32_t kMagicMicroseconds = 0xA1B2C3D4;
constexpr std::uint32_t kMagicNanoseconds = 0xA1B23C4D;

void put32(std::uint8_t* at, std::uint32_t value) {  // the writer's own (little-endian) order
  for (int i = 0; i < 4; ++i) at[i] = static_cast<std::uint8_t>(value >> (8 * i));
}

std::uint32_t swap32(std::uint32_t v) {
  return (v >> 24) | ((v >> 8) & 0xFF00) | ((v << 8) & 0xFF0000) | (v << 24);
}

}  // namespace

PcapWriter::PcapWriter(const std::string& path)
    : path_(path), out_(path, std::ios::binary | std::ios::trunc) {
  std::array<std::uint8_t, 24> header{};
  put32(&header[0], kMagicNanoseconds);
  header[4] = 2;  // version 2.4
  header[6] = 4;
  put32(&header[16], kSnapLength);
  put32(&header[20], kLinktypeEthernet);
  out_.write(reinterpret_cast<const char*>(header.data()), header.size());
  if (!out_) throw PcapError(path_, "cannot write");
}

void PcapWriter::write(std::uint64_t time_ns, const std::uint8_t* frame, std::size_t length) {
  const std::size_t kept = length < kSnapLength ? length : kSnapLength;
  std::array<std::uint8_t, 16> header{};
  put32(&header[0], static_cast<std::uint32_t>(time_ns / 1000000000ULL));
  put32(&header[4], static_cast<std::uint32_t>(time_ns % 1000000000ULL));
  put32(&header[8], static_cast<std::uint32_t>(kept));
  put32(&header[12], static_cast<std::uint32_t>(length));
  out_.write(reinterpret_cast<const char*>(header.data()), header.size());
  out_.write(reinterpret_cast<const char*>(frame), static_cast<std::streamsize>(kept));
  if (!out_.flush()) throw PcapError(path_, "cannot write");
  ++records_;
}

PcapReader::PcapReader(const std::string& path) : path_(path), in_(path, std::ios::binary) {
  if (!in_) throw PcapError(path_, "cannot open");
  std::error_code ignored;
  if (std::filesystem::is_directory(path, ignored)) throw PcapError(path_, "is a directory");
  std::array<std::uint8_t, 24> header{};
  if (!in_.read(reinterpret_cast<char*>(header.data()), header.size())) {
    throw PcapError(path_, "shorter than a pcap file header");
  }
  const std::uint32_t magic = header[0] | header[1] << 8 | header[2] << 16 |
                              static_cast<std::uint32_t>(header[3]) << 24;
  if (magic == kMagicMicroseconds || magic == kMagicNanoseconds) {
    swapped_ = false;
  } else if (swap32(magic) == kMagicMicroseconds || swap32(magic) == kMagicNanoseconds) {
    swapped_ = true;
  } else {
    throw PcapError(path_, "not a pcap file (unknown magic number; pcapng is not supported)");
  }
  nanoseconds_ = (swapped_ ? swap32(magic) : magic) == kMagicNanoseconds;
  linktype_ = read32(&header[20]);
}

std::uint32_t PcapReader::read32(const std::uint8_t* b) const {
  const std::uint32_t v = b[0] | b[1] << 8 | b[2] << 16 | static_cast<std::uint32_t>(b[3]) << 24;
  return swapped_ ? swap32(v) : v;
}

PcapError PcapReader::cut_short(const std::string& what_arrived) const {
  // tshark's words for the same thing: "cut short in the middle of a packet".
  return PcapError(path_, "record " + std::to_string(index_) +
                              " is cut short in the middle of a packet (" + what_arrived + ")");
}

bool PcapReader::next(PcapRecord& record) {
  std::array<std::uint8_t, 16> header{};
  in_.read(reinterpret_cast<char*>(header.data()), header.size());
  if (in_.gcount() == 0) return false;
  ++index_;
  if (in_.gcount() != static_cast<std::streamsize>(header.size())) {
    throw cut_short(std::to_string(in_.gcount()) + " of its 16 header bytes");
  }
  const std::uint32_t seconds = read32(&header[0]);
  const std::uint32_t fraction = read32(&header[4]);
  const std::uint32_t captured = read32(&header[8]);
  if (captured > kMaxRecordBytes) {
    throw PcapError(path_, "record " + std::to_string(index_) + " claims " +
                               std::to_string(captured) + " bytes, more than " +
                               std::to_string(kMaxRecordBytes));
  }
  record.time_ns = std::uint64_t{seconds} * 1000000000ULL +
                   (nanoseconds_ ? fraction : std::uint64_t{fraction} * 1000);
  record.original_length = read32(&header[12]);
  record.data.resize(captured);
  in_.read(reinterpret_cast<char*>(record.data.data()), captured);
  if (in_.gcount() != static_cast<std::streamsize>(captured)) {
    throw cut_short(std::to_string(in_.gcount()) + " of its " + std::to_string(captured) +
                    " bytes");
  }
  return true;
}

}  // namespace rnicsim::packet
