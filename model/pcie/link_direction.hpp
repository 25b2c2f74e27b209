#pragma once
// One direction of a PCIe link: a wire that serializes TLPs and DLLPs one
// after another at the link rate. Occupancy is arithmetic, so a TLP costs no
// kernel event here. The NIC books whole windows of TLPs at once, some of them
// to be sent later (a read waits for its tag), so the wire keeps the stretches
// it has promised from now on: TLPs take the first idle stretch at or after
// their earliest time that is long enough for them, and what was booked
// earlier never moves. DLLPs (ACK, UpdateFC) take the first idle stretch at or
// after theirs too, and TLPs booked later flow around them (a DLLP goes
// between two TLPs), so a few bytes of DLLP never leave an idle stretch
// unusable.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <systemc>
#include <vector>
#include "common/statistics.hpp"

namespace rnicsim::pcie {

struct LinkDirectionStats {
  std::uint64_t tlps = 0;
  std::uint64_t tlp_bytes = 0;    // on the wire, framing included
  std::uint64_t dllps = 0;
  sc_core::sc_time busy;          // time the wire carried something
};

// LinkDirectionStats's names, units and meanings (common/statistics.hpp).
const StatisticsTable<LinkDirectionStats>& link_direction_statistics();

class LinkDirection {
 public:
  struct Slot {
    sc_core::sc_time start;    // first byte sent
    sc_core::sc_time end;      // last byte sent
    sc_core::sc_time arrival;  // last byte received at the other end
  };

  LinkDirection(double gbps, const sc_core::sc_time& latency);

  // Time `wire_bytes` take on the wire (rounded up to a picosecond).
  sc_core::sc_time wire_time(std::uint32_t wire_bytes) const {
    return wire_bytes < wire_times_.size() ? wire_times_[wire_bytes] : wire_time_of(wire_bytes);
  }

  // Time `bits` take on the wire (the ideal link's, whose sizes count in bits).
  sc_core::sc_time bits_time(std::uint64_t bits) const;

  // Sends `tlps` TLPs back to back, `wire_bytes` in all taking `duration`
  // (plus any DLLPs booked among them), from the first time at or after
  // `earliest` (and `now`, the current time) that no TLP already booked is in
  // their way.
  Slot send_tlps(std::uint32_t tlps, std::uint64_t wire_bytes, const sc_core::sc_time& duration,
                 const sc_core::sc_time& earliest, const sc_core::sc_time& now) {
    const sc_core::sc_time& first = std::max(earliest, now);
    if (!behind_all_booked(first.value())) {
      return send_among_booked(tlps, wire_bytes, duration, first, now);
    }
    // The common case, inline: the TLPs go after all booked, a few additions.
    const sc_core::sc_time start = start_behind_all_booked(first);
    const sc_core::sc_time last = start + duration;
    append(start.value(), last.value(), false, now.value());
    count(tlps, wire_bytes, duration);
    return Slot{start, last, last + latency_};
  }
  // Sends `tlps` TLPs of `wire_bytes` each taking `duration`, one after the
  // other from `earliest`, if they go after every stretch booked: then they
  // go back to back, as send_tlps() one at a time would send them, and
  // `first` gets the first one's slot (the others follow `duration` apart).
  // False, with nothing booked, where a stretch is booked after `earliest`.
  bool send_train(std::uint32_t tlps, std::uint32_t wire_bytes, const sc_core::sc_time& duration,
                  const sc_core::sc_time& earliest, const sc_core::sc_time& now, Slot& first);
  // Sends `count` DLLPs of `wire_bytes` each in the first idle stretch at or after `at`.
  void send_dllps(std::uint32_t count, std::uint32_t wire_bytes, const sc_core::sc_time& at,
                  const sc_core::sc_time& now);

  const LinkDirectionStats& stats() const { return stats_; }
  // Stretches booked that have not ended (for tests: the promise stays bounded).
  std::size_t booked_stretches() const { return busy_.size() - first_; }

 private:
  // In picoseconds: plain integers, so the vector moves its stretches with
  // memmove when one is placed between others.
  struct Busy {
    std::uint64_t start;
    std::uint64_t end;
    bool dllps_only;  // TLPs may flow around it
  };
  sc_core::sc_time wire_time_of(std::uint32_t wire_bytes) const;
  // send_tlps() where a stretch booked after `first` may be in the way.
  Slot send_among_booked(std::uint32_t tlps, std::uint64_t wire_bytes,
                         const sc_core::sc_time& duration, const sc_core::sc_time& first,
                         const sc_core::sc_time& now);
  void count(std::uint32_t tlps, std::uint64_t wire_bytes, const sc_core::sc_time& duration) {
    stats_.busy += duration;
    stats_.tlps += tlps;
    stats_.tlp_bytes += wire_bytes;
  }
  // The first stretch (index) still busy after `t`.
  std::size_t first_busy_after(std::uint64_t t) const;
  // Replaces busy_[from, to) by [start, end), merging with the neighbours it touches.
  void place(std::size_t from, std::size_t to, std::uint64_t start, std::uint64_t end,
             bool dllps_only);
  void forget_before(std::uint64_t now);
  // Whether every stretch booked ends by `t`, so that a new one goes last.
  bool nothing_booked_after(std::uint64_t t) const {
    return busy_.size() == first_ || busy_.back().end <= t;
  }
  // Whether TLPs ready at `t` go after every stretch booked: nothing is
  // booked after `t`, or `t` falls in the last stretch, which is the wire
  // queueing (a saturated direction); then they start when it ends.
  bool behind_all_booked(std::uint64_t t) const {
    return busy_.size() == first_ || busy_.back().start <= t;
  }
  // Where TLPs ready at `ready` and behind all booked start: when the last
  // stretch ends, if it has not by then.
  sc_core::sc_time start_behind_all_booked(const sc_core::sc_time& ready) const {
    return busy_.size() > first_ && busy_.back().end > ready.value()
               ? sc_core::sc_time::from_value(busy_.back().end)
               : ready;
  }
  // Books [start, end) after every booked stretch, merging with the last one
  // if it touches it; what has ended by `now` is forgotten only when the
  // vector would grow.
  void append(std::uint64_t start, std::uint64_t end, bool dllps_only, std::uint64_t now) {
    if (busy_.size() > first_ && busy_.back().end == start) {
      busy_.back().end = end;
      busy_.back().dllps_only = busy_.back().dllps_only && dllps_only;
      return;
    }
    forget_before(now);
    // Fields written in place: a Busy built aside and copied in stalled on a
    // failed store-to-load forward (a sixth of book()'s profile samples).
    Busy& added = busy_.emplace_back();
    added.start = start;
    added.end = end;
    added.dllps_only = dllps_only;
  }

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
