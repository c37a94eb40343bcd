// LEB128 varints and zigzag: the integer leaves of a varint format
// (format/varint.hpp composes them into a policy; compact is one).
//
//   size(u), store(p, u)      an unsigned value's varint, 1 to 10 bytes
//   store_wide, store_narrow, store_short
//                             the same for 64-, 32- and 16-bit values, with
//                             word stores where that is cheaper
//   load<U>(r, out)           one varint of U from any reader: refuses, with
//                             invalid_value at its first byte, one longer
//                             than U allows, one whose last byte carries bits
//                             beyond U's width, and one that is not the
//                             shortest (a last byte of 0x00 after a
//                             continuation)
//   zigzag, two_complement    how a signed integer becomes the unsigned value
//                             a varint carries (an IntCoding: encode, decode)
#pragma once

#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <type_traits>
#include <utility>

#include "../config.hpp"
#include "access.hpp"
#include "../error.hpp"
#include "endian.hpp"

namespace bin_serializer {

namespace detail::leb128 {

// Integers (and enums over them) of 16 bits and more; not characters.
template <class T>
consteval bool is_varint() {
  if constexpr (std::is_enum_v<T>)
    return is_varint<std::underlying_type_t<T>>();
  else
    return std::is_integral_v<T> && sizeof(T) >= 2 && !std::is_same_v<T, char16_t> &&
           !std::is_same_v<T, char32_t> && !std::is_same_v<T, wchar_t>;
}

template <class T>
using integer_of =
    std::conditional_t<std::is_enum_v<T>, std::underlying_type<T>, std::type_identity<T>>::type;
template <class T>
using unsigned_of = std::make_unsigned_t<integer_of<T>>;

// Most bytes a varint of U may take: ceil(bits / 7).
template <class U>
inline constexpr std::size_t max_bytes = (sizeof(U) * 8 + 6) / 7;

// Bytes a leaf T occupies: fewest and most.
template <class T>
consteval std::size_t min_size() {
  if constexpr (is_varint<T>())
    return 1;
  else
    return sizeof(T);
}
template <class T>
consteval std::size_t max_size() {
  if constexpr (is_varint<T>())
    return max_bytes<std::make_unsigned_t<integer_of<T>>>;
  else
    return sizeof(T);
}

BIN_SERIALIZER_INLINE constexpr std::size_t size(std::uint64_t u) noexcept {
  return 1 + static_cast<std::size_t>(std::bit_width(u | 1) - 1) / 7;
}

// Exactly size(u) bytes. One byte (most lengths, counts and small values) is
// the straight path; longer ones branch off to the loop.
BIN_SERIALIZER_INLINE std::byte* store(std::byte* p, std::uint64_t u) noexcept {
  if (u < 0x80) [[likely]] {
    *p = static_cast<std::byte>(u);
    return p + 1;
  }
  while (u >= 0x80) {
    *p++ = static_cast<std::byte>(u | 0x80);
    u >>= 7;
  }
  *p++ = static_cast<std::byte>(u);
  return p;
}

// The low 56 bits of u, 7 to each of 8 bytes (little-endian order): the
// inverse of gather7 below. After the first step every bit of x lies in one
// of the next step's two halves, so moving the upper half t up by k bits is
// x - t + (t << k): x + 3t, then x + t, one mask each instead of two.
BIN_SERIALIZER_INLINE constexpr std::uint64_t spread7(std::uint64_t u) noexcept {
  std::uint64_t x = (u & 0x000000000FFFFFFFULL) | ((u & 0x00FFFFFFF0000000ULL) << 4);
  x += 3 * (x & 0x0FFFC0000FFFC000ULL);   // 14-bit groups to 16-bit lanes
  return x + (x & 0x3F803F803F803F80ULL); // 7-bit groups to bytes
}

// The low 28 bits of u, 7 to each of 4 bytes: spread7 in 32-bit operations
// (their masks are immediates, no 64-bit constants to load).
BIN_SERIALIZER_INLINE constexpr std::uint32_t spread7_32(std::uint32_t u) noexcept {
  const std::uint32_t x = (u & 0x00003FFFU) | ((u & 0x0FFFC000U) << 2);
  return x + (x & 0x3F803F80U); // as spread7's last step
}

// A 64-bit value (timestamps, identifiers) as one 8-byte store when it takes
// three bytes or more: its 7-bit groups spread by three shifts, continuation
// bits set at once, bytes 8 and 9 stored apart. Writes up to 8 bytes at p
// whatever the encoding's length (within the 10 a 64-bit varint may take;
// format's store_slack).
//
// The length by branches, not computed: the cursor then moves by a constant
// and the next store does not wait for this value's bit count. Past one byte
// the longest encodings come first and fall through; [[likely]] orders the
// code, it is no claim about the data. A hash, a random identifier or a
// nanosecond timestamp then takes two tests; shorter values take one more
// (bench/README.md has the measurements behind these choices).
BIN_SERIALIZER_INLINE std::byte* store_wide(std::byte* p, std::uint64_t u) noexcept {
  if (u < 0x80) [[likely]] {
    *p = static_cast<std::byte>(u);
    return p + 1;
  }
  constexpr std::uint64_t high_bits = 0x8080808080808080ULL;
  if (u >= (std::uint64_t{1} << 56)) [[likely]] { // 9 or 10 bytes: the first 8 all continue
    store_little(p, spread7(u) | high_bits);
    p[8] = static_cast<std::byte>(u >> 56); // bit 63 is its continuation bit
    if (u >> 63 == 0) return p + 9;
    p[9] = std::byte{1};
    return p + 10;
  }
  if (u < 0x4000) { // two bytes: still cheaper one at a time
    p[0] = static_cast<std::byte>(u | 0x80);
    p[1] = static_cast<std::byte>(u >> 7);
    return p + 2;
  }
  // 3 to 8 bytes, continuation bits on all but the last.
  const std::uint64_t body = spread7(u);
  auto bytes =
      [&]<std::size_t N>(std::integral_constant<std::size_t, N>) BIN_SERIALIZER_LAMBDA_INLINE {
        store_little(p, body | (high_bits & ((std::uint64_t{1} << (8 * (N - 1))) - 1)));
        return p + N;
      };
  using K = std::size_t;
  if (u < (std::uint64_t{1} << 35)) {
    if (u < (std::uint64_t{1} << 21)) return bytes(std::integral_constant<K, 3>{});
    if (u < (std::uint64_t{1} << 28)) return bytes(std::integral_constant<K, 4>{});
    return bytes(std::integral_constant<K, 5>{});
  }
  if (u < (std::uint64_t{1} << 42)) return bytes(std::integral_constant<K, 6>{});
  if (u < (std::uint64_t{1} << 49)) return bytes(std::integral_constant<K, 7>{});
  return bytes(std::integral_constant<K, 8>{});
}

// A 32-bit value as store_wide does a 64-bit one: three to five bytes are one
// 4-byte store (groups spread by shifts, continuation bits set at once) and a
// fifth byte; the length by branches, five bytes tested right after one.
// Writes at most 5 bytes at p: within the varint's longest encoding.
BIN_SERIALIZER_INLINE std::byte* store_narrow(std::byte* p, std::uint32_t u) noexcept {
  if (u < 0x80) [[likely]] {
    *p = static_cast<std::byte>(u);
    return p + 1;
  }
  if (u >= (1U << 28)) [[likely]] {
    store_little(p, spread7_32(u) | 0x80808080U);
    p[4] = static_cast<std::byte>(u >> 28);
    return p + 5;
  }
  if (u < 0x4000) {
    p[0] = static_cast<std::byte>(u | 0x80);
    p[1] = static_cast<std::byte>(u >> 7);
    return p + 2;
  }
  const std::uint32_t body = spread7_32(u);
  if (u < (1U << 21)) {
    store_little(p, body | 0x00008080U);
    return p + 3;
  }
  store_little(p, body | 0x00808080U);
  return p + 4;
}

// A 16-bit value: store's loop unrolled (at most two bytes continue), the
// last byte's store shared by every length. g++ compiles the unrolled form
// to fewer instructions than the loop; with clang it costs more, so clang
// keeps store's loop (bench/README.md).
#if defined(__clang__)
inline constexpr bool unrolled_short_store = false;
#else
inline constexpr bool unrolled_short_store = true;
#endif
BIN_SERIALIZER_INLINE std::byte* store_short(std::byte* p, std::uint16_t v) noexcept {
  unsigned u = v;
  if (u >= 0x80) [[unlikely]] {
    *p++ = static_cast<std::byte>(u | 0x80);
    u >>= 7;
    if (u >= 0x80) {
      *p++ = static_cast<std::byte>(u | 0x80);
      u >>= 7;
    }
  }
  *p = static_cast<std::byte>(u);
  return p + 1;
}

// Zigzag for signed integers (0, -1, 1, -2 -> 0, 1, 2, 3), identity for
// unsigned ones.
template <class T>
BIN_SERIALIZER_INLINE constexpr unsigned_of<T> to_unsigned(T v) noexcept {
  using I = integer_of<T>;
  using U = unsigned_of<T>;
  const I i = static_cast<I>(v);
  if constexpr (std::is_signed_v<I>)
    return static_cast<U>(static_cast<U>(static_cast<U>(i) << 1) ^
                          static_cast<U>(i >> (sizeof(I) * 8 - 1)));
  else
    return static_cast<U>(i);
}
template <class T>
BIN_SERIALIZER_INLINE constexpr T from_unsigned(unsigned_of<T> u) noexcept {
  using I = integer_of<T>;
  using U = unsigned_of<T>;
  if constexpr (std::is_signed_v<I>)
    return static_cast<T>(static_cast<I>(static_cast<U>(u >> 1) ^ static_cast<U>(U{0} - (u & 1U))));
  else
    return static_cast<T>(u);
}

// IntCodings: how an integer (or an enum over one) becomes the unsigned value
// its varint carries, and back. A varint format takes one (format/varint.hpp)
// and every integer path of it goes through that one.
//
// zigzag: small magnitudes of either sign take few bytes (compact).
struct zigzag {
  template <class T>
  BIN_SERIALIZER_INLINE static constexpr unsigned_of<T> encode(T v) noexcept {
    return to_unsigned(v);
  }
  template <class T>
  BIN_SERIALIZER_INLINE static constexpr T decode(unsigned_of<T> u) noexcept {
    return from_unsigned<T>(u);
  }
};
// two_complement: the integer's bits as they are (-1 in 32 bits takes the
// five bytes of 0xFFFFFFFF).
struct two_complement {
  template <class T>
  BIN_SERIALIZER_INLINE static constexpr unsigned_of<T> encode(T v) noexcept {
    return static_cast<unsigned_of<T>>(static_cast<integer_of<T>>(v));
  }
  template <class T>
  BIN_SERIALIZER_INLINE static constexpr T decode(unsigned_of<T> u) noexcept {
    return static_cast<T>(static_cast<integer_of<T>>(u));
  }
};

// Is a varint of `n` bytes ending in `last` the one encoding of a U?
template <class U>
BIN_SERIALIZER_INLINE constexpr bool canonical(std::size_t n, unsigned last) noexcept {
  constexpr std::size_t spare = sizeof(U) * 8 - 7 * (max_bytes<U> - 1); // bits in the last byte
  if (n == max_bytes<U>) return last - 1U < (1U << spare) - 1U;         // 1 to U's width: one test
  return n == 1 || last != 0;                                           // not the shortest
}

// The low 7 bits of each of the 8 bytes of x (little-endian order), packed
// into 56 bits.
BIN_SERIALIZER_INLINE constexpr std::uint64_t gather7(std::uint64_t x) noexcept {
  x &= 0x7F7F7F7F7F7F7F7FULL;
  x = (x & 0x007F007F007F007FULL) | ((x & 0x7F007F007F007F00ULL) >> 1);
  x = (x & 0x00003FFF00003FFFULL) | ((x & 0x3FFF00003FFF0000ULL) >> 2);
  return (x & 0x000000000FFFFFFFULL) | ((x & 0x0FFFFFFF00000000ULL) >> 4);
}

// The low 7 bits of each of the 4 bytes of x, packed into 28 bits.
BIN_SERIALIZER_INLINE constexpr std::uint32_t gather7_32(std::uint32_t x) noexcept {
  x &= 0x7F7F7F7FU;
  x = (x & 0x007F007FU) | ((x & 0x7F007F00U) >> 1);
  return (x & 0x00003FFFU) | ((x & 0x3FFF0000U) >> 2);
}

// Whether a Wide varint of U (32 or 64 bits) at p, its longest encoding
// present, continues through its first word (4 or 8 bytes): a 5-byte, or a 9-
// or 10-byte one, which decode_longest reads.
template <class U>
BIN_SERIALIZER_INLINE bool continues_through_word(const std::byte* p) noexcept {
  if constexpr (max_bytes<U> == 10)
    return (load_little<std::uint64_t>(p) & 0x8080808080808080ULL) == 0x8080808080808080ULL;
  else
    return (load_little<std::uint32_t>(p) & 0x80808080U) == 0x80808080U;
}

// A varint for which continues_through_word holds: its value in v, and its
// length, or 0 if it is too long, out of range or not the shortest. The first
// word's payloads are gathered by three shifts (two for 32 bits), the last
// byte or two added apart.
template <class U>
BIN_SERIALIZER_INLINE std::size_t decode_longest(const std::byte* p, std::uint64_t& v) noexcept {
  if constexpr (max_bytes<U> == 10) {
    const auto b8 = static_cast<unsigned>(p[8]);
    v = gather7(load_little<std::uint64_t>(p));
    if (b8 - 1U < 0x7FU) [[likely]] { // ends at byte 9 and not with 0: one test
      v |= static_cast<std::uint64_t>(b8) << 56;
      return 9;
    }
    if (b8 == 0) return 0; // not the shortest
    const auto b9 = static_cast<unsigned>(p[9]);
    v |= (static_cast<std::uint64_t>(b8 & 0x7FU) << 56) | (static_cast<std::uint64_t>(b9) << 63);
    return canonical<U>(10, b9) ? 10 : 0; // also refuses a 10th byte that continues
  } else {
    const auto b4 = static_cast<unsigned>(p[4]);
    v = gather7_32(load_little<std::uint32_t>(p)) | (static_cast<std::uint64_t>(b4) << 28);
    return canonical<U>(5, b4) ? 5 : 0; // also refuses a fifth byte that continues
  }
}

// A varint of at most max_bytes<U> bytes at p, all present: its value in v,
// and its length, or 0 if it is too long, out of range or not the shortest.
// With Wide, a 64-bit one (timestamps, identifiers) is read as one word: the
// first 8 bytes' continuation bits are tested at once, their payloads gathered
// by three shifts; a 32-bit one likewise from 4 bytes and a fifth. Lengths and
// counts go byte by byte: they rarely take a third byte, and the smaller code
// keeps every prefix's short cases fast.
template <class U, bool Wide>
BIN_SERIALIZER_INLINE std::size_t decode_present(const std::byte* p, std::uint64_t& v) noexcept {
  if constexpr (Wide && max_bytes<U> == 10) {
    const auto w = load_little<std::uint64_t>(p);
    const std::uint64_t stops = ~w & 0x8080808080808080ULL;
    if (stops != 0) [[likely]] {
      // Where it ends by branches, not by counting zeros: the cursor then
      // moves by a constant and what follows does not wait for these bytes.
      auto ends = [&]<std::size_t N>(std::integral_constant<std::size_t, N>)
                      BIN_SERIALIZER_LAMBDA_INLINE -> std::size_t {
        // (N % 8: the arm not taken for N == 8 must not shift by 64 either.)
        v = gather7(N == 8 ? w : w & ((std::uint64_t{1} << (8 * (N % 8))) - 1));
        return ((w >> (8 * (N - 1))) & 0xFFU) != 0 ? N : 0; // a last byte of 0: not the shortest
      };
      using K = std::size_t;
      if (stops & 0x80808080ULL) {
        if (stops & 0x80ULL) return ends(std::integral_constant<K, 1>{});
        if (stops & 0x8000ULL) return ends(std::integral_constant<K, 2>{});
        if (stops & 0x800000ULL) return ends(std::integral_constant<K, 3>{});
        return ends(std::integral_constant<K, 4>{});
      }
      if (stops & 0x8000000000ULL) return ends(std::integral_constant<K, 5>{});
      if (stops & 0x800000000000ULL) return ends(std::integral_constant<K, 6>{});
      if (stops & 0x80000000000000ULL) return ends(std::integral_constant<K, 7>{});
      return ends(std::integral_constant<K, 8>{});
    }
    return decode_longest<U>(p, v);
  } else if constexpr (Wide && max_bytes<U> == 5) {
    // A 32-bit one the same way, from a 4-byte word and a fifth byte.
    const auto w = load_little<std::uint32_t>(p);
    const std::uint32_t stops = ~w & 0x80808080U;
    if (stops != 0) [[likely]] { // as above: where it ends by branches
      auto ends = [&]<std::size_t N>(std::integral_constant<std::size_t, N>)
                      BIN_SERIALIZER_LAMBDA_INLINE -> std::size_t {
        v = gather7_32(N == 4 ? w : w & ((std::uint32_t{1} << (8 * N)) - 1));
        return ((w >> (8 * (N - 1))) & 0xFFU) != 0 ? N : 0;
      };
      using K = std::size_t;
      if (stops & 0x80U) return ends(std::integral_constant<K, 1>{});
      if (stops & 0x8000U) return ends(std::integral_constant<K, 2>{});
      if (stops & 0x800000U) return ends(std::integral_constant<K, 3>{});
      return ends(std::integral_constant<K, 4>{});
    }
    return decode_longest<U>(p, v);
  } else {
    v = static_cast<unsigned>(p[0]) & 0x7FU;
    for (std::size_t i = 1; i < max_bytes<U>; ++i) {
      const auto b = static_cast<unsigned>(p[i]);
      v |= static_cast<std::uint64_t>(b & 0x7FU) << (7 * i);
      if (b < 0x80) return canonical<U>(i + 1, b) ? i + 1 : 0;
    }
    return 0; // still continuing at the last byte U allows
  }
}

// The end of a multi-byte read from a contiguous reader r (load below): n
// bytes decoded into v, or 0 for a varint refused at its first byte.
template <class U, class R>
BIN_SERIALIZER_INLINE bool take_decoded(R& r, std::size_t n, std::uint64_t v, U& out) noexcept {
  if (n == 0) [[unlikely]]
    return r.fail(errc::invalid_value, r.position());
  (void)take_counted(r, n);
  out = static_cast<U>(v);
  return true;
}

// Reads a varint for which continues_through_word holds from the contiguous
// reader r, whose cursor is p.
template <class U, class R>
BIN_SERIALIZER_INLINE bool load_longest(R& r, const std::byte* p, U& out) noexcept {
  std::uint64_t v = 0;
  const std::size_t n = decode_longest<U>(p, v);
  return take_decoded(r, n, v, out);
}

// Reads one varint of U. Failures: truncated (or limit_exceeded past
// max_total_bytes) as the reader reports running out, invalid_value at the
// first byte for a varint that is too long, out of range or not the shortest.
template <class U, bool Wide = true, class R>
BIN_SERIALIZER_INLINE bool load(R& r, U& out) noexcept {
  if constexpr (short_form<R>()) {
    // A short-form pass (cursor/run_reader.hpp): one byte or nothing. The
    // room was proven for the run (the test folds away), except in debug
    // builds and runs holding a user codec, which check.
    const std::byte* p = take_counted(r, 0);
    if (!has_room(r, 1) || static_cast<unsigned>(p[0]) >= 0x80) [[unlikely]]
      return false; // not recorded: the ordinary pass reads it again
    out = static_cast<U>(p[0]);
    (void)take_counted(r, 1);
    return true;
  } else if constexpr (R::contiguous) {
    // The cursor moves only on success: a failure's offset is position().
    const std::byte* p = take_counted(r, 0); // the cursor
    if (has_room(r, 1) && static_cast<unsigned>(p[0]) < 0x80) [[likely]] {
      out = static_cast<U>(p[0]); // one byte: most lengths, counts and small values
      (void)take_counted(r, 1);
      return true;
    }
    if (has_room(r, max_bytes<U>)) [[likely]] {
      // The longest encoding is present: no bounds check per byte.
      // A 32-bit value of 5 bytes (2^28 and up: most of the type's range, a
      // hash, a random identifier) is the next test, as in store_narrow: one
      // word's test, no detour through the shorter cases, which take one
      // test more.
      if constexpr (Wide && max_bytes<U> == 5) {
        if (continues_through_word<U>(p)) [[likely]]
          return load_longest(r, p, out);
      }
      // Two bytes (a year, a port, a count in the hundreds) are the next
      // straight path: a second byte of 1 to 0x7F ends the varint and is the
      // shortest form.
      if (const auto b1 = static_cast<unsigned>(p[1]); b1 - 1U < 0x7FU) [[likely]] {
        out = static_cast<U>(static_cast<unsigned>(p[0]) - 0x80U + (b1 << 7)); // p[0] >= 0x80
        (void)take_counted(r, 2);
        return true;
      }
      // A 64-bit value tests for 9 or 10 bytes only after two: such fields
      // often hold counts, sizes or millisecond times, which testing the
      // longest form first would slow down.
      if constexpr (Wide && max_bytes<U> == 10) {
        if (continues_through_word<U>(p)) [[likely]]
          return load_longest(r, p, out);
      }
      std::uint64_t v = 0;
      const std::size_t n = decode_present<U, Wide>(p, v);
      return take_decoded(r, n, v, out);
    }
    const std::size_t avail = r.remaining(); // fewer than max_bytes<U>
    std::uint64_t v = 0;
    for (std::size_t i = 0; i < avail; ++i) {
      const auto b = static_cast<unsigned>(p[i]);
      v |= static_cast<std::uint64_t>(b & 0x7FU) << (7 * i);
      if (b < 0x80) {
        if (!canonical<U>(i + 1, b)) [[unlikely]]
          return r.fail(errc::invalid_value, r.position());
        (void)take_counted(r, i + 1);
        out = static_cast<U>(v);
        return true;
      }
    }
    (void)r.take(avail + 1); // ends inside the varint: the reader reports why, at `at`
    return false;
  } else {
    const std::size_t at = r.position();
    std::uint64_t v = 0;
    for (std::size_t i = 0; i < max_bytes<U>; ++i) {
      unsigned char b = 0;
      if (!r.read_bytes(&b, 1)) return i == 0 ? false : r.short_at(at);
      v |= static_cast<std::uint64_t>(b & 0x7FU) << (7 * i);
      if (b < 0x80) {
        if (!canonical<U>(i + 1, b)) [[unlikely]]
          return r.fail(errc::invalid_value, at);
        out = static_cast<U>(v);
        return true;
      }
    }
    return r.fail(errc::invalid_value, at);
  }
}

} // namespace detail::leb128

} // namespace bin_serializer
