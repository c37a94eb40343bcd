// The portable format: the same bytes on every host. Scalars are fixed-width
// little-endian (IEEE-754 floats), lengths and counts little-endian uint64s,
// structs field by field without padding. Types whose size differs between
// platforms (wchar_t, long double) have no encoding (docs/wire-format.md
// section 6).
#pragma once

#include <bit>
#include <cstdint>
#include <string_view>

#include "fixed_width.hpp"
#include "format.hpp"

namespace bin_serializer {

template <>
struct format_policy<wire_format::portable> : detail::fixed_width_leaves<std::endian::little> {
  static constexpr wire_format id = wire_format::portable;
  static constexpr std::string_view name = "portable";
  static constexpr bool host_layout = false;

  template <class T>
  static constexpr bool refuses = detail::platform_dependent<T>;
  // object_bytes_scalar and little_endian_scalar from the leaves: on a
  // little-endian host a scalar's memory already is its encoding.
};

} // namespace bin_serializer
