// Per-call options, passed as a template argument: serialize<opts>(buf, v).
//
// A constexpr struct rather than runtime flags so an option that is off costs
// nothing: the checks it would add are never instantiated.
#pragma once

#include <cstdint>

namespace bin_serializer {

// How leaves (integers, floats, lengths) are encoded. The traversal of structs
// and containers is shared by every format; only the leaves differ.
enum class wire_format : std::uint8_t {
  native, // host byte order and sizes, trivially copyable types copied with padding
};

struct options {
  wire_format format = wire_format::native; // leaf encoding, see docs/wire-format.md
};

// The design document's format: what serialize(buf, v) uses when no options are given.
inline constexpr options native{};

} // namespace bin_serializer
