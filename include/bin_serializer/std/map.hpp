// std::map, std::multimap, std::unordered_map, std::unordered_multimap:
//   [count][count entries, each: key, then mapped value]
// (the count is the format's length prefix, format/<name>.hpp)
//
// Entries go out in the container's iteration order (sorted for the ordered
// maps; for the unordered ones, whatever order the implementation iterates).
// Decoding clears the target and inserts entry by entry: each key is decoded,
// inserted at end() with a default-constructed value, and the value is then
// decoded in place. A key that a map with unique keys already holds is
// rejected with errc::invalid_value at the offset of that entry: such bytes
// are not the encoding of any map.
#pragma once

#include <cstddef>
#include <map>
#include <tuple>
#include <type_traits>
#include <unordered_map>
#include <utility>

#include "codec_support.hpp"
#include "../core/schema_tokens.hpp"

namespace bin_serializer {

namespace detail::std_codec {

template <class M, bool UniqueKeys>
struct map_codec {
  using key_type = typename M::key_type;
  using mapped_type = typename M::mapped_type;
  // What Serializable<T> checks inside (core/classify.hpp).
  using elements = detail::type_list<key_type, mapped_type>;

  // Fingerprint (core/schema_tokens.hpp): MAP, then key and value.
  template <class H>
  static constexpr void schema(H& h) {
    h.token(detail::schema::t_map);
    h.template type<key_type, mapped_type>();
  }

  // What the library knows of the encoding (core/codec_facts.hpp).
  template <options Opts>
  static constexpr codec_facts facts{.min_size = length_prefix_min<Opts>, .has_size = true};

  template <class W>
  static bool write(W& w, const M& m) {
    if (!w.write_length(m.size())) return false;
    for (const auto& entry : m) {
      if (!::bin_serializer::serialize_field(w, entry.first)) return false;
      if (!::bin_serializer::serialize_field(w, entry.second)) return false;
    }
    return true;
  }

  template <options Opts>
  static constexpr std::size_t size(const M& m) {
    if constexpr (has_fixed_size<Opts, key_type>() && has_fixed_size<Opts, mapped_type>()) {
      return length_prefix_size<Opts>(m.size()) +
             m.size() *
                 (max_size_of_decayed<Opts, key_type>() + max_size_of_decayed<Opts, mapped_type>());
    } else {
      std::size_t total = length_prefix_size<Opts>(m.size());
      for (const auto& entry : m) {
        total += ::bin_serializer::serialized_size<Opts>(entry.first);
        total += ::bin_serializer::serialized_size<Opts>(entry.second);
      }
      return total;
    }
  }

  template <class R>
  static bool read(R& r, M& m) {
    require_default_constructible<key_type>();
    require_default_constructible<mapped_type>();
    constexpr std::size_t min_entry =
        min_size_of<R::opts, key_type>() + min_size_of<R::opts, mapped_type>();
    std::size_t n = 0;
    if (!r.read_length(n, min_entry)) return false;
    m.clear();
    reserve_entries(m, n, r.remaining());
    for (std::size_t i = 0; i < n; ++i) {
      const std::size_t at = r.position();
      key_type key{};
      if (!::bin_serializer::deserialize_field(r, key)) return false;
      bool inserted = false;
      auto it = emplace_at_end(m, inserted, std::piecewise_construct,
                               std::forward_as_tuple(std::move(key)), std::forward_as_tuple());
      if constexpr (UniqueKeys) {
        if (!inserted) [[unlikely]]
          return r.fail(errc::invalid_value, at);
      }
      if (!::bin_serializer::deserialize_field(r, it->second)) return false;
    }
    return true;
  }
};

} // namespace detail::std_codec

template <class K, class V, class C, class A>
struct codec<std::map<K, V, C, A>> : detail::std_codec::map_codec<std::map<K, V, C, A>, true> {};

template <class K, class V, class C, class A>
struct codec<std::multimap<K, V, C, A>>
    : detail::std_codec::map_codec<std::multimap<K, V, C, A>, false> {};

template <class K, class V, class H, class E, class A>
struct codec<std::unordered_map<K, V, H, E, A>>
    : detail::std_codec::map_codec<std::unordered_map<K, V, H, E, A>, true> {};

template <class K, class V, class H, class E, class A>
struct codec<std::unordered_multimap<K, V, H, E, A>>
    : detail::std_codec::map_codec<std::unordered_multimap<K, V, H, E, A>, false> {};

} // namespace bin_serializer
