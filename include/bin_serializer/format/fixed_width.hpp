// Leaves of a fixed width in a given byte order: what the native format (host
// order), the portable format (little-endian) and any fixed-width format in
// another byte order share. A format's header derives its policy from
// fixed_width_leaves<Order> and adds its own decisions (id, name, host_layout,
// refuses).
//
//   scalars     sizeof(T) bytes, in the byte order (characters included)
//   lengths     a uint64, in the byte order
//   prefixes    a uint32, in the byte order
//   packed bits bit i of a std::bitset<N> is bit i % 8 of one of its
//               ceil(N / 8) bytes: byte i / 8 in little-endian order (the
//               bytes of the integer the bits spell, lowest first), from the
//               other end in big-endian order
#pragma once

#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>

#include "../config.hpp"
#include "copy.hpp"
#include "endian.hpp"

namespace bin_serializer::detail {

template <std::endian Order>
struct fixed_width_leaves {
  static_assert(Order == std::endian::little || Order == std::endian::big ||
                    Order == std::endian::native,
                "bin_serializer: a fixed-width format is little-endian, big-endian or host order");

  template <class U>
  BIN_SERIALIZER_INLINE static constexpr U order(U v) noexcept {
    if constexpr (Order != std::endian::native)
      return byteswap_uint(v);
    else
      return v;
  }

  // A scalar in this host's byte order (or of one byte) is its object bytes:
  // strings of them are copied as blocks (format/format.hpp).
  template <class T>
  static constexpr bool object_bytes_scalar = sizeof(T) == 1 || Order == std::endian::native;
  template <class T>
  static constexpr bool little_endian_scalar = Order == std::endian::little;

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

  // Packed bits: the byte of `bytes` holding bits 8k to 8k + 7.
  BIN_SERIALIZER_INLINE static constexpr std::size_t bit_byte(std::size_t k,
                                                              std::size_t bytes) noexcept {
    if constexpr (Order == std::endian::big)
      return bytes - 1 - k;
    else
      return k;
  }
};

} // namespace bin_serializer::detail
