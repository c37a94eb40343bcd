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
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>

#include "../../config.hpp"
#include "../../error.hpp"

namespace bin_serializer::detail {

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

// read_position()/seek() let deserialize() rewind after a failure, but only
// within the bytes still held in the block: bytes already dropped from it
// cannot be un-read, and seek() then returns false.
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

  // Absolute offset of the next byte, counted from where the reader started.
  [[nodiscard]] std::size_t read_position() const noexcept {
    return static_cast<std::size_t>(base_ + head_);
  }
  bool seek(std::size_t pos) noexcept {
    if (pos < base_ || pos > base_ + tail_) return false;
    head_ = static_cast<std::size_t>(pos - base_);
    return true;
  }
  [[nodiscard]] std::size_t buffered() const noexcept { return tail_ - head_; }
  [[nodiscard]] bool failed() const noexcept { return failed_; }

  [[nodiscard]] error last_error() const noexcept { return err_; }
  void set_error(error e) noexcept { err_ = e; }

protected:
  Source& source() noexcept { return source_; }

private:
  BIN_SERIALIZER_NOINLINE bool read_slow(std::byte* dst, std::size_t n) noexcept {
    const std::size_t at = read_position();
    if (n >= N) {
      // Too big for the block: take what it holds, read the rest in place.
      const std::size_t have = tail_ - head_;
      if (have != 0) std::memcpy(dst, block_ + head_, have);
      base_ += tail_;
      head_ = tail_ = 0;
      bool failed = false;
      const std::size_t got = failed_ ? 0 : source_.get(dst + have, n - have, n - have, failed);
      base_ += got;
      if (got == n - have) return true;
      return fail(failed, at);
    }
    if (!refill(n)) return fail(failed_, at);
    std::memcpy(dst, block_ + head_, n);
    head_ += n;
    return true;
  }

  // Makes at least `want` (<= N) bytes available in the block, keeping the
  // unread ones. False at end of input or on error.
  bool refill(std::size_t want) noexcept {
    if (failed_) return false;
    const std::size_t have = tail_ - head_;
    // Compact only when the block has no room after its tail: bytes already
    // read stay seekable (deserialize() rewinds to a failed value's start).
    if (head_ != 0 && N - tail_ < want - have) {
      if (have != 0) std::memmove(block_, block_ + head_, have);
      base_ += head_;
      head_ = 0;
      tail_ = have;
    }
    bool failed = false;
    const std::size_t got = source_.get(block_ + tail_, want - have, N - tail_, failed);
    tail_ += got;
    if (failed) {
      failed_ = true;
      err_ = {errc::io_error, read_position()};
    }
    return tail_ - head_ >= want;
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
  bool failed_ = false;
  error err_{};
  std::byte block_[N];
};

} // namespace bin_serializer::detail
