// std::deque<T, A>: [uint64 count][count elements]
//
// The bytes of the std::vector<T> with the same elements. Elements go one by
// one (a deque's storage is not one block). Decoding clears the target and
// appends each element before decoding into it, so on failure the deque holds
// what was decoded.
#pragma once

#include <cstddef>
#include <deque>

#include "codec_support.hpp"
#include "../core/schema_tokens.hpp"

namespace bin_serializer {

template <class T, class A>
struct codec<std::deque<T, A>> {
  // What Serializable<T> checks inside (core/classify.hpp).
  using elements = detail::type_list<T>;

  // Fingerprint (frame/schema_tokens.hpp): SEQUENCE, then the element.
  template <class H>
  static constexpr void schema(H& h) {
    h.token(detail::schema::t_sequence);
    h.template type<T>();
  }
  using deque_type = std::deque<T, A>;

  template <options Opts>
  static constexpr std::size_t min_size = detail::std_codec::length_prefix_min<Opts>;

  template <class W>
  static bool write(W& w, const deque_type& d) {
    return w.write_length(d.size()) && detail::std_codec::write_each(w, d);
  }

  template <options Opts>
  static constexpr std::size_t size(const deque_type& d) {
    return detail::std_codec::length_prefix_size<Opts>(d.size()) +
           detail::std_codec::elements_size<Opts, T>(d, d.size());
  }

  template <class R>
  static bool read(R& r, deque_type& d) {
    std::size_t n = 0;
    if (!r.read_length(n, detail::std_codec::min_size_of<R::opts, T>())) return false;
    d.clear();
    return detail::std_codec::read_appending(r, d, n);
  }
};

} // namespace bin_serializer
