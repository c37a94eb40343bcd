// Every wire format the library knows. The core includes this one header; a
// format is added by writing format/<name>.hpp and registering it here, one
// line each (format/registry.hpp checks the policy at that line).
#pragma once

#include "compact.hpp"
#include "format.hpp"
#include "native.hpp"
#include "portable.hpp"
#include "registry.hpp"

namespace bin_serializer {

template <>
inline constexpr bool registered_format<wire_format::native> =
    detail::checked_policy<format_policy<wire_format::native>>();
template <>
inline constexpr bool registered_format<wire_format::portable> =
    detail::checked_policy<format_policy<wire_format::portable>>();
template <>
inline constexpr bool registered_format<wire_format::compact> =
    detail::checked_policy<format_policy<wire_format::compact>>();

namespace detail {
// Dispatch of a framed message's format byte (frame/message.hpp).
using all_formats = format_registry;
} // namespace detail

} // namespace bin_serializer
