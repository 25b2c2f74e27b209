#pragma once
// DmaClient: a transport unit's use of its DMA port. Each request gets a
// ticket; a thread can wait for a ticket's completion (a method polls
// done() and release()s it, woken by completion_event()), or hand the
// request off (a posted write, say) and keep its bytes alive only until the
// completion. Several processes of one unit may share a client: whichever
// takes a completion from the port (pump) marks its ticket done.
//
// Why the port's completion event is the only wake-up needed: the port
// notifies it for every completion that arrives, and every process pumps
// before it waits and looks at its tickets after it wakes. A ticket that is
// not done after a pump therefore has its completion, and its notification,
// still to come, whoever takes it.
#include <cstdint>
#include <memory>
#include <systemc>
#include <vector>

#include "common/transfer.hpp"
#include "nic/dma/dma_engine.hpp"
#include "nic/translation/memory_translation.hpp"

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
  // Notified when the port receives a completion, whoever takes it.
  const sc_core::sc_event& completion_event() const { return port_.completion_event(); }
  // Told of each completion the port receives, before the event wakes anyone.
  void set_completion_listener(DmaCompletionListener* listener) {
    port_.set_completion_listener(listener);
  }
  // Takes every completion the port holds (waits for none).
  void pump();
  // Waits until a completion arrives, then takes what the port holds.
  void wait_completion();
  // Whether the port has room for a request now (takes what it holds first).
  bool has_room() {
    pump();
    return port_.can_request();
  }
  // Waits until the port has room for a request (at once if it has).
  void wait_for_room();

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
