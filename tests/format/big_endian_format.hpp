// A test-only fourth wire format: big-endian, fixed width (issue 29). The whole
// format is this file: a policy composed from the fixed-width leaves, its
// registration line, and a preset. Include it before any other library header
// use, so that framed messages find it among the registered formats.
//
//   scalars     sizeof(T) bytes, big-endian (characters included)
//   lengths     a uint64, big-endian
//   packed bits ceil(N / 8) bytes, the integer the bits spell, big-endian
//   refuses     wchar_t, long double (as portable)
#pragma once

#include <bin_serializer/format/all.hpp>
#include <bin_serializer/format/fixed_width.hpp>
#include <bin_serializer/options.hpp>

#include <bit>
#include <string_view>

namespace bin_serializer {

namespace test_formats {
inline constexpr wire_format big_endian_id = static_cast<wire_format>(0x7F);
} // namespace test_formats

template <>
struct format_policy<test_formats::big_endian_id> : detail::fixed_width_leaves<std::endian::big> {
  static constexpr wire_format id = test_formats::big_endian_id;
  static constexpr std::string_view name = "big_endian";
  static constexpr bool host_layout = false;
  template <class T>
  static constexpr bool refuses = detail::platform_dependent<T>;
};

template <>
inline constexpr bool registered_format<test_formats::big_endian_id> =
    detail::checked_policy<format_policy<test_formats::big_endian_id>>();

namespace test_formats {
inline constexpr options big_endian{.format = big_endian_id};
} // namespace test_formats

} // namespace bin_serializer
