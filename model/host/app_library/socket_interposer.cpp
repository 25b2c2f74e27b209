// The application's real loopback TCP sockets, told to the simulator
// (bridge_protocol.hpp's notices; README: simulated time). A program's
// out-of-band exchange (perftest's and ibv_rc_pingpong's QP numbers and
// GIDs) runs on real sockets between the attached processes; a process
// blocked in accept or read is waiting, and the simulator must know
// whether what will wake it has already been sent, and when. So each
// connect, write and close on a loopback connection is announced before it
// happens, and each accept and read is bracketed by a notice that it
// begins and one of what it returned. Other descriptors (files, pipes, the
// terminal, other addresses) pass straight through.
#include <arpa/inet.h>
#include <dlfcn.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <array>
#include <atomic>
#include <cerrno>
#include <cstdint>
#include <cstring>

#include "host/app_library/app_bridge_client.hpp"

namespace {

namespace bridge = rnicsim::bridge;
using rnicsim::app::attached;
using rnicsim::app::call;

// Descriptors known to be loopback TCP sockets: 0 unknown, else the local
// port + 1 in the low 17 bits and, for a connection, the peer's port + 1 above.
constexpr int kTrackedDescriptors = 4096;
std::array<std::atomic<std::uint64_t>, kTrackedDescriptors> tracked{};

bool loopback_port(const sockaddr_storage& address, std::uint32_t* port) {
  if (address.ss_family == AF_INET) {
    const auto& in = reinterpret_cast<const sockaddr_in&>(address);
    // A listener on every address takes loopback connections too.
    const std::uint32_t ip = ntohl(in.sin_addr.s_addr);
    if ((ip >> 24) != 127 && ip != INADDR_ANY) return false;
    *port = ntohs(in.sin_port);
    return true;
  }
  if (address.ss_family == AF_INET6) {
    const auto& in6 = reinterpret_cast<const sockaddr_in6&>(address);
    const bool mapped_loopback =
        IN6_IS_ADDR_V4MAPPED(&in6.sin6_addr) && in6.sin6_addr.s6_addr[12] == 127;
    if (!IN6_IS_ADDR_LOOPBACK(&in6.sin6_addr) && !IN6_IS_ADDR_UNSPECIFIED(&in6.sin6_addr) &&
        !mapped_loopback) {
      return false;
    }
    *port = ntohs(in6.sin6_port);
    return true;
  }
  return false;
}

bool local_port(int fd, std::uint32_t* port) {
  sockaddr_storage address{};
  socklen_t length = sizeof address;
  return getsockname(fd, reinterpret_cast<sockaddr*>(&address), &length) == 0 &&
         loopback_port(address, port);
}

bool peer_port(int fd, std::uint32_t* port) {
  sockaddr_storage address{};
  socklen_t length = sizeof address;
  return getpeername(fd, reinterpret_cast<sockaddr*>(&address), &length) == 0 &&
         loopback_port(address, port);
}

void track(int fd, std::uint32_t local, std::uint32_t peer) {
  if (fd >= 0 && fd < kTrackedDescriptors)
    tracked[fd] = (local + 1) | (std::uint64_t{peer + 1} << 17);
}

// A tracked connection's stream, or false.
bool stream_of(int fd, bridge::Stream* stream) {
  if (fd < 0 || fd >= kTrackedDescriptors) return false;
  const std::uint64_t t = tracked[fd].load();
  const auto peer = static_cast<std::uint32_t>(t >> 17);
  if (t == 0 || peer == 0) return false;
  *stream = bridge::Stream{static_cast<std::uint32_t>(t & 0x1FFFF) - 1, peer - 1};
  return true;
}

template <class F>
F next_symbol(const char* name) {
  return reinterpret_cast<F>(dlsym(RTLD_NEXT, name));
}

void notice(bridge::Request kind, const void* body, std::size_t bytes) { call(kind, body, bytes); }

// Brackets a blocking read of a tracked connection.
// A read that cannot block (O_NONBLOCK, MSG_DONTWAIT) reads first and tells
// what it got after: it never waits, so the simulation must not move meanwhile.
template <class Read>
ssize_t blocking_read(int fd, bool nonblocking, Read read) {
  // The kernel may read a shared page for it: not while the spin watch protects them.
  rnicsim::app::stop_spin_watch();
  bridge::Stream stream{};
  if (!attached() || !stream_of(fd, &stream)) return read();
  const bridge::Block block{bridge::BlockKind::kRead, stream};
  if (nonblocking || (fcntl(fd, F_GETFL) & O_NONBLOCK) != 0) {
    const ssize_t n = read();
    const int saved = errno;
    if (n >= 0) {
      const bridge::BlockEnd end{block, static_cast<std::uint64_t>(n)};
      notice(bridge::Request::kBlockBegin, &block, sizeof block);
      notice(bridge::Request::kBlockEnd, &end, sizeof end);
    }
    errno = saved;
    return n;
  }
  notice(bridge::Request::kBlockBegin, &block, sizeof block);
  const ssize_t n = read();
  const int saved = errno;
  const bridge::BlockEnd end{block, n > 0 ? static_cast<std::uint64_t>(n) : 0};
  // A failed read (EAGAIN, EINTR) returned nothing; 0 bytes from a read
  // that succeeded is the end of the stream.
  notice(bridge::Request::kBlockEnd, &end, sizeof end);
  errno = saved;
  return n;
}

void announce_send(int fd, std::size_t bytes) {
  rnicsim::app::stop_spin_watch();
  bridge::Stream stream{};
  if (!attached() || !stream_of(fd, &stream) || bytes == 0) return;
  const bridge::StreamBytes sent{stream, bytes};
  notice(bridge::Request::kSend, &sent, sizeof sent);
}

}  // namespace

extern "C" {

int listen(int fd, int backlog) noexcept {
  static auto real = next_symbol<int (*)(int, int)>("listen");
  const int result = real(fd, backlog);
  std::uint32_t port = 0;
  if (result == 0 && attached() && local_port(fd, &port)) {
    tracked[fd] = port + 1;  // a listener: no peer
    const bridge::Port listening{port};
    notice(bridge::Request::kListen, &listening, sizeof listening);
  }
  return result;
}

int connect(int fd, const sockaddr* address, socklen_t length) {
  static auto real = next_symbol<int (*)(int, const sockaddr*, socklen_t)>("connect");
  sockaddr_storage target{};
  std::uint32_t port = 0;
  if (!attached() || address == nullptr || length > sizeof target) return real(fd, address, length);
  std::memcpy(&target, address, length);
  if (!loopback_port(target, &port)) return real(fd, address, length);
  // The local port must be known before the connect is announced: bind
  // to an ephemeral one now (what connect would have done).
  std::uint32_t local = 0;
  if (!local_port(fd, &local) || local == 0) {
    sockaddr_storage any{};
    any.ss_family = target.ss_family;
    if (target.ss_family == AF_INET) {
      reinterpret_cast<sockaddr_in&>(any).sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    } else {
      reinterpret_cast<sockaddr_in6&>(any).sin6_addr = in6addr_loopback;
    }
    const socklen_t size = target.ss_family == AF_INET ? sizeof(sockaddr_in) : sizeof(sockaddr_in6);
    if (bind(fd, reinterpret_cast<sockaddr*>(&any), size) != 0 || !local_port(fd, &local)) {
      return real(fd, address, length);
    }
  }
  const bridge::Stream stream{local, port};
  notice(bridge::Request::kConnect, &stream, sizeof stream);
  const int result = real(fd, address, length);
  if (result == 0) track(fd, local, port);
  return result;
}

static int accept_tracked(int fd, sockaddr* address, socklen_t* length, int flags) {
  static auto real = next_symbol<int (*)(int, sockaddr*, socklen_t*, int)>("accept4");
  std::uint32_t listening = 0;
  if (!attached() || fd < 0 || fd >= kTrackedDescriptors || tracked[fd].load() == 0) {
    return real(fd, address, length, flags);
  }
  listening = static_cast<std::uint32_t>(tracked[fd].load() & 0x1FFFF) - 1;
  bridge::Block block{bridge::BlockKind::kAccept, bridge::Stream{listening, 0}};
  notice(bridge::Request::kBlockBegin, &block, sizeof block);
  const int accepted = real(fd, address, length, flags);
  const int saved = errno;
  std::uint32_t peer = 0;
  if (accepted >= 0 && peer_port(accepted, &peer)) {
    track(accepted, listening, peer);
    block.stream.peer_port = peer;
  }
  const bridge::BlockEnd end{block, accepted >= 0 ? 1u : 0u};
  notice(bridge::Request::kBlockEnd, &end, sizeof end);
  errno = saved;
  return accepted;
}

int accept(int fd, sockaddr* address, socklen_t* length) {
  return accept_tracked(fd, address, length, 0);
}

int accept4(int fd, sockaddr* address, socklen_t* length, int flags) {
  return accept_tracked(fd, address, length, flags);
}

ssize_t read(int fd, void* buffer, size_t bytes) {
  static auto real = next_symbol<ssize_t (*)(int, void*, size_t)>("read");
  return blocking_read(fd, false, [&] { return real(fd, buffer, bytes); });
}

ssize_t recv(int fd, void* buffer, size_t bytes, int flags) {
  static auto real = next_symbol<ssize_t (*)(int, void*, size_t, int)>("recv");
  return blocking_read(fd, (flags & MSG_DONTWAIT) != 0,
                       [&] { return real(fd, buffer, bytes, flags); });
}

ssize_t write(int fd, const void* buffer, size_t bytes) {
  static auto real = next_symbol<ssize_t (*)(int, const void*, size_t)>("write");
  announce_send(fd, bytes);
  return real(fd, buffer, bytes);
}

ssize_t send(int fd, const void* buffer, size_t bytes, int flags) {
  static auto real = next_symbol<ssize_t (*)(int, const void*, size_t, int)>("send");
  announce_send(fd, bytes);
  return real(fd, buffer, bytes, flags);
}

int close(int fd) {
  static auto real = next_symbol<int (*)(int)>("close");
  bridge::Stream stream{};
  if (attached() && stream_of(fd, &stream)) {
    notice(bridge::Request::kClose, &stream, sizeof stream);
  }
  if (fd >= 0 && fd < kTrackedDescriptors) tracked[fd] = 0;
  return real(fd);
}

}  // extern "C"
