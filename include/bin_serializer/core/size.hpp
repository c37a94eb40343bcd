// Sizes known before writing.
//
//   serialized_size(value)        the exact number of bytes serialize() appends
//   max_serialized_size_v<T>      a compile-time upper bound, defined only for
//                                 types whose encoding is bounded (no strings,
//                                 vectors, ...), e.g. FixedBuffer<max_serialized_size_v<Tick>>
//
//   min_serialized_size_v<T>      the fewest bytes any T encodes to
//
// A codec takes part through its facts (core/codec_facts.hpp): .has_size with
// template <options Opts> static std::size_t size(const T&), the exact bytes,
// and .max_size only if bounded. Without size(), the size is measured by
// running the codec's write() against a writer that only counts bytes.
#pragma once

#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "evolution_io.hpp"
#include "../error.hpp"
#include "../options.hpp"
#include "classify.hpp"
#include "diagnostics.hpp"
#include "shape.hpp"

namespace bin_serializer {

namespace detail {

// Each is what core/shape.hpp's description of T says.
template <options Opts, class T>
constexpr std::size_t size_of(const T& value) {
  return shape<Opts, T>::size(value);
}

// At least size_of(value); cheaper where the format's leaves vary in size.
template <options Opts, class T>
constexpr std::size_t size_bound_of(const T& value) {
  return shape<Opts, T>::size_bound(value);
}

// What serialize() reserves before writing: the exact size where every leaf's
// size follows from its type (the measuring pass then folds to constants and
// length prefixes), else the upper bound.
template <options Opts, class T>
BIN_SERIALIZER_INLINE constexpr std::size_t reservation_of(const T& value) {
  if constexpr (format_of<Opts>::sizes_vary)
    return size_bound_of<Opts>(value);
  else
    return size_of<Opts>(value);
}

template <options Opts, class T>
consteval bool has_bounded_size() {
  return shape<Opts, T>::bounded();
}

template <options Opts, class T>
consteval std::size_t max_size_of() {
  return shape<Opts, T>::max_size();
}

} // namespace detail

// T's encoding has a compile-time upper bound in format Opts.
template <class T, options Opts = native>
concept BoundedSize = detail::has_bounded_size<Opts, std::remove_cvref_t<T>>();

// Exact number of bytes serialize<Opts>(buffer, value) appends.
template <options Opts = native, class T>
[[nodiscard]] constexpr std::size_t serialized_size(const T& value) {
  if constexpr (!detail::has_layout<Opts, T>)
    return detail::diagnose_layout<Opts, T>(), 0; // the one diagnostic says why
  else
    return detail::size_of<Opts>(value);
}

// Smallest encoding of any T (0 when nothing better is known): what a
// codec's facts may state as its own min_size (core/codec_facts.hpp).
template <class T, options Opts = native>
inline constexpr std::size_t min_serialized_size_v =
    detail::shape<Opts, std::remove_cvref_t<T>>::min_size();

// Largest encoding of any T. Only defined for BoundedSize types: a type holding
// a string or a vector has no bound, and naming this for it fails to compile.
template <class T, options Opts = native>
  requires BoundedSize<T, Opts>
inline constexpr std::size_t max_serialized_size_v =
    detail::max_size_of<Opts, std::remove_cvref_t<T>>();

} // namespace bin_serializer
