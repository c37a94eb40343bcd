// schema_hash_v<T, Opts>: a compile-time 64-bit fingerprint of T's wire shape.
//
//   static_assert(bin_serializer::schema_hash_v<Person, bin_serializer::portable> != 0);
//
// It covers what serialize<Opts> writes for a T: field types, their order,
// sizes, signedness, container families, the format, and (native format) the
// sizeof of types copied as a block. Names never enter it: renaming a field
// keeps the fingerprint; adding, removing, reordering or retyping one changes
// it. Framed messages (message.hpp) carry it so a reader built with another
// schema refuses the data instead of decoding garbage.
//
// The exact token stream is specified in docs/wire-format.md section 9, so
// other implementations (the Python package) compute the same value.
//
// A user codec<T> has no visible shape; it declares one of
//   static constexpr std::uint64_t schema_id = 0x...;   // any value unique to the layout
//   using schema_equivalent = std::vector<Elem>;        // "encodes exactly like this type"
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <tuple>
#include <type_traits>
#include <utility>

#include "../core/evolution_io.hpp"
#include "../reflect/enum_range.hpp"
#include "../reflect/evolution.hpp"
#include "../options.hpp"
#include "../core/classify.hpp"
#include "../core/diagnostics.hpp"
#include "../core/shape.hpp"
#include "../core/schema_tokens.hpp"

namespace bin_serializer {

namespace detail::schema {

// FNV-1a 64 over tag bytes and little-endian u64 parameters.
struct fnv1a {
  std::uint64_t h = 0xcbf29ce484222325ULL;
  // Not for fingerprints: every version of every evolvable struct (with its
  // field counts), for comparing two types' complete encodings
  // (frame/compatibility.hpp).
  bool all_versions = false;
  constexpr void byte(unsigned char b) noexcept {
    h ^= b;
    h *= 0x100000001b3ULL;
  }
  constexpr void token(tag t) noexcept { byte(t); }
  constexpr void param(std::uint64_t v) noexcept {
    for (int i = 0; i < 8; ++i) byte(static_cast<unsigned char>(v >> (8 * i)));
  }
  constexpr void token(tag t, std::uint64_t p) noexcept {
    token(t);
    param(p);
  }
};

// Stack is type_list<innermost enclosing struct, ..., outermost>.
template <options Opts, class T, class Stack>
constexpr void hash_type(fnv1a& h);

template <options Opts, class Stack, class... Ts>
constexpr void hash_each(fnv1a& h) {
  (hash_type<Opts, Ts, Stack>(h), ...);
}

// ---- structs

template <class T, class... S>
consteval std::size_t depth_in(type_list<S...>) {
  std::size_t depth = 0, i = 0;
  ((++i, depth == 0 && std::is_same_v<T, S> ? (void)(depth = i) : (void)0), ...);
  return depth;
}

template <class T, class... S>
consteval type_list<T, S...> push(type_list<S...>) {
  return {};
}

template <options Opts, class T, class Stack, class... Fs>
constexpr void hash_struct(fnv1a& h, type_list<Fs...>) {
  using inner = decltype(push<T>(Stack{}));
  h.token(t_struct, sizeof...(Fs));
  hash_each<Opts, inner, Fs...>(h);
  h.token(t_end);
}

// The first N types of a type_list.
template <std::size_t N, class... Fs>
consteval auto first_n(type_list<Fs...>) {
  return []<std::size_t... I>(std::index_sequence<I...>) {
    return type_list<std::tuple_element_t<I, std::tuple<Fs...>>...>{};
  }(std::make_index_sequence<N>{});
}

// EVOLVABLE + the fields of T's first k versions.
template <options Opts, class T, class Stack, std::size_t K>
constexpr void hash_evolvable(fnv1a& h) {
  static_assert(check_evolvable<T>());
  constexpr std::size_t fields = evolution_counts<T>[K - 1];
  h.token(t_evolvable);
  if (h.all_versions) {
    constexpr auto counts = evolution_counts<T>;
    for (const std::size_t c : counts) h.param(c);
    hash_struct<Opts, T, Stack>(h, first_n<counts.back()>(member_types_t<T>{}));
    return;
  }
  hash_struct<Opts, T, Stack>(h, first_n<fields>(member_types_t<T>{}));
}

// What a description's schema(h) receives (core/shape.hpp, and a codec's
// schema(h)): token() and param() as in fnv1a, type<Ts...>() for nested types
// (with the recursion guard), fields<T>() for a struct's fields and
// evolvable<T>() for an evolvable struct's first version.
template <options Opts, class Stack>
struct shape_hasher {
  fnv1a& h;
  constexpr void token(tag t) noexcept { h.token(t); }
  constexpr void token(tag t, std::uint64_t p) noexcept { h.token(t, p); }
  constexpr void param(std::uint64_t v) noexcept { h.param(v); }
  template <class... Ts>
  constexpr void type() {
    hash_each<Opts, Stack, Ts...>(h);
  }
  template <class T>
  constexpr void fields() {
    hash_struct<Opts, T, Stack>(h, member_types_t<T>{});
  }
  template <class T>
  constexpr void evolvable() {
    hash_evolvable<Opts, T, Stack, 1>(h);
  }
};

// A recursive type refers back to itself; anything else is what its
// description says.
template <options Opts, class T, class Stack>
constexpr void hash_type(fnv1a& h) {
  using U = std::remove_cv_t<T>;
  if constexpr (std::is_class_v<U> && depth_in<U>(Stack{}) != 0) {
    h.token(t_backref, depth_in<U>(Stack{}));
  } else {
    shape_hasher<Opts, Stack> s{h};
    shape<Opts, U>::schema(s);
  }
}

template <options Opts, class T>
consteval std::uint64_t compute() {
  fnv1a h;
  h.token(t_format, static_cast<std::uint8_t>(format_of<Opts>::id));
  hash_type<Opts, T, type_list<>>(h);
  return h.h;
}

// Every version of every evolvable struct inside (not a fingerprint).
template <options Opts, class T>
consteval std::uint64_t compute_complete() {
  fnv1a h;
  h.all_versions = true;
  h.token(t_format, static_cast<std::uint8_t>(format_of<Opts>::id));
  hash_type<Opts, T, type_list<>>(h);
  return h.h;
}

template <options Opts, class T, std::size_t K>
consteval std::uint64_t compute_upto() {
  static_assert(evolvable_type<T>, "schema_hash_upto is for evolvable structs");
  static_assert(K >= 1 && K <= evolution_counts<T>.size(), "K must name a published version");
  fnv1a h;
  h.token(t_format, static_cast<std::uint8_t>(format_of<Opts>::id));
  hash_evolvable<Opts, T, type_list<>, K>(h);
  return h.h;
}

} // namespace detail::schema

namespace detail {
// Fingerprint of an evolvable T counting the fields of its first K versions
// (K = 1 is schema_hash_v). For tests and tools that track later versions.
template <class T, options Opts, std::size_t K>
inline constexpr std::uint64_t schema_hash_upto =
    schema::compute_upto<options{.format = Opts.format}, std::remove_cvref_t<T>, K>();
} // namespace detail

// The fingerprint of T's encoding in format Opts.format (see the top of this file).
// Only the format matters: decoding limits and checks do not change the bytes.
template <class T, options Opts = native>
inline constexpr std::uint64_t schema_hash_v =
    detail::schema::compute<options{.format = Opts.format}, std::remove_cvref_t<T>>();

} // namespace bin_serializer
