// std::basic_string: [uint64 length in characters][length * sizeof(CharT) bytes].
//
// Part of the core (the design document's only non-trivial type). Decoding
// checks the length against the remaining input before allocating, so a
// hostile prefix cannot make us reserve gigabytes.
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <cstddef>
#include <string>
#include <type_traits>

#include "../serializable.hpp"

namespace bin_serializer {

namespace detail {
template <class C>
inline constexpr bool is_char_type =
    std::is_same_v<C, char> || std::is_same_v<C, char8_t> || std::is_same_v<C, char16_t> ||
    std::is_same_v<C, char32_t> || std::is_same_v<C, wchar_t>;

template <class T>
inline constexpr bool is_std_string = false;
template <class C, class Tr, class A>
inline constexpr bool is_std_string<std::basic_string<C, Tr, A>> = true;

// Granularity for reading strings from a source that cannot say how much input
// is left: memory grows with the bytes actually received, not with the prefix.
inline constexpr std::size_t stream_chunk_bytes = std::size_t{64} * 1024;
} // namespace detail

template <class CharT, class Traits, class Alloc>
  requires detail::is_char_type<CharT>
struct codec<std::basic_string<CharT, Traits, Alloc>> {
  using string_type = std::basic_string<CharT, Traits, Alloc>;

  template <class W>
  static bool write(W& w, const string_type& s) {
    const std::size_t bytes = s.size() * sizeof(CharT);
    return w.reserve(sizeof(std::uint64_t) + bytes) && w.write_length(s.size()) &&
           w.write_bytes(s.data(), bytes);
  }

  template <options Opts>
  static constexpr std::size_t size(const string_type& s) noexcept {
    return sizeof(std::uint64_t) + s.size() * sizeof(CharT);
  }

  template <class R>
  static bool read(R& r, string_type& s) {
    std::size_t n = 0;
    if (!r.read_length(n, sizeof(CharT), R::opts.max_string_length)) return false;
    if constexpr (R::contiguous) {
      // read_length proved n characters are present: one allocation, one copy.
      const std::byte* p = r.take(n * sizeof(CharT));
      if constexpr (sizeof(CharT) == 1) {
        s.assign(reinterpret_cast<const CharT*>(p), n);
      } else {
        // Wider characters may sit unaligned in the input: copy bytes, not CharT.
        s.resize(n);
        if (n != 0) std::memcpy(s.data(), p, n * sizeof(CharT));
      }
      return true;
    } else {
      s.clear();
      constexpr std::size_t chunk = detail::stream_chunk_bytes / sizeof(CharT);
      for (std::size_t done = 0; done < n;) {
        const std::size_t step = std::min(chunk, n - done);
        s.resize(done + step);
        if (!r.read_bytes(s.data() + done, step * sizeof(CharT))) return false;
        done += step;
      }
      return true;
    }
  }
};

} // namespace bin_serializer
