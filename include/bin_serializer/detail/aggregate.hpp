// Automatic reflection of plain aggregates: fields in declaration order, no
// reflect() needed.
//
// Counting: T{{any}, {any}, ...} compiles for exactly as many braced
// initialisers as T has fields. The inner braces matter: without them a C
// array member would absorb one initialiser per element (brace elision) and
// the count would be wrong. Binding: a structured binding of that many names
// (detail/aggregate_ladder.hpp).
//
// Not covered (the user writes reflect() instead, and the compile error says
// so): aggregates with base classes, reference members, members that cannot be
// initialised from a single value (std::string_view), more than
// max_aggregate_fields fields.
#pragma once

#include <cstddef>
#include <type_traits>
#include <utility>

#include "aggregate_ladder.hpp"
#include "type_list.hpp"

namespace bin_serializer::detail {

// Converts to any type. Declared only: it exists in unevaluated probes.
struct any_field {
  template <class U>
  operator U() const noexcept; // NOLINT: implicit on purpose
};

// Converts only to lvalue references: makes a reference member (or one that
// rejects a braced single value) visible where any_field fails.
struct any_lvalue {
  template <class U>
  operator U&() const noexcept; // NOLINT: implicit on purpose
};

template <class T, std::size_t... I>
consteval bool brace_initialisable(std::index_sequence<I...>) {
  return requires { T{{(void(I), any_field{})}...}; };
}

template <class T, std::size_t N = 0>
consteval std::size_t count_fields() {
  if constexpr (N > max_aggregate_fields)
    return N; // more than the ladder can bind; reported by the caller
  else if constexpr (brace_initialisable<T>(std::make_index_sequence<N + 1>{}))
    return count_fields<T, N + 1>();
  else
    return N;
}

// After N well-behaved fields, is there another field the braced probe could
// not initialise? Then the count is short and binding would be a hard error.
template <class T, std::size_t... I>
consteval bool has_unprobeable_field(std::index_sequence<I...>) {
  return requires { T{{(void(I), any_field{})}..., any_lvalue{}}; } ||
         requires { T{{(void(I), any_field{})}..., any_field{}}; };
}

template <class T>
concept plain_aggregate = std::is_aggregate_v<T> && !std::is_union_v<T> && !std::is_array_v<T>;

template <plain_aggregate T>
inline constexpr std::size_t aggregate_field_count = count_fields<T>();

// The aggregate can be bound field by field.
template <class T>
concept bindable_aggregate =
    plain_aggregate<T> && (aggregate_field_count<T> <= max_aggregate_fields) &&
    !has_unprobeable_field<T>(std::make_index_sequence<aggregate_field_count<T>>{});

// Calls f(field0, field1, ...) with t's fields (const if t is const).
template <class T, class F>
constexpr decltype(auto) visit_aggregate(T& t, F&& f) {
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
