// The reader a deserialize() call drives, and what codec<T>::read receives.
//
// Interface used by codecs:
//   opts                          the call's options
//   read_bytes(p, n)              copy the next n bytes out
//   read_length(n, min_bytes)     read a length/count prefix and check that n
//                                 items of at least min_bytes each can still be
//                                 in the input, before anyone allocates for them
//   remaining()                   bytes left (SIZE_MAX when the source cannot tell)
//   position()                    offset of the next byte, from the buffer's start
//   fail(code, at)                record a failure detected at offset `at`; returns false
//   contiguous / take(n)          direct access to the next n bytes, when available
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <limits>

#include "../buffer_concept.hpp"
#include "../config.hpp"
#include "../error.hpp"
#include "../options.hpp"
#include "writer.hpp" // record_error

namespace bin_serializer::detail {

// Checks a decoded count against what the input can still hold. Written as a
// division so a hostile count cannot overflow the multiplication.
BIN_SERIALIZER_INLINE constexpr bool count_fits(std::uint64_t count, std::size_t min_bytes,
                                                std::size_t remaining) noexcept {
  // Items that occupy no bytes are still bounded by the input size, so a count
  // prefix alone can never make us allocate more elements than input bytes.
  const std::size_t per_item = min_bytes == 0 ? 1 : min_bytes;
  return count <= remaining / per_item;
}

// For buffers with direct access: a local cursor, published to the buffer
// (seek) only when the whole value decoded, so a failure leaves the read
// position where it was.
template <options Opts, ContiguousReadableBuffer B>
class contiguous_reader {
public:
  static constexpr options opts = Opts;
  static constexpr bool contiguous = true;

  explicit contiguous_reader(B& buffer) noexcept
      : buf_(buffer), base_(buffer.data()), cur_(base_ + buffer.read_position()),
        end_(base_ + buffer.size()) {}

  BIN_SERIALIZER_INLINE bool read_bytes(void* dst, std::size_t n) noexcept {
    if (n > remaining()) [[unlikely]]
      return fail(errc::truncated, position());
    std::memcpy(dst, cur_, n);
    cur_ += n;
    return true;
  }

  // The next n bytes in place, or nullptr (failure recorded) if fewer remain.
  BIN_SERIALIZER_INLINE const std::byte* take(std::size_t n) noexcept {
    if (n > remaining()) [[unlikely]] {
      fail(errc::truncated, position());
      return nullptr;
    }
    const std::byte* p = cur_;
    cur_ += n;
    return p;
  }

  BIN_SERIALIZER_INLINE bool read_length(std::size_t& n, std::size_t min_bytes) noexcept {
    const std::size_t at = position();
    std::uint64_t v = 0;
    if (!read_bytes(&v, sizeof v)) return false;
    if (!count_fits(v, min_bytes, remaining())) [[unlikely]]
      return fail(errc::truncated, at);
    n = static_cast<std::size_t>(v);
    return true;
  }

  [[nodiscard]] std::size_t remaining() const noexcept {
    return static_cast<std::size_t>(end_ - cur_);
  }
  [[nodiscard]] std::size_t position() const noexcept {
    return static_cast<std::size_t>(cur_ - base_);
  }

  bool fail(errc code, std::size_t at) noexcept { return fail_at(buf_, code, at); }

  void commit() noexcept { (void)buf_.seek(position()); }
  void rollback() noexcept {}

private:
  // Static so the reader's address never escapes (see contiguous_writer).
  BIN_SERIALIZER_NOINLINE static bool fail_at(B& buf, errc code, std::size_t at) noexcept {
    record_error(buf, {code, at});
    return false;
  }

  B& buf_;
  const std::byte* base_;
  const std::byte* cur_;
  const std::byte* end_;
};

template <class B>
concept seekable_reader = requires(B& b, const B& cb, std::size_t n) {
  { cb.read_position() } -> std::convertible_to<std::size_t>;
  b.seek(n);
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
  }

  BIN_SERIALIZER_INLINE bool read_bytes(void* dst, std::size_t n) noexcept {
    if (!buf_.read(dst, n)) return false; // the buffer records its own reason
    consumed_ += n;
    return true;
  }

  BIN_SERIALIZER_INLINE bool read_length(std::size_t& n, std::size_t min_bytes) noexcept {
    const std::size_t at = position();
    std::uint64_t v = 0;
    if (!read_bytes(&v, sizeof v)) return false;
    if (!count_fits(v, min_bytes, remaining())) [[unlikely]]
      return fail(errc::truncated, at);
    n = static_cast<std::size_t>(v);
    return true;
  }

  [[nodiscard]] std::size_t remaining() const noexcept {
    if constexpr (requires(const B& b) { b.remaining(); })
      return static_cast<std::size_t>(buf_.remaining());
    else
      return std::numeric_limits<std::size_t>::max();
  }
  [[nodiscard]] std::size_t position() const noexcept { return start_ + consumed_; }

  BIN_SERIALIZER_NOINLINE bool fail(errc code, std::size_t at) noexcept {
    record_error(buf_, {code, at});
    return false;
  }

  void commit() noexcept {}
  void rollback() noexcept {
    if constexpr (seekable_reader<B>) (void)buf_.seek(start_);
  }

private:
  B& buf_;
  std::size_t start_ = 0;
  std::size_t consumed_ = 0;
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
