// A compile-time list of types: what a reflect() probe returns, so field types
// can be inspected without an object.
#pragma once

#include <type_traits>

namespace bin_serializer::detail {

template <class... Ts>
struct type_list {
  static constexpr std::size_t size = sizeof...(Ts);
};

template <class T>
inline constexpr bool is_type_list_v = false;
template <class... Ts>
inline constexpr bool is_type_list_v<type_list<Ts...>> = true;

template <class T>
concept is_type_list = is_type_list_v<std::remove_cvref_t<T>>;

// For static_assert(dependent_false<T>, ...) in templates that must not be used.
template <class...>
inline constexpr bool dependent_false = false;

} // namespace bin_serializer::detail
