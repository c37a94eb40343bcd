// log_follower<Schema>: the records of a log file as its writer seals them
// (tail -f), and on into the new file at the path when the log is rotated
// (tail -F). POSIX.
//
//   bin_serializer::log_follower<market_log> f("market.bsl", {.on_rotation = bin_serializer::log_rotation::follow});
//   for (;;) {
//     while (f.visit(handler)) {}            // every record sealed so far
//     switch (f.state()) {
//     case log_follow_state::caught_up: sleep(interval); break;   // or no log there yet
//     case log_follow_state::record_error: ...; break;  // one record: the next call reads on
//     case log_follow_state::corrupt: ...; break;       // said once; the next call goes on after it
//     default: return;                                  // rotated (stop), failed: last_error()
//     }
//   }
//
// Why a class: a follower must keep its own descriptor of the file (a rotated
// log is read through it, not through whatever the path names later), read
// it again from where it stood (valid_end(), a block boundary) without ever
// mapping it (a writer that restarts cuts its torn tail: SIGBUS for a
// mapping), stop at the writer's open block while the writer holds the file
// instead of searching the zeros a MappedFile keeps ahead of it, tell a
// block sealed while it was read from a corrupt one, report a corruption
// once, and know when a rotated file is complete: when its writer's lock is
// free (log_file_has_writer), asked before the last read.
// Each record is handed out once, in order, from checked blocks only.
//
// Movable, not copyable: a follower moved mid-log goes on where it stood,
// and a record next() handed out stays valid until the next call on the
// follower it was moved to (the reader and its memory are not moved, their
// owner is). A moved-from follower may be destroyed or assigned to.
#pragma once

#if defined(__unix__) || defined(__APPLE__)

#include <algorithm>
#include <cerrno>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <new>
#include <string>
#include <utility>
#include <vector>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../io/fd.hpp"
#include "fd.hpp"
#include "reader.hpp"

namespace bin_serializer {

// What a follower does when its path names another file (the log renamed
// and a new one created, or removed): in both cases it first reads the file
// it follows to its end, once that file's writer is gone.
enum class log_rotation : std::uint8_t {
  stop,   // then state rotated
  follow, // then reading goes on from the first block of the file at the path (tail -F)
};

struct log_follow_options {
  // max_block_bytes, and start: where reading begins in the first file (a
  // valid_end() saved earlier); a file the follower moves on to is read whole.
  log_read_options read{};
  log_rotation on_rotation = log_rotation::stop;
};

// Why the last call handed out no record (reading: it did).
enum class log_follow_state : std::uint8_t {
  reading,
  // Every record sealed so far was handed out, or there is no log at the
  // path yet: call again later.
  caught_up,
  // One record failed (last_error(): unknown_type, schema_mismatch, a
  // decode error); the next call reads on.
  record_error,
  // Bad bytes at last_error().offset, said once: the next call goes on at
  // the next valid block.
  corrupt,
  // log_rotation::stop: the path names another file (or none), and every
  // record of this one was handed out. Final.
  rotated,
  // Final: another log at the path (bad_header, schema_mismatch), the file
  // cut before valid_end() (truncated), a start inside the header
  // (invalid_value), io_error (also: the path names no regular file),
  // out_of_memory (a reading's reader could not be allocated).
  failed,
};

template <class Schema>
class log_follower {
public:
  using schema = Schema;

  explicit log_follower(std::string path, const log_follow_options& o = {})
      : path_(std::move(path)), max_block_bytes_(o.read.max_block_bytes), at_(o.read.start),
        rotation_(o.on_rotation) {}
  log_follower(log_follower&&) noexcept = default;
  log_follower& operator=(log_follower&&) noexcept = default;

  // The next record, decoded into its type and handed to f (which takes every
  // type of the Schema as const T&; the value is reused). False: see state().
  template <class F>
  bool visit(F&& f) {
    return advance([&f](log_stream_reader<Schema>& r) { return r.visit(f); });
  }
  // The next record, whatever its type; its payload is valid until the next call.
  bool next(log_record& rec) {
    return advance([&rec](log_stream_reader<Schema>& r) { return r.next(rec); });
  }
  // Decodes the record next() just handed out (a record of another type:
  // schema_mismatch, state record_error).
  template <class T>
  bool decode(const log_record& rec, T& value) {
    if (!reading_) return false;
    if (reading_->log.decode(rec, value)) return true;
    state_ = log_follow_state::record_error;
    err_ = reading_->log.last_error();
    return false;
  }

  [[nodiscard]] log_follow_state state() const noexcept { return state_; }
  [[nodiscard]] error last_error() const noexcept { return err_; }
  // Where the next reading of the file followed now starts: the end of the
  // last block read whole (an offset in the new file after a rotation).
  [[nodiscard]] std::uint64_t valid_end() const noexcept {
    return reading_ ? reading_->log.valid_end() : at_;
  }
  // Records handed out, in all files.
  [[nodiscard]] std::uint64_t records() const noexcept { return records_; }
  // Rotations followed (log_rotation::follow).
  [[nodiscard]] std::uint64_t rotations() const noexcept { return rotations_; }
  // The descriptor of the file followed, -1 before the path named a file.
  [[nodiscard]] int fd() const noexcept { return fd_.fd; }
  [[nodiscard]] const std::string& path() const noexcept { return path_; }

private:
  static constexpr std::uint64_t none = static_cast<std::uint64_t>(-1);

  // The descriptor of the file followed, closed with its owner; a move
  // leaves -1 behind.
  struct owned_fd {
    int fd = -1;
    owned_fd() = default;
    owned_fd(owned_fd&& o) noexcept : fd(std::exchange(o.fd, -1)) {}
    owned_fd& operator=(owned_fd&& o) noexcept {
      if (this != &o) reset(std::exchange(o.fd, -1));
      return *this;
    }
    ~owned_fd() { reset(); }
    void reset(int to = -1) noexcept {
      if (fd >= 0) ::close(fd);
      fd = to;
    }
  };

  // One reading of the file, from at_: the reader points at its source, so
  // the two live on the heap together and stay where they are when the
  // follower moves.
  struct reading {
    reading(int fd, const log_read_options& o) : in(fd), log(in, o) {}
    fd_reader in;
    log_stream_reader<Schema> log;
  };

  template <class Take>
  bool advance(Take&& take) {
    if (state_ == log_follow_state::failed || state_ == log_follow_state::rotated) return false;
    if (resume_) { // after a corruption was said: on at the next valid block, if any yet
      resume_ = false;
      if (reading_ && !reading_->log.resume()) drop_reader();
    }
    for (;;) {
      if (!reading_) {
        if (phase_ == phase::complete) {
          // The file followed was read to its end after its writer was gone:
          // the next one.
          const int next = open_next();
          if (next < 0) return stop(log_follow_state::caught_up);
          if (next == 0) phase_ = phase::following; // renamed back: followed as before
          if (state_ == log_follow_state::failed) return false;
        }
        if (!open_reader()) return false;
      }
      log_stream_reader<Schema>& log = reading_->log;
      if (take(log)) {
        ++records_;
        state_ = log_follow_state::reading;
        return true;
      }
      switch (log.end()) {
      case log_end::none: // one record failed; the reader goes on at the next call
        err_ = log.last_error();
        return stop(log_follow_state::record_error);
      case log_end::failed: err_ = log.last_error(); return stop(log_follow_state::failed);
      case log_end::corrupt: {
        const std::uint64_t off = log.end_offset();
        if (std::find(said_.begin(), said_.end(), off) != said_.end()) {
          // Said before, met again by a reading that started before it.
          if (log.resume()) continue;
          drop_reader();
          return stop(log_follow_state::caught_up);
        }
        if (suspect_ != off) {
          // Maybe a block its writer (in place, into a mapping) sealed while
          // it was read, after a later one was seen sealed: blocks are sealed
          // in order, so a second reading finds it sealed. Once more, now.
          suspect_ = off;
          drop_reader();
          continue;
        }
        said_.push_back(off);
        err_ = log.last_error();
        resume_ = true;
        return stop(log_follow_state::corrupt);
      }
      case log_end::clean:
      case log_end::torn: break;
      }
      // Every block sealed so far was read: a clean end before the file's
      // end is zeros to its end (rule 2).
      if (log.end() == log_end::clean && log.end_offset() < size_) {
        zeros_from_ = log.end_offset();
        zeros_size_ = size_;
      }
      drop_reader();
      if (phase_ == phase::last_reading) {
        phase_ = phase::complete;
        if (rotation_ == log_rotation::stop) return stop(log_follow_state::rotated);
        continue; // to the next file
      }
      // Whether the log was rotated away, asked in this order: the writer's
      // lock before the last reading, so that everything it wrote is read.
      if (moved() && !log_file_has_writer(fd_.fd)) {
        phase_ = phase::last_reading;
        continue; // read it to its end once more
      }
      return stop(log_follow_state::caught_up);
    }
  }

  bool stop(log_follow_state s) noexcept {
    state_ = s;
    return false;
  }

  // A reader of the file followed, from at_; false with the state set when
  // there is none yet (caught_up) or there can be none (failed).
  bool open_reader() {
    if (fd_.fd < 0) {
      struct stat st{};
      const int fd = open_path(st);
      if (fd < 0) { // nothing at the path yet, unless open_path failed
        if (state_ != log_follow_state::failed) state_ = log_follow_state::caught_up;
        return false;
      }
      take_file(fd, st);
    }
    struct stat st{};
    if (::lseek(fd_.fd, 0, SEEK_SET) != 0 || ::fstat(fd_.fd, &st) != 0) return fail_io();
    size_ = static_cast<std::uint64_t>(st.st_size);
    // While a writer holds the file, its first unsealed block is where its
    // records end: the zeros a MappedFile writer keeps ahead of it (up to
    // half of the file) are not searched at every call. So too while the
    // file keeps the size at which the last reading found only zeros from
    // at_ to its end (a MappedFile's writer that died): blocks are sealed
    // in order, so nothing can be new until the block at at_ is. Otherwise
    // (and for the last reading of a rotated file) the whole rest is
    // checked, so damage is told from a torn tail.
    const bool zeros_known = zeros_from_ == at_ && zeros_size_ == size_;
    const bool live = phase_ == phase::following && (zeros_known || log_file_has_writer(fd_.fd));
    reading_.reset(new (std::nothrow) reading(
        fd_.fd, {.max_block_bytes = max_block_bytes_, .start = at_, .open_block_ends = live}));
    if (!reading_) {
      err_ = {errc::out_of_memory, at_};
      return stop(log_follow_state::failed);
    }
    if (reading_->log.ok()) {
      header_seen_ = true;
      return true;
    }
    err_ = reading_->log.last_error();
    reading_.reset(); // where it stood says nothing: at_ stays
    // A header not yet published (its magic still zero: a MappedFile's writer
    // stores it last) or not all written: truncated at 0, or at 8 for its
    // table. Later (a start past the end: at the end) it is the file cut.
    if (!header_seen_ && err_.code == errc::truncated && err_.offset <= 8) {
      // Nothing was read from it: if the path names another file now, that
      // one is opened at the next call.
      if (moved()) close_file();
      return stop(log_follow_state::caught_up);
    }
    return stop(log_follow_state::failed);
  }

  // The file now at the path: -1 none yet (missing, or its header not yet
  // published: wait), 0 the file followed (renamed back), 1 switched to it
  // (a header of another log: state failed at the first reading).
  int open_next() {
    struct stat st{};
    const int fd = open_path(st);
    if (fd < 0) return state_ == log_follow_state::failed ? 1 : -1;
    if (st.st_dev == dev_ && st.st_ino == ino_) {
      ::close(fd);
      return 0;
    }
    close_file();
    at_ = 0;
    zeros_from_ = none;
    header_seen_ = false;
    said_.clear();
    suspect_ = none;
    ++rotations_;
    take_file(fd, st);
    return 1;
  }

  // The path opened for reading, and what it names in st; -1 while it names
  // nothing, or with state failed (io_error). A regular file only: it is read
  // again from an offset (O_NONBLOCK: a FIFO is refused here, not waited on
  // in open()).
  int open_path(struct stat& st) {
    const int fd = ::open(path_.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    if (fd < 0) {
      if (errno != ENOENT) fail_io();
      return -1;
    }
    if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
      ::close(fd);
      fail_io();
      return -1;
    }
    return fd;
  }

  void take_file(int fd, const struct stat& st) noexcept {
    fd_.reset(fd);
    dev_ = st.st_dev;
    ino_ = st.st_ino;
  }

  bool fail_io() noexcept {
    err_ = {errc::io_error, 0};
    return stop(log_follow_state::failed);
  }

  // The path names another file than the one followed, or none.
  [[nodiscard]] bool moved() const {
    struct stat st{};
    if (::stat(path_.c_str(), &st) != 0) return true;
    return st.st_dev != dev_ || st.st_ino != ino_;
  }

  void drop_reader() noexcept {
    if (reading_) at_ = reading_->log.valid_end();
    reading_.reset();
  }

  void close_file() noexcept {
    drop_reader();
    fd_.reset();
    phase_ = phase::following;
  }

  std::string path_;
  std::size_t max_block_bytes_;
  std::uint64_t at_; // where the next reader starts
  log_rotation rotation_;
  owned_fd fd_;
  dev_t dev_{};
  ino_t ino_{};
  std::unique_ptr<reading> reading_; // after fd_: destroyed before it is closed
  std::uint64_t size_ = 0;           // the file's size when the reading began
  // The last reading found only zeros from zeros_from_ to the file's end,
  // zeros_size_ (none: not known).
  std::uint64_t zeros_from_ = none;
  std::uint64_t zeros_size_ = 0;
  bool header_seen_ = false;
  // following: the file at the path, or one whose writer may still write;
  // last_reading: moved, its writer gone before this reading began;
  // complete: read to its end after that (the next file, when there is one).
  enum class phase : std::uint8_t { following, last_reading, complete };
  phase phase_ = phase::following;
  bool resume_ = false; // a corruption was said: the next call goes on after it
  std::uint64_t suspect_ = none;
  std::vector<std::uint64_t> said_; // corruptions said in this file
  std::uint64_t records_ = 0;
  std::uint64_t rotations_ = 0;
  log_follow_state state_ = log_follow_state::caught_up;
  error err_{};
};

} // namespace bin_serializer

#endif // POSIX
