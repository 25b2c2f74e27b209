#pragma once
// One direction of a PCIe link: a wire that serializes TLPs and DLLPs one
// after another at the link rate. Occupancy is arithmetic, so a TLP costs no
// kernel event here. The NIC books whole windows of TLPs at once, some of them
// to be sent later (a read waits for its tag), so the wire keeps the stretches
// it has promised from now on: a TLP takes the first idle stretch at or after
// its earliest time that is long enough for it, and what was booked earlier
// never moves. DLLPs (ACK, UpdateFC) go behind everything booked: a few bytes
// whose exact place does not matter, and which must not cut the idle
// stretches into slivers no TLP fits.
#include <cstddef>
#include <cstdint>
#include <systemc>
#include <vector>

namespace rnicsim::pcie {

struct LinkDirectionStats {
  std::uint64_t tlps = 0;
  std::uint64_t tlp_bytes = 0;    // on the wire, framing included
  std::uint64_t dllps = 0;
  sc_core::sc_time busy;          // time the wire carried something
};

class LinkDirection {
 public:
  struct Slot {
    sc_core::sc_time start;    // first byte sent
    sc_core::sc_time end;      // last byte sent
    sc_core::sc_time arrival;  // last byte received at the other end
  };

  LinkDirection(double gbps, const sc_core::sc_time& latency);

  // Time `wire_bytes` take on the wire (rounded up to a picosecond).
  sc_core::sc_time wire_time(std::uint32_t wire_bytes) const;

  // Sends `tlps` TLPs back to back, `wire_bytes` in all taking `duration`, in
  // the first idle stretch at or after `earliest` (and `now`, the current time).
  Slot send_tlps(std::uint32_t tlps, std::uint64_t wire_bytes, const sc_core::sc_time& duration,
                 const sc_core::sc_time& earliest, const sc_core::sc_time& now);
  // Sends `count` DLLPs of `wire_bytes` each at `at` or behind everything booked.
  void send_dllps(std::uint32_t count, std::uint32_t wire_bytes, const sc_core::sc_time& at,
                  const sc_core::sc_time& now);

  const LinkDirectionStats& stats() const { return stats_; }
  // Stretches booked that have not ended (for tests: the promise stays bounded).
  std::size_t booked_stretches() const { return busy_.size() - first_; }

 private:
  struct Busy {
    sc_core::sc_time start;
    sc_core::sc_time end;
  };
  // Places [start, start + duration) into busy_ before index `at`, merging
  // with the neighbours it touches.
  void insert(std::size_t at, const sc_core::sc_time& start, const sc_core::sc_time& duration);
  void forget_before(const sc_core::sc_time& now);

  double gbps_;
  sc_core::sc_time latency_;
  // wire_time() of every TLP size up to a 4 KiB payload with its header and
  // framing, worked out once: the conversion is long-double arithmetic, and
  // the link asks for it for every TLP.
  std::vector<sc_core::sc_time> wire_times_;
  std::vector<Busy> busy_;  // sorted and disjoint; entries before first_ have ended
  std::size_t first_ = 0;
  LinkDirectionStats stats_;
};

}  // namespace rnicsim::pcie
