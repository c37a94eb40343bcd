// The writer a serialize() call drives, and what codec<T>::write receives.
//
// Interface used by codecs:
//   opts                       the call's options (format, ...)
//   write_bytes(p, n)          append n raw bytes
//   write_length(n)            append a length/count prefix in the format's encoding
//   fail(code)                 record a failure at the current position; returns false
//   position()                 offset of the next byte, from the buffer's start
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <limits>
#include <type_traits>

#include "../buffer/concepts.hpp"
#include "../config.hpp"
#include "../error.hpp"
#include "../options.hpp"
#include "../format/all.hpp"

namespace bin_serializer::detail {

// A buffer whose capacity is a compile-time constant (FixedBuffer<N>).
template <class B>
concept fixed_capacity = requires { std::integral_constant<std::size_t, B::capacity()>{}; };

template <class B>
BIN_SERIALIZER_INLINE void record_error(B& buffer, error e) noexcept {
  if constexpr (ErrorRecordingBuffer<B>) buffer.set_error(e);
}

// For buffers with direct access. Bytes go through a local cursor; the buffer's
// size is updated once, at commit(). A failed call never commits, and
// rollback() restores the size a growth step may have published, so the buffer
// ends exactly as it was.
template <options Opts, ContiguousWritableBuffer B>
class contiguous_writer {
public:
  static constexpr options opts = Opts;

  explicit contiguous_writer(B& buffer) noexcept
      : buf_(buffer), base_(buffer.data()), cur_(base_ + buffer.size()),
        end_(base_ + buffer.capacity()), start_(buffer.size()) {}

  BIN_SERIALIZER_INLINE bool write_bytes(const void* src, std::size_t n) noexcept {
    if (n > static_cast<std::size_t>(end_ - cur_)) [[unlikely]] {
      if (!grow(n)) return false;
    }
    std::memcpy(cur_, src, n);
    cur_ += n;
    return true;
  }

  BIN_SERIALIZER_INLINE bool write_length(std::size_t n) noexcept {
    return put_length<format_of<Opts>>(*this, n);
  }

  // A leaf the format encodes in place (format/format.hpp, put_scalar), at
  // most Max bytes: stored at the cursor when that much room is left, else
  // encoded aside and appended (which grows the buffer or fails), so a leaf
  // shorter than its maximum still fits the last bytes of a fixed buffer.
  template <std::size_t Max, class Store>
  BIN_SERIALIZER_INLINE bool store_at(Store&& store) noexcept {
    if (Max <= static_cast<std::size_t>(end_ - cur_)) [[likely]] {
      cur_ = store(cur_);
      return true;
    }
    std::byte tmp[Max];
    const std::byte* end = store(tmp);
    return write_bytes(tmp, static_cast<std::size_t>(end - tmp));
  }

  // Makes room for n more bytes now, so a codec that knows its total size
  // (a string, a vector of scalars) grows the buffer at most once.
  BIN_SERIALIZER_INLINE bool reserve(std::size_t n) noexcept {
    return n <= static_cast<std::size_t>(end_ - cur_) || grow(n);
  }

  [[nodiscard]] std::size_t position() const noexcept {
    return static_cast<std::size_t>(cur_ - base_);
  }

  // The next n bytes to fill in place (a run of fixed-size fields, see
  // core/write_fields.hpp), or nullptr if the buffer cannot make room.
  BIN_SERIALIZER_INLINE std::byte* claim(std::size_t n) noexcept {
    if (!reserve(n)) [[unlikely]]
      return nullptr;
    std::byte* p = cur_;
    cur_ += n;
    return p;
  }

  // Failures are kept here and handed to the buffer only when the call gives
  // up (rollback), so the hot path never passes the buffer to an out-of-line
  // function and the compiler can keep everything in registers.
  bool fail(errc code) noexcept {
    err_ = {code, false, position()};
    return false;
  }

  // A successful call only ever appends, so a buffer that offers
  // commit_size() (no read-position clamp) gets the cheaper update.
  BIN_SERIALIZER_INLINE void commit() noexcept {
    if constexpr (requires { buf_.commit_size(position()); })
      buf_.commit_size(position());
    else
      buf_.set_size(position());
  }
  BIN_SERIALIZER_INLINE void rollback() noexcept {
    buf_.set_size(start_);
    record_error(buf_, err_);
  }

  // For serialize() of a presized message (presized_writer.hpp): the cursor,
  // its end, and moving it past what was written there; or the failure.
  [[nodiscard]] std::byte* cursor() const noexcept { return cur_; }
  [[nodiscard]] std::byte* base() const noexcept { return base_; }
  void advance_to(std::byte* p) noexcept { cur_ = p; }
  void fail_with(fault e) noexcept { err_ = e; }

  // For batch_writer: undo a failed value without giving up the batch.
  [[nodiscard]] std::size_t mark() const noexcept { return position(); }
  void rewind(std::size_t mark) noexcept { cur_ = base_ + mark; }
  void report() noexcept { record_error(buf_, err_); }

private:
  // Makes the buffer hold `used` written bytes plus room for n more. Static
  // and out of line: only a buffer that can actually grow ever gets here.
  // Grows the buffer to hold n more bytes; returns errc::ok or why not. A
  // buffer that records its own errors (MappedFile: io_error for a read-only
  // file, out_of_memory for a full disk) gets its reason reported, not a
  // generic one; its previous error is kept if growing succeeds.
  BIN_SERIALIZER_NOINLINE static errc grow_buffer(B& buf, std::size_t used,
                                                  std::size_t n) noexcept {
    constexpr std::size_t max = std::numeric_limits<std::size_t>::max();
    if (n > max - used) return errc::out_of_memory;
    // Publish what is written so far: reserve() keeps only size() bytes.
    buf.set_size(used);
    const std::size_t needed = used + n;
    const std::size_t cap = buf.capacity();
    const std::size_t doubled = cap > max / 2 ? max : cap * 2;
    [[maybe_unused]] error before{};
    if constexpr (ErrorRecordingBuffer<B>) {
      before = buf.last_error();
      buf.set_error({});
    }
    // Ask for geometric growth first (amortised O(1) appends), then for the
    // exact amount, which is all a fixed-capacity buffer can ever give.
    if ((doubled > needed && buf.reserve(doubled)) || buf.reserve(needed)) {
      if constexpr (ErrorRecordingBuffer<B>) buf.set_error(before);
      return errc::ok;
    }
    if constexpr (ErrorRecordingBuffer<B>) {
      // The reason is the call's to report (at rollback); the buffer keeps
      // its previous error meanwhile, in case the call goes on and succeeds
      // (serialize() asks again for the exact size when a bound is refused).
      const errc own = buf.last_error().code;
      buf.set_error(before);
      if (own != errc::ok) return own;
    }
    return errc::out_of_memory;
  }

  BIN_SERIALIZER_INLINE bool grow(std::size_t n) noexcept {
    const std::size_t used = position();
    if constexpr (fixed_capacity<B>) {
      return fail(errc::buffer_full); // cannot grow: no call, nothing escapes
    } else {
      if (const errc e = grow_buffer(buf_, used, n); e != errc::ok) return fail(e);
      base_ = buf_.data();
      cur_ = base_ + used;
      end_ = base_ + buf_.capacity();
      return true;
    }
  }

  B& buf_;
  std::byte* base_;
  std::byte* cur_;
  std::byte* end_;
  std::size_t start_;
  fault err_{};
};

// For buffers that only have write(). Each field is one write() call, and a
// failed call cannot be undone: provide the ContiguousWritableBuffer members
// to get rollback.
template <options Opts, WritableBuffer B>
class stream_writer {
public:
  static constexpr options opts = Opts;

  explicit stream_writer(B& buffer) noexcept : buf_(buffer) {}

  BIN_SERIALIZER_INLINE bool write_bytes(const void* src, std::size_t n) noexcept {
    if (!buf_.write(src, n)) return false; // the buffer records its own reason
    written_ += n;
    return true;
  }

  BIN_SERIALIZER_INLINE bool write_length(std::size_t n) noexcept {
    return put_length<format_of<Opts>>(*this, n);
  }

  BIN_SERIALIZER_INLINE bool reserve(std::size_t) noexcept { return true; }

  // Bytes written by this call (the buffer's own offset is not known).
  [[nodiscard]] std::size_t position() const noexcept { return written_; }

  bool fail(errc code) noexcept {
    record_error(buf_, {code, written_});
    return false;
  }

  void commit() noexcept {}
  void rollback() noexcept {}
  [[nodiscard]] std::size_t mark() const noexcept { return written_; }
  void rewind(std::size_t) noexcept {} // bytes already handed to write() stay
  void report() noexcept {}

private:
  B& buf_;
  std::size_t written_ = 0;
};

template <options Opts, class B>
struct writer_for_impl {
  using type = stream_writer<Opts, B>;
};
template <options Opts, ContiguousWritableBuffer B>
struct writer_for_impl<Opts, B> {
  using type = contiguous_writer<Opts, B>;
};
template <options Opts, class B>
using writer_for = typename writer_for_impl<Opts, B>::type;

template <options Opts>
struct counting_writer;

template <class W>
inline constexpr bool is_writer_v = false;
template <options Opts>
inline constexpr bool is_writer_v<counting_writer<Opts>> = true;
template <options Opts, class B>
inline constexpr bool is_writer_v<contiguous_writer<Opts, B>> = true;
template <options Opts, class B>
inline constexpr bool is_writer_v<stream_writer<Opts, B>> = true;

} // namespace bin_serializer::detail
