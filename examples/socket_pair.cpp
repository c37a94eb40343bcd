// Two processes exchanging framed Car messages over a loopback TCP socket.
//
// The parent listens on 127.0.0.1 (port 0: the kernel picks one), forks, and
// the child connects and writes `count` Car messages through an fd_writer. The
// parent reads them with an fd_reader, checks each against the value the
// child was meant to send, and exits 0 only if every message matched, the
// stream ended cleanly after the last one, and the child exited with 0.
//
// Framing: serialize_message()/deserialize_message() from
// <bin_serializer/frame/message.hpp> when that header is available; otherwise a
// local stand-in, a u64 payload length before each payload.
#include <bin_serializer/bin_serializer.hpp>
#include <bin_serializer/io/fd.hpp>

#include <cerrno>
#include <csignal>
#include <cstdint>
#include <cstdio>
#include <string>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "workloads/car.hpp"

#if __has_include(<bin_serializer/frame/message.hpp>)
#include <bin_serializer/frame/message.hpp>
#define SOCKET_PAIR_FRAMING "serialize_message (frame/message.hpp)"
#else
#define SOCKET_PAIR_FRAMING "u64 length prefix (frame/message.hpp not available)"
#endif

namespace bs = bin_serializer;
using workloads::Car;

namespace {

constexpr std::uint64_t count = 10'000;

#if __has_include(<bin_serializer/frame/message.hpp>)
template <class W>
bool write_frame(W& out, const Car& car) {
  return bs::serialize_message(out, car);
}
template <class R>
bool read_frame(R& in, Car& car) {
  return bs::deserialize_message(in, car);
}
#else
// A frame longer than this is refused before anything is read for it.
constexpr std::uint64_t max_frame = 1 << 20;

template <class W>
bool write_frame(W& out, const Car& car) {
  const std::uint64_t length = bs::serialized_size(car);
  return bs::serialize(out, length) && bs::serialize(out, car);
}
template <class R>
bool read_frame(R& in, Car& car) {
  std::uint64_t length = 0;
  if (!bs::deserialize(in, length) || length > max_frame) return false;
  const std::size_t start = in.read_position();
  return bs::deserialize(in, car) && in.read_position() - start == length;
}
#endif

// The child: connect, send every Car, flush, and report through the exit status.
[[noreturn]] void run_client(std::uint16_t port) {
  std::signal(SIGPIPE, SIG_IGN); // a vanished reader is EPIPE (an io_error), not a signal
  const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(port);
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (fd < 0 || ::connect(fd, reinterpret_cast<const sockaddr*>(&addr), sizeof addr) != 0) {
    std::perror("client: connect");
    ::_exit(2);
  }
  bool ok = true;
  {
    bs::fd_writer out(fd);
    for (std::uint64_t i = 0; ok && i < count; ++i)
      ok = write_frame(out, workloads::make_car_sequential(i));
    ok = ok && out.flush();
    if (!ok)
      std::fprintf(stderr, "client: write failed: %s\n",
                   std::string(out.last_error().message()).c_str());
  }
  ::close(fd);
  ::_exit(ok ? 0 : 3);
}

} // namespace

int main() {
  ::alarm(120); // never hang a test run: SIGALRM ends a stuck exchange

  const int listener = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = 0;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof addr;
  if (listener < 0 ||
      ::bind(listener, reinterpret_cast<const sockaddr*>(&addr), sizeof addr) != 0 ||
      ::listen(listener, 1) != 0 ||
      ::getsockname(listener, reinterpret_cast<sockaddr*>(&addr), &len) != 0) {
    std::perror("server: listen");
    return 1;
  }
  const std::uint16_t port = ntohs(addr.sin_port);

  const pid_t child = ::fork();
  if (child < 0) {
    std::perror("fork");
    return 1;
  }
  if (child == 0) {
    ::close(listener);
    run_client(port);
  }

  int conn = -1;
  do {
    conn = ::accept(listener, nullptr, nullptr);
  } while (conn < 0 && errno == EINTR);
  ::close(listener);
  bool ok = conn >= 0;
  if (!ok) std::perror("server: accept");

  std::uint64_t received = 0;
  if (ok) {
    bs::fd_reader in(conn);
    Car car;
    for (; received < count; ++received) {
      if (!read_frame(in, car)) {
        std::fprintf(stderr, "server: message %llu: %s at byte %zu\n",
                     static_cast<unsigned long long>(received),
                     std::string(in.last_error().message()).c_str(), in.last_error().offset);
        ok = false;
        break;
      }
      if (car != workloads::make_car_sequential(received)) {
        std::fprintf(stderr, "server: message %llu differs\n",
                     static_cast<unsigned long long>(received));
        ok = false;
        break;
      }
    }
    if (ok && !in.at_end()) {
      std::fprintf(stderr, "server: bytes after the last message\n");
      ok = false;
    }
    ::close(conn);
  }

  int status = 0;
  while (::waitpid(child, &status, 0) < 0 && errno == EINTR) {
  }
  const bool child_ok = WIFEXITED(status) && WEXITSTATUS(status) == 0;
  if (!child_ok) std::fprintf(stderr, "client exited with status %d\n", status);

  std::printf("%llu Car messages over 127.0.0.1:%u, framing: %s: %s\n",
              static_cast<unsigned long long>(received), static_cast<unsigned>(port),
              SOCKET_PAIR_FRAMING, ok && child_ok ? "all match" : "FAILED");
  return ok && child_ok ? 0 : 1;
}
