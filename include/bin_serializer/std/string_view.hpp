// std::basic_string_view<CharT>: [length in characters][the characters], the
// bytes of the matching std::basic_string (the length is the format's length
// prefix, format/<name>.hpp).
//
// Without this codec a string_view (trivially copyable) would be copied as an
// object: a pointer and a length, meaningless to the reader.
//
// Decoding (zero-copy, docs/zero-copy.md) points the view at the characters
// inside the input, so it needs a contiguous source (Buffer, FixedBuffer,
// BufferView) and is valid only while those bytes are alive and unchanged.
// Characters wider than one byte are used in place only when their bytes
// already are host characters (native format, or portable on a little-endian
// host; anything else does not compile) and sit at an address aligned for
// CharT; unaligned characters fail with errc::invalid_value at the offset of
// the first character (decode such data into the std::basic_string instead).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>
#include <type_traits>

#include "../format/endian.hpp"
#include "codec_support.hpp"
#include "../frame/schema_tokens.hpp"

namespace bin_serializer {

template <class CharT, class Traits>
  requires detail::is_char_type<CharT>
struct codec<std::basic_string_view<CharT, Traits>> {
  // What the library knows of the encoding (core/codec_facts.hpp). A leaf:
  // holds no nested values, so does not count against opts.max_depth. A
  // decoded value points into the input bytes (borrows_input_v).
  template <options Opts>
  static constexpr codec_facts facts{.min_size = detail::std_codec::length_prefix_min<Opts>,
                                     .has_size = true,
                                     .leaf = true,
                                     .borrows = true};

  // Fingerprint (frame/schema_tokens.hpp): the std::basic_string one.
  template <class H>
  static constexpr void schema(H& h) {
    h.token(detail::schema::t_string, sizeof(CharT));
  }
  using view_type = std::basic_string_view<CharT, Traits>;

  // The characters are one block unless the format encodes each as its
  // little-endian bytes and the host is big-endian: the same rule as the
  // std::basic_string codec, so the bytes always match.
  template <options Opts>
  static constexpr bool chars_as_block =
      detail::format_of<Opts>::template object_bytes_scalar<CharT>;

  template <class W>
  static bool write(W& w, const view_type& s) {
    static_assert(!detail::format_of<W::opts>::template refuses<CharT>,
                  "bin_serializer: std::wstring_view has no portable encoding (wchar_t is 2 "
                  "bytes on Windows, 4 elsewhere). Use std::u16string_view or "
                  "std::u32string_view.");
    const std::size_t bytes = s.size() * sizeof(CharT);
    if (!(w.reserve(detail::std_codec::length_prefix_size<W::opts>(s.size()) + bytes) &&
          w.write_length(s.size())))
      return false;
    if constexpr (chars_as_block<W::opts>) {
      // An empty view's data() may be null: never hand that to memcpy.
      return bytes == 0 || w.write_bytes(s.data(), bytes);
    } else {
      for (const CharT c : s) {
        const auto bits = detail::to_little(c);
        if (!w.write_bytes(&bits, sizeof bits)) return false;
      }
      return true;
    }
  }

  template <options Opts>
  static constexpr std::size_t size(const view_type& s) noexcept {
    return detail::std_codec::length_prefix_size<Opts>(s.size()) + s.size() * sizeof(CharT);
  }

  template <class R>
  static bool read(R& r, view_type& s) {
    static_assert(R::contiguous,
                  "bin_serializer: cannot deserialize into a std::basic_string_view from a "
                  "stream: the view points into the input bytes, so it needs a contiguous "
                  "buffer (Buffer, FixedBuffer<N>, BufferView). Read the message into one of "
                  "those first, or deserialize into a std::string instead (same bytes).");
    static_assert(!detail::format_of<R::opts>::template refuses<CharT>,
                  "bin_serializer: std::wstring_view has no portable encoding (wchar_t is 2 "
                  "bytes on Windows, 4 elsewhere). Use std::u16string_view or "
                  "std::u32string_view.");
    static_assert(chars_as_block<R::opts>,
                  "bin_serializer: on this big-endian host the portable format stores these "
                  "characters byte-swapped, so a view cannot use them in place. Deserialize "
                  "into the std::basic_string (e.g. std::u16string) instead.");
    std::size_t n = 0;
    if (!r.read_length(n, sizeof(CharT), R::opts.max_string_length)) return false;
    const std::size_t at = r.position();
    const std::byte* p = r.take(n * sizeof(CharT));
    if (p == nullptr) return false;
    if constexpr (sizeof(CharT) > 1) {
      if (n == 0) {
        s = view_type{};
        return true;
      }
      if (reinterpret_cast<std::uintptr_t>(p) % alignof(CharT) != 0) [[unlikely]]
        return r.fail(errc::invalid_value, at); // a CharT* there would be misaligned
    }
    s = view_type(reinterpret_cast<const CharT*>(p), n);
    return true;
  }
};

} // namespace bin_serializer
