// std::vector<T, A>:    [count][count elements]
// std::vector<bool, A>: [count][count bytes, each 0 or 1]
// (the count is the format's length prefix, format/<name>.hpp)
//
// Elements whose encoding is their object bytes (trivially copyable, nothing
// the format checks such as bool or a ranged enum, no pointer; see
// codec_support.hpp) are written with one write_bytes and read with one copy,
// so a vector of a million floats is a single memcpy each way. Everything else
// goes element by element through serialize_field / deserialize_field, which
// is also what validates bool elements and refuses pointers.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "codec_support.hpp"
#include "../core/schema_tokens.hpp"

namespace bin_serializer {

template <class T, class A>
struct codec<std::vector<T, A>> {
  // What Serializable<T> checks inside (core/classify.hpp).
  using elements = detail::type_list<T>;

  // Fingerprint (core/schema_tokens.hpp): SEQUENCE, then the element.
  template <class H>
  static constexpr void schema(H& h) {
    h.token(detail::schema::t_sequence);
    h.template type<T>();
  }
  using vector_type = std::vector<T, A>;

  // What the library knows of the encoding (core/codec_facts.hpp). size() is
  // exact: trusted for presizing (cursor/presized_writer.hpp) when the
  // elements' sizes are.
  template <options Opts>
  static constexpr codec_facts facts{.min_size = detail::std_codec::length_prefix_min<Opts>,
                                     .has_size = true,
                                     .has_size_bound = true,
                                     .trusted_size = true};

  template <class W>
  BIN_SERIALIZER_INLINE static bool write(W& w, const vector_type& v) {
    return detail::std_codec::write_counted(w, v.data(), v.size());
  }

  template <options Opts>
  static constexpr std::size_t size(const vector_type& v) {
    return detail::std_codec::length_prefix_size<Opts>(v.size()) +
           detail::std_codec::elements_size<Opts, T>(v, v.size());
  }
  template <options Opts>
  static constexpr std::size_t size_bound(const vector_type& v) {
    return detail::format_of<Opts>::length_max +
           detail::std_codec::elements_size_bound<Opts, T>(v, v.size());
  }

  template <class R>
  BIN_SERIALIZER_INLINE static bool read(R& r, vector_type& v) {
    namespace sc = detail::std_codec;
    sc::refuse_pointers<R::opts, T>();
    sc::require_default_constructible<T>();
    std::size_t n = 0;
    if (!r.read_length(n, sc::min_size_of<R::opts, T>())) return false;
    if constexpr (sc::is_object_bytes<R::opts, T>()) {
      return sc::read_object_bytes_into(r, v, n);
    } else if constexpr (sc::reads_scalar_groups<R, T>()) {
      return sc::read_scalar_groups(r, v, n);
    } else {
      // Decode into the elements the vector already holds first: their
      // strings and nested containers keep their capacity, so decoding a
      // message into a reused object allocates nothing. Then append what is
      // missing, or drop the surplus. (As for any decoded object, members not
      // on the wire, i.e. left out of reflect(), keep their previous values.)
      // (Size and data read once: decoding an element cannot move them.)
      const std::size_t have = v.size();
      const std::size_t reuse = n < have ? n : have;
      T* const elements = v.data();
      T* failed = nullptr; // the element that did not decode
      const bool reused =
          sc::read_elements<T>(r, reuse, [&](auto& in) BIN_SERIALIZER_LAMBDA_INLINE {
            // The element by pointer, the trip count by a counter: clang then
            // steps an address instead of scaling an index, and g++ keeps a
            // count it knows (against a pointer bound it recomputes the
            // loop's final cursor with a division).
            T* e = elements;
            for (std::size_t left = reuse; left != 0; --left, ++e)
              if (!sc::read_element(in, *e)) [[unlikely]] {
                failed = e;
                return false;
              }
            return true;
          });
      if (!reused) [[unlikely]] {
        v.erase(v.begin() + (failed - elements) + 1, v.end());
        return false;
      }
      if (n <= have) {
        if (n < have) v.erase(v.begin() + static_cast<std::ptrdiff_t>(n), v.end());
        return true;
      }
      v.reserve(reuse + sc::reserve_hint<T>(n - reuse, r.remaining()));
      return sc::read_appending(r, v, n - reuse);
    }
  }
};

// One byte per element, not packed bits: simple, byte-addressable, and every
// byte can be checked (decoding rejects anything but 0 and 1, unless
// opts.validate_values is off: then any non-zero byte is true).
template <class A>
struct codec<std::vector<bool, A>> {

  // Fingerprint (core/schema_tokens.hpp): SEQUENCE of bool.
  template <class H>
  static constexpr void schema(H& h) {
    h.token(detail::schema::t_sequence);
    h.template type<bool>();
  }
  using vector_type = std::vector<bool, A>;

  // What the library knows of the encoding (core/codec_facts.hpp).
  template <options Opts>
  static constexpr codec_facts facts{.min_size = detail::std_codec::length_prefix_min<Opts>,
                                     .has_size = true,
                                     .trusted_size = true};

  // Bytes staged on the stack per write_bytes / read_bytes call.
  static constexpr std::size_t block = 256;

  template <class W>
  static bool write(W& w, const vector_type& v) {
    const std::size_t n = v.size();
    if (!(w.reserve(detail::std_codec::length_prefix_size<W::opts>(n) + n) && w.write_length(n)))
      return false;
    unsigned char bytes[block];
    std::size_t filled = 0;
    for (const bool bit : v) {
      bytes[filled++] = bit ? 1 : 0;
      if (filled == block) {
        if (!w.write_bytes(bytes, filled)) return false;
        filled = 0;
      }
    }
    return filled == 0 || w.write_bytes(bytes, filled);
  }

  template <options Opts>
  static constexpr std::size_t size(const vector_type& v) noexcept {
    return detail::std_codec::length_prefix_size<Opts>(v.size()) + v.size();
  }

  template <class R>
  static bool read(R& r, vector_type& v) {
    std::size_t n = 0;
    if (!r.read_length(n, 1)) return false;
    v.clear();
    v.reserve(detail::std_codec::reserve_hint<bool>(n, r.remaining()));
    if constexpr (R::contiguous) {
      const std::size_t at = r.position();
      const std::byte* p = r.take(n);
      if (p == nullptr) return false;
      return append_checked(r, v, p, n, at);
    } else {
      std::byte bytes[block];
      for (std::size_t done = 0; done < n;) {
        const std::size_t step = std::min(block, n - done);
        const std::size_t at = r.position();
        if (!r.read_bytes(bytes, step)) return false;
        if (!append_checked(r, v, bytes, step, at)) return false;
        done += step;
      }
      return true;
    }
  }

private:
  // Appends n bytes as bools; `at` is the offset of p[0], for the error.
  template <class R>
  static bool append_checked([[maybe_unused]] R& r, vector_type& v, const std::byte* p,
                             std::size_t n, [[maybe_unused]] std::size_t at) {
    for (std::size_t i = 0; i < n; ++i) {
      const auto b = static_cast<unsigned char>(p[i]);
      if constexpr (R::opts.validate_values) {
        if (b > 1) [[unlikely]]
          return r.fail(errc::invalid_value, at + i);
      }
      v.push_back(b != 0);
    }
    return true;
  }
};

} // namespace bin_serializer
