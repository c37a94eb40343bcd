// std::list<T, A>:         [uint64 count][count elements]
// std::forward_list<T, A>: [uint64 count][count elements]
//
// The bytes of the std::vector<T> with the same elements, so a list can be
// decoded as a vector and the other way round. Elements always go one by one
// (the nodes are not contiguous). Decoding clears the target and appends each
// element before decoding into it, so on failure the list holds what was decoded.
#pragma once

#include <cstddef>
#include <forward_list>
#include <iterator>
#include <list>

#include "codec_support.hpp"
#include "../core/schema_tokens.hpp"

namespace bin_serializer {

template <class T, class A>
struct codec<std::list<T, A>> {
  // What Serializable<T> checks inside (core/classify.hpp).
  using elements = detail::type_list<T>;

  // Fingerprint (frame/schema_tokens.hpp): SEQUENCE, then the element.
  template <class H>
  static constexpr void schema(H& h) {
    h.token(detail::schema::t_sequence);
    h.template type<T>();
  }
  using list_type = std::list<T, A>;

  template <options Opts>
  static constexpr std::size_t min_size = detail::std_codec::length_prefix_min<Opts>;

  template <class W>
  static bool write(W& w, const list_type& l) {
    return w.write_length(l.size()) && detail::std_codec::write_each(w, l);
  }

  template <options Opts>
  static constexpr std::size_t size(const list_type& l) {
    return detail::std_codec::length_prefix_size<Opts>(l.size()) +
           detail::std_codec::elements_size<Opts, T>(l, l.size());
  }

  template <class R>
  static bool read(R& r, list_type& l) {
    std::size_t n = 0;
    if (!r.read_length(n, detail::std_codec::min_size_of<R::opts, T>())) return false;
    l.clear();
    return detail::std_codec::read_appending(r, l, n);
  }
};

template <class T, class A>
struct codec<std::forward_list<T, A>> {
  // What Serializable<T> checks inside (core/classify.hpp).
  using elements = detail::type_list<T>;

  // Fingerprint (frame/schema_tokens.hpp): SEQUENCE, then the element.
  template <class H>
  static constexpr void schema(H& h) {
    h.token(detail::schema::t_sequence);
    h.template type<T>();
  }
  using list_type = std::forward_list<T, A>;

  template <options Opts>
  static constexpr std::size_t min_size = detail::std_codec::length_prefix_min<Opts>;

  template <class W>
  static bool write(W& w, const list_type& l) {
    // forward_list does not store its size: one pass to count it.
    const auto n = static_cast<std::size_t>(std::distance(l.begin(), l.end()));
    return w.write_length(n) && detail::std_codec::write_each(w, l);
  }

  template <options Opts>
  static constexpr std::size_t size(const list_type& l) {
    const auto n = static_cast<std::size_t>(std::distance(l.begin(), l.end()));
    return detail::std_codec::length_prefix_size<Opts>(n) +
           detail::std_codec::elements_size<Opts, T>(l, n);
  }

  template <class R>
  static bool read(R& r, list_type& l) {
    detail::std_codec::require_default_constructible<T>();
    std::size_t n = 0;
    if (!r.read_length(n, detail::std_codec::min_size_of<R::opts, T>())) return false;
    l.clear();
    auto last = l.before_begin();
    for (std::size_t i = 0; i < n; ++i) {
      last = l.emplace_after(last);
      if (!::bin_serializer::deserialize_field(r, *last)) return false;
    }
    return true;
  }
};

} // namespace bin_serializer
