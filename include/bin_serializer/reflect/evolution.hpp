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
// one gives the fields the data lacks their value in T{}. Fields are appended,
// never removed: a field no longer used is retired (`retired<U>`, below), its
// wire slot kept. Removing, reordering or retyping a first-version field
// changes schema_hash_v, so framed messages catch it; frame/compatibility.hpp
// checks a change against the old type at compile time (docs/evolution.md).
//
// Two member types belong to evolvable structs only:
//
//   [[no_unique_address]] bin_serializer::retired<std::string> nickname;
//       a retired field: the wire slot of a std::string stays (same bytes, same
//       fingerprint), the member holds nothing, writers write the fixed value
//       std::string{} (retired<U, V> writes U(V): for enums whose range
//       excludes 0), readers check and drop what older writers put there.
//   bin_serializer::unknown_fields unknown;   // last member, not a field
//       keeps the fields a newer writer appended: a read-modify-write by this
//       older program writes them back unchanged instead of dropping them.
//
// This header only declares the opt-in (core/classify.hpp needs it to pick the
// category); the encoding lives in core/evolution_io.hpp.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <type_traits>
#include <vector>

#include "type_list.hpp"

namespace bin_serializer {

// A retired field of an evolvable struct (above). Empty: with
// [[no_unique_address]] it takes no storage (two retired members of the same
// U need distinct addresses, so all but one take a byte; retired<U, V> with
// another V, or another U, does not).
template <class U, auto... Fixed>
struct retired {
  static_assert(
      sizeof...(Fixed) <= 1,
      "bin_serializer: retired<U> writes U{}; retired<U, V> writes U(V): one value at most");
  using value_type = U;
  // What writers put in the slot.
  static constexpr U fixed_value() {
    if constexpr (sizeof...(Fixed) == 1)
      return (static_cast<U>(Fixed), ...);
    else
      return U{};
  }
  friend constexpr bool operator==(retired, retired) noexcept { return true; }
};

// The fields a newer writer appended to an evolvable struct, kept by an older
// reader that declares this as its last member: the bytes after the fields it
// knows (in the message's format, unchecked) and how many fields they hold.
// Written back after the known fields; cleared by data with no extra fields.
struct unknown_fields {
  std::vector<std::byte> bytes;
  std::uint32_t count = 0;
  bool empty() const noexcept { return count == 0; }
  friend bool operator==(const unknown_fields&, const unknown_fields&) = default;
};

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

// Whether a struct's member types end with unknown_fields (then that member
// is not a field: it holds what a newer writer appended), and how many of
// them there are (one at most is allowed, check_evolvable says).
template <class... Ts>
consteval bool ends_with_unknown_fields(type_list<Ts...>) {
  bool last = false;
  ((last = std::is_same_v<std::remove_cv_t<Ts>, unknown_fields>), ...);
  return last;
}
template <class... Ts>
consteval std::size_t unknown_fields_members(type_list<Ts...>) {
  return (std::size_t{0} + ... + std::size_t{std::is_same_v<std::remove_cv_t<Ts>, unknown_fields>});
}

template <class T>
inline constexpr bool is_retired_v = false;
template <class U, auto... Fixed>
inline constexpr bool is_retired_v<retired<U, Fixed...>> = true;

// Whether `n` fields is the complete field set of one of T's versions.
template <class T>
constexpr bool is_version_boundary(std::size_t n) noexcept {
  for (std::size_t c : evolution_counts<T>)
    if (c == n) return true;
  return false;
}

} // namespace detail
} // namespace bin_serializer
