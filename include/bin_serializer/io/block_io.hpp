// The buffering shared by the stream and file-descriptor adapters.
//
// serialize() drives a write()-only buffer with one write() call per field, so
// an adapter that went straight to an ostream or to ::write() would pay a
// virtual call or a system call per int. block_writer and block_reader keep a
// fixed block inline: a small write() or read() is a bounds check and a
// memcpy, and the sink or source is touched once per block.
//
// A Sink has
//   bool put(const std::byte* p, std::size_t n)     hand over all n bytes; false on error
//   bool flush()                                    push pending bytes further; false on error
// A Source has
//   std::size_t get(std::byte* p, std::size_t min, std::size_t max, bool& failed)
//       read at least min bytes (fewer only at end of input or on error, then
//       failed says which), at most max, without waiting for more than min
// and may have
//   std::uint64_t skip(std::uint64_t n, bool& failed)
//       move past up to n bytes without reading them (a seek): how many, no
//       more than the input holds now; no_skip if it cannot (a pipe)
#pragma once

#include <concepts>
#include <cstddef>
#include <cstdint>
#include <cstring>

#include "../config.hpp"
#include "../error.hpp"

namespace bin_serializer::detail {

// A Source's skip() that cannot seek says so with this; the reader then reads
// and drops the bytes.
inline constexpr std::uint64_t no_skip = ~std::uint64_t{0};

template <class Sink, std::size_t N>
class block_writer {
  static_assert(N >= 64, "a block below 64 bytes defeats the buffering; use e.g. 4096");

public:
  template <class... Args>
  explicit block_writer(Args&&... args) noexcept : sink_(static_cast<Args&&>(args)...) {}
  block_writer(const block_writer&) = delete;
  block_writer& operator=(const block_writer&) = delete;
  // A destructor cannot report failure: call flush() and check it.
  ~block_writer() { (void)flush(); }

  BIN_SERIALIZER_INLINE bool write(const void* src, std::size_t n) noexcept {
    if (n <= N - used_) [[likely]] {
      if (n != 0) std::memcpy(block_ + used_, src, n);
      used_ += n;
      return true;
    }
    return write_slow(static_cast<const std::byte*>(src), n);
  }

  // Hands every buffered byte to the sink and flushes it. False (and
  // last_error() = io_error) if the sink failed now or earlier: once a sink
  // has failed, it is unknown which bytes arrived, so the writer stays failed.
  bool flush() noexcept {
    if (failed_) return false;
    if (!drain() || !sink_.flush()) return fail_io();
    return true;
  }

  // Bytes accepted so far (written to the sink or waiting in the block).
  [[nodiscard]] std::uint64_t position() const noexcept { return flushed_ + used_; }
  [[nodiscard]] std::size_t buffered() const noexcept { return used_; }
  [[nodiscard]] bool failed() const noexcept { return failed_; }

  [[nodiscard]] error last_error() const noexcept { return err_; }
  void set_error(error e) noexcept { err_ = e; }

protected:
  Sink& sink() noexcept { return sink_; }

private:
  BIN_SERIALIZER_NOINLINE bool write_slow(const std::byte* src, std::size_t n) noexcept {
    if (failed_ || !drain()) return fail_io();
    if (n >= N) { // large payloads skip the copy into the block
      if (!sink_.put(src, n)) return fail_io();
      flushed_ += n;
      return true;
    }
    std::memcpy(block_, src, n);
    used_ = n;
    return true;
  }

  bool drain() noexcept {
    if (used_ == 0) return true;
    if (!sink_.put(block_, used_)) return false;
    flushed_ += used_;
    used_ = 0;
    return true;
  }

  bool fail_io() noexcept {
    failed_ = true;
    err_ = {errc::io_error, static_cast<std::size_t>(position())};
    return false;
  }

  Sink sink_;
  std::size_t used_ = 0;
  std::uint64_t flushed_ = 0;
  bool failed_ = false;
  error err_{};
  std::byte block_[N];
};

// read_position()/seek() let deserialize() rewind after a failure. The exact
// rule: a failed deserialize() leaves the read position at the value's first
// byte whenever the bytes the source delivered from that byte on fit in the
// block (N bytes), whatever a length prefix claimed: a claim of more than the
// block, or than the source has, reads into the block (or puts the delivered
// bytes back into it) before giving up the value's start. Only a value whose
// delivered bytes really exceed N cannot be rewound; the position is then
// past the bytes consumed and in_sync() is false until the next successful
// seek().
//
// deserialize() brackets each value with begin_value() / end_value(): while a
// value is open, the block keeps every byte from its start (compaction never
// drops them) unless that would leave less room than the next read needs.
template <class Source, std::size_t N>
class block_reader {
  static_assert(N >= 64, "a block below 64 bytes defeats the buffering; use e.g. 4096");

public:
  template <class... Args>
  explicit block_reader(Args&&... args) noexcept : source_(static_cast<Args&&>(args)...) {}
  block_reader(const block_reader&) = delete;
  block_reader& operator=(const block_reader&) = delete;

  BIN_SERIALIZER_INLINE bool read(void* dst, std::size_t n) noexcept {
    if (n <= tail_ - head_) [[likely]] {
      if (n != 0) std::memcpy(dst, block_ + head_, n);
      head_ += n;
      return true;
    }
    return read_slow(static_cast<std::byte*>(dst), n);
  }

  // True when no byte is left: the block is empty and the source is at its
  // end (this may wait for input). False if a byte is available, or on error
  // (then last_error() says io_error).
  [[nodiscard]] bool at_end() noexcept {
    if (head_ != tail_) return false;
    return !refill(1) && !failed_;
  }

  // Copies the next bytes, up to max, and returns how many: at least one
  // unless the input has ended, 0 only then (or on error: failed() and
  // last_error() say io_error). For readers with framing of their own, such
  // as log/reader.hpp's, that must see exactly where an input ends.
  std::size_t read_some(void* dst, std::size_t max) noexcept {
    if (max == 0 || (head_ == tail_ && !refill(1))) return 0;
    const std::size_t n = max < tail_ - head_ ? max : tail_ - head_;
    std::memcpy(dst, block_ + head_, n);
    head_ += n;
    return n;
  }

  // Drops the next n bytes and returns how many it dropped: fewer than n only
  // at the end of the input or on error (failed()). Those in the block go
  // first; the source then seeks past the rest where it can (a regular file:
  // a reader that starts deep into a log reads none of the bytes before), or
  // they are read and dropped. For readers with framing of their own (see
  // read_some); not while a value is being decoded.
  std::uint64_t skip(std::uint64_t n) noexcept {
    const std::size_t have = tail_ - head_;
    if (n <= have) {
      head_ += static_cast<std::size_t>(n);
      return n;
    }
    std::uint64_t done = have;
    base_ += tail_; // the block's bytes are all dropped
    head_ = tail_ = 0;
    pin_kept_ = false;
    if (failed_) return done;
    if constexpr (requires(Source& s, std::uint64_t k, bool& f) {
                    { s.skip(k, f) } -> std::convertible_to<std::uint64_t>;
                  }) {
      bool failed = false;
      const std::uint64_t moved = source_.skip(n - done, failed);
      if (failed) {
        (void)fail(true, read_position());
        return done;
      }
      if (moved != no_skip) {
        base_ += moved;
        done += moved;
      }
    }
    while (done < n && refill(1)) {
      const std::uint64_t left = n - done;
      const std::size_t step = left < tail_ ? static_cast<std::size_t>(left) : tail_;
      head_ = step;
      done += step;
      if (head_ == tail_) {
        base_ += tail_;
        head_ = tail_ = 0;
      }
    }
    return done;
  }

  // Absolute offset of the next byte, counted from where the reader started.
  [[nodiscard]] std::size_t read_position() const noexcept {
    return static_cast<std::size_t>(base_ + head_);
  }
  // Moves to pos if that byte is still in the block; false otherwise.
  bool seek(std::size_t pos) noexcept {
    if (pos < base_ || pos > base_ + tail_) return false;
    head_ = static_cast<std::size_t>(pos - base_);
    in_sync_ = true;
    return true;
  }
  [[nodiscard]] std::size_t buffered() const noexcept { return tail_ - head_; }
  [[nodiscard]] bool failed() const noexcept { return failed_; }

  // False after a failed deserialize() that could not rewind to the value's
  // first byte (its bytes exceeded the block): the position is then inside
  // that value, and reading on would decode the middle of it.
  [[nodiscard]] bool in_sync() const noexcept { return in_sync_; }

  // Called by deserialize() around each value (see above). Nested calls keep
  // the outermost start.
  void begin_value() noexcept {
    if (open_++ == 0) {
      pin_ = base_ + head_;
      pin_kept_ = true;
    }
  }
  void end_value(bool ok) noexcept {
    if (open_ == 0) return;
    if (--open_ == 0 && !ok && read_position() != pin_) in_sync_ = false;
  }

  [[nodiscard]] error last_error() const noexcept { return err_; }
  void set_error(error e) noexcept { err_ = e; }

protected:
  Source& source() noexcept { return source_; }

private:
  // Where the bytes that must stay in the block start: the open value's
  // first byte, or the next unread byte.
  [[nodiscard]] std::size_t keep_from() const noexcept {
    return open_ != 0 && pin_kept_ ? static_cast<std::size_t>(pin_ - base_) : head_;
  }

  // Moves the bytes from `keep` on to the front of the block.
  void compact(std::size_t keep) noexcept {
    if (keep == 0) return;
    if (tail_ != keep) std::memmove(block_, block_ + keep, tail_ - keep);
    base_ += keep;
    head_ -= keep;
    tail_ -= keep;
  }

  BIN_SERIALIZER_NOINLINE bool read_slow(std::byte* dst, std::size_t n) noexcept {
    const std::size_t at = read_position();
    if (n >= N) return read_large(dst, n, at);
    if (!refill(n)) return fail(failed_, at);
    std::memcpy(dst, block_ + head_, n);
    head_ += n;
    return true;
  }

  // Too big for the block: take what it holds, read the rest in place. If the
  // source runs dry and everything read (from the open value's start) fits in
  // the block, the bytes go back into it, so the failed read consumed nothing
  // and deserialize() can still rewind.
  bool read_large(std::byte* dst, std::size_t n, std::size_t at) noexcept {
    const std::size_t have = tail_ - head_;
    if (have != 0) std::memcpy(dst, block_ + head_, have);
    tail_ = head_; // the block now holds only the bytes before the read
    compact(keep_from());
    const std::size_t before = head_; // bytes of the open value kept in front
    bool failed = false;
    const std::size_t got = failed_ ? 0 : source_.get(dst + have, n - have, n - have, failed);
    if (got == n - have) {
      // The value spans more than the block: its start is gone for good.
      base_ += head_ + n;
      head_ = tail_ = 0;
      pin_kept_ = false;
      return true;
    }
    if (before + have + got <= N) {
      std::memcpy(block_ + before, dst, have + got);
      tail_ = before + have + got;
    } else {
      base_ += head_ + have + got;
      head_ = tail_ = 0;
      pin_kept_ = false;
    }
    return fail(failed, at);
  }

  // Makes at least `want` (<= N) bytes available in the block, keeping the
  // unread ones and, if it leaves room, the open value's. False at end of
  // input or on error.
  bool refill(std::size_t want) noexcept {
    if (failed_) return false;
    // Compact only when the block has no room after its tail: bytes already
    // read stay seekable (deserialize() rewinds to a failed value's start).
    if (N - tail_ < want - (tail_ - head_)) {
      compact(keep_from());
      const std::size_t room = N - tail_;
      if (room < want - (tail_ - head_)) {
        // The open value outgrows the block. Fill the block first: if the
        // source ends before it is full, the value's start is still here and
        // deserialize() can rewind; only once it is full is the start given
        // up (every byte filled is needed by this read).
        if (room != 0 && !take(room, room)) return false;
        compact(head_);
        pin_kept_ = false;
      }
    }
    return take(want - (tail_ - head_), N - tail_) && tail_ - head_ >= want;
  }

  // Appends at least min (if the source has them) and at most max bytes to
  // the block; false when fewer than min arrived.
  bool take(std::size_t min, std::size_t max) noexcept {
    bool failed = false;
    const std::size_t got = source_.get(block_ + tail_, min, max, failed);
    tail_ += got;
    if (failed) {
      failed_ = true;
      err_ = {errc::io_error, read_position()};
    }
    return got >= min;
  }

  bool fail(bool io, std::size_t at) noexcept {
    if (io) failed_ = true;
    err_ = {io ? errc::io_error : errc::truncated, at};
    return false;
  }

  Source source_;
  std::size_t head_ = 0;   // next unread byte in block_
  std::size_t tail_ = 0;   // end of the valid bytes in block_
  std::uint64_t base_ = 0; // stream offset of block_[0]
  std::uint64_t pin_ = 0;  // stream offset of the open value's first byte
  unsigned open_ = 0;      // begin_value() calls not yet ended
  bool pin_kept_ = false;  // the block still holds the byte at pin_
  bool in_sync_ = true;
  bool failed_ = false;
  error err_{};
  std::byte block_[N];
};

} // namespace bin_serializer::detail
