// usage: write_own_frames OUT.pcap
// Writes the frames of own_frames.hpp to OUT.pcap, one record each in order,
// and prints their names, one per line, for check_own_frames.py.
#include <iostream>
#include <systemc>

#include "common/systemc_banner.hpp"
#include "own_frames.hpp"
#include "formats/pcap.hpp"

int sc_main(int argc, char* argv[]) {
  if (argc != 2) {
    std::cerr << "usage: write_own_frames OUT.pcap\n";
    return 2;
  }
  rnicsim::packet::PcapWriter writer(argv[1]);
  std::uint64_t time_ns = 0;
  for (const auto& frame : rnicsim::testbench::own_frames()) {
    writer.write(time_ns += 1000, frame.bytes.data(), frame.bytes.size());
    std::cout << frame.name << "\n";
  }
  return 0;
}
