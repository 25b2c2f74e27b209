#pragma once
// What the NIC hands the PCIe link: a window of TLPs of one kind (memory reads
// or posted memory writes), cut from one DMA request, with the runs of host
// memory they cover and the requester's buffer for their data. The link books
// every TLP on its timelines at once (TlpListIf::book) and calls the window's
// listener back once, when the window is done; nothing happens per TLP in
// between but arithmetic and statistics.
#include <array>
#include <cstddef>
#include <cstdint>
#include <systemc>

namespace rnicsim::pcie {

enum class TlpKind : std::uint8_t { kMemoryRead, kMemoryWrite };

// Host-memory runs one window (and one DMA request) may cover: scatter/gather
// segments, each cut into TLPs on its own.
constexpr std::size_t kMaxWindowRuns = 8;

// A contiguous piece of host memory and where its bytes sit in the requester's buffer.
struct DataRun {
  std::uint64_t address = 0;
  std::uint32_t length = 0;
  std::uint8_t* data = nullptr;
};

struct Tlp {
  std::uint64_t address = 0;
  std::uint32_t length = 0;
  sc_core::sc_time earliest;  // in: not sent before (a read: when its tag is free)
  // Set by the link:
  sc_core::sc_time start;  // its first byte leaves the NIC
  sc_core::sc_time sent;   // its last byte has left the NIC
  sc_core::sc_time done;   // read: its last completion has reached the NIC; write: in host memory
  bool failed = false;     // read: answered with Unsupported Request (no such memory)
};

struct TlpWindow;

// Told when a window is done: its data has reached the requester's buffer
// (reads) or host memory (writes).
class TlpWindowListener {
 public:
  virtual void window_done(TlpWindow& window) = 0;

 protected:
  ~TlpWindowListener() = default;
};

struct TlpWindow {
  TlpKind kind = TlpKind::kMemoryRead;
  std::array<DataRun, kMaxWindowRuns> runs{};
  std::uint32_t run_count = 0;
  TlpWindowListener* listener = nullptr;
  // Bits at the end of the window's last byte that carry no data (a 100-bit
  // Data fills 13 bytes and leaves 4). A real link moves whole bytes and
  // ignores them; the ideal link (PcieConfig::ideal) leaves them off its last
  // TLP. Only a window that ends where its DMA request ends has any.
  std::uint8_t pad_bits = 0;
  // Set by the link:
  sc_core::sc_time done;  // when the window's last TLP is done
  bool failed = false;    // a read TLP of the window failed

  std::uint64_t bytes() const {
    std::uint64_t total = 0;
    for (std::uint32_t i = 0; i < run_count; ++i) total += runs[i].length;
    return total;
  }
};

// The link's side: books a window's TLPs (they cover window.runs in order,
// each no longer than MRRS or MPS and none across 4 KiB), sets each TLP's
// times and the window's, and at window.done moves the data (host memory into
// the runs' buffers for reads, the buffers into host memory for writes) and
// calls window.listener. The window and its buffers stay valid until then.
class TlpListIf : public virtual sc_core::sc_interface {
 public:
  virtual void book(TlpWindow& window, Tlp* tlps, std::uint32_t count) = 0;
};

}  // namespace rnicsim::pcie
