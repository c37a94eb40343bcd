// Value checks on bytes that are about to become a trivially copyable object.
//
// A bool byte of 2, or an enum value outside its declared enum_range, is not
// a value of the type: using it is undefined behaviour. These checks run on
// the raw bytes before they are copied into the caller's object, so a rejected
// input never leaves an invalid value behind.
#pragma once

#include <cstddef>
#include <cstring>
#include <memory>
#include <new>
#include <tuple>
#include <type_traits>
#include <utility>

#include "../reflect/enum_range.hpp"
#include "../options.hpp"
#include "classify.hpp"
#include "../reflect/type_list.hpp"

namespace bin_serializer::detail {

inline constexpr std::size_t no_invalid_byte = static_cast<std::size_t>(-1);

template <options Opts, class T>
consteval bool bulk_needs_check();

template <options Opts, class... Fs>
consteval bool any_needs_check(type_list<Fs...>) {
  return (bulk_needs_check<Opts, Fs>() || ...);
}

// Whether the bytes of a bulk-copied T must be checked before use.
template <options Opts, class T>
consteval bool bulk_needs_check() {
  using U = std::remove_cv_t<T>;
  if constexpr (!Opts.validate_values)
    return false;
  else if constexpr (std::is_same_v<U, bool> || ranged_enum<U>)
    return true;
  else if constexpr (std::is_array_v<U>)
    return bulk_needs_check<Opts, std::remove_extent_t<U>>();
  else if constexpr (is_std_array_v<U>)
    return std::tuple_size_v<U> != 0 && bulk_needs_check<Opts, typename U::value_type>();
  else if constexpr (Opts.check_trivial_members && has_visible_fields<U>)
    return any_needs_check<Opts>(member_types_t<U>{});
  else
    return false;
}

// Offset of the first invalid byte in the object representation of a T at p
// (sizeof(T) bytes, suitably aligned), or no_invalid_byte.
template <options Opts, class T>
std::size_t find_invalid(const unsigned char* p) noexcept {
  using U = std::remove_cv_t<T>;
  if constexpr (!bulk_needs_check<Opts, U>()) {
    return no_invalid_byte;
  } else if constexpr (std::is_same_v<U, bool>) {
    return *p <= 1 ? no_invalid_byte : 0;
  } else if constexpr (ranged_enum<U>) {
    using I = std::underlying_type_t<U>;
    I v;
    std::memcpy(&v, p, sizeof v);
    constexpr auto lo = static_cast<I>(enum_range<U>::min);
    constexpr auto hi = static_cast<I>(enum_range<U>::max);
    return (v >= lo && v <= hi) ? no_invalid_byte : 0;
  } else if constexpr (std::is_array_v<U> || is_std_array_v<U>) {
    // A std::array is its elements back to back from offset 0, like a C array.
    using E = std::remove_cvref_t<decltype(std::declval<U&>()[0])>;
    constexpr std::size_t n = sizeof(U) / sizeof(E);
    if constexpr (!std::is_array_v<U>) static_assert(sizeof(U) == std::tuple_size_v<U> * sizeof(E));
    for (std::size_t i = 0; i < n; ++i) {
      const std::size_t bad = find_invalid<Opts, E>(p + i * sizeof(E));
      if (bad != no_invalid_byte) return i * sizeof(E) + bad;
    }
    return no_invalid_byte;
  } else {
    // The bytes were memcpy'd into this storage, which (T being trivially
    // copyable) created a T there. Binding its members to references reads
    // no member value, so no invalid bool is ever loaded; only the member
    // offsets are used.
    const U& obj = *std::launder(reinterpret_cast<const U*>(p));
    std::size_t bad = no_invalid_byte;
    auto check = [&](const auto& field) {
      using F = std::remove_cvref_t<decltype(field)>;
      const auto off = static_cast<std::size_t>(
          reinterpret_cast<const unsigned char*>(std::addressof(field)) - p);
      const std::size_t at = find_invalid<Opts, F>(p + off);
      if (at != no_invalid_byte) bad = off + at;
      return at == no_invalid_byte;
    };
    auto visit = [&](const auto&... fields) { return (check(fields) && ...); };
    (void)visit_members(obj, visit);
    return bad;
  }
}

} // namespace bin_serializer::detail
