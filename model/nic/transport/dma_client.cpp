#include "nic/transport/dma_client.hpp"

#include <algorithm>
#include <stdexcept>

namespace rnicsim {

DmaClient::DmaClient(DmaPort& port) : port_(port) {}

void DmaClient::pump() {
  while (port_.has_completion()) {
    const DmaCompletion completion = port_.pop_completion();
    Slot& slot = slots_.at(completion.tag);
    slot.done = true;
    slot.ok = completion.ok();
    slot.keep.reset();
    if (!slot.collect) {
      slot.busy = false;
      free_.push_back(completion.tag);
    }
  }
}

void DmaClient::wait_completion() {
  sc_core::wait(port_.completion_event());
  pump();
}

void DmaClient::wait_for_room() {
  while (!has_room()) sc_core::wait(port_.completion_event());
}

std::uint32_t DmaClient::issue(const DmaRequest& request, std::shared_ptr<const void> keep,
                               bool collect) {
  wait_for_room();
  std::uint32_t ticket;
  if (free_.empty()) {
    ticket = static_cast<std::uint32_t>(slots_.size());
    slots_.emplace_back();
  } else {
    ticket = free_.back();
    free_.pop_back();
  }
  Slot& slot = slots_[ticket];
  slot = Slot{true, false, true, collect, std::move(keep)};
  DmaRequest tagged = request;
  tagged.tag = ticket;
  port_.request(tagged);
  return ticket;
}

bool DmaClient::wait(std::uint32_t ticket) {
  pump();
  while (!slots_.at(ticket).done) wait_completion();
  return release(ticket);
}

bool DmaClient::release(std::uint32_t ticket) {
  Slot& slot = slots_.at(ticket);
  if (!slot.done) throw std::logic_error("DmaClient::release: the ticket is not done");
  const bool ok = slot.ok;
  slot.busy = false;
  free_.push_back(ticket);
  return ok;
}

bool DmaClient::read(std::uint64_t address, std::uint8_t* data, std::uint32_t length) {
  return wait(issue(DmaRequest::read(0, address, length, data), nullptr));
}

void DmaClient::write(std::uint64_t address, std::shared_ptr<const Bytes> data) {
  const DmaRequest request =
      DmaRequest::write(0, address, static_cast<std::uint32_t>(data->size()), data->data());
  issue(request, std::move(data), false);
}

void requests_for(std::vector<DmaRequest>& requests, DmaOp op,
                  const std::vector<PhysicalSegment>& segments, std::uint64_t offset,
                  std::uint64_t length, std::uint8_t* buffer, SegmentCursor* cursor) {
  requests.clear();
  DmaRequest current;
  current.op = op;
  current.buffer = buffer;
  std::size_t first = 0;
  std::uint64_t skip = offset;
  if (cursor != nullptr && offset >= cursor->start && cursor->index < segments.size()) {
    first = cursor->index;
    skip = offset - cursor->start;
  }
  std::uint64_t left = length;
  bool cursor_set = false;
  for (std::size_t i = first; i < segments.size(); ++i) {
    const PhysicalSegment& segment = segments[i];
    if (left == 0) break;
    if (skip >= segment.length) {
      skip -= segment.length;
      continue;
    }
    if (cursor != nullptr && !cursor_set) {
      *cursor = SegmentCursor{i, offset - skip};
      cursor_set = true;
    }
    const std::uint64_t take = std::min(segment.length - skip, left);
    if (!current.add_segment(segment.address + skip, static_cast<std::uint32_t>(take))) {
      const std::uint64_t done = current.length();
      requests.push_back(current);
      current = DmaRequest{};
      current.op = op;
      current.buffer = requests.back().buffer + done;
      current.add_segment(segment.address + skip, static_cast<std::uint32_t>(take));
    }
    skip = 0;
    left -= take;
  }
  if (left != 0) throw std::logic_error("requests_for: segments shorter than the range");
  if (current.segment_count != 0) requests.push_back(current);
}

}  // namespace rnicsim
