// std::set, std::multiset, std::unordered_set, std::unordered_multiset:
//   [count][count keys]
// (the count is the format's length prefix, format/<name>.hpp)
//
// Keys go out in the container's iteration order. Decoding clears the target
// and inserts key by key (at end(), so sorted input costs O(1) per key). A key
// that a set with unique keys already holds is rejected with
// errc::invalid_value at the offset of that key.
#pragma once

#include <cstddef>
#include <set>
#include <type_traits>
#include <unordered_set>
#include <utility>

#include "codec_support.hpp"
#include "../core/schema_tokens.hpp"

namespace bin_serializer {

namespace detail::std_codec {

template <class S, bool UniqueKeys>
struct set_codec {
  using key_type = typename S::key_type;
  // What Serializable<T> checks inside (core/classify.hpp).
  using elements = detail::type_list<key_type>;

  // Fingerprint (core/schema_tokens.hpp): SET, then the key.
  template <class H>
  static constexpr void schema(H& h) {
    h.token(detail::schema::t_set);
    h.template type<key_type>();
  }

  // What the library knows of the encoding (core/codec_facts.hpp).
  template <options Opts>
  static constexpr codec_facts facts{.min_size = length_prefix_min<Opts>, .has_size = true};

  template <class W>
  static bool write(W& w, const S& s) {
    return w.write_length(s.size()) && write_each(w, s);
  }

  template <options Opts>
  static constexpr std::size_t size(const S& s) {
    return length_prefix_size<Opts>(s.size()) + elements_size<Opts, key_type>(s, s.size());
  }

  template <class R>
  static bool read(R& r, S& s) {
    require_default_constructible<key_type>();
    std::size_t n = 0;
    if (!r.read_length(n, min_size_of<R::opts, key_type>())) return false;
    s.clear();
    reserve_entries(s, n, r.remaining());
    for (std::size_t i = 0; i < n; ++i) {
      const std::size_t at = r.position();
      key_type key{};
      if (!::bin_serializer::deserialize_field(r, key)) return false;
      bool inserted = false;
      emplace_at_end(s, inserted, std::move(key));
      if constexpr (UniqueKeys) {
        if (!inserted) [[unlikely]]
          return r.fail(errc::invalid_value, at);
      }
    }
    return true;
  }
};

} // namespace detail::std_codec

template <class K, class C, class A>
struct codec<std::set<K, C, A>> : detail::std_codec::set_codec<std::set<K, C, A>, true> {};

template <class K, class C, class A>
struct codec<std::multiset<K, C, A>> : detail::std_codec::set_codec<std::multiset<K, C, A>, false> {
};

template <class K, class H, class E, class A>
struct codec<std::unordered_set<K, H, E, A>>
    : detail::std_codec::set_codec<std::unordered_set<K, H, E, A>, true> {};

template <class K, class H, class E, class A>
struct codec<std::unordered_multiset<K, H, E, A>>
    : detail::std_codec::set_codec<std::unordered_multiset<K, H, E, A>, false> {};

} // namespace bin_serializer
