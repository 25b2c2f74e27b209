// usage: write_nak_capture OUT.pcap
// Captures both wires of a bad-rkey RDMA WRITE (bad_rkey_write.hpp) into
// OUT.pcap, for check_nak_capture.py; prints the completion's status.
#include <iostream>
#include <systemc>

#include "common/systemc_banner.hpp"
#include "system/bad_rkey_write.hpp"
#include "system/wire_capture.hpp"

int sc_main(int argc, char* argv[]) {
  if (argc != 2) {
    std::cerr << "usage: write_nak_capture OUT.pcap\n";
    return 2;
  }
  rnicsim::testing::RcBench bench;
  rnicsim::WireCapture capture(argv[1]);
  capture.tap(bench.testbed().wire_to(0));
  capture.tap(bench.testbed().wire_to(1));
  rnicsim::ibv_wc_status status = rnicsim::IBV_WC_SUCCESS;
  bench.run([&] { status = rnicsim::testing::bad_rkey_write(bench); });
  capture.commit();
  std::cout << rnicsim::ibv_wc_status_str(status) << "\n";
  return 0;
}
