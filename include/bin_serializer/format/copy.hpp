// copy_bytes(dst, src, n): memcpy for the short runs a message is made of.
//
// Strings and small arrays in real messages are mostly a few to a few dozen
// bytes. A call to memcpy costs a PLT jump and a size dispatch for each of
// them; up to 16 bytes two overlapping loads and stores do the same work
// inline. Longer runs go to memcpy, which is faster there. Reads and writes
// stay inside [src, src + n) and [dst, dst + n).
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>

#include "../config.hpp"

namespace bin_serializer::detail {

// GCC's value-range analysis, after inlining into callers that compute n,
// warns about sizes no caller passes (-Wrestrict, -Wstringop-overflow; a
// variable-length leaf stored from a small stack buffer, -Wstringop-overread).
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wrestrict"
#pragma GCC diagnostic ignored "-Wstringop-overflow"
#pragma GCC diagnostic ignored "-Warray-bounds"
#pragma GCC diagnostic ignored "-Wstringop-overread"
#endif

// n bytes (sizeof(Word) <= n <= 2 * sizeof(Word)) as two Word copies: the
// first and the last sizeof(Word) bytes, overlapping in the middle.
template <class Word>
BIN_SERIALIZER_INLINE void copy_ends(unsigned char* d, const unsigned char* s,
                                     std::size_t n) noexcept {
  Word head, tail;
  std::memcpy(&head, s, sizeof(Word));
  std::memcpy(&tail, s + n - sizeof(Word), sizeof(Word));
  std::memcpy(d, &head, sizeof(Word));
  std::memcpy(d + n - sizeof(Word), &tail, sizeof(Word));
}

// 1 to 3 bytes: first, middle and last (some may coincide).
BIN_SERIALIZER_INLINE void copy_few(unsigned char* d, const unsigned char* s,
                                    std::size_t n) noexcept {
  const unsigned char first = s[0], middle = s[n / 2], last = s[n - 1];
  d[0] = first;
  d[n / 2] = middle;
  d[n - 1] = last;
}

BIN_SERIALIZER_INLINE void copy_bytes(void* dst, const void* src, std::size_t n) noexcept {
  auto* d = static_cast<unsigned char*>(dst);
  const auto* s = static_cast<const unsigned char*>(src);
  if (n - 1 < 16) { // 1 to 16 bytes (n == 0 wraps around)
    if (n >= 8) {
      copy_ends<std::uint64_t>(d, s, n);
    } else if (n >= 4) {
      copy_ends<std::uint32_t>(d, s, n);
    } else {
      copy_few(d, s, n);
    }
  } else if (n != 0) {
    std::memcpy(d, s, n);
  }
}

// copy_bytes for a decoded string's characters: the same copies, tested in
// an order that takes one instruction fewer for every length (8 or more
// first, then 16 or less; under 8, whether there is anything to copy):
// copy_bytes' n - 1 < 16 costs a subtraction besides its comparison. The
// encoders were not measured with it and keep copy_bytes.
BIN_SERIALIZER_INLINE void copy_string_bytes(void* dst, const void* src, std::size_t n) noexcept {
  auto* d = static_cast<unsigned char*>(dst);
  const auto* s = static_cast<const unsigned char*>(src);
  if (n >= 8) {
    if (n <= 16)
      copy_ends<std::uint64_t>(d, s, n);
    else
      std::memcpy(d, s, n);
  } else if (n != 0) {
    if (n >= 4)
      copy_ends<std::uint32_t>(d, s, n);
    else
      copy_few(d, s, n);
  }
}

// Stores a value's bytes at p (a length prefix into claimed output).
template <class V>
BIN_SERIALIZER_INLINE void store_bytes(void* p, const V& v) noexcept {
  std::memcpy(p, &v, sizeof v);
}

// copy_fixed<N>: a copy whose size is a constant (a run of fields). Up to 64
// bytes as 16-byte moves (the last one overlapping), which is what a memcpy
// of that size should be; GCC otherwise picks `rep movsb` for some sizes
// (e.g. 42), whose start-up cost dwarfs the copy.
template <std::size_t N>
BIN_SERIALIZER_INLINE void copy_fixed(void* dst, const void* src) noexcept {
  auto* d = static_cast<unsigned char*>(dst);
  const auto* s = static_cast<const unsigned char*>(src);
  if constexpr (N <= 16 || N > 64) {
    std::memcpy(d, s, N);
  } else {
    unsigned char block[16];
    for (std::size_t i = 0; i + 16 <= N; i += 16) {
      std::memcpy(block, s + i, 16);
      std::memcpy(d + i, block, 16);
    }
    if constexpr (N % 16 != 0) {
      std::memcpy(block, s + N - 16, 16);
      std::memcpy(d + N - 16, block, 16);
    }
  }
}

#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic pop
#endif

} // namespace bin_serializer::detail
