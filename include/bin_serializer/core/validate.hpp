// Value checks on bytes that are about to become a value: the leaf rules, and
// the protocol every description (core/shape.hpp) follows for them.
//
// A bool byte of 2, or an enum value outside its declared enum_range, is not
// a value of the type: using it is undefined behaviour. Checks run on the raw
// bytes before they reach the caller's object, so a rejected input never
// leaves an invalid value behind. Each description states
//   validates()      whether T's object bytes hold values to check (with
//                    opts.validate_values; inside a block-copied struct only
//                    with opts.check_trivial_members as well)
//   invalid_at(p)    the offset of the first invalid byte in the object
//                    representation of a T at p, or no_invalid_byte
// and a block copy asks its parts' descriptions, never a list of types here.
#pragma once

#include <cstddef>
#include <cstring>
#include <type_traits>

#include "../options.hpp"
#include "../reflect/enum_range.hpp"

namespace bin_serializer::detail {

inline constexpr std::size_t no_invalid_byte = static_cast<std::size_t>(-1);

// The leaves whose values are restricted: bool, and enums with an enum_range.
template <options Opts, class T>
consteval bool leaf_validates() {
  return Opts.validate_values && (std::is_same_v<T, bool> || ranged_enum<T>);
}

// 0 if the leaf's object bytes at p are not a value of T, else no_invalid_byte.
template <class T>
std::size_t leaf_invalid_at(const unsigned char* p) noexcept {
  if constexpr (std::is_same_v<T, bool>) {
    return *p <= 1 ? no_invalid_byte : 0;
  } else {
    using I = std::underlying_type_t<T>;
    I v;
    std::memcpy(&v, p, sizeof v);
    constexpr auto lo = static_cast<I>(enum_range<T>::min);
    constexpr auto hi = static_cast<I>(enum_range<T>::max);
    return (v >= lo && v <= hi) ? no_invalid_byte : 0;
  }
}

// N elements of E back to back from p (a C array, a std::array): the first
// invalid byte of any, each asked of E's description S.
template <class S, class E, std::size_t N>
std::size_t elements_invalid_at(const unsigned char* p) noexcept {
  for (std::size_t i = 0; i < N; ++i) {
    const std::size_t bad = S::invalid_at(p + i * sizeof(E));
    if (bad != no_invalid_byte) return i * sizeof(E) + bad;
  }
  return no_invalid_byte;
}

} // namespace bin_serializer::detail
