// The native format: values in this host's memory layout. Scalars are their
// object bytes, a trivially copyable type whose members the library can see
// is one copy of sizeof(T) bytes (padding included), lengths and counts are
// host-order uint64s. Fastest, and only for a reader with the same ABI
// (docs/wire-format.md section 1).
#pragma once

#include <bit>
#include <cstdint>
#include <string_view>

#include "fixed_width.hpp"
#include "format.hpp"

namespace bin_serializer {

template <>
struct format_policy<wire_format::native> : detail::fixed_width_leaves<std::endian::native> {
  static constexpr wire_format id = wire_format::native;
  static constexpr std::string_view name = "native";
  static constexpr bool host_layout = true;

  template <class T>
  static constexpr bool refuses = false;
  // Every scalar is its object bytes, whatever its size on this host.
  template <class T>
  static constexpr bool object_bytes_scalar = true;
  template <class T>
  static constexpr bool little_endian_scalar = false;
};

} // namespace bin_serializer
