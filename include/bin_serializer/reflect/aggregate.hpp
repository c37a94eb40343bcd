// Automatic reflection of plain aggregates: fields in declaration order, no
// reflect() needed.
//
// Counting, first way: T{{any}, {any}, ...} compiles for exactly as many
// braced initialisers as T has fields. The inner braces matter: without them a
// C array member would absorb one initialiser per element (brace elision).
// Some members reject a braced probe (std::chrono types and std::bitset: an
// explicit or ambiguous constructor wins over the conversion), so when that
// way cannot see every field, the second way counts plain initialisers
// T{any, any, ...} (which those members accept) and then walks the positions,
// recognising a C array by how many initialisers it absorbs.
// Binding: a structured binding of that many names (reflect/aggregate_ladder.hpp).
//
// Not covered (the user writes reflect() instead, and the compile error says
// so): aggregates with base classes, reference members, members that neither
// probe can initialise (std::string_view with GCC; an aggregate holding both a
// std::optional/variant and a chrono/bitset member), more than
// max_aggregate_fields fields.
#pragma once

#include <cstddef>
#include <tuple>
#include <type_traits>
#include <utility>

#include "../config.hpp"
#include "aggregate_ladder.hpp"
#include "type_list.hpp"

namespace bin_serializer::detail {

// Converts to any type. Only ever used in unevaluated probes; the bodies exist
// because Clang reports a conversion to a type with internal linkage as "used
// but not defined" otherwise. They are never executed.
struct any_field {
  template <class U>
  operator U() const noexcept { // NOLINT: implicit on purpose
    __builtin_unreachable();
  }
};

// Converts only to lvalue references: makes a reference member (or one that
// rejects a braced single value) visible where any_field fails.
struct any_lvalue {
  template <class U>
  operator U&() const noexcept { // NOLINT: implicit on purpose
    __builtin_unreachable();
  }
};

template <std::size_t>
using any_at = any_field;

// ---- first way: braced probes ----

template <class T, std::size_t... I>
consteval bool brace_initialisable(std::index_sequence<I...>) {
  return requires { T{{any_at<I>{}}...}; };
}

template <class T, std::size_t N = 0>
consteval std::size_t count_braced() {
  if constexpr (N > max_aggregate_fields)
    return N; // more than the ladder can bind; reported by the caller
  else if constexpr (brace_initialisable<T>(std::make_index_sequence<N + 1>{}))
    return count_braced<T, N + 1>();
  else
    return N;
}

// After N braced fields, is there a field the braced probe could not
// initialise? Then the braced count is short.
template <class T, std::size_t... I>
consteval bool braced_count_is_short(std::index_sequence<I...>) {
  return requires { T{{any_at<I>{}}..., any_lvalue{}}; } ||
         requires { T{{any_at<I>{}}..., any_field{}}; };
}

// ---- second way: plain probes, then find the C arrays ----

template <class T, std::size_t... I>
consteval bool plain_initialisable(std::index_sequence<I...>) {
  return requires { T{any_at<I>{}...}; };
}

template <class T, std::size_t N = 0>
consteval std::size_t count_plain() {
  // An array member absorbs one initialiser per element, so allow for them.
  if constexpr (N > 4 * max_aggregate_fields)
    return N;
  else if constexpr (plain_initialisable<T>(std::make_index_sequence<N + 1>{}))
    return count_plain<T, N + 1>();
  else
    return N;
}

template <class T, std::size_t... I>
consteval bool plain_count_is_short(std::index_sequence<I...>) {
  return requires { T{any_at<I>{}..., any_lvalue{}}; } ||
         requires { T{any_at<I>{}..., {any_field{}}}; };
}

// T{any x Pre, {any x K}, any x Post}: the field at initialiser position Pre
// takes a braced list of K values, followed by Post plain initialisers.
template <class T, std::size_t... Pre, std::size_t... K, std::size_t... Post>
consteval bool split_initialisable(std::index_sequence<Pre...>, std::index_sequence<K...>,
                                   std::index_sequence<Post...>) {
  return requires { T{any_at<Pre>{}..., {any_at<K>{}...}, any_at<Post>{}...}; };
}

// How many initialisers the field starting at initialiser position `pos` of a
// plain count of `total` absorbs: K for a C array of K elements, else 1.
template <class T, std::size_t pos, std::size_t total, std::size_t k = total - pos>
consteval std::size_t absorbed_at() {
  if constexpr (k <= 1) {
    return 1;
  } else if constexpr (!split_initialisable<T>(std::make_index_sequence<pos>{},
                                               std::make_index_sequence<k>{},
                                               std::index_sequence<>{})) {
    return absorbed_at<T, pos, total, k - 1>();
  } else {
    // The field takes k braced values. If it were one initialiser in the plain
    // count (a class, a string, a container), the remaining total - pos - 1
    // initialisers still fit after it; a C array of k left only total - pos - k.
    constexpr bool single =
        split_initialisable<T>(std::make_index_sequence<pos>{}, std::make_index_sequence<k>{},
                               std::make_index_sequence<total - pos - 1>{});
    return single ? 1 : k;
  }
}

template <class T, std::size_t total, std::size_t pos = 0, std::size_t fields = 0>
consteval std::size_t fields_from_plain() {
  if constexpr (pos >= total)
    return fields;
  else
    return fields_from_plain<T, total, pos + absorbed_at<T, pos, total>(), fields + 1>();
}

// ---- the count ----

inline constexpr std::size_t not_countable = static_cast<std::size_t>(-1);

template <class T>
consteval std::size_t count_fields() {
  constexpr std::size_t braced = count_braced<T>();
  if constexpr (braced <= max_aggregate_fields &&
                !braced_count_is_short<T>(std::make_index_sequence<braced>{})) {
    return braced;
  } else {
    constexpr std::size_t plain = count_plain<T>();
    if constexpr (plain > 4 * max_aggregate_fields ||
                  plain_count_is_short<T>(std::make_index_sequence<plain>{}))
      return not_countable;
    else
      return fields_from_plain<T, plain>();
  }
}

// Tuple-like types (std::array, or anything with a std::tuple_size
// specialisation) are destructured through get<>, not field by field, so a
// field count would not match their structured bindings.
template <class T>
concept tuple_like = requires { std::tuple_size<T>::value; };

template <class T>
concept plain_aggregate =
    std::is_aggregate_v<T> && !std::is_union_v<T> && !std::is_array_v<T> && !tuple_like<T>;

// Converts only to a proper base class of T: T{any_base_of<T>{}} compiles
// exactly when T's first aggregate element is a base class. A structured
// binding cannot see the members of a base, so such a T is not bindable.
template <class T>
struct any_base_of {
  template <class U>
    requires(std::is_base_of_v<U, T> && !std::is_same_v<U, T>)
  operator U() const noexcept { // NOLINT: implicit on purpose
    __builtin_unreachable();
  }
};

template <class T>
concept aggregate_with_base = plain_aggregate<T> && requires { T{any_base_of<T>{}}; };

template <plain_aggregate T>
inline constexpr std::size_t aggregate_field_count = count_fields<T>();

// The aggregate can be bound field by field.
template <class T>
concept bindable_aggregate = plain_aggregate<T> && !aggregate_with_base<T> &&
                             (aggregate_field_count<T> <= max_aggregate_fields);

// Calls f(field0, field1, ...) with t's fields (const if t is const).
template <class T, class F>
BIN_SERIALIZER_INLINE constexpr decltype(auto) visit_aggregate(T& t, F&& f) {
  return bind_fields<aggregate_field_count<std::remove_cv_t<T>>>(t, static_cast<F&&>(f));
}

struct aggregate_type_probe {
  template <class... Fs>
  constexpr type_list<std::remove_cvref_t<Fs>...> operator()(Fs&...) const noexcept {
    return {};
  }
};

// type_list of T's field types, in declaration order.
template <class T>
using aggregate_fields_t =
    decltype(visit_aggregate(std::declval<T&>(), std::declval<aggregate_type_probe&>()));

} // namespace bin_serializer::detail
