// The compact format: the portable format with variable-length integers, for
// bytes on a slow link or in bulk storage (docs/wire-format.md section 12).
//
//   lengths and counts      unsigned LEB128 varint (1 to 10 bytes)
//   16-, 32-, 64-bit ints   unsigned LEB128 varint; signed ones zigzag-encoded
//   and enums over them     first (0, -1, 1, -2 -> 0, 1, 2, 3); at most 3, 5
//                           or 10 bytes
//   everything else         as portable: 8-bit integers, bool, characters,
//                           IEEE floats little-endian, packed bits; the
//                           evolvable prefix fields fixed uint32s (they are
//                           back-patched)
//
// Each value has exactly one encoding. Decoding refuses, with invalid_value at
// the varint's first byte, a varint longer than its type allows, one whose
// last byte carries bits beyond the type's width, and one that is not the
// shortest (a last byte of 0x00 after a continuation). The leaves are
// format/varint.hpp's with zigzag (format/leb128.hpp).
#pragma once

#include <string_view>

#include "../options.hpp"
#include "format.hpp"
#include "leb128.hpp"
#include "varint.hpp"

namespace bin_serializer {

template <>
struct format_policy<wire_format::compact> : detail::varint_leaves<detail::leb128::zigzag> {
  static constexpr wire_format id = wire_format::compact;
  static constexpr std::string_view name = "compact";
  static constexpr bool host_layout = false;
  // Types whose size differs between platforms: as portable.
  template <class T>
  static constexpr bool refuses = detail::platform_dependent<T>;
};

// Preset: the compact format with the default limits and checks.
inline constexpr options compact{.format = wire_format::compact};

} // namespace bin_serializer
