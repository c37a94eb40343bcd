// std::basic_string_view<CharT>: [uint64 length in characters][length * sizeof(CharT) bytes],
// the bytes of the matching std::basic_string. A serialization source only.
//
// Without this codec a string_view (trivially copyable) would be copied as an
// object: a pointer and a length, meaningless to the reader.
#pragma once

#include <cstddef>
#include <string_view>
#include <type_traits>

#include "../detail/endian.hpp"
#include "codec_support.hpp"

namespace bin_serializer {

template <class CharT, class Traits>
  requires detail::is_char_type<CharT>
struct codec<std::basic_string_view<CharT, Traits>> {
  using view_type = std::basic_string_view<CharT, Traits>;

  template <options Opts>
  static constexpr std::size_t min_size = detail::std_codec::length_prefix_bytes;

  // The characters are one block unless the format needs each one
  // byte-swapped (portable format, multi-byte characters, big-endian host):
  // the same rule as the std::basic_string codec, so the bytes always match.
  template <options Opts>
  static constexpr bool chars_as_block =
      sizeof(CharT) == 1 || Opts.format == wire_format::native || detail::little_endian_host;

  template <class W>
  static bool write(W& w, const view_type& s) {
    static_assert(W::opts.format == wire_format::native || !std::is_same_v<CharT, wchar_t>,
                  "bin_serializer: std::wstring_view has no portable encoding (wchar_t is 2 "
                  "bytes on Windows, 4 elsewhere). Use std::u16string_view or "
                  "std::u32string_view.");
    const std::size_t bytes = s.size() * sizeof(CharT);
    if (!(w.reserve(detail::std_codec::length_prefix_bytes + bytes) && w.write_length(s.size())))
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
    return detail::std_codec::length_prefix_bytes + s.size() * sizeof(CharT);
  }

  template <class R>
  static bool read(R&, view_type&) {
    static_assert(detail::dependent_false<R>,
                  "bin_serializer: cannot deserialize into a std::basic_string_view: a view "
                  "does not own the characters, and views into the input buffer (zero-copy "
                  "decoding) are not supported yet. A string_view is encoded exactly like "
                  "the matching std::basic_string: deserialize into a std::string instead.");
    return false;
  }
};

} // namespace bin_serializer
