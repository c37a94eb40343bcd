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
#include "schema_tokens.hpp"

namespace bin_serializer {

namespace detail::schema {

// FNV-1a 64 over tag bytes and little-endian u64 parameters.
struct fnv1a {
  std::uint64_t h = 0xcbf29ce484222325ULL;
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

// ---- codecs: a type family says its own shape
//
// What codec<T>::schema(h) receives: token() and param() as in fnv1a, and
// type<Ts...>() to hash nested types (with the recursion guard).
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
};

template <class C>
concept codec_schema_shape = requires(shape_hasher<options{}, type_list<>>& s) { C::schema(s); };

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
  hash_struct<Opts, T, Stack>(h, first_n<fields>(member_types_t<T>{}));
}

template <class C>
concept codec_schema_id = requires {
  { C::schema_id } -> std::convertible_to<std::uint64_t>;
};
template <class C>
concept codec_schema_equivalent = requires { typename C::schema_equivalent; };

template <class T>
struct codec_without_schema {
  static_assert(dependent_false<T>,
                "bin_serializer: schema_hash_v cannot see the layout of a type with a custom "
                "codec<T> (named in this diagnostic). Declare in the codec either a unique id\n"
                "    static constexpr std::uint64_t schema_id = 0x5a1e5c0de0000001;\n"
                "or the type it encodes exactly like\n"
                "    using schema_equivalent = std::vector<std::uint8_t>;");
};

template <options Opts, class T, class Stack>
constexpr void hash_type(fnv1a& h) {
  using U = std::remove_cv_t<T>;
  if constexpr (std::is_class_v<U> && depth_in<U>(Stack{}) != 0) {
    h.token(t_backref, depth_in<U>(Stack{})); // a recursive type refers back to itself
  } else if constexpr (evolvable_type<U>) {
    hash_evolvable<Opts, U, Stack, 1>(h);
  } else if constexpr (has_codec<U>) {
    if constexpr (codec_schema_shape<codec<U>>) {
      shape_hasher<Opts, Stack> s{h};
      codec<U>::schema(s);
    } else if constexpr (codec_schema_equivalent<codec<U>>)
      hash_type<Opts, typename codec<U>::schema_equivalent, Stack>(h);
    else if constexpr (codec_schema_id<codec<U>>)
      h.token(t_custom, static_cast<std::uint64_t>(codec<U>::schema_id));
    else
      (void)sizeof(codec_without_schema<U>);
  } else if constexpr (std::is_same_v<U, bool>) {
    h.token(t_bool);
  } else if constexpr (std::is_same_v<U, char> || std::is_same_v<U, char8_t> ||
                       std::is_same_v<U, char16_t> || std::is_same_v<U, char32_t> ||
                       std::is_same_v<U, wchar_t>) {
    h.token(t_char, sizeof(U));
  } else if constexpr (std::is_integral_v<U>) {
    h.token(std::is_signed_v<U> ? t_sint : t_uint, sizeof(U));
  } else if constexpr (std::is_floating_point_v<U>) {
    h.token(t_float, sizeof(U));
  } else if constexpr (std::is_enum_v<U>) {
    using under = std::underlying_type_t<U>;
    if constexpr (ranged_enum<U>) {
      h.token(t_enum_range);
      h.param(static_cast<std::uint64_t>(static_cast<under>(enum_range<U>::min)));
      h.param(static_cast<std::uint64_t>(static_cast<under>(enum_range<U>::max)));
    } else {
      h.token(t_enum);
    }
    hash_type<Opts, under, Stack>(h);
  } else if constexpr (std::is_array_v<U>) {
    h.token(t_array, std::extent_v<U>);
    hash_type<Opts, std::remove_extent_t<U>, Stack>(h);
  } else if constexpr (format_of<Opts>::host_layout && bulk_copyable<Opts, U>) {
    // Copied as its object bytes: the size (padding included) is the shape,
    // plus the fields when the library can see them.
    h.token(t_bulk, sizeof(U));
    if constexpr (has_visible_fields<U>) hash_struct<Opts, U, Stack>(h, member_types_t<U>{});
  } else if constexpr (has_visible_fields<U>) {
    hash_struct<Opts, U, Stack>(h, member_types_t<U>{});
  } else {
    explain_unsupported<U, Opts>();
  }
}

template <options Opts, class T>
consteval std::uint64_t compute() {
  fnv1a h;
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
