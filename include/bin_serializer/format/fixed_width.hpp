// Leaves of a fixed width in a given byte order: what the native format (host
// order) and the portable format (little-endian) share. A format's header
// derives its policy from fixed_width_leaves<...> and adds its own decisions.
//
//   scalars  sizeof(T) bytes, in the byte order
//   lengths  a uint64, in the byte order
//   prefixes a uint32, in the byte order
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>

#include "../config.hpp"
#include "copy.hpp"
#include "endian.hpp"

namespace bin_serializer::detail {

template <bool Little>
struct fixed_width_leaves {
  template <class U>
  BIN_SERIALIZER_INLINE static constexpr U order(U v) noexcept {
    if constexpr (Little && !little_endian_host)
      return byteswap_uint(v);
    else
      return v;
  }

  // Every leaf's size follows from its type: serialize() measures a message
  // exactly before writing it (format/format.hpp).
  static constexpr bool sizes_vary = false;
  // A store writes exactly its encoding.
  static constexpr std::size_t store_slack = 0;

  template <class T>
  static constexpr std::size_t scalar_min = sizeof(T);
  template <class T>
  static constexpr std::size_t scalar_max = sizeof(T);
  template <class T>
  BIN_SERIALIZER_INLINE static constexpr std::size_t scalar_size(const T&) noexcept {
    return sizeof(T);
  }
  template <class T>
  BIN_SERIALIZER_INLINE static std::byte* store_scalar(std::byte* p, T v) noexcept {
    typename uint_of_size<sizeof(T)>::type bits;
    std::memcpy(&bits, &v, sizeof bits);
    bits = order(bits);
    store_bytes(p, bits);
    return p + sizeof bits;
  }
  template <class R, class T>
  BIN_SERIALIZER_INLINE static bool load_scalar(R& r, T& v) noexcept {
    typename uint_of_size<sizeof(T)>::type bits{};
    if (!r.read_bytes(&bits, sizeof bits)) return false;
    bits = order(bits);
    std::memcpy(&v, &bits, sizeof v);
    return true;
  }

  static constexpr std::size_t length_min = sizeof(std::uint64_t);
  static constexpr std::size_t length_max = sizeof(std::uint64_t);
  BIN_SERIALIZER_INLINE static constexpr std::size_t length_size(std::size_t) noexcept {
    return sizeof(std::uint64_t);
  }
  BIN_SERIALIZER_INLINE static std::byte* store_length(std::byte* p, std::size_t n) noexcept {
    const std::uint64_t v = order(static_cast<std::uint64_t>(n));
    store_bytes(p, v);
    return p + sizeof v;
  }
  template <class R>
  BIN_SERIALIZER_INLINE static bool load_length(R& r, std::uint64_t& v) noexcept {
    if (!r.read_bytes(&v, sizeof v)) return false;
    v = order(v);
    return true;
  }

  static constexpr std::uint32_t prefix_u32(std::uint32_t v) noexcept { return order(v); }
  static constexpr std::uint32_t from_prefix_u32(std::uint32_t v) noexcept { return order(v); }
};

} // namespace bin_serializer::detail
