// std::pair<A, B>:     [first][second]
// std::tuple<Ts...>:   [each element in order]
//
// No prefix: the member types and their order are part of the type, exactly
// like a reflect() struct. Bounded when every member is.
//
// A tuple of references works as a source (serialize(buf, std::tie(a, b))) and,
// held in a named variable, as a target (auto t = std::tie(a, b); deserialize(buf, t)).
#pragma once

#include <cstddef>
#include <tuple>
#include <utility>

#include "codec_support.hpp"
#include "../core/schema_tokens.hpp"

namespace bin_serializer {

template <class A, class B>
struct codec<std::pair<A, B>> {
  // What Serializable<T> checks inside (core/classify.hpp).
  using elements = detail::type_list<std::remove_reference_t<A>, std::remove_reference_t<B>>;

  // Fingerprint (core/schema_tokens.hpp): TUPLE 2, then both.
  template <class H>
  static constexpr void schema(H& h) {
    h.token(detail::schema::t_tuple, 2);
    h.template type<A, B>();
  }
  using pair_type = std::pair<A, B>;

  // What the library knows of the encoding (core/codec_facts.hpp).
  template <options Opts>
  static constexpr codec_facts facts{.min_size = detail::std_codec::min_size_of<Opts, A>() +
                                                 detail::std_codec::min_size_of<Opts, B>(),
                                     .max_size =
                                         BoundedSize<A, Opts> && BoundedSize<B, Opts>
                                             ? detail::std_codec::max_size_of_decayed<Opts, A>() +
                                                   detail::std_codec::max_size_of_decayed<Opts, B>()
                                             : codec_facts::unbounded,
                                     .has_size = true,
                                     .trusted_size = true}; // with its elements' (core/shape.hpp)

  template <class W>
  static bool write(W& w, const pair_type& p) {
    return ::bin_serializer::serialize_field(w, p.first) &&
           ::bin_serializer::serialize_field(w, p.second);
  }

  template <options Opts>
  static constexpr std::size_t size(const pair_type& p) {
    return ::bin_serializer::serialized_size<Opts>(p.first) +
           ::bin_serializer::serialized_size<Opts>(p.second);
  }

  template <class R>
  static bool read(R& r, pair_type& p) {
    return ::bin_serializer::deserialize_field(r, p.first) &&
           ::bin_serializer::deserialize_field(r, p.second);
  }
};

template <class... Ts>
struct codec<std::tuple<Ts...>> {
  // What Serializable<T> checks inside (core/classify.hpp).
  using elements = detail::type_list<std::remove_reference_t<Ts>...>;

  // Fingerprint (core/schema_tokens.hpp): TUPLE n, then each.
  template <class H>
  static constexpr void schema(H& h) {
    h.token(detail::schema::t_tuple, sizeof...(Ts));
    h.template type<Ts...>();
  }
  using tuple_type = std::tuple<Ts...>;

  // What the library knows of the encoding (core/codec_facts.hpp).
  template <options Opts>
  static constexpr codec_facts facts{
      .min_size = (detail::std_codec::min_size_of<Opts, Ts>() + ... + 0),
      .max_size = (BoundedSize<Ts, Opts> && ...)
                      ? (detail::std_codec::max_size_of_decayed<Opts, Ts>() + ... + 0)
                      : codec_facts::unbounded,
      .has_size = true,
      .trusted_size = true}; // with its elements' (core/shape.hpp)

  template <class W>
  static bool write(W& w, const tuple_type& t) {
    return write_elements(w, t, std::index_sequence_for<Ts...>{});
  }

  template <options Opts>
  static constexpr std::size_t size(const tuple_type& t) {
    return size_elements<Opts>(t, std::index_sequence_for<Ts...>{});
  }

  template <class R>
  static bool read(R& r, tuple_type& t) {
    return read_elements(r, t, std::index_sequence_for<Ts...>{});
  }

private:
  // && folds left to right and stops at the first failing element. For
  // std::tuple<> the folds are empty: true, and 0 bytes.
  template <class W, std::size_t... I>
  static bool write_elements([[maybe_unused]] W& w, [[maybe_unused]] const tuple_type& t,
                             std::index_sequence<I...>) {
    return (::bin_serializer::serialize_field(w, std::get<I>(t)) && ...);
  }

  template <options Opts, std::size_t... I>
  static constexpr std::size_t size_elements([[maybe_unused]] const tuple_type& t,
                                             std::index_sequence<I...>) {
    return (::bin_serializer::serialized_size<Opts>(std::get<I>(t)) + ... + std::size_t{0});
  }

  template <class R, std::size_t... I>
  static bool read_elements([[maybe_unused]] R& r, [[maybe_unused]] tuple_type& t,
                            std::index_sequence<I...>) {
    return (::bin_serializer::deserialize_field(r, std::get<I>(t)) && ...);
  }
};

} // namespace bin_serializer
