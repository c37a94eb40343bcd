// serialize() to, and deserialize() from, a POSIX file descriptor: a file, a
// pipe or a socket. POSIX only (the header is empty elsewhere; check
// BIN_SERIALIZER_HAS_FD_IO).
//
//   bin_serializer::fd_writer out(sock);
//   bool ok = serialize(out, car) && out.flush();
//
//   bin_serializer::fd_reader in(sock);
//   while (deserialize(in, car)) ...
//
// Both buffer through an inline block (basic_fd_*<N>: N bytes, 8 KiB by
// default). Writes loop until every byte is taken (partial writes) and retry
// on EINTR; reads retry on EINTR, and never wait for more bytes than the value
// being decoded needs, so request/response over a socket does not stall.
// The descriptor is borrowed: the adapters never close it.
//
// Errors: a failed read()/write() is errc::io_error (errno is left as the
// call set it), end of input inside a value is errc::truncated. See
// io/stream.hpp for the position after a failed call; it is the same here.
// A writer to a socket or pipe whose reader went away gets EPIPE only if
// SIGPIPE is ignored or blocked; otherwise the process receives SIGPIPE.
#pragma once

#if defined(__unix__) || defined(__APPLE__)

#include <cerrno>
#include <cstddef>
#include <cstdint>

#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "block_io.hpp"

#define BIN_SERIALIZER_HAS_FD_IO 1

namespace bin_serializer {

namespace detail {

struct fd_sink {
  int fd;
  explicit fd_sink(int d) noexcept : fd(d) {}

  bool put(const std::byte* p, std::size_t n) noexcept {
    while (n != 0) {
      const ::ssize_t r = ::write(fd, p, n);
      if (r < 0) {
        if (errno == EINTR) continue;
        return false;
      }
      p += r;
      n -= static_cast<std::size_t>(r);
    }
    return true;
  }
  // write() has already handed the bytes to the kernel; durability (fsync) is
  // the caller's choice.
  static bool flush() noexcept { return true; }
};

struct fd_source {
  int fd;
  explicit fd_source(int d) noexcept : fd(d) {}

  std::size_t get(std::byte* p, std::size_t min, std::size_t max, bool& failed) noexcept {
    std::size_t got = 0;
    while (got < min) {
      const ::ssize_t r = ::read(fd, p + got, max - got);
      if (r < 0) {
        if (errno == EINTR) continue;
        failed = true;
        break;
      }
      if (r == 0) break; // end of input
      got += static_cast<std::size_t>(r);
    }
    return got;
  }

  // A regular file's offset moved up to n bytes on, never past its size now
  // (a later read() sees what was appended since). Pipes, sockets and
  // terminals cannot seek: no_skip.
  std::uint64_t skip(std::uint64_t n, bool& failed) noexcept {
    struct stat st{};
    if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) return no_skip;
    const ::off_t at = ::lseek(fd, 0, SEEK_CUR);
    if (at < 0) return no_skip;
    const auto size = static_cast<std::uint64_t>(st.st_size);
    const auto here = static_cast<std::uint64_t>(at);
    const std::uint64_t left = size > here ? size - here : 0;
    const std::uint64_t step = n < left ? n : left;
    if (step != 0 && ::lseek(fd, static_cast<::off_t>(here + step), SEEK_SET) < 0) {
      failed = true;
      return 0;
    }
    return step;
  }
};

} // namespace detail

// Buffered output to a file descriptor. Call flush() and check it before the
// writer goes away; the destructor flushes too but cannot report failure.
template <std::size_t N = 8192>
class basic_fd_writer : public detail::block_writer<detail::fd_sink, N> {
public:
  explicit basic_fd_writer(int fd) noexcept : detail::block_writer<detail::fd_sink, N>(fd) {}
  [[nodiscard]] int fd() noexcept { return this->sink().fd; }

  // An exclusive advisory lock (flock) on a regular file, held while the
  // descriptor (or a duplicate of it) stays open: a log_writer takes it so
  // that two writers never append to one file. True for a pipe or socket
  // (nothing to share) and where the file system has no flock; false (errno
  // EWOULDBLOCK) if another open of the file holds a lock; never waits.
  bool try_lock_exclusive() noexcept {
    struct stat st{};
    if (::fstat(fd(), &st) != 0) return false;
    if (!S_ISREG(st.st_mode)) return true;
    int rc = 0;
    do {
      rc = ::flock(fd(), LOCK_EX | LOCK_NB);
    } while (rc != 0 && errno == EINTR);
    // A file system without flock (ENOLCK, EINVAL): unlocked, as MappedFile.
    return rc == 0 || errno != EWOULDBLOCK;
  }
};

// Buffered input from a file descriptor. It reads ahead what one read()
// returns (up to N bytes), so the descriptor's offset is past the reader's.
// skip(n) seeks where the descriptor is a regular file.
template <std::size_t N = 8192>
class basic_fd_reader : public detail::block_reader<detail::fd_source, N> {
public:
  explicit basic_fd_reader(int fd) noexcept : detail::block_reader<detail::fd_source, N>(fd) {}
  [[nodiscard]] int fd() noexcept { return this->source().fd; }
};

using fd_writer = basic_fd_writer<>;
using fd_reader = basic_fd_reader<>;

} // namespace bin_serializer

#endif // POSIX
