// The reader a deserialize() call drives, and what codec<T>::read receives.
//
// Interface used by codecs:
//   opts                          the call's options
//   read_bytes(p, n)              copy the next n bytes out
//   read_length(n, min_bytes[, max_count])
//                                 read a length/count prefix; fail unless n <=
//                                 max_count (default: opts.max_element_count;
//                                 limit_exceeded) and n items of at least
//                                 min_bytes each still fit in the input
//                                 (truncated), before anyone allocates for them
//   enter() / leave()             bracket a nested container; enter() fails
//                                 past opts.max_depth (limit_exceeded)
//   remaining()                   bytes left (SIZE_MAX when the source cannot tell)
//   position()                    offset of the next byte, from the buffer's start
//   fail(code, at)                record a failure detected at offset `at`; returns false
//   contiguous / take(n)          direct access to the next n bytes, when available
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <limits>

#include "../buffer/concepts.hpp"
#include "../config.hpp"
#include "../error.hpp"
#include "../options.hpp"
#include "../format/all.hpp"
#include "../format/access.hpp"
#include "writer.hpp" // record_error

namespace bin_serializer::detail {

// Checks a decoded count against what the input can still hold. Written as a
// division so a hostile count cannot overflow the multiplication.
// Most zero-size items (std::monostate, empty structs) a count may declare
// when the source cannot say how many bytes follow and no max_element_count
// is set.
inline constexpr std::size_t zero_size_stream_cap = std::size_t{1} << 16;

// Items that occupy no bytes are still bounded by the input size, so a count
// prefix alone can never make us allocate more elements than input bytes:
// each counts as one byte at least.
BIN_SERIALIZER_INLINE constexpr std::size_t bytes_per_item(std::size_t min_bytes) noexcept {
  return min_bytes == 0 ? 1 : min_bytes;
}

BIN_SERIALIZER_INLINE constexpr bool count_fits(std::uint64_t count, std::size_t min_bytes,
                                                std::size_t remaining) noexcept {
  return count <= remaining / bytes_per_item(min_bytes);
}

// A buffer the library builds for each message it decodes in a loop of its
// own (log/reader.hpp's payload_source) says so with a static member
// inline_reader: its reader's constructor is then always inlined, so that
// the buffer lives in registers. (Forced for every buffer, it costs g++'s
// inlining budget elsewhere: scripts/instructions.sh.)
template <class B>
concept inlined_reader_buffer = requires { requires B::inline_reader; };

// For buffers with direct access: a local cursor, published to the buffer
// (seek) only when the whole value decoded, so a failure leaves the read
// position where it was.
template <options Opts, ContiguousReadableBuffer B>
class contiguous_reader {
  struct inline_tag {};

public:
  static constexpr options opts = Opts;
  static constexpr bool contiguous = true;

  explicit contiguous_reader(B& buffer) noexcept
    requires(!inlined_reader_buffer<B>)
      : contiguous_reader(buffer, inline_tag{}) {}
  BIN_SERIALIZER_INLINE explicit contiguous_reader(B& buffer) noexcept
    requires(inlined_reader_buffer<B>)
      : contiguous_reader(buffer, inline_tag{}) {}

private:
  BIN_SERIALIZER_INLINE contiguous_reader(B& buffer, inline_tag) noexcept
      : buf_(buffer), base_(buffer.data()), cur_(base_ + buffer.read_position()),
        end_(base_ + buffer.size()) {
    if constexpr (Opts.max_total_bytes != unlimited) {
      // Reading past the clamp reports limit_exceeded rather than truncated.
      if (remaining() > Opts.max_total_bytes) {
        end_ = cur_ + Opts.max_total_bytes;
        clamped_ = true;
      }
    }
  }

public:
  BIN_SERIALIZER_INLINE bool read_bytes(void* dst, std::size_t n) noexcept {
    if (n > remaining()) [[unlikely]]
      return fail(short_input(), position());
    std::memcpy(dst, cur_, n);
    cur_ += n;
    return true;
  }

  // The next n bytes in place, or nullptr (failure recorded) if fewer remain.
  BIN_SERIALIZER_INLINE const std::byte* take(std::size_t n) noexcept {
    if (n > remaining()) [[unlikely]] {
      fail(short_input(), position());
      return nullptr;
    }
    const std::byte* p = cur_;
    cur_ += n;
    return p;
  }

  // take(n) for bytes a read_length(count, min_bytes) just proved present
  // (n <= count * min_bytes): no second comparison; debug builds check.
  BIN_SERIALIZER_INLINE const std::byte* take_counted(std::size_t n) noexcept {
#if BIN_SERIALIZER_DEBUG
    if (n > remaining()) std::abort();
#endif
    const std::byte* p = cur_;
    cur_ += n;
    return p;
  }

  // Moves the cursor to p, the end of what a run_reader over the bytes from
  // here on has read (cursor/run_reader.hpp, read_present): the run's cursor
  // becomes this one as it is, not recomputed from how far it went.
  BIN_SERIALIZER_INLINE void advance_to(const std::byte* p) noexcept {
#if BIN_SERIALIZER_DEBUG
    if (p < cur_ || p > end_) std::abort();
#endif
    cur_ = p;
  }

  BIN_SERIALIZER_INLINE bool read_length(std::size_t& n, std::size_t min_bytes,
                                         std::size_t max_count = Opts.max_element_count) noexcept {
    using F = format_of<Opts>;
    if constexpr (requires { F::short_length_bound; }) {
      // A length in one byte (format/format.hpp, short_length), checked
      // against the bytes after it in one comparison: the value is small, so
      // the count times its items' smallest size cannot overflow and needs no
      // division. Anything else (longer, too many, not enough bytes) takes
      // the general path below, which reports it.
      const std::size_t per_item = bytes_per_item(min_bytes); // as count_fits
      const std::size_t room = remaining();
      std::uint64_t v = 0;
      if (room != 0 && per_item <= SIZE_MAX / F::short_length_bound && F::short_length(cur_, v))
          [[likely]] {
        if (v <= max_count && v * per_item < room) [[likely]] {
          ++cur_;
          n = static_cast<std::size_t>(v);
          return true;
        }
      }
    }
    const std::size_t at = position();
    std::uint64_t v = 0;
    if (!F::load_length(*this, v)) return false;
    if (v > max_count) [[unlikely]]
      return fail(errc::limit_exceeded, at);
    if (!count_fits(v, min_bytes, remaining())) [[unlikely]]
      return fail(short_input(), at);
    n = static_cast<std::size_t>(v);
    return true;
  }

  BIN_SERIALIZER_INLINE bool enter() noexcept {
    if (depth_ >= Opts.max_depth) [[unlikely]]
      return fail(errc::limit_exceeded, position());
    ++depth_;
    return true;
  }
  BIN_SERIALIZER_INLINE void leave() noexcept { --depth_; }

  [[nodiscard]] std::size_t remaining() const noexcept {
    return static_cast<std::size_t>(end_ - cur_);
  }
  [[nodiscard]] std::size_t position() const noexcept {
    return static_cast<std::size_t>(cur_ - base_);
  }

  // Kept here and handed to the buffer only by rollback(): the hot path never
  // passes the buffer to an out-of-line call, so a BufferView built for one
  // message lives entirely in registers.
  bool fail(errc code, std::size_t at) noexcept {
    err_ = {code, false, at};
    return false;
  }
  // A failure with a schema_mismatch's values: they go to the buffer now,
  // and rollback() leaves them there.
  bool fail(const error& e) noexcept {
    record_error(buf_, e);
    err_ = {e.code, true, e.offset};
    return false;
  }

  BIN_SERIALIZER_INLINE void commit() noexcept { (void)buf_.seek(position()); }
  BIN_SERIALIZER_INLINE void rollback() noexcept {
    if (!err_.recorded) record_error(buf_, err_);
  }

private:
  // Running out of bytes is truncation, unless the bytes were cut off by
  // opts.max_total_bytes.
  [[nodiscard]] errc short_input() const noexcept {
    return clamped_ ? errc::limit_exceeded : errc::truncated;
  }

  B& buf_;
  const std::byte* base_;
  const std::byte* cur_;
  const std::byte* end_;
  std::size_t depth_ = 0;
  bool clamped_ = false;
  fault err_{};
};

template <class B>
concept seekable_reader = requires(B& b, const B& cb, std::size_t n) {
  { cb.read_position() } -> std::convertible_to<std::size_t>;
  b.seek(n);
};

// A buffer that wants to know where each value starts and whether it decoded
// (the stream and fd readers keep the value's bytes for the rewind).
template <class B>
concept value_bracketing = requires(B& b, bool ok) {
  b.begin_value();
  b.end_value(ok);
};

// For buffers that only have read(). If the buffer can also report and set its
// read position, a failed call seeks back; otherwise the bytes read are gone.
template <options Opts, ReadableBuffer B>
class stream_reader {
public:
  static constexpr options opts = Opts;
  static constexpr bool contiguous = false;

  explicit stream_reader(B& buffer) noexcept : buf_(buffer) {
    if constexpr (seekable_reader<B>) start_ = buffer.read_position();
    if constexpr (value_bracketing<B>) buffer.begin_value();
  }

  BIN_SERIALIZER_INLINE bool read_bytes(void* dst, std::size_t n) noexcept {
    if constexpr (Opts.max_total_bytes != unlimited) {
      if (n > Opts.max_total_bytes - consumed_) [[unlikely]]
        return fail(errc::limit_exceeded, position());
    }
    if (!buf_.read(dst, n)) return false; // the buffer records its own reason
    consumed_ += n;
    return true;
  }

  BIN_SERIALIZER_INLINE bool read_length(std::size_t& n, std::size_t min_bytes,
                                         std::size_t max_count = Opts.max_element_count) noexcept {
    const std::size_t at = position();
    std::uint64_t v = 0;
    if (!format_of<Opts>::load_length(*this, v)) return false;
    if (v > max_count) [[unlikely]]
      return fail(errc::limit_exceeded, at);
    const std::size_t left = source_remaining();
    if (left == unlimited && min_bytes == 0 && v > zero_size_stream_cap) [[unlikely]]
      // Items of no size from a source of unknown length: nothing bounds the
      // count, so cap it rather than loop (or allocate) on a hostile prefix.
      return fail(errc::limit_exceeded, at);
    if (!count_fits(v, min_bytes, left)) [[unlikely]]
      return fail(errc::truncated, at);
    if (!count_fits(v, min_bytes, remaining())) [[unlikely]]
      return fail(errc::limit_exceeded, at); // fits the input, not opts.max_total_bytes
    n = static_cast<std::size_t>(v);
    return true;
  }

  BIN_SERIALIZER_INLINE bool enter() noexcept {
    if (depth_ >= Opts.max_depth) [[unlikely]]
      return fail(errc::limit_exceeded, position());
    ++depth_;
    return true;
  }
  BIN_SERIALIZER_INLINE void leave() noexcept { --depth_; }

  // Bytes the source itself still holds (unlimited if it cannot tell).
  [[nodiscard]] std::size_t source_remaining() const noexcept {
    if constexpr (requires(const B& b) { b.remaining(); })
      return static_cast<std::size_t>(buf_.remaining());
    else
      return unlimited;
  }

  [[nodiscard]] std::size_t remaining() const noexcept {
    std::size_t left = source_remaining();
    if constexpr (Opts.max_total_bytes != unlimited) {
      const std::size_t budget = Opts.max_total_bytes - consumed_;
      if (budget < left) left = budget;
    }
    return left;
  }
  [[nodiscard]] std::size_t position() const noexcept { return start_ + consumed_; }

  BIN_SERIALIZER_NOINLINE bool fail(errc code, std::size_t at) noexcept {
    record_error(buf_, {code, at});
    return false;
  }
  BIN_SERIALIZER_NOINLINE bool fail(const error& e) noexcept {
    record_error(buf_, e);
    return false;
  }

  // A leaf read a byte at a time (a varint) whose input ran out part way:
  // the shortfall the source recorded is moved to the leaf's first byte, as a
  // contiguous reader reports it (docs/wire-format.md, error offsets).
  bool short_at(std::size_t at) noexcept {
    if constexpr (ErrorRecordingBuffer<B>) {
      const error e = buf_.last_error();
      if (e.code == errc::truncated || e.code == errc::limit_exceeded) buf_.set_error({e.code, at});
    }
    return false;
  }

  void commit() noexcept {
    if constexpr (value_bracketing<B>) buf_.end_value(true);
  }
  void rollback() noexcept {
    if constexpr (seekable_reader<B>) (void)buf_.seek(start_);
    if constexpr (value_bracketing<B>) buf_.end_value(false);
  }

private:
  B& buf_;
  std::size_t start_ = 0;
  std::size_t consumed_ = 0;
  std::size_t depth_ = 0;
};

template <options Opts, class B>
struct reader_for_impl {
  using type = stream_reader<Opts, B>;
};
template <options Opts, ContiguousReadableBuffer B>
struct reader_for_impl<Opts, B> {
  using type = contiguous_reader<Opts, B>;
};
template <options Opts, class B>
using reader_for = typename reader_for_impl<Opts, B>::type;

template <class R>
inline constexpr bool is_reader_v = false;
template <options Opts, class B>
inline constexpr bool is_reader_v<contiguous_reader<Opts, B>> = true;
template <options Opts, class B>
inline constexpr bool is_reader_v<stream_reader<Opts, B>> = true;

} // namespace bin_serializer::detail
