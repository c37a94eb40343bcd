// BufferView: a read-only cursor over bytes owned by someone else (a socket's
// receive buffer, a memory-mapped file, a Buffer). Decoding from it copies
// nothing into an intermediate buffer; the bytes must outlive the view.
#pragma once

#include <cstddef>
#include <cstring>
#include <ranges>
#include <span>
#include <type_traits>

#include "../config.hpp"
#include "../error.hpp"

namespace bin_serializer {

// Element types whose objects are single bytes: a range of them can be
// viewed as bytes.
template <class E>
concept byte_like =
    std::is_same_v<E, std::byte> || std::is_same_v<E, char> || std::is_same_v<E, signed char> ||
    std::is_same_v<E, unsigned char> || std::is_same_v<E, char8_t>;

// A contiguous, sized range of byte-like elements: std::vector<char>,
// std::string, std::string_view, std::array<unsigned char, N>,
// std::span<const std::uint8_t>, a C array of std::byte, ...
template <class R>
concept contiguous_bytes = std::ranges::contiguous_range<R> && std::ranges::sized_range<R> &&
                           byte_like<std::remove_cv_t<std::ranges::range_value_t<R>>>;

class BufferView;

class BufferView {
public:
  constexpr BufferView() noexcept = default;
  constexpr BufferView(std::span<const std::byte> bytes) noexcept // NOLINT: implicit by design
      : data_(bytes.empty() ? empty_bytes() : bytes.data()), size_(bytes.size()) {}
  BufferView(const void* data, std::size_t size) noexcept
      : data_(size == 0 ? empty_bytes() : static_cast<const std::byte*>(data)), size_(size) {}
  // Any contiguous range of bytes or chars that outlives the view: an lvalue
  // container (std::vector<char>, std::string, std::vector<std::byte>) or a
  // borrowed range (std::span<const unsigned char>, std::string_view). A
  // temporary container does not compile: the view would dangle.
  template <class R>
    requires contiguous_bytes<R> && (!std::is_same_v<std::remove_cvref_t<R>, BufferView>) &&
             (std::is_lvalue_reference_v<R> || std::ranges::borrowed_range<R>) &&
             (!std::is_same_v<std::remove_cvref_t<R>, std::span<const std::byte>>)
  BufferView(R&& bytes) noexcept // NOLINT: implicit by design, like the span constructor
      : BufferView(static_cast<const void*>(std::ranges::data(bytes)),
                   static_cast<std::size_t>(std::ranges::size(bytes))) {}
  // A temporary container (std::vector<std::byte>&&) would otherwise reach
  // the std::span constructor, which accepts one, and the view would dangle
  // at once: keep the container in a variable and view that.
  template <class R>
    requires contiguous_bytes<R> && (!std::is_lvalue_reference_v<R>) &&
                 (!std::ranges::borrowed_range<R>)
  BufferView(R&&) = delete;

  // Copies the next n bytes out; false (position unchanged, last_error() =
  // truncated) if fewer than n remain.
  BIN_SERIALIZER_INLINE bool read(void* dst, std::size_t n) noexcept {
    if (n > size_ - rpos_) [[unlikely]] {
      err_ = {errc::truncated, rpos_};
      return false;
    }
    if (n != 0) std::memcpy(dst, data_ + rpos_, n); // dst may be null when n == 0
    rpos_ += n;
    return true;
  }

  [[nodiscard]] constexpr const std::byte* data() const noexcept { return data_; }
  [[nodiscard]] constexpr std::size_t size() const noexcept { return size_; }
  [[nodiscard]] constexpr std::span<const std::byte> bytes() const noexcept {
    return {data_, size_};
  }
  // read() is all deserialize() needs for a value that is one copy of its
  // object bytes (core/decode.hpp, read_object_directly): the same checks
  // and the same failure (truncated, at read_position()). Without the reader,
  // g++ no longer tests for an empty view apart from the size check (a
  // 12-byte struct: 12 instructions, not 13; scripts/instructions.sh).
  static constexpr bool reads_objects_directly = true;

  [[nodiscard]] constexpr std::size_t read_position() const noexcept { return rpos_; }
  [[nodiscard]] constexpr std::size_t remaining() const noexcept { return size_ - rpos_; }
  constexpr bool seek(std::size_t pos) noexcept {
    if (pos > size_) return false;
    rpos_ = pos;
    return true;
  }

  [[nodiscard]] constexpr error last_error() const noexcept { return err_; }
  constexpr void set_error(error e) noexcept { err_ = e; }

private:
  // Never null, so a zero-byte memcpy from an empty view is well defined.
  static constexpr const std::byte* empty_bytes() noexcept { return &empty_; }
  static constexpr std::byte empty_{};

  const std::byte* data_ = empty_bytes();
  std::size_t size_ = 0;
  std::size_t rpos_ = 0;
  error err_{};
};

} // namespace bin_serializer
