// The portable format: the same bytes on every host. Scalars are fixed-width
// little-endian (IEEE-754 floats), lengths and counts little-endian uint64s,
// structs field by field without padding. Types whose size differs between
// platforms (wchar_t, long double) have no encoding (docs/wire-format.md
// section 6).
#pragma once

#include <cstdint>
#include <string_view>

#include "fixed_width.hpp"
#include "format.hpp"

namespace bin_serializer {

template <>
struct format_policy<wire_format::portable> : detail::fixed_width_leaves<true> {
  static constexpr wire_format id = wire_format::portable;
  static constexpr std::string_view name = "portable";
  static constexpr bool host_layout = false;

  template <class T>
  static constexpr bool refuses = detail::platform_dependent<T>;
  // On a little-endian host a scalar's memory already is its encoding.
  template <class T>
  static constexpr bool object_bytes_scalar = sizeof(T) == 1 || detail::little_endian_host;
  template <class T>
  static constexpr bool little_endian_scalar = true;
};

} // namespace bin_serializer
