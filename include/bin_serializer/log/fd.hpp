// open_log_for_append<Schema>(path): a file descriptor to append records of
// Schema to, through an fd_writer and log_writer(..., log_append). POSIX only.
//
//   bin_serializer::error e;
//   const int fd = bin_serializer::open_log_for_append<market_log>("market.bsl", e);
//   if (fd < 0) ...                       // e says why (another schema, corruption, errno)
//   bin_serializer::fd_writer out(fd);
//   bin_serializer::log_writer<market_log, bin_serializer::fd_writer> log(out, bin_serializer::log_append);
//
// A missing or empty file gets the header, and so does one whose header its
// writer died before publishing (the header's bytes or a prefix of them, the
// magic perhaps still zero, then zeros: nothing was readable); an existing
// log must be of this Schema (its format and type table); a torn tail is cut
// (ftruncate), so the next block follows the last one sealed. What was cut:
// cut_bytes. The file is locked first (flock, exclusive, never waiting) and
// stays locked while the descriptor is open: if another writer holds it,
// -1 with io_error and errno EWOULDBLOCK, and nothing is read or changed.
// log_file_has_writer(fd): whether a writer holds a log file (a follower's
// question when the log is rotated).
#pragma once

#if defined(__unix__) || defined(__APPLE__)

#include <cerrno>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../io/fd.hpp"
#include "reader.hpp"
#include "writer.hpp"

namespace bin_serializer {

namespace detail::log {

// Whether the file's bytes are a header its writer died before publishing
// (writer.hpp, header_prefix): read back a block at a time.
inline bool unpublished_file(int fd, std::uint64_t size, std::string_view header) {
  unsigned char block[1 << 16];
  bool matching = true, zero_magic = false;
  for (std::uint64_t at = 0; at < size;) {
    const std::size_t want =
        size - at < sizeof block ? static_cast<std::size_t>(size - at) : sizeof block;
    const ssize_t got = ::pread(fd, block, want, static_cast<off_t>(at));
    if (got <= 0) return false;
    const auto n = static_cast<std::size_t>(got);
    if (at == 0) zero_magic = starts_zero(block, n);
    std::size_t i = 0;
    if (matching) {
      i = header_prefix(block, n, header, static_cast<std::size_t>(at), zero_magic);
      matching = i == n;
    }
    if (!all_zero(block + i, n - i)) return false;
    at += n;
  }
  return true;
}

} // namespace detail::log

template <class Schema>
int open_log_for_append(const char* path, error& e, log_write_options o = {},
                        std::uint64_t* cut_bytes = nullptr) {
  if (cut_bytes != nullptr) *cut_bytes = 0;
  const int fd = ::open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (fd < 0) {
    e = {errc::io_error, 0};
    return -1;
  }
  auto fail = [&](error why) {
    const int saved = errno;
    ::close(fd);
    errno = saved;
    e = why;
    return -1;
  };
  // One writer per file (as log_writer locks its output): the lock is taken
  // before the log is read or cut, and held while the descriptor stays open.
  int locked = 0;
  do {
    locked = ::flock(fd, LOCK_EX | LOCK_NB);
  } while (locked != 0 && errno == EINTR);
  if (locked != 0 && errno == EWOULDBLOCK) return fail({errc::io_error, 0});
  struct stat st{};
  if (::fstat(fd, &st) != 0) return fail({errc::io_error, 0});
  if (st.st_size == 0) {
    const std::string h = detail::log::header_bytes<Schema>(o.descriptions);
    fd_writer out(fd);
    if (!out.write(h.data(), h.size()) || !out.flush()) return fail({errc::io_error, 0});
    e = {};
    return fd;
  }
  std::uint64_t end = 0;
  {
    fd_reader in(fd);
    log_stream_reader<Schema> log(in);
    error why;
    if (!detail::log::find_append_point(log, o.cut_corrupt_tail, why)) {
      // A header its writer died before publishing: nothing was ever
      // readable, so the log begins anew (as log_writer's log_append does).
      const std::string h = detail::log::header_bytes<Schema>(o.descriptions);
      if (log.ok() || why.code != errc::truncated ||
          !detail::log::unpublished_file(fd, static_cast<std::uint64_t>(st.st_size), h))
        return fail(why);
      fd_writer out(fd);
      if (::ftruncate(fd, 0) != 0 || ::lseek(fd, 0, SEEK_SET) != 0 ||
          !out.write(h.data(), h.size()) || !out.flush())
        return fail({errc::io_error, 0});
      if (cut_bytes != nullptr) *cut_bytes = static_cast<std::uint64_t>(st.st_size);
      e = {};
      return fd;
    }
    end = log.valid_end();
  }
  if (static_cast<std::uint64_t>(st.st_size) > end) {
    if (::ftruncate(fd, static_cast<off_t>(end)) != 0) return fail({errc::io_error, 0});
    if (cut_bytes != nullptr) *cut_bytes = static_cast<std::uint64_t>(st.st_size) - end;
  }
  if (::lseek(fd, 0, SEEK_END) < 0) return fail({errc::io_error, 0});
  e = {};
  return fd;
}

// Whether a writer holds the log file open at fd: every writer locks its file
// (flock, exclusive) until it closes it or dies, so false means that whatever
// it wrote is in the file and nothing more will come. For a follower of a
// rotated log (renamed, a new one created at its path): read the old file to
// its end once this is false, then go on in the new one. fd must be a
// descriptor the caller opened itself, never the writer's (a lock query on the
// same open file would convert the writer's lock). A file system without flock
// shows no writer: false. Nothing is waited for; a shared lock is taken and
// given back at once.
inline bool log_file_has_writer(int fd) noexcept {
  int rc = 0;
  do {
    rc = ::flock(fd, LOCK_SH | LOCK_NB);
  } while (rc != 0 && errno == EINTR);
  if (rc == 0) {
    ::flock(fd, LOCK_UN);
    return false;
  }
  return errno == EWOULDBLOCK;
}

} // namespace bin_serializer

#endif // POSIX
