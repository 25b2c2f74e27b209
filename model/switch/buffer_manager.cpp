#include "switch/buffer_manager.hpp"

#include <algorithm>
#include <limits>
#include <stdexcept>
#include <string>

namespace rnicsim {

const char* to_string(DropCause cause) {
  switch (cause) {
    case DropCause::kNone:
      return "none";
    case DropCause::kDynamicThreshold:
      return "dynamic_threshold";
    case DropCause::kBufferFull:
      return "buffer_full";
    case DropCause::kHeadroom:
      return "headroom";
  }
  return "?";
}

namespace {

unsigned lossless_count(const PfcConfig& pfc) {
  unsigned n = 0;
  for (unsigned p = 0; p < kTrafficClasses; ++p) n += pfc.lossless(p) ? 1 : 0;
  return n;
}

}  // namespace

std::string BufferManager::shared_pool_error(const BufferConfig& config, std::size_t cabled) {
  const std::uint64_t reserves = cabled * kTrafficClasses * config.queue_reserve_bytes;
  const std::uint64_t headroom = cabled * lossless_count(config.pfc) * config.headroom_bytes;
  if (reserves + headroom < config.buffer_bytes) return "";
  return "the queue reserves (" + std::to_string(reserves) + " B) and PFC headroom (" +
         std::to_string(headroom) + " B) of " + std::to_string(cabled) +
         " cabled ports leave no shared pool in a buffer of " +
         std::to_string(config.buffer_bytes) + " B";
}

BufferManager::BufferManager(const BufferConfig& config, std::size_t ports, std::size_t cabled)
    : config_(config), queues_(ports * kTrafficClasses), ingress_(ports * kTrafficClasses) {
  const std::string error = shared_pool_error(config, cabled);
  if (!error.empty()) throw std::invalid_argument(error);
  pool_ = config.buffer_bytes - cabled * kTrafficClasses * config.queue_reserve_bytes -
          cabled * lossless_count(config.pfc) * config.headroom_bytes;
}

BufferManager::Admission BufferManager::admit(std::uint16_t in_port, std::uint8_t priority,
                                              std::uint16_t out_port, std::uint8_t traffic_class,
                                              std::uint32_t bytes) {
  Admission a;
  a.charge.in_port = in_port;
  a.charge.priority = priority;
  a.charge.out_port = out_port;
  a.charge.traffic_class = traffic_class;
  Queue& q = queue(out_port, traffic_class);
  Ingress& in = ingress(in_port, priority);
  const bool lossless = config_.pfc.lossless(priority);
  const bool paused_ingress = lossless && over_xoff(in_port, priority);
  if (!paused_ingress && q.reserve + bytes <= config_.queue_reserve_bytes) {
    a.charge.reserve = bytes;
  } else if (lossless) {
    if (!paused_ingress && shared_used_ + bytes <= pool_) {
      a.charge.shared = bytes;
    } else if (in.headroom + bytes <= config_.headroom_bytes) {
      a.charge.headroom = bytes;
    } else {
      a.drop = DropCause::kHeadroom;
      return a;
    }
  } else {
    if (shared_used_ + bytes > pool_) {
      a.drop = DropCause::kBufferFull;
      return a;
    }
    const double threshold = config_.alpha * static_cast<double>(pool_ - shared_used_);
    if (static_cast<double>(q.shared + bytes) > threshold) {
      a.drop = DropCause::kDynamicThreshold;
      return a;
    }
    a.charge.shared = bytes;
  }
  q.bytes += bytes;
  q.reserve += a.charge.reserve;
  q.shared += a.charge.shared;
  shared_used_ += a.charge.shared;
  in.bytes += a.charge.reserve + a.charge.shared;
  in.headroom += a.charge.headroom;
  headroom_peak_ = std::max(headroom_peak_, in.headroom);
  held_ += bytes;
  peak_ = std::max(peak_, held_);
  return a;
}

void BufferManager::release(const BufferCharge& c) {
  Queue& q = queue(c.out_port, c.traffic_class);
  Ingress& in = ingress(c.in_port, c.priority);
  const std::uint64_t bytes = std::uint64_t{c.reserve} + c.shared + c.headroom;
  q.bytes -= bytes;
  q.reserve -= c.reserve;
  q.shared -= c.shared;
  shared_used_ -= c.shared;
  in.bytes -= c.reserve + c.shared;
  in.headroom -= c.headroom;
  held_ -= bytes;
}

bool BufferManager::over_xoff(std::uint16_t port, std::uint8_t priority) const {
  const Ingress& in = ingress(port, priority);
  return in.headroom > 0 || in.bytes > config_.pfc.xoff_bytes;
}

bool BufferManager::at_xon(std::uint16_t port, std::uint8_t priority) const {
  const Ingress& in = ingress(port, priority);
  return in.headroom == 0 && in.bytes <= config_.pfc.xon_bytes;
}

std::uint64_t BufferManager::pfc_level(std::uint16_t port, std::uint8_t priority) const {
  const Ingress& in = ingress(port, priority);
  return in.headroom > 0 ? std::numeric_limits<std::uint64_t>::max() : in.bytes;
}

}  // namespace rnicsim
