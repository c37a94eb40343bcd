// Which struct fields can be encoded or decoded as one run of fixed-size
// bytes (see field_runs.hpp for decoding, write_runs.hpp for encoding): the
// members whose encoded size is known exactly from the type, and how many of
// a struct's leading fields form a run.
#pragma once

#include <cstddef>
#include <tuple>
#include <type_traits>
#include <utility>

#include "../options.hpp"
#include "../serializable.hpp"

namespace bin_serializer::detail {

// The encoded size of T if it may join a run, else 0.
template <options Opts, class T>
consteval std::size_t run_size();

template <options Opts, class... Ms>
consteval std::size_t run_size_of_members(type_list<Ms...>) {
  if constexpr (sizeof...(Ms) == 0) {
    return 0;
  } else {
    const std::size_t sizes[] = {run_size<Opts, Ms>()...};
    std::size_t total = 0;
    for (const std::size_t s : sizes) {
      if (s == 0) return 0;
      total += s;
    }
    return total;
  }
}

template <options Opts, class T>
consteval std::size_t run_size() {
  using U = std::remove_cvref_t<T>;
  constexpr category c = category_of<Opts, U>();
  if constexpr (c == category::bulk || c == category::scalar)
    return sizeof(U);
  else if constexpr (c == category::codec && codec_is_object_bytes<Opts, U>())
    return sizeof(U); // chrono, std::array of scalars
  else if constexpr (c == category::codec && is_std_array_v<U>)
    return std::tuple_size_v<U> * run_size<Opts, typename U::value_type>();
  else if constexpr (c == category::codec && requires { codec<U>::template exact_size<Opts>; })
    return codec<U>::template exact_size<Opts>; // a library codec that states it (bitset)
  else if constexpr (c == category::array)
    return std::extent_v<U> * run_size<Opts, std::remove_extent_t<U>>();
  else if constexpr (c == category::reflectable || c == category::aggregate)
    return run_size_of_members<Opts>(member_types_t<U>{});
  else
    return 0;
}

// How many of the leading types join one run (0 or 1: no run worth making).
template <options Opts, class... Ts>
consteval std::size_t leading_run_length() {
  const std::size_t sizes[] = {run_size<Opts, Ts>()..., 0};
  std::size_t n = 0;
  while (n < sizeof...(Ts) && sizes[n] != 0) ++n;
  return n;
}

template <options Opts, class... Ts>
consteval std::size_t leading_run_bytes(std::size_t count) {
  const std::size_t sizes[] = {run_size<Opts, Ts>()..., 0};
  std::size_t total = 0;
  for (std::size_t i = 0; i < count; ++i) total += sizes[i];
  return total;
}

// Indices Offset, Offset + 1, ...
template <std::size_t Offset, std::size_t... I>
constexpr auto shifted(std::index_sequence<I...>) {
  return std::index_sequence<(Offset + I)...>{};
}

// The run that starts at field First of a tuple of field references: how
// many fields it spans (0 or 1: no run worth making), its encoded bytes and
// the fields' indices.
template <options Opts, class Tuple, std::size_t First>
struct leading_run {
private:
  static constexpr auto rest = std::make_index_sequence<std::tuple_size_v<Tuple> - First>{};

public:
  static constexpr std::size_t count = []<std::size_t... I>(std::index_sequence<I...>) {
    return leading_run_length<Opts, std::tuple_element_t<First + I, Tuple>...>();
  }(rest);
  static constexpr std::size_t bytes = []<std::size_t... I>(std::index_sequence<I...>) {
    return leading_run_bytes<Opts, std::tuple_element_t<First + I, Tuple>...>(count);
  }(rest);
  using indices = decltype(shifted<First>(std::make_index_sequence<count>{}));
};

} // namespace bin_serializer::detail
