// std::basic_string_view<CharT>: [length in characters][each character's
// encoding], the bytes of the matching std::basic_string (std/string.hpp).
//
// Without this codec a string_view (trivially copyable) would be copied as an
// object: a pointer and a length, meaningless to the reader.
//
// Decoding (zero-copy, docs/zero-copy.md) points the view at the characters
// inside the input, so it needs a contiguous source (Buffer, FixedBuffer,
// BufferView) and is valid only while those bytes are alive and unchanged.
// Characters wider than one byte are used in place only when the format
// encodes them as this host's object bytes (native; portable on a
// little-endian host; a big-endian format on a big-endian host): decoding a
// view of characters in another byte order does not compile, encoding one
// does (each character through the format, as the std::basic_string). They
// must also sit at an address aligned for CharT; unaligned characters fail
// with errc::invalid_value at the offset of the first character (decode such
// data into the std::basic_string instead).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>
#include <type_traits>

#include "codec_support.hpp"
#include "../core/schema_tokens.hpp"

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

  // Fingerprint (core/schema_tokens.hpp): the std::basic_string one.
  template <class H>
  static constexpr void schema(H& h) {
    h.token(detail::schema::t_string, sizeof(CharT));
  }
  using view_type = std::basic_string_view<CharT, Traits>;

  // The characters are one block when the format encodes them as their
  // object bytes, else each is the format's encoding of the scalar: the
  // std::basic_string codec's rule, so the bytes always match.
  using string_codec = codec<std::basic_string<CharT, Traits>>;
  template <options Opts>
  static constexpr bool chars_as_block = string_codec::template chars_as_block<Opts>;
  template <options Opts>
  static constexpr std::size_t char_bytes = string_codec::template char_bytes<Opts>;

  template <class W>
  static bool write(W& w, const view_type& s) {
    static_assert(!detail::format_of<W::opts>::template refuses<CharT>,
                  "bin_serializer: std::wstring_view has no portable encoding (wchar_t is 2 "
                  "bytes on Windows, 4 elsewhere). Use std::u16string_view or "
                  "std::u32string_view.");
    string_codec::template check_portable<W::opts>();
    const std::size_t bytes = s.size() * char_bytes<W::opts>;
    if (!(w.reserve(detail::std_codec::length_prefix_size<W::opts>(s.size()) + bytes) &&
          w.write_length(s.size())))
      return false;
    if constexpr (chars_as_block<W::opts>) {
      // An empty view's data() may be null: never hand that to memcpy.
      return bytes == 0 || w.write_bytes(s.data(), bytes);
    } else {
      for (const CharT c : s)
        if (!detail::put_scalar<detail::format_of<W::opts>>(w, c)) return false;
      return true;
    }
  }

  template <options Opts>
  static constexpr std::size_t size(const view_type& s) noexcept {
    return detail::std_codec::length_prefix_size<Opts>(s.size()) + s.size() * char_bytes<Opts>;
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
                  "bin_serializer: this format does not store these characters as this host's "
                  "object bytes (another byte order), so a std::basic_string_view cannot point "
                  "at them in the input. Deserialize into the std::basic_string (e.g. "
                  "std::u16string) instead; encoding a view works.");
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
