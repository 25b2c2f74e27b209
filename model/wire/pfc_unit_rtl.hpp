#pragma once
// The PFC unit as the verilated rtl/pfc_unit (wire/pfc_unit.hpp has the
// contract), clocked call by call: a call's first cycle carries the time
// since the last call (elapsed_ps_i), the rest take no time (a frame's later
// beats, the cycles a level waits for the unit, the PFC frames it sends).
// Its cycles are not charged: the MAC's timing stays the model's.
//
// RtlPfcUnit<Top> serves any verilated parameter set of the block (the
// co-simulation tests use both widths and the test-only fault);
// make_rtl_pfc_unit gives the 8-byte one the MAC swaps in. A file that
// instantiates it includes Top's root header (<Top>___024root.h) as well: the
// backdoor (load_paused_ps) writes the block's counters there.
#include <verilated.h>

#include <algorithm>
#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "nic/rtl_bridge/clocking.hpp"
#include "nic/rtl_bridge/verilated_ports.hpp"
#include "wire/pfc_unit.hpp"

namespace rnicsim {

template <typename Top, std::size_t kDataBytes>
class RtlPfcUnit final : public PfcUnit {
 public:
  // `quantum_ps`: 512 bit times at the port's rate (whole_quantum_ps).
  // `whole_frames`: stream every beat of a received frame, not only those
  // the block reads (receive says why), for the co-simulation tests.
  RtlPfcUnit(const PfcConfig& config, std::uint64_t quantum_ps, const packet::MacAddress& source,
             bool whole_frames = false)
      : whole_frames_(whole_frames) {
    top_.cfg_lossless_i = lossless_priorities(config);
    top_.cfg_pause_quanta_i = config.pause_quanta;
    top_.cfg_refresh_quanta_i = config.refresh_quanta;
    top_.cfg_xoff_bytes_i = std::min(config.xoff_bytes, kMaxBytes);
    top_.cfg_xon_bytes_i = std::min(config.xon_bytes, kMaxBytes);
    if (quantum_ps == 0 || quantum_ps >= (1u << 24)) {
      throw std::invalid_argument("rtl/pfc_unit: a pause quantum of " + std::to_string(quantum_ps) +
                                  " ps does not fit its 24 bits");
    }
    top_.cfg_quantum_ps_i = static_cast<std::uint32_t>(quantum_ps);
    std::uint64_t mac = 0;
    for (const std::uint8_t byte : source) mac = (mac << 8) | byte;
    top_.cfg_source_mac_i = mac;
    top_.elapsed_ps_i = 0;
    top_.s_rx_valid_i = 0;
    top_.s_level_valid_i = 0;
    top_.m_tx_ready_i = 1;  // the MAC takes a PFC frame as it comes
    top_.stat_priority_i = 0;
    rtl_bridge::reset(top_, 1);
  }
  ~RtlPfcUnit() override { top_.final(); }
  const char* name() const override { return "rtl"; }

  PfcReceived receive(const std::uint8_t* frame, std::size_t length,
                      std::uint64_t now_ps) override {
    if (length == 0) throw std::invalid_argument("rtl/pfc_unit: an empty frame has no beat");
    // The block reads only a frame's first 34 bytes and counts its bytes up
    // to 64: the beats after those carry nothing it reads, so the frame
    // ends there (a 4 KB frame: 8 cycles instead of 512 at 8 bytes a beat).
    if (!whole_frames_) length = std::min(length, kBytesRead);
    set_elapsed(now_ps);
    PfcReceived received;
    for (std::size_t offset = 0; offset < length; offset += kDataBytes) {
      const std::size_t lanes = std::min(kDataBytes, length - offset);
      top_.s_rx_valid_i = 1;
      rtl_bridge::set_bytes(top_.s_rx_data_i, frame + offset, lanes);
      rtl_bridge::set_low_ones(top_.s_rx_keep_i, lanes);
      top_.s_rx_last_i = offset + lanes == length;
      low();
      if (top_.s_rx_last_i) {
        received.control = top_.rx_control_o != 0;
        received.pauses = top_.rx_pauses_o;
        received.resumes = top_.rx_resumes_o;
      }
      edge();
    }
    top_.s_rx_valid_i = 0;
    drain();
    return received;
  }

  void buffer_level(std::uint8_t priorities, std::uint64_t bytes, std::uint64_t now_ps) override {
    set_elapsed(now_ps);
    top_.s_level_valid_i = 1;
    top_.s_level_priorities_i = priorities;
    top_.s_level_bytes_i = std::min(bytes, kMaxBytes);
    for (int waited = 0;; ++waited) {
      if (waited > kMaxCycles) throw stuck("never took a buffer level");
      low();
      const bool taken = top_.s_level_ready_o != 0;
      edge();
      if (taken) break;
    }
    top_.s_level_valid_i = 0;
    drain();
  }

  void advance(std::uint64_t now_ps) override {
    set_elapsed(now_ps);
    low();
    edge();
    drain();
  }

  std::uint8_t paused() const override { return top_.paused_o; }
  std::uint64_t resume_in_ps() const override { return top_.resume_in_ps_o; }
  std::uint64_t refresh_in_ps() const override { return top_.refresh_in_ps_o; }
  std::uint8_t congested() const override { return top_.congested_o; }
  std::uint64_t paused_ps(unsigned priority, std::uint64_t now_ps) const override {
    // The read port counts the cycle's time too: it is read with the time
    // since the last call on elapsed_ps_i and no clock edge.
    top_.stat_priority_i = static_cast<std::uint8_t>(priority);
    top_.elapsed_ps_i = std::min(now_ps - now_, kMaxElapsed);
    top_.eval();
    const std::uint64_t paused = top_.stat_paused_ps_o;
    top_.elapsed_ps_i = 0;
    top_.eval();
    return paused;
  }
  // The counter holds the time through the last call's edge.
  void load_paused_ps(unsigned priority, std::uint64_t ps) override {
    if (priority >= 8)
      throw std::out_of_range("rtl/pfc_unit: no priority " + std::to_string(priority));
    top_.rootp->pfc_unit__DOT__paused_ps_q[priority] = ps;
    top_.eval();
  }

 private:
  static constexpr std::uint64_t kMaxBytes = (std::uint64_t{1} << 48) - 1;
  static constexpr std::uint64_t kMaxElapsed = (std::uint64_t{1} << 48) - 1;
  static constexpr int kMaxCycles = 64;  // a stuck RTL fails rather than hangs
  static constexpr std::size_t kBytesRead = 64;

  // The first cycle of a call carries the time since the last call: more
  // than any timer holds is the same as all of it.
  void set_elapsed(std::uint64_t now_ps) {
    if (now_ps < now_) throw std::logic_error("rtl/pfc_unit: time went backwards");
    top_.elapsed_ps_i = std::min(now_ps - now_, kMaxElapsed);
    now_ = now_ps;
  }
  // Inputs settle with the clock low; a PFC frame beat offered now is taken
  // at the edge that ends the cycle.
  void low() {
    top_.clk_i = 0;
    top_.eval();
    if (top_.m_tx_valid_o) {
      std::uint8_t beat[kDataBytes];
      const std::size_t lanes = keep_count();
      rtl_bridge::get_bytes(top_.m_tx_data_o, beat, lanes);
      sending_.insert(sending_.end(), beat, beat + lanes);
      if (top_.m_tx_last_o) frames_.push_back(std::exchange(sending_, {}));
    }
  }
  void edge() {
    rtl_bridge::rise(top_);
    top_.elapsed_ps_i = 0;  // the call's later cycles take no time
  }
  // Clocks until no PFC frame is being sent or waits to be: no cycle at all
  // when none does (the common case: a data frame, a level that changes
  // nothing).
  void drain() {
    for (int cycles = 0; top_.tx_pending_o; ++cycles) {
      if (cycles > kMaxCycles * 4) throw stuck("kept sending");
      low();
      edge();
    }
    if (!sending_.empty()) throw stuck("left a PFC frame unfinished");
  }
  std::size_t keep_count() const {
    std::size_t n = 0;
    while (n < kDataBytes && keep_bit(n)) ++n;
    return n;
  }
  bool keep_bit(std::size_t lane) const {
    // Up to 64 lanes: Verilator gives the keep port an integer type.
    return (static_cast<std::uint64_t>(top_.m_tx_keep_o) >> lane) & 1u;
  }
  std::logic_error stuck(const std::string& what) const {
    return std::logic_error("rtl/pfc_unit " + what);
  }

  mutable Top top_;
  bool whole_frames_;
  std::uint64_t now_ = 0;
  std::vector<std::uint8_t> sending_;  // the PFC frame leaving, so far
};

}  // namespace rnicsim
