#pragma once
// DmaClient: a transport unit's use of its DMA port. Each request gets a
// ticket; a thread can wait for a ticket's completion (a method polls
// done() and release()s it, woken by progress_or_completion()), or
// hand the request off (a posted write, say) and keep its bytes alive only
// until the completion. Several threads of one unit may share a client.
#include <cstdint>
#include <memory>
#include <systemc>
#include <vector>

#include "common/transfer.hpp"
#include "dma/dma_engine.hpp"
#include "mtt/memory_translation.hpp"

namespace rnicsim {

class DmaClient {
 public:
  explicit DmaClient(DmaPort& port);

  // Issues a request, waiting for room; returns its ticket. `keep` holds the
  // request's buffer alive until the completion. With `collect` false the
  // ticket is released at the completion, unwaited.
  std::uint32_t issue(const DmaRequest& request, std::shared_ptr<const void> keep,
                      bool collect = true);
  bool done(std::uint32_t ticket) const { return slots_.at(ticket).done; }
  // Waits for the ticket's completion and releases it; false for a failed read.
  bool wait(std::uint32_t ticket);
  // Releases a done ticket without waiting (for methods); false for a failed read.
  bool release(std::uint32_t ticket);
  // Convenience: one blocking read or write of `length` bytes at `address`.
  bool read(std::uint64_t address, std::uint8_t* data, std::uint32_t length);
  void write(std::uint64_t address, std::shared_ptr<const Bytes> data);
  // Notified whenever a completion is taken from the port.
  const sc_core::sc_event& progress_event() const { return progress_; }
  // Takes every completion the port holds (waits for none).
  void pump();
  // Waits until a completion arrives or another thread takes one.
  void wait_progress();
  // What wait_progress() waits for, for a method's next_trigger.
  const sc_core::sc_event_or_list& progress_or_completion() const {
    return completion_or_progress_;
  }

 private:
  struct Slot {
    bool busy = false;
    bool done = false;
    bool ok = true;
    bool collect = true;
    std::shared_ptr<const void> keep;
  };
  DmaPort& port_;
  std::vector<Slot> slots_;
  std::vector<std::uint32_t> free_;
  sc_core::sc_event progress_;
  // completion or progress, built once: `a | b` would allocate a list per wait.
  sc_core::sc_event_or_list completion_or_progress_;
};

// Where the last range of a message's segments began: the next packet's
// range starts its search there, not at the message's first segment (an
// 8 MB buffer of 4 KiB pages has 2048 segments).
struct SegmentCursor {
  std::size_t index = 0;   // a segment
  std::uint64_t start = 0;  // its offset in the message
};

// Fills `requests` (emptied first; a reused vector allocates nothing) with
// the requests that move `length` bytes between a buffer and the physical
// segments `segments`, starting `offset` bytes into them: a list of up to
// kMaxDmaSegments segments per request. With a cursor, the search starts at
// it when `offset` is not before it, and the cursor moves to the range's start.
void requests_for(std::vector<DmaRequest>& requests, DmaOp op,
                  const std::vector<PhysicalSegment>& segments, std::uint64_t offset,
                  std::uint64_t length, std::uint8_t* buffer, SegmentCursor* cursor = nullptr);

}  // namespace rnicsim
