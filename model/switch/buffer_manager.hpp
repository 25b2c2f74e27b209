#pragma once
// BufferManager: a shared-buffer switch's accounting (kernel-free). Every
// frame a switch holds is charged to its egress queue (port, class) and to
// its ingress (port, priority), in one of three kinds of space:
//
//   reserve   each egress queue's own bytes (switch.queue_reserve_bytes)
//   shared    the pool left over, which a queue may use up to a dynamic
//             threshold: alpha x the pool's free bytes (Choudhury and Hahne,
//             "Dynamic queue length thresholds for shared-memory packet
//             switches", IEEE/ACM ToN 6(2), 1998); two queues congested
//             together settle at alpha / (1 + 2 alpha) of it each
//   headroom  per ingress port and lossless priority (switch.headroom_bytes):
//             taken only once the ingress is paused, for the frames still on
//             the cable when the pause arrives
//
// Lossless priorities (PFC on) are admitted by ingress: shared space while the
// ingress is below XOFF and the pool has room, headroom after; the ingress
// asks its upstream to pause once it holds more than pfc.xoff_bytes or takes
// headroom, and to resume at pfc.xon_bytes. Lossy ones are admitted by the
// egress's dynamic threshold and dropped past it.
#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "wire/pfc.hpp"

namespace rnicsim {

inline constexpr std::size_t kTrafficClasses = 8;

struct BufferConfig {
  std::uint64_t buffer_bytes = 0;         // all of it: reserves, shared pool and headroom
  std::uint64_t queue_reserve_bytes = 0;  // per egress queue (port, class)
  double alpha = 1;                       // dynamic threshold factor
  std::uint64_t headroom_bytes = 0;       // per ingress port and lossless priority
  PfcConfig pfc;
};

enum class DropCause : std::uint8_t {
  kNone,
  kDynamicThreshold,  // lossy: the queue is at alpha x the free pool
  kBufferFull,        // lossy: the pool has no room
  kHeadroom,          // lossless: the ingress's headroom is used up
};
inline constexpr std::size_t kDropCauses = 4;
const char* to_string(DropCause cause);

// Where one held frame's bytes are charged; handed back on release.
struct BufferCharge {
  std::uint16_t in_port = 0;
  std::uint8_t priority = 0;
  std::uint16_t out_port = 0;
  std::uint8_t traffic_class = 0;
  std::uint32_t reserve = 0;
  std::uint32_t shared = 0;
  std::uint32_t headroom = 0;
};

class BufferManager {
 public:
  // `ports` ports, of which `cabled` have cables: only those take reserves
  // and headroom. Throws std::invalid_argument when the reserves and
  // headroom leave no shared pool (shared_pool_error says so beforehand).
  BufferManager(const BufferConfig& config, std::size_t ports, std::size_t cabled);
  // Why `config` leaves no shared pool with `cabled` ports; empty when it does.
  static std::string shared_pool_error(const BufferConfig& config, std::size_t cabled);

  struct Admission {
    DropCause drop = DropCause::kNone;
    BufferCharge charge;
  };
  Admission admit(std::uint16_t in_port, std::uint8_t priority, std::uint16_t out_port,
                  std::uint8_t traffic_class, std::uint32_t bytes);
  void release(const BufferCharge& charge);

  // Whether ingress (port, priority) holds more than XOFF or any headroom,
  // and whether it has fallen to XON: the switch turns changes into pauses.
  bool over_xoff(std::uint16_t port, std::uint8_t priority) const;
  bool at_xon(std::uint16_t port, std::uint8_t priority) const;
  // The level the port's PFC unit compares with XOFF and XON: the ingress
  // bytes, or more than any XOFF while headroom is in use (the pause must
  // stay), so that level > XOFF is over_xoff and level <= XON is at_xon.
  std::uint64_t pfc_level(std::uint16_t port, std::uint8_t priority) const;

  std::uint64_t shared_pool_bytes() const { return pool_; }
  std::uint64_t queue_bytes(std::uint16_t port, std::uint8_t traffic_class) const {
    return queue(port, traffic_class).bytes;
  }
  std::uint64_t peak_bytes() const { return peak_; }  // most bytes held at once, all kinds
  // Most headroom one ingress (port, priority) held at once: with headroom
  // to spare, the headroom this traffic needs to lose nothing.
  std::uint64_t headroom_peak_bytes() const { return headroom_peak_; }

 private:
  struct Queue {
    std::uint64_t bytes = 0;  // reserve + shared + headroom
    std::uint64_t reserve = 0;
    std::uint64_t shared = 0;
  };
  struct Ingress {
    std::uint64_t bytes = 0;  // reserve + shared
    std::uint64_t headroom = 0;
  };

  Queue& queue(std::uint16_t port, std::uint8_t c) { return queues_[port * kTrafficClasses + c]; }
  const Queue& queue(std::uint16_t port, std::uint8_t c) const {
    return queues_[port * kTrafficClasses + c];
  }
  Ingress& ingress(std::uint16_t port, std::uint8_t p) {
    return ingress_[port * kTrafficClasses + p];
  }
  const Ingress& ingress(std::uint16_t port, std::uint8_t p) const {
    return ingress_[port * kTrafficClasses + p];
  }

  BufferConfig config_;
  std::uint64_t pool_ = 0;
  std::uint64_t shared_used_ = 0;
  std::uint64_t held_ = 0;
  std::uint64_t peak_ = 0;
  std::uint64_t headroom_peak_ = 0;
  std::vector<Queue> queues_;
  std::vector<Ingress> ingress_;
};

}  // namespace rnicsim
