// What makes a format_policy complete (wire_format_policy), and how a format
// is registered: one line,
//
//   template <>
//   inline constexpr bool registered_format<wire_format::X> =
//       detail::checked_policy<format_policy<wire_format::X>>();
//
// after its policy. checked_policy names each missing member in its own
// static_assert, at that line. Framed messages (frame/message.hpp) accept the
// format byte of every registered format: format_registry scans the ids when
// it is first used, so a format registered in a header included before the
// first framed call (a test's format, tests/format/) is found as well.
#pragma once

#include <array>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <string_view>
#include <utility>

#include "format.hpp"

namespace bin_serializer {

// True for each format a framed message may name (format/all.hpp registers
// the library's three).
template <wire_format F>
inline constexpr bool registered_format = false;

namespace detail {

// Stands for a reader in the checks below (never defined: only declarations
// are looked at).
struct probe_reader;

template <class P>
concept policy_id = std::same_as<std::remove_cv_t<decltype(P::id)>, wire_format>;
template <class P>
concept policy_name = std::convertible_to<decltype(P::name), std::string_view>;
template <class P>
concept policy_layout = requires {
  { P::host_layout } -> std::convertible_to<bool>;
  { P::sizes_vary } -> std::convertible_to<bool>;
  { P::store_slack } -> std::convertible_to<std::size_t>;
};
template <class P>
concept policy_scalar_facts = requires {
  { P::template refuses<int> } -> std::convertible_to<bool>;
  { P::template object_bytes_scalar<int> } -> std::convertible_to<bool>;
  { P::template little_endian_scalar<int> } -> std::convertible_to<bool>;
  { P::template scalar_min<int> } -> std::convertible_to<std::size_t>;
  { P::template scalar_max<int> } -> std::convertible_to<std::size_t>;
};
template <class P>
concept policy_scalar_code = requires(std::byte* p, int v, probe_reader& r) {
  { P::scalar_size(v) } -> std::convertible_to<std::size_t>;
  { P::store_scalar(p, v) } -> std::same_as<std::byte*>;
  { P::load_scalar(r, v) } -> std::same_as<bool>;
};
template <class P>
concept policy_length = requires(std::byte* p, std::size_t n, std::uint64_t& u, probe_reader& r) {
  { P::length_min } -> std::convertible_to<std::size_t>;
  { P::length_max } -> std::convertible_to<std::size_t>;
  { P::length_size(n) } -> std::convertible_to<std::size_t>;
  { P::store_length(p, n) } -> std::same_as<std::byte*>;
  { P::load_length(r, u) } -> std::same_as<bool>;
};
template <class P>
concept policy_prefix = requires(std::uint32_t v) {
  { P::prefix_u32(v) } -> std::same_as<std::uint32_t>;
  { P::from_prefix_u32(v) } -> std::same_as<std::uint32_t>;
};
template <class P>
concept policy_bits = requires(std::size_t k) {
  { P::bit_byte(k, k) } -> std::convertible_to<std::size_t>;
};

} // namespace detail

// Every member format/format.hpp requires of a format policy (the optional
// ones are not checked: absent, the core does without them).
template <class P>
concept wire_format_policy =
    detail::policy_id<P> && detail::policy_name<P> && detail::policy_layout<P> &&
    detail::policy_scalar_facts<P> && detail::policy_scalar_code<P> && detail::policy_length<P> &&
    detail::policy_prefix<P> && detail::policy_bits<P>;

namespace detail {

// wire_format_policy<P>, one static_assert per group of members, naming what
// is missing; true when P is complete (a registration line's value).
template <class P>
consteval bool checked_policy() {
  static_assert(policy_id<P>, "bin_serializer: a format policy needs `static constexpr "
                              "wire_format id` (format/format.hpp)");
  static_assert(policy_name<P>, "bin_serializer: a format policy needs `static constexpr "
                                "std::string_view name` (format/format.hpp)");
  static_assert(policy_layout<P>, "bin_serializer: a format policy needs `static constexpr bool "
                                  "host_layout, sizes_vary` and `std::size_t store_slack`");
  static_assert(policy_scalar_facts<P>,
                "bin_serializer: a format policy needs the variable templates refuses<T>, "
                "object_bytes_scalar<T>, little_endian_scalar<T>, scalar_min<T>, scalar_max<T>");
  static_assert(policy_scalar_code<P>,
                "bin_serializer: a format policy needs scalar_size(v), store_scalar(p, v) -> "
                "std::byte* and load_scalar(r, v) -> bool");
  static_assert(policy_length<P>,
                "bin_serializer: a format policy needs length_min, length_max, length_size(n), "
                "store_length(p, n) -> std::byte* and load_length(r, std::uint64_t&) -> bool");
  static_assert(policy_prefix<P>, "bin_serializer: a format policy needs prefix_u32(v) and "
                                  "from_prefix_u32(v), std::uint32_t to std::uint32_t");
  static_assert(policy_bits<P>, "bin_serializer: a format policy needs bit_byte(k, bytes), the "
                                "byte of packed bits holding bits 8k to 8k + 7");
  return wire_format_policy<P>;
}

// The registered formats' ids, in increasing order. Dep delays the scan to
// the first use (a template's instantiation): formats registered by then are
// all seen.
template <class Dep>
consteval auto registered_format_table() {
  return []<std::size_t... I>(std::index_sequence<I...>) {
    return std::array<bool, sizeof...(I)>{registered_format<static_cast<wire_format>(I)>...};
  }(std::make_index_sequence<256>{});
}
template <class Dep>
consteval std::size_t registered_format_count() {
  std::size_t n = 0;
  for (const bool known : registered_format_table<Dep>()) n += known ? 1 : 0;
  return n;
}
template <class Dep>
consteval auto registered_format_ids() {
  std::array<std::uint8_t, registered_format_count<Dep>()> ids{};
  std::size_t k = 0;
  const auto table = registered_format_table<Dep>();
  for (std::size_t i = 0; i < table.size(); ++i)
    if (table[i]) ids[k++] = static_cast<std::uint8_t>(i);
  return ids;
}

struct format_registry {
  // Calls fn(policy{}) for the registered format whose id is `id`; false if
  // none is.
  template <class Fn>
  static constexpr bool with(std::uint8_t id, Fn&& fn) {
    constexpr auto ids = registered_format_ids<Fn>();
    return [&]<std::size_t... K>(std::index_sequence<K...>) {
      return ((id == ids[K] && (fn(format_policy<static_cast<wire_format>(ids[K])>{}), true)) ||
              ...);
    }(std::make_index_sequence<ids.size()>{});
  }
};

} // namespace detail

} // namespace bin_serializer
