#include "nic/ethernet/ethernet_port.hpp"

#include <algorithm>
#include <stdexcept>

#include "common/little_endian.hpp"
#include "common/message_breakdown.hpp"
#include "common/simulation.hpp"
#include "formats/tcp_header.hpp"
#include "nic/packet/tso.hpp"

namespace rnicsim {

using ethernet::EthernetRegister;
using ethernet::kDescriptorBytes;

EthernetPort::EthernetPort(const sc_core::sc_module_name& name, const EthernetPortConfig& config,
                           DmaPort& dma)
    : sc_core::sc_module(name),
      tx_out("tx_out"),
      rx_in("rx_in"),
      config_(config),
      dma_(dma),
      moderation_(config.interrupt_delay, config.interrupt_events) {
  SC_THREAD(transmit);
  SC_THREAD(prefetch_rx_descriptors);
  SC_THREAD(receive);
  SC_THREAD(interrupts);
}

void EthernetPort::write_register(EthernetRegister reg, std::uint64_t value) {
  const auto low = static_cast<std::uint32_t>(value);
  switch (reg) {
    case EthernetRegister::kTxRingBase: tx_.base = value; break;
    case EthernetRegister::kTxRingEntries: tx_.entries = low; break;
    case EthernetRegister::kTxHeadWriteback: tx_head_writeback_ = value; break;
    case EthernetRegister::kRxRingBase: rx_.base = value; break;
    case EthernetRegister::kRxRingEntries: rx_.entries = low; break;
    case EthernetRegister::kInterruptAddress: interrupt_address_ = value; break;
    case EthernetRegister::kInterruptData: interrupt_data_ = low; break;
    case EthernetRegister::kTxTail:
      MessageBreakdown::instance().mark(*this, "doorbell");
      tx_.tail = low;
      tx_doorbell_.notify(sc_core::SC_ZERO_TIME);
      break;
    case EthernetRegister::kRxTail:
      rx_.tail = low;
      rx_doorbell_.notify(sc_core::SC_ZERO_TIME);
      break;
    case EthernetRegister::kInterruptArm:
      // Pending: frames the driver has not taken, and descriptors sent since
      // the last interrupt announced them.
      if (moderation_.arm((rx_completed_ - low) + (tx_sent_ - tx_announced_), sim_now())) {
        ++interrupts_to_send_;
      }
      interrupt_due_.notify(sc_core::SC_ZERO_TIME);
      break;
  }
}

std::vector<std::uint8_t> EthernetPort::fetch_descriptors(Ring& ring) {
  const std::uint32_t to_ring_end = ring.entries - ring.fetched % ring.entries;
  const std::uint32_t count =
      std::min({ring.tail - ring.fetched, config_.descriptor_batch, to_ring_end});
  std::vector<std::uint8_t> bytes(static_cast<std::size_t>(count) * kDescriptorBytes);
  const std::uint64_t address = ring.address(ring.fetched);
  ring.fetched += count;  // claimed now: nobody fetches them twice
  ++stats_.descriptor_fetches;
  dma_.read(address, bytes.data(), static_cast<std::uint32_t>(bytes.size()));
  return bytes;
}

// Descriptors are fetched a batch at a time; each buffer read is issued as
// soon as a slot is free, and frames leave in descriptor order.
void EthernetPort::transmit() {
  // A member, not a local: the thread never ends, and its locals would
  // outlive the run (the sanitizer counts them as leaks).
  std::deque<TxRead>& reads = tx_reads_;
  for (;;) {
    if (tx_descriptors_.empty() && tx_.fetched != tx_.tail) {
      const std::vector<std::uint8_t> bytes = fetch_descriptors(tx_);
      MessageBreakdown::instance().mark(*this, "descriptor read");
      for (std::size_t at = 0; at < bytes.size(); at += kDescriptorBytes) {
        tx_descriptors_.push_back(ethernet::decode_tx_descriptor(bytes.data() + at));
      }
    }
    while (!tx_descriptors_.empty() && reads.size() < config_.reads_in_flight) {
      TxRead read;
      read.descriptor = tx_descriptors_.front();
      tx_descriptors_.pop_front();
      read.buffer = std::make_shared<Bytes>(read.descriptor.length);
      read.ticket = dma_.issue(DmaRequest::read(0, read.descriptor.buffer_address,
                                                read.descriptor.length, read.buffer->data()),
                               read.buffer);
      reads.push_back(std::move(read));
    }
    if (reads.empty()) {
      if (tx_.fetched == tx_.tail) wait(tx_doorbell_);
      continue;
    }
    const TxRead read = std::move(reads.front());
    reads.pop_front();
    dma_.wait(read.ticket);
    MessageBreakdown::instance().mark(*this, "payload read");
    send_frames(read);
    ++tx_sent_;
    ++stats_.tx_descriptors;
    // A head write-back when a burst ends, and every batch within one, so a
    // driver topping the ring up sees room before the ring drains.
    if ((reads.empty() && tx_descriptors_.empty()) ||
        tx_sent_ - tx_written_back_ >= config_.descriptor_batch) {
      write_back_tx_head();
    }
    count_event();
  }
}

// An offload asked of a frame that is not TCP/IPv4 (or a TSO mss of 0) is
// not done: the frame goes as it is, and is counted.
void EthernetPort::send_frames(const TxRead& read) {
  const std::uint8_t flags = read.descriptor.flags;
  try {
    if ((flags & ethernet::kTxTso) != 0) {
      for (Bytes& segment : packet::segment_tcp(read.buffer->data(), read.buffer->size(),
                                                read.descriptor.mss)) {
        ++stats_.tso_segments;
        send_frame(std::make_shared<const Bytes>(std::move(segment)));
      }
      return;
    }
    if ((flags & ethernet::kTxChecksumOffload) != 0) packet::insert_tcp_checksum(*read.buffer);
  } catch (const std::invalid_argument&) {
    ++stats_.tx_offload_errors;
  }
  send_frame(read.buffer);
}

void EthernetPort::send_frame(SharedBytes frame) {
  ++stats_.tx_frames;
  stats_.tx_bytes += frame->size();
  const std::uint64_t bits = frame->size() * 8;
  tx_out->push(Transfer(frame_index_++, bits, sim_now(), std::move(frame)),
               config_.frame_latency);
}

void EthernetPort::write_back_tx_head() {
  if (tx_head_writeback_ == 0 || tx_written_back_ == tx_sent_) return;
  tx_written_back_ = tx_sent_;
  auto bytes = std::make_shared<Bytes>(4);
  store_little_endian(tx_sent_, bytes->data(), 4);
  dma_.write(tx_head_writeback_, std::move(bytes));
}

// Keeps up to two batches of posted receive descriptors inside the port, so
// a frame seldom waits for a descriptor fetch.
void EthernetPort::prefetch_rx_descriptors() {
  for (;;) {
    if (rx_.fetched == rx_.tail) {
      wait(rx_doorbell_);
      continue;
    }
    if (rx_descriptors_.size() >= 2 * static_cast<std::size_t>(config_.descriptor_batch)) {
      wait(rx_descriptors_used_);
      continue;
    }
    const std::vector<std::uint8_t> bytes = fetch_descriptors(rx_);
    for (std::size_t at = 0; at < bytes.size(); at += kDescriptorBytes) {
      rx_descriptors_.push_back(ethernet::decode_rx_descriptor(bytes.data() + at));
    }
    rx_descriptors_ready_.notify(sc_core::SC_ZERO_TIME);
  }
}

void EthernetPort::receive() {
  for (;;) {
    receiving_ = rx_in->pop();  // after the receive latency (FrameDelay, nic/)
    const Transfer& frame = receiving_;  // a member: the thread never ends
    // A descriptor the driver has posted but the port has not fetched yet
    // is worth waiting for; with none posted the frame is lost.
    while (rx_descriptors_.empty() && rx_.tail != rx_completed_) wait(rx_descriptors_ready_);
    const Bytes& bytes = *frame.bytes();
    if (rx_descriptors_.empty()) {
      ++stats_.rx_no_buffer;
      continue;
    }
    const ethernet::RxDescriptor descriptor = rx_descriptors_.front();
    if (bytes.size() > descriptor.buffer_bytes || bytes.size() > 0xFFFF) {
      ++stats_.rx_too_long;
      continue;
    }
    rx_descriptors_.pop_front();
    rx_descriptors_used_.notify(sc_core::SC_ZERO_TIME);
    std::uint8_t flags = 0;
    if (packet::parse_tcp_frame(bytes.data(), bytes.size())) {
      const bool good = packet::tcp_frame_checksum_ok(bytes.data(), bytes.size());
      flags = good ? ethernet::kRxChecksumGood : ethernet::kRxChecksumBad;
      if (!good) ++stats_.rx_checksum_bad;
    }
    MessageBreakdown::instance().mark(*this, "frame received");
    dma_.write(descriptor.buffer_address, frame.bytes());
    const auto writeback = ethernet::encode_rx_writeback(static_cast<std::uint16_t>(bytes.size()),
                                                         flags);
    const std::uint64_t slot = rx_.address(rx_completed_);
    dma_.write(slot + ethernet::kRxWritebackOffset,
               std::make_shared<const Bytes>(writeback.begin(), writeback.end()));
    ++rx_completed_;
    ++stats_.rx_frames;
    stats_.rx_bytes += bytes.size();
    count_event();
  }
}

void EthernetPort::count_event() {
  if (moderation_.on_event(sim_now())) ++interrupts_to_send_;
  interrupt_due_.notify(sc_core::SC_ZERO_TIME);
}

// Sends the MSI-X writes the moderation asks for, and wakes at its deadline.
// The writes go through the same DMA port as the frames and write-backs, so
// an interrupt never overtakes what it announces.
// Before each interrupt the transmit head is written back, so the driver
// finds every descriptor the interrupt announces.
void EthernetPort::interrupts() {
  for (;;) {
    if (moderation_.on_timer(sim_now())) ++interrupts_to_send_;
    if (interrupts_to_send_ > 0) {
      --interrupts_to_send_;
      ++stats_.interrupts;
      write_back_tx_head();
      tx_announced_ = tx_sent_;
      auto message = std::make_shared<Bytes>(4);
      store_little_endian(interrupt_data_, message->data(), 4);
      dma_.write(interrupt_address_, std::move(message));  // may wait for room: look again
      continue;
    }
    const std::optional<sc_core::sc_time>& deadline = moderation_.deadline();
    if (!deadline) {
      wait(interrupt_due_);
    } else if (*deadline > sim_now()) {
      wait(*deadline - sim_now(), interrupt_due_);
    } else {
      wait(interrupt_due_);  // not reached: a passed deadline fired above
    }
  }
}

const StatisticsTable<EthernetPortStats>& ethernet_port_statistics() {
  static const StatisticsTable<EthernetPortStats> table(
      "ethernet_port",
      {
       {"tx_descriptors", "descriptors", &EthernetPortStats::tx_descriptors,
        "transmit descriptors taken"},
       {"tx_frames", "frames", &EthernetPortStats::tx_frames,
        "frames onto the wire, TSO segments counted one by one"},
       {"tx_bytes", "bytes", &EthernetPortStats::tx_bytes,
        "frame bytes sent, without FCS"},
       {"tso_segments", "frames", &EthernetPortStats::tso_segments,
        "frames cut from TSO descriptors"},
       {"tx_offload_errors", "frames", &EthernetPortStats::tx_offload_errors,
        "offload asked of a non-TCP frame: sent as it was"},
       {"rx_frames", "frames", &EthernetPortStats::rx_frames,
        "frames written into posted buffers"},
       {"rx_bytes", "bytes", &EthernetPortStats::rx_bytes,
        "frame bytes received"},
       {"rx_no_buffer", "frames", &EthernetPortStats::rx_no_buffer,
        "dropped: no buffer posted"},
       {"rx_too_long", "frames", &EthernetPortStats::rx_too_long,
        "dropped: larger than the posted buffer"},
       {"rx_checksum_bad", "frames", &EthernetPortStats::rx_checksum_bad,
        "delivered, flagged by receive checksum offload"},
       {"descriptor_fetches", "DMA reads", &EthernetPortStats::descriptor_fetches,
        "descriptor reads from host memory"},
       {"interrupts", "interrupts", &EthernetPortStats::interrupts,
        "MSI-X interrupts raised"},
      });
  return table;
}

}  // namespace rnicsim
