// Varints by vectors, with the same bytes and refusals as leb128::store and
// load one at a time: SSE2, which every x86-64 CPU has. Elsewhere
// BIN_SERIALIZER_LEB128_BLOCKS is 0 and varint.hpp keeps its scalar groups.
//
//   store_small(p, v), load_small(p, out)   16 one-byte varints (16 bytes)
//   store_pairs(p, v), load_pairs(p, out)   16 two-byte varints (32 bytes)
//   store_long4(p, v), load_long4(p, out)   4 five-byte 32-bit varints (20)
//
// v and out hold integers of 16, 32 or 64 bits (4 of 32 bits for long4);
// IntCoding (leb128.hpp) maps them to the unsigned values the varints carry.
// A store returns true having written exactly the varints' bytes, or false
// having written nothing when any value takes another length. A load reads
// only the bytes named (all present) and returns true with the values in
// out, or false having written nothing when the bytes are not that many
// varints of that length in their shortest form and in range; the caller
// then reads them one at a time, which reports the failure and its offset.
//
// Why: runs of equal-length varints are what vectors of small counts, codes,
// years or prices, and of hashes and random identifiers, hold. One at a time
// each costs a length test and a cursor move; here a block is one test of
// its continuation bits and a narrowing or widening of lanes.
#pragma once

#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "../config.hpp"
#include "leb128.hpp"

#if defined(__SSE2__) && (defined(__GNUC__) || defined(__clang__))
#include <emmintrin.h>
#define BIN_SERIALIZER_LEB128_BLOCKS 1
#else
#define BIN_SERIALIZER_LEB128_BLOCKS 0
#endif

namespace bin_serializer::detail::leb128::blocks {

inline constexpr std::size_t size = 16;

// Whether the block paths exist here for T under IntCoding: a varint integer
// of 16, 32 or 64 bits, coded by one of the library's two codings, whose
// lanes this file implements (a format may bring its own IntCoding,
// docs/contributing.md: it keeps the scalar paths).
template <class IntCoding, class T>
inline constexpr bool available =
    BIN_SERIALIZER_LEB128_BLOCKS && is_varint<T>() &&
    (std::is_same_v<IntCoding, zigzag> || std::is_same_v<IntCoding, two_complement>) &&
    (sizeof(T) == 2 || sizeof(T) == 4 || sizeof(T) == 8);

#if BIN_SERIALIZER_LEB128_BLOCKS

// Whether IntCoding folds T's sign into the low bit (zigzag on a signed
// integer): then a one-byte varint holds -64..63, else 0..127.
template <class IntCoding, class T>
inline constexpr bool folds_sign =
    std::is_same_v<IntCoding, zigzag> && std::is_signed_v<integer_of<T>>;

// The unsigned values the varints carry, for one vector of T (lanes of 16,
// 32 or 64 bits): IntCoding::encode, lane by lane.
template <class IntCoding, class T>
BIN_SERIALIZER_INLINE __m128i encode_lanes(__m128i x) noexcept {
  if constexpr (!folds_sign<IntCoding, T>) {
    return x;
  } else if constexpr (sizeof(T) == 2) {
    return _mm_xor_si128(_mm_add_epi16(x, x), _mm_srai_epi16(x, 15));
  } else if constexpr (sizeof(T) == 4) {
    return _mm_xor_si128(_mm_add_epi32(x, x), _mm_srai_epi32(x, 31));
  } else { // no 64-bit arithmetic shift in SSE2: the high half's sign, twice
    const __m128i sign = _mm_shuffle_epi32(_mm_srai_epi32(x, 31), 0xF5);
    return _mm_xor_si128(_mm_add_epi64(x, x), sign);
  }
}

// Writes sixteen T from two vectors of 16-bit lanes holding their values
// (sign-extended to 16 bits when IntCoding folds T's sign). Named values, not
// arrays: g++ keeps an array of vectors on the stack.
template <class IntCoding, class T>
BIN_SERIALIZER_INLINE bool put16(T* out, __m128i lo16, __m128i hi16) noexcept {
  const __m128i zero = _mm_setzero_si128();
  auto put = [out](std::size_t k, __m128i x) BIN_SERIALIZER_LAMBDA_INLINE {
    _mm_storeu_si128(reinterpret_cast<__m128i*>(out + k), x);
  };
  if constexpr (sizeof(T) == 2) {
    put(0, lo16);
    put(8, hi16);
  } else {
    auto sign16 = [&](__m128i x) BIN_SERIALIZER_LAMBDA_INLINE {
      return folds_sign<IntCoding, T> ? _mm_srai_epi16(x, 15) : zero;
    };
    const __m128i s_lo = sign16(lo16), s_hi = sign16(hi16);
    const __m128i q0 = _mm_unpacklo_epi16(lo16, s_lo), q1 = _mm_unpackhi_epi16(lo16, s_lo);
    const __m128i q2 = _mm_unpacklo_epi16(hi16, s_hi), q3 = _mm_unpackhi_epi16(hi16, s_hi);
    if constexpr (sizeof(T) == 4) {
      put(0, q0);
      put(4, q1);
      put(8, q2);
      put(12, q3);
    } else {
      auto put64 = [&](std::size_t k, __m128i q) BIN_SERIALIZER_LAMBDA_INLINE {
        const __m128i s32 = folds_sign<IntCoding, T> ? _mm_srai_epi32(q, 31) : zero;
        put(k, _mm_unpacklo_epi32(q, s32));
        put(k + 2, _mm_unpackhi_epi32(q, s32));
      };
      put64(0, q0);
      put64(4, q1);
      put64(8, q2);
      put64(12, q3);
    }
  }
  return true;
}

// Sixteen T loaded and coded (IntCoding::encode) as 16-bit lanes in two
// vectors; true when every coded value is below 2^Bits (Bits at most 15: the
// signed packs keep such values as they are), else false.
template <class IntCoding, class T, unsigned Bits>
BIN_SERIALIZER_INLINE bool narrow16(const T* v, __m128i& h0, __m128i& h1) noexcept {
  static_assert(Bits <= 15);
  auto at = [v](std::size_t k) BIN_SERIALIZER_LAMBDA_INLINE {
    return encode_lanes<IntCoding, T>(
        _mm_loadu_si128(reinterpret_cast<const __m128i*>(v + k * (16 / sizeof(T)))));
  };
  __m128i above; // the bits at `Bits` and up of every value, ORed
  if constexpr (sizeof(T) == 2) {
    h0 = at(0), h1 = at(1);
    above = _mm_srli_epi16(_mm_or_si128(h0, h1), Bits);
  } else {
    __m128i d0, d1, d2, d3; // 32-bit lanes
    if constexpr (sizeof(T) == 4) {
      d0 = at(0), d1 = at(1), d2 = at(2), d3 = at(3);
      above = _mm_srli_epi32(_mm_or_si128(_mm_or_si128(d0, d1), _mm_or_si128(d2, d3)), Bits);
    } else { // the low halves of two 64-bit vectors make one of 32-bit lanes
      __m128i any = _mm_setzero_si128();
      auto low_halves = [&](std::size_t k) BIN_SERIALIZER_LAMBDA_INLINE {
        const __m128i a = at(k), b = at(k + 1);
        any = _mm_or_si128(any, _mm_or_si128(a, b));
        return _mm_castps_si128(_mm_shuffle_ps(_mm_castsi128_ps(a), _mm_castsi128_ps(b), 0x88));
      };
      d0 = low_halves(0), d1 = low_halves(2), d2 = low_halves(4), d3 = low_halves(6);
      above = _mm_srli_epi64(any, Bits);
    }
    h0 = _mm_packs_epi32(d0, d1);
    h1 = _mm_packs_epi32(d2, d3);
  }
  return _mm_movemask_epi8(_mm_cmpeq_epi8(above, _mm_setzero_si128())) == 0xFFFF;
}

template <class IntCoding, class T>
BIN_SERIALIZER_INLINE bool store_small(std::byte* p, const T* v) noexcept {
  __m128i h0, h1;
  if (!narrow16<IntCoding, T, 7>(v, h0, h1)) return false;
  _mm_storeu_si128(reinterpret_cast<__m128i*>(p), _mm_packus_epi16(h0, h1));
  return true;
}

template <class IntCoding, class T>
BIN_SERIALIZER_INLINE bool load_small(const std::byte* p, T* out) noexcept {
  __m128i b = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
  if (_mm_movemask_epi8(b) != 0) return false; // a continuation bit
  // Lanes twice as wide: the high half zeros, or the sign when zigzag's
  // decoding (u >> 1) ^ -(u & 1), done on the bytes, gave -64..63.
  const __m128i zero = _mm_setzero_si128();
  __m128i s8 = zero; // each byte's sign extension
  if constexpr (folds_sign<IntCoding, T>) {
    const __m128i odd = _mm_cmpeq_epi8(_mm_and_si128(b, _mm_set1_epi8(1)), _mm_set1_epi8(1));
    b = _mm_xor_si128(_mm_and_si128(_mm_srli_epi16(b, 1), _mm_set1_epi8(0x7F)), odd);
    s8 = odd; // negative exactly when the low bit was set
  }
  return put16<IntCoding>(out, _mm_unpacklo_epi8(b, s8), _mm_unpackhi_epi8(b, s8));
}

// Sixteen integers whose varints all take two bytes (0x80 to 0x3FFF after
// the IntCoding: a year, a port, a count in the thousands): store_pairs
// writes their 32 bytes at p and returns true, or returns false having
// written nothing; load_pairs decodes the 32 bytes at p (all present) when
// they are sixteen such varints (a byte that continues, then one of 1 to
// 0x7F: the shortest form, and in range for any width) and returns true,
// else false having written nothing.
template <class IntCoding, class T>
BIN_SERIALIZER_INLINE bool store_pairs(std::byte* p, const T* v) noexcept {
  __m128i h0, h1;
  if (!narrow16<IntCoding, T, 14>(v, h0, h1)) return false;
  const __m128i zero = _mm_setzero_si128();
  const __m128i one_byte = _mm_or_si128(_mm_cmpeq_epi16(_mm_srli_epi16(h0, 7), zero),
                                        _mm_cmpeq_epi16(_mm_srli_epi16(h1, 7), zero));
  if (_mm_movemask_epi8(one_byte) != 0) return false; // one below 0x80
  // The low byte: bits 0-6 and the continuation bit; the high: bits 7-13.
  auto pair = [](__m128i h) BIN_SERIALIZER_LAMBDA_INLINE {
    return _mm_or_si128(_mm_or_si128(_mm_and_si128(h, _mm_set1_epi16(0x7F)), _mm_set1_epi16(0x80)),
                        _mm_and_si128(_mm_slli_epi16(h, 1), _mm_set1_epi16(0x7F00)));
  };
  _mm_storeu_si128(reinterpret_cast<__m128i*>(p), pair(h0));
  _mm_storeu_si128(reinterpret_cast<__m128i*>(p + 16), pair(h1));
  return true;
}

template <class IntCoding, class T>
BIN_SERIALIZER_INLINE bool load_pairs(const std::byte* p, T* out) noexcept {
  const __m128i a = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
  const __m128i b = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p + 16));
  const __m128i zero = _mm_setzero_si128();
  // Bytes 0, 2, 4 ... continue, 1, 3, 5 ... do not, and are not 0.
  const __m128i last_zero = _mm_or_si128(_mm_cmpeq_epi16(_mm_srli_epi16(a, 8), zero),
                                         _mm_cmpeq_epi16(_mm_srli_epi16(b, 8), zero));
  if (_mm_movemask_epi8(a) != 0x5555 || _mm_movemask_epi8(b) != 0x5555 ||
      _mm_movemask_epi8(last_zero) != 0)
    return false;
  auto value = [&](__m128i x) BIN_SERIALIZER_LAMBDA_INLINE {
    __m128i u = _mm_or_si128(_mm_and_si128(x, _mm_set1_epi16(0x7F)),
                             _mm_and_si128(_mm_srli_epi16(x, 1), _mm_set1_epi16(0x3F80)));
    if constexpr (folds_sign<IntCoding, T>) // (u >> 1) ^ -(u & 1)
      u = _mm_xor_si128(_mm_srli_epi16(u, 1),
                        _mm_sub_epi16(zero, _mm_and_si128(u, _mm_set1_epi16(1))));
    return u;
  };
  return put16<IntCoding>(out, value(a), value(b));
}

// Four 32-bit integers whose varints all take five bytes (2^28 and up after
// the IntCoding: hashes, random identifiers): store_long4 writes their 20
// bytes at p and returns true, or returns false having written nothing;
// load_long4 decodes the 20 bytes at p (all present) when they are four such
// varints in their one encoding (four bytes that continue, a fifth of 1 to
// 15) and returns true, else false having written nothing.
template <class IntCoding, class T>
BIN_SERIALIZER_INLINE bool store_long4(std::byte* p, const T* v) noexcept {
  static_assert(sizeof(T) == 4);
  const __m128i u =
      encode_lanes<IntCoding, T>(_mm_loadu_si128(reinterpret_cast<const __m128i*>(v)));
  const __m128i fifth = _mm_srli_epi32(u, 28);
  if (_mm_movemask_epi8(_mm_cmpeq_epi32(fifth, _mm_setzero_si128())) != 0) return false;
  // leb128::spread7_32 in each lane, continuation bits set.
  __m128i x = _mm_or_si128(_mm_and_si128(u, _mm_set1_epi32(0x00003FFF)),
                           _mm_slli_epi32(_mm_and_si128(u, _mm_set1_epi32(0x0FFFC000)), 2));
  x = _mm_add_epi32(x, _mm_and_si128(x, _mm_set1_epi32(0x3F803F80)));
  const __m128i body = _mm_or_si128(x, _mm_set1_epi32(static_cast<int>(0x80808080U)));
  // Each value's five bytes in a 64-bit lane (three zeros above), stored 8
  // bytes at a time five apart; the last store covers bytes 12 to 19, so
  // nothing is written past the 20.
  const __m128i v01 = _mm_unpacklo_epi32(body, fifth);
  const __m128i v23 = _mm_unpackhi_epi32(body, fifth);
  const __m128i tail =
      _mm_or_si128(_mm_srli_epi64(v23, 16), _mm_srli_si128(_mm_slli_epi64(v23, 24), 8));
  _mm_storel_epi64(reinterpret_cast<__m128i*>(p), v01);
  _mm_storel_epi64(reinterpret_cast<__m128i*>(p + 5), _mm_srli_si128(v01, 8));
  _mm_storel_epi64(reinterpret_cast<__m128i*>(p + 10), v23);
  _mm_storel_epi64(reinterpret_cast<__m128i*>(p + 12), tail);
  return true;
}

template <class IntCoding, class T>
BIN_SERIALIZER_INLINE bool load_long4(const std::byte* p, T* out) noexcept {
  static_assert(sizeof(T) == 4);
  auto at = [p](std::size_t k) BIN_SERIALIZER_LAMBDA_INLINE {
    return _mm_loadl_epi64(reinterpret_cast<const __m128i*>(p + k));
  };
  // Value k's bytes at the bottom of a 64-bit lane; the fourth is read from
  // byte 12 so that nothing past byte 19 is read.
  const __m128i v01 = _mm_unpacklo_epi64(at(0), at(5));
  const __m128i v23 = _mm_unpacklo_epi64(at(10), _mm_srli_epi64(at(12), 24));
  // The four first words, and the four fifth bytes (with what follows them).
  const __m128i word =
      _mm_castps_si128(_mm_shuffle_ps(_mm_castsi128_ps(v01), _mm_castsi128_ps(v23), 0x88));
  const __m128i last = _mm_and_si128(
      _mm_castps_si128(_mm_shuffle_ps(_mm_castsi128_ps(v01), _mm_castsi128_ps(v23), 0xDD)),
      _mm_set1_epi32(0xFF));
  const __m128i high = _mm_set1_epi32(static_cast<int>(0x80808080U));
  const __m128i ok = _mm_and_si128(_mm_cmpeq_epi32(_mm_and_si128(word, high), high),
                                   _mm_and_si128(_mm_cmpgt_epi32(last, _mm_setzero_si128()),
                                                 _mm_cmpgt_epi32(_mm_set1_epi32(16), last)));
  if (_mm_movemask_epi8(ok) != 0xFFFF) return false;
  // leb128::gather7_32 in each lane, the fifth byte's bits above.
  __m128i x = _mm_and_si128(word, _mm_set1_epi32(0x7F7F7F7F));
  x = _mm_or_si128(_mm_and_si128(x, _mm_set1_epi32(0x007F007F)),
                   _mm_srli_epi32(_mm_and_si128(x, _mm_set1_epi32(0x7F007F00)), 1));
  x = _mm_or_si128(_mm_and_si128(x, _mm_set1_epi32(0x00003FFF)),
                   _mm_srli_epi32(_mm_and_si128(x, _mm_set1_epi32(0x3FFF0000)), 2));
  __m128i u = _mm_or_si128(x, _mm_slli_epi32(last, 28));
  if constexpr (folds_sign<IntCoding, T>) // (u >> 1) ^ -(u & 1)
    u = _mm_xor_si128(_mm_srli_epi32(u, 1),
                      _mm_sub_epi32(_mm_setzero_si128(), _mm_and_si128(u, _mm_set1_epi32(1))));
  _mm_storeu_si128(reinterpret_cast<__m128i*>(out), u);
  return true;
}

#else

// Declared so that varint.hpp parses; its calls are discarded here.
template <class IntCoding, class T>
bool store_long4(std::byte* p, const T* v) noexcept;
template <class IntCoding, class T>
bool load_long4(const std::byte* p, T* out) noexcept;

#endif

} // namespace bin_serializer::detail::leb128::blocks
