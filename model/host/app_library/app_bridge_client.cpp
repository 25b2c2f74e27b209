#include "host/app_library/app_bridge_client.hpp"

#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>

#include "host/app_bridge/socket_io.hpp"

namespace rnicsim::app {
namespace {

std::atomic<std::uint64_t> clock_ps{0};
std::atomic<std::uint64_t> calls{0};
std::atomic<int> calls_under_way{0};
std::atomic<int> range_count{0};

struct Connection {
  int fd = -1;
  bridge::HelloReply hello{};
  std::mutex mutex;  // one request at a time, whichever thread asks
};

[[noreturn]] void lost(const char* what) {
  std::fprintf(stderr, "rnicsim: the simulator is gone (%s): %s\n", what, std::strerror(errno));
  _exit(70);
}

void send_all(int fd, const void* data, std::size_t bytes, int pass_fd) {
  if (!bridge::send_exactly(fd, data, bytes, pass_fd)) lost("send");
}

void receive_all(int fd, void* data, std::size_t bytes) {
  if (!bridge::receive_exactly(fd, data, bytes)) lost("receive");
}

int exchange(Connection& c, bridge::Request kind, const void* body, std::size_t bytes,
             std::vector<std::uint8_t>* reply, int fd) {
  const bridge::RequestHeader header{kind, static_cast<std::uint32_t>(bytes), clock_ps.load()};
  send_all(c.fd, &header, sizeof header, fd);
  if (bytes > 0) send_all(c.fd, body, bytes, -1);
  bridge::ReplyHeader answer{};
  receive_all(c.fd, &answer, sizeof answer);
  std::vector<std::uint8_t> scratch(answer.body_bytes);
  if (answer.body_bytes > 0) receive_all(c.fd, scratch.data(), scratch.size());
  if (reply != nullptr) *reply = std::move(scratch);
  // The clock never runs backwards: a reply is never earlier than its request.
  std::uint64_t now = clock_ps.load();
  while (answer.time_ps > now && !clock_ps.compare_exchange_weak(now, answer.time_ps)) {
  }
  return answer.status;
}

Connection* open_connection() {
  const char* value = std::getenv(bridge::kSocketVariable);
  if (value == nullptr || *value == '\0') return nullptr;
  auto* c = new Connection;  // lives as long as the process
  c->fd = std::atoi(value);
  std::vector<std::uint8_t> body;
  if (exchange(*c, bridge::Request::kHello, nullptr, 0, &body, -1) != 0 ||
      body.size() != sizeof(bridge::HelloReply)) {
    std::fprintf(stderr, "rnicsim: the simulator refused this process\n");
    _exit(70);
  }
  std::memcpy(&c->hello, body.data(), sizeof c->hello);
  return c;
}

Connection* connection() {
  static Connection* c = open_connection();
  return c;
}

}  // namespace

bool attached() { return connection() != nullptr; }

const bridge::HelloReply& device() { return connection()->hello; }

int call(bridge::Request kind, const void* body, std::size_t bytes,
         std::vector<std::uint8_t>* reply, int fd) {
  Connection* c = connection();
  if (c == nullptr) return ENODEV;
  calls_under_way.fetch_add(1);
  ++calls;
  // A program that calls is not spinning: its pages go back to normal
  // before the kernel may read them for it (a write from a shared buffer).
  stop_spin_watch();
  int status = 0;
  {
    std::lock_guard<std::mutex> lock(c->mutex);
    status = exchange(*c, kind, body, bytes, reply, fd);
  }
  ++calls;
  calls_under_way.fetch_sub(1);
  return status;
}

std::uint64_t calls_made() { return calls.load(); }

bool in_call() { return calls_under_way.load() != 0; }

SharedRange shared_ranges[kMaxSharedRanges];

void note_shared(std::uint64_t first, std::uint64_t length) {
  const int at = range_count.load();
  if (at == kMaxSharedRanges) return;  // beyond: not watched, still shared
  shared_ranges[at] = SharedRange{first, length};
  range_count.store(at + 1);
}

int shared_range_count() { return range_count.load(); }

std::uint64_t now_ps() { return clock_ps.load(); }

std::uint64_t advance_ps(std::uint64_t ps) { return clock_ps.fetch_add(ps) + ps; }

}  // namespace rnicsim::app
