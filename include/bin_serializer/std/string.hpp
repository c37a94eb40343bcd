// std::basic_string: [length in characters][each character's encoding], both
// as the format encodes a length and a CharT (format/format.hpp); in every
// format of the library a character takes sizeof(CharT) bytes.
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
#include <string_view>
#include <type_traits>

#include "../config.hpp"
#include "../format/copy.hpp"
#include "../cursor/reader.hpp"
#include "../cursor/writer.hpp"
#include "../options.hpp"
#include "../core/classify.hpp"
#include "../core/schema_tokens.hpp"

namespace bin_serializer {

namespace detail {
template <class C>
inline constexpr bool is_char_type =
    std::is_same_v<C, char> || std::is_same_v<C, char8_t> || std::is_same_v<C, char16_t> ||
    std::is_same_v<C, char32_t> || std::is_same_v<C, wchar_t>;

// Granularity for reading strings from a source that cannot say how much input
// is left: memory grows with the bytes actually received, not with the prefix.
inline constexpr std::size_t stream_chunk_bytes = std::size_t{64} * 1024;
} // namespace detail

template <class CharT, class Traits, class Alloc>
  requires detail::is_char_type<CharT>
struct codec<std::basic_string<CharT, Traits, Alloc>> {

  // Fingerprint (core/schema_tokens.hpp): STRING and the character size.
  template <class H>
  static constexpr void schema(H& h) {
    h.token(detail::schema::t_string, sizeof(CharT));
  }
  using string_type = std::basic_string<CharT, Traits, Alloc>;

  // What the library knows of the encoding (core/codec_facts.hpp): the
  // length prefix at least; size() exact, trusted for presizing
  // (cursor/presized_writer.hpp); a leaf, holding no nested values, so it
  // does not count against opts.max_depth.
  template <options Opts>
  static constexpr codec_facts facts{.min_size = detail::format_of<Opts>::length_min,
                                     .has_size = true,
                                     .has_size_bound = true,
                                     .trusted_size = true,
                                     .leaf = true};

  // Characters are copied as one block when the format encodes them as their
  // object bytes; otherwise each is the format's encoding of the scalar
  // (store_scalar / load_scalar: a host-independent format on a host of the
  // other byte order).
  template <options Opts>
  static constexpr bool chars_as_block =
      detail::format_of<Opts>::template object_bytes_scalar<CharT>;
  // Bytes one character takes: fixed in every format (format/format.hpp).
  template <options Opts>
  static constexpr std::size_t char_bytes = detail::format_of<Opts>::template scalar_max<CharT>;

  template <options Opts>
  static constexpr void check_portable() {
    static_assert(!detail::format_of<Opts>::template refuses<CharT>,
                  "bin_serializer: std::wstring has no portable encoding (wchar_t is 2 bytes on "
                  "Windows, 4 elsewhere). Use std::u16string or std::u32string.");
    static_assert(
        detail::format_of<Opts>::template scalar_min<CharT> == char_bytes<Opts>,
        "bin_serializer: a format must encode characters in a fixed width " "(format/format.hpp)");
  }

  template <class W>
  BIN_SERIALIZER_INLINE static bool write(W& w, const string_type& s) {
    check_portable<W::opts>();
    const std::size_t bytes = s.size() * char_bytes<W::opts>;
    using F = detail::format_of<W::opts>;
    if constexpr (chars_as_block<W::opts> && F::length_min == F::length_max &&
                  requires { w.claim(bytes); }) {
      // One capacity check for prefix and characters, both stored in place.
      // (A prefix of varying size is not measured first: the reserve below
      // is free where the message was presized.)
      std::byte* p = w.claim(F::length_size(s.size()) + bytes);
      if (p == nullptr) [[unlikely]]
        return false;
      p = F::store_length(p, s.size());
      detail::copy_bytes(p, s.data(), bytes);
      return true;
    } else {
      if (!(w.reserve(F::length_size(s.size()) + bytes) && w.write_length(s.size()))) return false;
      if constexpr (chars_as_block<W::opts>) {
        return w.write_bytes(s.data(), bytes);
      } else {
        for (const CharT c : s)
          if (!detail::put_scalar<F>(w, c)) return false;
        return true;
      }
    }
  }

  // s.size() == n afterwards, characters unspecified: shrinking only moves the
  // terminator (inline); growing takes an out-of-line path.
  BIN_SERIALIZER_INLINE static void set_length(string_type& s, std::size_t n) {
    // A reused string usually has the length already: then nothing to do
    // (and no call: GCC does not always inline resize()).
    if (const std::size_t old = s.size(); n != old) [[unlikely]] {
      if (n < old)
        s.resize(n);
      else
        grow_to(s, n);
    }
  }
  // The new characters are left for the caller's copy: not filled with
  // zeros first, where the library allows it. libstdc++ 12's
  // resize_and_overwrite hands the operation the new capacity, not n, when
  // it reallocates: the operation returns n, not what it was handed.
  BIN_SERIALIZER_NOINLINE static void grow_to(string_type& s, std::size_t n) {
    s.clear(); // nothing to carry over if this reallocates
#if defined(__cpp_lib_string_resize_and_overwrite)
    s.resize_and_overwrite(n, [n](CharT*, std::size_t) noexcept { return n; });
#else
    s.resize(n);
#endif
  }

  template <options Opts>
  static constexpr std::size_t size(const string_type& s) noexcept {
    return detail::format_of<Opts>::length_size(s.size()) + s.size() * char_bytes<Opts>;
  }
  template <options Opts>
  static constexpr std::size_t size_bound(const string_type& s) noexcept {
    return detail::format_of<Opts>::length_max + s.size() * char_bytes<Opts>;
  }

  template <class R>
  BIN_SERIALIZER_INLINE static bool read(R& r, string_type& s) {
    check_portable<R::opts>();
    std::size_t n = 0;
    if (!r.read_length(n, char_bytes<R::opts>, R::opts.max_string_length)) return false;
    if constexpr (!chars_as_block<R::opts>) {
      return read_each(r, s, n);
    } else if constexpr (R::contiguous) {
      // read_length proved n characters are present: one allocation, one copy.
      // (read_length checked n at sizeof(CharT) bytes each.)
      const std::byte* p = detail::take_counted(r, n * sizeof(CharT));
      if (p == nullptr) [[unlikely]]
        return false;
      if constexpr (sizeof(CharT) == 1) {
        // Not assign(): an out-of-line library routine several times the
        // cost of this for the short strings messages hold. A reused string
        // is usually as long as before: set the length, copy in place.
        set_length(s, n);
        using F = detail::format_of<R::opts>;
        if constexpr (F::length_min == F::length_max)
          detail::copy_string_bytes(s.data(), p, n);
        else
          // After a varint length (compact) clang then decodes Car in 2
          // more instructions, though strings alone in fewer
          // (bench/README.md): copy_bytes there.
          detail::copy_bytes(s.data(), p, n);
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

  // n characters, each decoded by the format (not this host's object bytes).
  // From a stream, memory grows with the characters received.
  template <class R>
  static bool read_each(R& r, string_type& s, std::size_t n) {
    using F = detail::format_of<R::opts>;
    s.clear();
    constexpr std::size_t chunk =
        R::contiguous ? ~std::size_t{0} : detail::stream_chunk_bytes / sizeof(CharT);
    for (std::size_t done = 0; done < n;) {
      const std::size_t step = std::min(chunk, n - done);
      s.resize(done + step);
      for (std::size_t i = done; i < done + step; ++i)
        if (!F::load_scalar(r, s[i])) return false;
      done += step;
    }
    return true;
  }
};

} // namespace bin_serializer
