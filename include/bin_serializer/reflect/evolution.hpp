// Opt-in, append-only schema evolution for one struct at a time.
//
//   struct Config {
//     std::uint32_t id;        // version 1
//     std::string name;        // version 1
//     double ratio = 1.0;      // added in version 2
//     using bin_serializer_evolution = bin_serializer::versions<2, 3>;
//   };
//   // or, without touching the type:
//   template <> struct bin_serializer::evolution<Config> : bin_serializer::versions<2, 3> {};
//
// versions<...> lists the struct's field count at each published version,
// oldest first. Such a struct is written as [u32 body_length][u32
// field_count][fields] (docs/wire-format.md, section 11): a reader with an
// older definition skips the fields it does not know, a reader with a newer
// one gives the fields the data lacks their value in T{}. Fields may only be
// appended; removing, reordering or retyping a first-version field changes
// schema_hash_v, so framed messages catch it.
//
// This header only declares the opt-in (core/classify.hpp needs it to pick the
// category); the encoding lives in core/evolution_io.hpp.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <type_traits>

namespace bin_serializer {

// Field counts of the published versions, oldest first.
template <std::size_t... Counts>
struct versions {
  static constexpr std::size_t count = sizeof...(Counts);
  static constexpr std::array<std::size_t, sizeof...(Counts)> field_counts{Counts...};
};

namespace detail {
struct no_evolution {};
} // namespace detail

// Non-intrusive opt-in: specialise as `struct evolution<T> : versions<...> {}`.
template <class T>
struct evolution : detail::no_evolution {};

namespace detail {

template <class V>
inline constexpr bool is_versions_v = false;
template <std::size_t... Counts>
inline constexpr bool is_versions_v<versions<Counts...>> = true;

template <class T>
concept has_evolution_member = requires { typename T::bin_serializer_evolution; };

template <class T>
concept evolvable_type = std::is_class_v<T> && (has_evolution_member<T> ||
                                                !std::is_base_of_v<no_evolution, evolution<T>>);

template <class T>
consteval auto evolution_versions() {
  if constexpr (has_evolution_member<T>)
    return typename T::bin_serializer_evolution{};
  else
    return evolution<T>{};
}

// The version field counts of an evolvable T, as a std::array.
template <class T>
inline constexpr auto evolution_counts = decltype(evolution_versions<T>())::field_counts;

template <class T>
consteval bool versions_well_formed(std::size_t fields) {
  constexpr auto counts = evolution_counts<T>;
  if (counts.size() == 0 || counts[0] == 0 || counts[counts.size() - 1] != fields) return false;
  for (std::size_t i = 1; i < counts.size(); ++i)
    if (counts[i] <= counts[i - 1]) return false;
  return true;
}

// Whether `n` fields is the complete field set of one of T's versions.
template <class T>
constexpr bool is_version_boundary(std::size_t n) noexcept {
  for (std::size_t c : evolution_counts<T>)
    if (c == n) return true;
  return false;
}

} // namespace detail
} // namespace bin_serializer
