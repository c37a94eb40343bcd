// enum_range<E>: declares which values of an enum are valid on the wire.
//
//   enum class Color : std::uint8_t { Red, Green, Blue };
//   template <> struct bin_serializer::enum_range<Color> {
//     static constexpr Color min = Color::Red;
//     static constexpr Color max = Color::Blue;
//   };
//
// With it, decoding a Color byte outside [Red, Blue] fails with
// errc::invalid_value instead of producing an enumerator that does not exist.
// Without it any value of the underlying type is accepted (many enums are
// bit flags or open sets, so the library cannot guess).
#pragma once

#include <type_traits>

namespace bin_serializer {

namespace detail {
struct no_enum_range {};
} // namespace detail

template <class E>
struct enum_range : detail::no_enum_range {};

namespace detail {
template <class E>
concept ranged_enum = std::is_enum_v<E> && !std::is_base_of_v<no_enum_range, enum_range<E>>;
} // namespace detail

} // namespace bin_serializer
