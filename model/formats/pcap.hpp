#pragma once
// pcap files (the classic libpcap format): a writer with nanosecond
// timestamps and LINKTYPE_ETHERNET, and a reader for microsecond and
// nanosecond files in either byte order. Wireshark and tshark read what the
// writer writes.
#include <cstdint>
#include <fstream>
#include <stdexcept>
#include <string>
#include <vector>

namespace rnicsim::packet {

// A file that cannot be read or written as pcap; what() is "path: reason".
class PcapError : public std::runtime_error {
 public:
  PcapError(const std::string& path, const std::string& reason)
      : std::runtime_error(path + ": " + reason), path_(path), reason_(reason) {}
  const std::string& path() const { return path_; }
  const std::string& reason() const { return reason_; }

 private:
  std::string path_;
  std::string reason_;
};

struct PcapRecord {
  std::uint64_t time_ns = 0;
  std::uint32_t original_length = 0;  // on the wire; data may be shorter (snap length)
  std::vector<std::uint8_t> data;
};

class PcapWriter {
 public:
  static constexpr std::uint32_t kLinktypeEthernet = 1;
  static constexpr std::uint32_t kSnapLength = 65535;

  // Creates (truncates) the file and writes the global header.
  explicit PcapWriter(const std::string& path);
  void write(std::uint64_t time_ns, const std::uint8_t* frame, std::size_t length);
  std::uint64_t records() const { return records_; }

 private:
  std::string path_;
  std::ofstream out_;
  std::uint64_t records_ = 0;
};

// Reads one record at a time, so memory stays one record whatever the file's size.
class PcapReader {
 public:
  static constexpr std::uint32_t kMaxRecordBytes = 256 * 1024;

  // Reads and checks the global header: a file that is not pcap throws here.
  explicit PcapReader(const std::string& path);
  // The next record, or false at the end of the file. A record cut short by
  // the end of the file (in its header or its data), or one claiming more
  // than kMaxRecordBytes, is a PcapError naming the record (from 1).
  bool next(PcapRecord& record);
  std::uint32_t linktype() const { return linktype_; }

 private:
  std::uint32_t read32(const std::uint8_t* bytes) const;
  PcapError cut_short(const std::string& what_arrived) const;
  std::string path_;
  std::ifstream in_;
  bool swapped_ = false;
  bool nanoseconds_ = false;
  std::uint32_t linktype_ = 0;
  std::uint64_t index_ = 0;
};

}  // namespace rnicsim::packet
