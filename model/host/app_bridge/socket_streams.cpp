#include "host/app_bridge/socket_streams.hpp"

#include <algorithm>

namespace rnicsim::bridge {

void SocketStreams::connect(const Stream& stream, std::uint64_t time_ps) {
  connects_[stream.peer_port].emplace_back(stream.local_port, time_ps);
}

void SocketStreams::send(const StreamBytes& sent, std::uint64_t time_ps) {
  if (sent.bytes == 0) return;
  Direction& d = directions_[{sent.stream.local_port, sent.stream.peer_port}];
  d.sent += sent.bytes;
  d.sends.push_back(Sent{d.sent, time_ps});
}

void SocketStreams::close(const Stream& stream, std::uint64_t time_ps) {
  Direction& d = directions_[{stream.local_port, stream.peer_port}];
  d.closed = true;
  d.closed_at_ps = time_ps;
}

bool SocketStreams::pending(const Block& block) const {
  if (block.kind == BlockKind::kAccept) {
    const auto found = connects_.find(block.stream.local_port);
    return found != connects_.end() && !found->second.empty();
  }
  // A read on (local, peer) takes what peer sent to local.
  const auto found = directions_.find({block.stream.peer_port, block.stream.local_port});
  if (found == directions_.end()) return false;
  const Direction& d = found->second;
  return d.received < d.sent || (d.closed && !d.close_read);
}

std::uint64_t SocketStreams::wake(const BlockEnd& end, std::uint64_t blocked_at_ps) {
  std::uint64_t resume = blocked_at_ps;
  const Stream& stream = end.block.stream;
  if (end.block.kind == BlockKind::kAccept) {
    // The accepted connection's peer is the client: its connect is consumed.
    auto found = connects_.find(stream.local_port);
    if (found == connects_.end()) return resume;
    auto& queue = found->second;
    const auto client = std::find_if(queue.begin(), queue.end(),
                                     [&](const auto& c) { return c.first == stream.peer_port; });
    if (client == queue.end()) return resume;
    resume = std::max(resume, client->second);
    queue.erase(client);
    return resume;
  }
  const auto found = directions_.find({stream.peer_port, stream.local_port});
  if (found == directions_.end()) return resume;
  Direction& d = found->second;
  if (end.bytes == 0) {
    if (d.closed) {
      d.close_read = true;
      resume = std::max(resume, d.closed_at_ps);
    }
    return resume;
  }
  const std::uint64_t first = d.received;  // the first byte this read returned
  d.received = std::min(d.sent, d.received + end.bytes);
  // Every send a byte of [first, received) came from; those read through go.
  for (const Sent& s : d.sends) {
    if (s.end <= first) continue;
    resume = std::max(resume, s.time_ps);
    if (s.end >= d.received) break;
  }
  while (!d.sends.empty() && d.sends.front().end <= d.received) d.sends.pop_front();
  return resume;
}

}  // namespace rnicsim::bridge
