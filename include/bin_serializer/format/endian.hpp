// Byte order: the host's, and conversions to and from little-endian leaves.
//
// On a little-endian host every function here is the identity and compiles to
// nothing; on a big-endian host it is one byte swap per scalar.
#pragma once

#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <type_traits>

namespace bin_serializer::detail {

inline constexpr bool little_endian_host = std::endian::native == std::endian::little;

template <std::size_t N>
struct uint_of_size;
template <> struct uint_of_size<1> {
  using type = std::uint8_t;
};
template <> struct uint_of_size<2> {
  using type = std::uint16_t;
};
template <> struct uint_of_size<4> {
  using type = std::uint32_t;
};
template <> struct uint_of_size<8> {
  using type = std::uint64_t;
};

template <class U>
constexpr U byteswap_uint(U v) noexcept {
  if constexpr (sizeof(U) == 1)
    return v;
  else if constexpr (sizeof(U) == 2)
    return static_cast<U>(__builtin_bswap16(v));
  else if constexpr (sizeof(U) == 4)
    return static_cast<U>(__builtin_bswap32(v));
  else
    return static_cast<U>(__builtin_bswap64(v));
}

// The little-endian bytes of a scalar (integer, IEEE float, enum) as an
// unsigned integer of the same size, ready to memcpy.
template <class T>
auto to_little(T v) noexcept {
  using U = typename uint_of_size<sizeof(T)>::type;
  U bits;
  std::memcpy(&bits, &v, sizeof bits);
  if constexpr (!little_endian_host) bits = byteswap_uint(bits);
  return bits;
}

// The scalar whose little-endian bytes are in `bits`.
template <class T, class U>
T from_little(U bits) noexcept {
  static_assert(sizeof(T) == sizeof(U));
  if constexpr (!little_endian_host) bits = byteswap_uint(bits);
  T v;
  std::memcpy(&v, &bits, sizeof v);
  return v;
}

// An unsigned word stored at p, or loaded from it, in little-endian byte
// order (a format that handles several leaf bytes at once: compact's varints).
template <class W>
inline void store_little(std::byte* p, W w) noexcept {
  const auto bits = to_little(w);
  std::memcpy(p, &bits, sizeof bits);
}
template <class W>
inline W load_little(const std::byte* p) noexcept {
  W bits;
  std::memcpy(&bits, p, sizeof bits);
  return from_little<W>(bits);
}

} // namespace bin_serializer::detail
