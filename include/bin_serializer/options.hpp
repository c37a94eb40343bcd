// Per-call options, passed as a template argument: serialize<opts>(buf, v).
//
// A constexpr struct rather than runtime flags so an option that is off costs
// nothing: the checks it would add are never instantiated. Start from one of
// the presets below and change fields with designated initialisers:
//
//   constexpr auto opts = bin_serializer::options{.max_string_length = 4096};
//   deserialize<opts>(view, msg);
#pragma once

#include <cstddef>
#include <cstdint>
#include <limits>

namespace bin_serializer {

// wire_format: how leaves (integers, floats, lengths) are encoded. The
// traversal of structs and containers is shared by every format; only the
// leaves differ, each format in its own header under format/ (format/format.hpp
// is the contract). The ids are the byte a framed message's header carries;
// each format's header defines what its id means.
enum class wire_format : std::uint8_t {
  native = 0,   // format/native.hpp
  portable = 1, // format/portable.hpp
  compact = 2,  // format/compact.hpp
};

inline constexpr std::size_t unlimited = std::numeric_limits<std::size_t>::max();

struct options {
  // Leaf encoding, see docs/wire-format.md.
  wire_format format = wire_format::native;

  // ---- Decoding limits. Exceeding one fails with errc::limit_exceeded. ----
  // Every length is also checked against the bytes left in the input, so even
  // "unlimited" never allocates more than the input could fill.
  std::size_t max_string_length = unlimited; // characters in one string
  std::size_t max_element_count = unlimited; // elements in one container
  // Containers inside containers (recursive types such as a tree node holding
  // a vector of nodes). Bounds the decoder's stack use on hostile input.
  std::size_t max_depth = 100;
  std::size_t max_total_bytes = unlimited; // bytes one deserialize() call may consume

  // ---- Value checks. ----
  // Reject bytes that are no value of the type: bool other than 0/1, enum
  // outside its declared enum_range, optional flags, variant indices. Only
  // the checks that cannot cause memory errors can be turned off (trusted).
  bool validate_values = true;
  // Also check bool and ranged-enum members *inside* trivially copyable
  // structs, which are otherwise one unchecked memcpy. Costs a scan of those
  // members per struct; meant for input from untrusted peers.
  bool check_trivial_members = false;
};

// The design document's behaviour: what serialize(buf, v) uses by default.
inline constexpr options native{};

// The specified, host-independent format: for bytes that cross machines,
// architectures or languages (the Python package reads and writes it).
inline constexpr options portable{.format = wire_format::portable};

// For bytes from a peer you do not trust: everything checked, including the
// members of trivially copyable structs.
inline constexpr options untrusted{.check_trivial_members = true};

// For bytes this program wrote itself: no value checks, no depth limit. Bounds
// checks against the input size stay (they are what keeps decoding memory-safe).
inline constexpr options trusted{.max_depth = unlimited, .validate_values = false};

} // namespace bin_serializer
