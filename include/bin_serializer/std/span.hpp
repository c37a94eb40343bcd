// std::span<T, E>: [count][count elements], the bytes of std::vector<T> (the
// count is the format's length prefix, format/<name>.hpp).
//
// Any span can be serialized. Decoding is zero-copy and limited to spans of
// const bytes (std::byte, char, signed/unsigned char, char8_t; std::uint8_t is
// unsigned char) with dynamic extent: the span is pointed at the elements
// inside a contiguous input (docs/zero-copy.md), which has no alignment
// requirement for one-byte elements. Wider elements could be misaligned in the
// input, so those decode into bin_serializer::array_view<T> (which copies each
// element out) or a std::vector<T>.
#pragma once

#include <cstddef>
#include <span>
#include <type_traits>

#include "codec_support.hpp"
#include "../core/schema_tokens.hpp"

namespace bin_serializer {

namespace detail {
template <class T>
inline constexpr bool is_byte_like =
    std::is_same_v<T, std::byte> || std::is_same_v<T, char> || std::is_same_v<T, signed char> ||
    std::is_same_v<T, unsigned char> || std::is_same_v<T, char8_t>;
} // namespace detail

template <class T, std::size_t Extent>
struct codec<std::span<T, Extent>> {
  // What the library knows of the encoding (core/codec_facts.hpp). A decoded
  // value points into the input bytes (core/shape.hpp, borrows_input_v).
  template <options Opts>
  static constexpr codec_facts facts{
      .min_size = detail::std_codec::length_prefix_min<Opts>, .has_size = true, .borrows = true};

  // Fingerprint (core/schema_tokens.hpp): SEQUENCE (a count at any extent), then the element.
  template <class H>
  static constexpr void schema(H& h) {
    h.token(detail::schema::t_sequence);
    h.template type<std::remove_cv_t<T>>();
  }
  using span_type = std::span<T, Extent>;
  using element_type = std::remove_cv_t<T>;

  template <class W>
  static bool write(W& w, const span_type& s) {
    return detail::std_codec::write_counted(w, s.data(), s.size());
  }

  template <options Opts>
  static constexpr std::size_t size(const span_type& s) {
    return detail::std_codec::length_prefix_size<Opts>(s.size()) +
           detail::std_codec::elements_size<Opts, element_type>(s, s.size());
  }

  template <class R>
  static bool read(R& r, span_type& s) {
    static_assert(detail::is_byte_like<element_type> && Extent == std::dynamic_extent,
                  "bin_serializer: cannot deserialize into a std::span of this type: a span "
                  "only views memory owned by someone else. Zero-copy decoding supports "
                  "std::span<const std::byte> (or const char / unsigned char / std::uint8_t) "
                  "only; a span is encoded exactly like a std::vector of its elements, so "
                  "deserialize into a std::vector<T> instead, or into a "
                  "bin_serializer::array_view<T> to view the elements in place.");
    // One message at a time: each check only once the ones before it hold.
    static_assert(!(detail::is_byte_like<element_type> && Extent == std::dynamic_extent) ||
                      std::is_const_v<T>,
                  "bin_serializer: a span decoded from the input views read-only bytes: "
                  "declare it as std::span<const std::byte> (const element type).");
    static_assert(!(detail::is_byte_like<element_type> && Extent == std::dynamic_extent &&
                    std::is_const_v<T>) ||
                      R::contiguous,
                  "bin_serializer: cannot deserialize into a std::span from a stream: the span "
                  "points into the input bytes, so it needs a contiguous buffer (Buffer, "
                  "FixedBuffer<N>, BufferView). Read the message into one of those first, or "
                  "deserialize into a std::vector instead (same bytes).");
    if constexpr (detail::is_byte_like<element_type> && Extent == std::dynamic_extent &&
                  std::is_const_v<T> && R::contiguous) {
      std::size_t n = 0;
      if (!r.read_length(n, 1)) return false;
      const std::byte* p = r.take(n);
      if (p == nullptr) return false;
      s = span_type(reinterpret_cast<T*>(p), n);
      return true;
    } else {
      (void)r;
      (void)s;
      return false;
    }
  }
};

} // namespace bin_serializer
