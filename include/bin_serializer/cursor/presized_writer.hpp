// The writer for a message whose exact size was reserved before writing.
//
// serialize() into a buffer with direct access first measures the message
// (serialized_size, or a constant for fixed-size types) and makes room for all
// of it at once; that is the call's one capacity check. What follows can then
// not run out of room, so this writer stores without checking: the string's
// prefix and characters, a vector's count and elements, each field of a run.
// It is used only when every part of the type has a size the library itself
// computes (presizable in core/run_layout.hpp, asked by core/encode.hpp); a
// type holding a user codec is written by the checked contiguous_writer
// instead, because a user's size() is not trusted with the buffer's bounds. Debug builds (BIN_SERIALIZER_DEBUG) still check
// every store against the reserved end and abort on a mismatch.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <type_traits>

#include "../config.hpp"
#include "../error.hpp"
#include "../options.hpp"
#include "../format/copy.hpp"
#include "writer.hpp"

namespace bin_serializer::detail {

template <options Opts>
class presized_writer {
public:
  static constexpr options opts = Opts;

  BIN_SERIALIZER_INLINE presized_writer(std::byte* base, std::byte* cur,
                                        [[maybe_unused]] std::byte* end) noexcept
      : base_(base), cur_(cur)
#if BIN_SERIALIZER_DEBUG
        ,
        end_(end)
#endif
  {
  }

  BIN_SERIALIZER_INLINE bool write_bytes(const void* src, std::size_t n) noexcept {
    check(n);
    copy_bytes(cur_, src, n);
    cur_ += n;
    return true;
  }

  BIN_SERIALIZER_INLINE bool write_length(std::size_t n) noexcept {
    using F = format_of<Opts>;
    check(F::length_size(n));
    cur_ = F::store_length(cur_, n);
    return true;
  }

  BIN_SERIALIZER_INLINE bool reserve(std::size_t) noexcept { return true; }

  // A leaf the format encodes in place (format/format.hpp, put_scalar): the
  // message's exact size was reserved, so it fits whatever its length.
  template <std::size_t Max, class Store>
  BIN_SERIALIZER_INLINE bool store_at(Store&& store) noexcept {
    std::byte* end = store(cur_);
    check(static_cast<std::size_t>(end - cur_));
    cur_ = end;
    return true;
  }

  // The next n bytes, never null: the room was reserved for the message.
  BIN_SERIALIZER_INLINE std::byte* claim(std::size_t n) noexcept {
    check(n);
    std::byte* p = cur_;
    cur_ += n;
    return p;
  }

  [[nodiscard]] std::size_t position() const noexcept {
    return static_cast<std::size_t>(cur_ - base_);
  }
  [[nodiscard]] std::byte* cursor() const noexcept { return cur_; }

  // A value the format cannot encode (a valueless variant, an evolvable body
  // over 4 GiB): the call fails and the caller rolls the buffer back.
  bool fail(errc code) noexcept {
    err_ = {code, false, position()};
    return false;
  }
  [[nodiscard]] fault failure() const noexcept { return err_; }

private:
  BIN_SERIALIZER_INLINE void check([[maybe_unused]] std::size_t n) const noexcept {
#if BIN_SERIALIZER_DEBUG
    // serialized_size and write disagree: a library bug, never silently
    // written past the reservation.
    if (n > static_cast<std::size_t>(end_ - cur_)) std::abort();
#endif
  }

  std::byte* base_;
  std::byte* cur_;
#if BIN_SERIALIZER_DEBUG
  std::byte* end_;
#endif
  fault err_{};
};

template <options Opts>
inline constexpr bool is_writer_v<presized_writer<Opts>> = true;

} // namespace bin_serializer::detail
