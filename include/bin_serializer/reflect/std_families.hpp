// Standard library types whose encoding a codec under std/ defines: without
// that header they must not be copied as bytes (a std::optional's flag, a
// std::span's pointer) or visited as aggregates, or the layout would depend on
// which headers a translation unit happened to include. Until their codec is
// visible they have no layout ("include its header").
//
// The list states no layout, only "wait for the codec"; it lives below the
// core because the guard must work exactly when the family's header is absent.
#pragma once

#include <array>
#include <bitset>
#include <chrono>
#include <cstddef>
#include <optional>
#include <span>
#include <string_view>
#include <tuple>
#include <utility>
#include <variant>

namespace bin_serializer::detail {

template <class T>
inline constexpr bool is_std_family = false;
template <class T>
inline constexpr bool is_std_family<std::optional<T>> = true;
template <class... Ts>
inline constexpr bool is_std_family<std::variant<Ts...>> = true;
template <class T, std::size_t N>
inline constexpr bool is_std_family<std::span<T, N>> = true;
template <class C, class Tr>
inline constexpr bool is_std_family<std::basic_string_view<C, Tr>> = true;
template <class A, class B>
inline constexpr bool is_std_family<std::pair<A, B>> = true;
template <class... Ts>
inline constexpr bool is_std_family<std::tuple<Ts...>> = true;
template <class T, std::size_t N>
inline constexpr bool is_std_family<std::array<T, N>> = true;
template <std::size_t N>
inline constexpr bool is_std_family<std::bitset<N>> = true;
template <class R, class P>
inline constexpr bool is_std_family<std::chrono::duration<R, P>> = true;
template <class C, class D>
inline constexpr bool is_std_family<std::chrono::time_point<C, D>> = true;
template <>
inline constexpr bool is_std_family<std::monostate> = true;

} // namespace bin_serializer::detail
