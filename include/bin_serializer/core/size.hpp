// Sizes known before writing.
//
//   serialized_size(value)        the exact number of bytes serialize() appends
//   max_serialized_size_v<T>      a compile-time upper bound, defined only for
//                                 types whose encoding is bounded (no strings,
//                                 vectors, ...), e.g. FixedBuffer<max_serialized_size_v<Tick>>
//
// A codec takes part by providing
//   template <options Opts> static std::size_t size(const T&);           exact bytes
//   template <options Opts> static constexpr std::size_t max_size = N;   only if bounded
// Both are optional: without size(), the size is measured by running the
// codec's write() against a writer that only counts bytes.
#pragma once

#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "evolution_io.hpp"
#include "../error.hpp"
#include "../options.hpp"
#include "classify.hpp"

namespace bin_serializer {

namespace detail {

// A writer that stores nothing and counts what would be written.
template <options Opts>
struct counting_writer {
  static constexpr options opts = Opts;
  std::size_t count = 0;
  constexpr bool write_bytes(const void*, std::size_t n) noexcept {
    count += n;
    return true;
  }
  constexpr bool write_length(std::size_t n) noexcept {
    count += format_of<Opts>::length_size(n);
    return true;
  }
  constexpr bool reserve(std::size_t) noexcept { return true; }
  constexpr bool fail(errc) noexcept { return false; }
  [[nodiscard]] constexpr std::size_t position() const noexcept { return count; }
};

template <options Opts, class T>
constexpr std::size_t size_of(const T& value) {
  using U = std::remove_cv_t<T>;
  constexpr category c = category_of<Opts, T>();
  if constexpr (c == category::codec) {
    if constexpr (requires { codec<U>::template size<Opts>(value); }) {
      return codec<U>::template size<Opts>(value);
    } else {
      counting_writer<Opts> counter;
      (void)codec<U>::write(counter, value);
      return counter.count;
    }
  } else if constexpr (c == category::bulk) {
    return sizeof(T);
  } else if constexpr (c == category::scalar) {
    return format_of<Opts>::scalar_size(value);
  } else if constexpr (c == category::array) {
    std::size_t total = 0;
    for (const auto& element : value) total += size_of<Opts>(element);
    return total;
  } else if constexpr (c == category::reflectable || c == category::aggregate ||
                       c == category::evolvable) {
    auto visit = [](const auto&... fields) BIN_SERIALIZER_LAMBDA_INLINE -> std::size_t {
      return (size_of<Opts>(fields) + ... + 0);
    };
    const std::size_t fields = visit_members(value, visit);
    return c == category::evolvable ? evolvable_prefix_bytes + fields : fields;
  } else {
    explain_unsupported<T, Opts>();
    return 0;
  }
}

// Bytes of an evolvable struct's fields (its body, without the prefix).
template <options Opts, class T>
constexpr std::size_t evolvable_body_size(const T& value) {
  auto visit = [](const auto&... fields) BIN_SERIALIZER_LAMBDA_INLINE -> std::size_t {
    return (size_of<Opts>(fields) + ... + 0);
  };
  return visit_members(value, visit);
}

template <options Opts, class T>
consteval bool has_bounded_size();

template <options Opts, class... Fs>
consteval bool all_bounded(type_list<Fs...>) {
  return (has_bounded_size<Opts, Fs>() && ...);
}

template <options Opts, class T>
consteval bool has_bounded_size() {
  using U = std::remove_cv_t<T>;
  constexpr category c = category_of<Opts, U>();
  if constexpr (c == category::codec)
    return requires { codec<U>::template max_size<Opts>; };
  else if constexpr (c == category::bulk || c == category::scalar)
    return true;
  else if constexpr (c == category::array)
    return has_bounded_size<Opts, std::remove_extent_t<U>>();
  else if constexpr (c == category::reflectable || c == category::aggregate ||
                     c == category::evolvable)
    return all_bounded<Opts>(member_types_t<U>{});
  else
    return false;
}

template <options Opts, class T>
consteval std::size_t max_size_of();

template <options Opts, class... Fs>
consteval std::size_t sum_max_sizes(type_list<Fs...>) {
  return (max_size_of<Opts, Fs>() + ... + 0);
}

template <options Opts, class T>
consteval std::size_t max_size_of() {
  using U = std::remove_cv_t<T>;
  constexpr category c = category_of<Opts, U>();
  if constexpr (c == category::codec)
    return codec<U>::template max_size<Opts>;
  else if constexpr (c == category::bulk)
    return sizeof(U);
  else if constexpr (c == category::scalar)
    return format_of<Opts>::template scalar_max<U>;
  else if constexpr (c == category::array)
    return std::extent_v<U> * max_size_of<Opts, std::remove_extent_t<U>>();
  else if constexpr (c == category::evolvable)
    return evolvable_prefix_bytes + sum_max_sizes<Opts>(member_types_t<U>{});
  else
    return sum_max_sizes<Opts>(member_types_t<U>{});
}

} // namespace detail

// T's encoding has a compile-time upper bound in format Opts.
template <class T, options Opts = native>
concept BoundedSize = detail::has_bounded_size<Opts, std::remove_cvref_t<T>>();

// Exact number of bytes serialize<Opts>(buffer, value) appends.
template <options Opts = native, class T>
[[nodiscard]] constexpr std::size_t serialized_size(const T& value) {
  return detail::size_of<Opts>(value);
}

// Largest encoding of any T. Only defined for BoundedSize types: a type holding
// a string or a vector has no bound, and naming this for it fails to compile.
template <class T, options Opts = native>
  requires BoundedSize<T, Opts>
inline constexpr std::size_t max_serialized_size_v =
    detail::max_size_of<Opts, std::remove_cvref_t<T>>();

} // namespace bin_serializer
