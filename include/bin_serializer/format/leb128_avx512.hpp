// 32-bit varints of any mix of lengths decoded by AVX-512 (VBMI, VBMI2, BW,
// VL), chosen at run time: the same values and refusals as leb128::load one
// at a time. Where the CPU lacks those (every AMD before Zen 4, Intel before
// Ice Lake, valgrind's virtual CPU) or the compiler is neither g++ nor clang
// on x86-64, `enabled` is false and varint.hpp keeps its SSE2 blocks and
// scalar groups, which are the fallback. Decoding only: encoding by the same
// means was measured (4x on random identifiers), but wherever its run-time
// test went, some of the fallback's serialize cells took more instructions
// (up to 8 on 64 values, 131 on a thousand identifiers with clang:
// bench/README.md).
//
//   load_run(p, avail, out, count) up to count T from the avail bytes at p:
//                                  how many decoded, and their bytes
//   cut_off(p, avail)              why a run stopped: cut off, or refused
//
// Why: identifiers, hashes and counts of mixed lengths (a random int32 takes
// 2 to 5 bytes) defeat the one-length blocks; one at a time each costs a
// length branch (mispredicted when lengths mix at random) and a load whose
// address waits on the previous varint's length.
//
// Decoding takes 64-byte windows 56 bytes apart (the last one a masked load:
// never a byte past avail), whose terminators (bytes below 0x80) are one
// mask; vpcompressb of the byte indices by that mask gives every varint's
// last byte at once, and its first is the previous one's last plus one. A
// window decodes the varints that end in its bytes 8 to 63 (0 to 63 for the
// first): their first bytes and the end before them are in it too, so where
// a window starts never waits for the bytes of the one before. Lengths (1
// to 5) and shortest forms (a last byte that is not 0, and 1 to 15 for a
// fifth) are tested for the whole window in byte lanes; then sixteen
// varints at a time are gathered into 32-bit lanes by vpermb (bytes past
// each end zeroed, the fifth apart), their 7-bit groups joined by
// vpmaddubsw and vpmaddwd, and decoded by IntCoding. load_run stops before
// the first varint that is refused, cut off by the end of the bytes, or past
// count, having written only the elements it returns. Runs of one-byte
// varints are widened 16 at a time instead (vpmovzxbd), no window needed.
#pragma once

#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "../config.hpp"
#include "leb128.hpp"
#include "leb128_blocks.hpp"

// Defined as 0 before including the library, the run-time choice and its
// code are left out (the fallback paths compile exactly as without them).
#ifndef BIN_SERIALIZER_LEB128_AVX512
#if BIN_SERIALIZER_LEB128_BLOCKS && defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define BIN_SERIALIZER_LEB128_AVX512 1
#else
#define BIN_SERIALIZER_LEB128_AVX512 0
#endif
#endif
#if BIN_SERIALIZER_LEB128_AVX512
#include <immintrin.h>
#endif

namespace bin_serializer::detail::leb128::avx512 {

// What load_run decoded: how many varints, and their bytes (returned in
// registers: nothing of the caller's escapes).
struct run {
  std::size_t count, taken;
};

// Whether these paths exist for T under IntCoding: a 32-bit varint integer
// (or enum) under one of the library's two codings.
template <class IntCoding, class T>
inline constexpr bool available =
    BIN_SERIALIZER_LEB128_AVX512 && blocks::available<IntCoding, T> && sizeof(T) == 4;

#if BIN_SERIALIZER_LEB128_AVX512

// g++ 12's AVX-512 intrinsics start from a self-initialised "undefined"
// vector, which -Wmaybe-uninitialized reports where they are inlined (GCC
// bug 105593, fixed in g++ 13).
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wuninitialized"
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif

#define BIN_SERIALIZER_AVX512_TARGET \
  __attribute__((target("avx512f,avx512bw,avx512vl,avx512vbmi,avx512vbmi2,bmi,bmi2,popcnt")))

// Whether this CPU (and its OS, which must save the AVX-512 registers: the
// compilers' run-time checks test that too) runs the functions below.
inline bool detect() noexcept {
  __builtin_cpu_init(); // may run before the constructors that would call it
  return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
         __builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("avx512vbmi") &&
         __builtin_cpu_supports("avx512vbmi2") && __builtin_cpu_supports("bmi") &&
         __builtin_cpu_supports("bmi2") && __builtin_cpu_supports("popcnt");
}

// Tested once per process (false until then: the fallback). Not const, so
// that tests can run the fallback on a CPU that has AVX-512; nothing else
// writes it.
inline bool enabled = detect();

// Windows are 64 bytes loaded 56 apart: window k (at byte 56k) decodes the
// varints that end in its bytes `from` (8; 0 in the first) to 63, whose
// first bytes are then in it too, as is the end before them (a varint
// takes at most 5 bytes; one that ends 8 or more bytes into a window
// without an end before it is too long, and refused). So where a window
// starts never waits for the bytes of the one before.
inline constexpr std::size_t window_stride = 56;

// Sixteen varints' unsigned values, in 32-bit lanes, as IntCoding decodes
// them: (u >> 1) ^ -(u & 1) where it folds the sign.
template <class IntCoding, class T>
BIN_SERIALIZER_AVX512_TARGET BIN_SERIALIZER_INLINE __m512i decode_lanes(__m512i u) noexcept {
  if constexpr (blocks::folds_sign<IntCoding, T>) {
    const __m512i half = _mm512_srli_epi32(u, 1);
    return _mm512_mask_xor_epi32(half, _mm512_test_epi32_mask(u, _mm512_set1_epi32(1)), half,
                                 _mm512_set1_epi32(-1));
  } else {
    return u;
  }
}

// One window of load_run: w holds the `present` bytes at p + at (the others
// zero). Decodes the varints that end in its bytes `from` to 63, at most
// count - done of them, into out + done; adds them to done, and sets used
// to the byte after the last one. False when it stopped before them all (a
// varint refused, or count reached).
template <class IntCoding, class T>
BIN_SERIALIZER_AVX512_TARGET BIN_SERIALIZER_INLINE bool
window(const __m512i& w, std::uint64_t present, std::size_t at, unsigned from, T* out,
       std::size_t count, std::size_t& done, std::size_t& used) noexcept {
  const __m512i index = _mm512_set_epi8( // byte k holds k
      63, 62, 61, 60, 59, 58, 57, 56, 55, 54, 53, 52, 51, 50, 49, 48, 47, 46, 45, 44, 43, 42, 41,
      40, 39, 38, 37, 36, 35, 34, 33, 32, 31, 30, 29, 28, 27, 26, 25, 24, 23, 22, 21, 20, 19, 18,
      17, 16, 15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0);
  const __m512i ones = _mm512_set1_epi8(1);
  const __m512i byte_in_lane = _mm512_set1_epi32(0x03020100); // j in byte j of a 32-bit lane
  const __m512i lane_of_byte = _mm512_set_epi32(              // k in every byte of 32-bit lane k
      0x0F0F0F0F, 0x0E0E0E0E, 0x0D0D0D0D, 0x0C0C0C0C, 0x0B0B0B0B, 0x0A0A0A0A, 0x09090909,
      0x08080808, 0x07070707, 0x06060606, 0x05050505, 0x04040404, 0x03030303, 0x02020202,
      0x01010101, 0);
  const std::uint64_t ends = ~_cvtmask64_u64(_mm512_movepi8_mask(w)) & present;
  // Varints k = first ... all - 1 end in this window's part.
  const auto all = static_cast<unsigned>(_mm_popcnt_u64(ends));
  const auto first = static_cast<unsigned>(_mm_popcnt_u64(_bzhi_u64(ends, from)));
  // Each varint's last byte (e) and first (s: the previous e plus one, 0
  // for the first), in byte lanes k = 0, 1, ...; d = its length - 1.
  const __m512i e = _mm512_maskz_compress_epi8(_cvtu64_mask64(ends), index);
  const __m512i s = _mm512_maskz_add_epi8(
      _cvtu64_mask64(~1ULL), _mm512_permutexvar_epi8(_mm512_sub_epi8(index, ones), e), ones);
  const __m512i d = _mm512_sub_epi8(e, s);
  const __m512i last = _mm512_permutexvar_epi8(e, w);
  // Refused: longer than 5 bytes; a last byte of 0 after a continuation
  // (not the shortest); a fifth byte above 15 (beyond 32 bits).
  const __mmask64 too_long = _mm512_cmpgt_epu8_mask(d, _mm512_set1_epi8(4));
  const __mmask64 zero_last = _mm512_mask_testn_epi8_mask(_mm512_test_epi8_mask(d, d), last, last);
  const __mmask64 five = _mm512_cmpeq_epi8_mask(d, _mm512_set1_epi8(4));
  const __mmask64 too_big = _mm512_mask_cmpgt_epu8_mask(five, last, _mm512_set1_epi8(15));
  const std::uint64_t refused =
      _cvtmask64_u64(_kor_mask64(too_long, _kor_mask64(zero_last, too_big))) &
      (_bzhi_u64(~0ULL, all) & ~_bzhi_u64(~0ULL, first));
  std::size_t n = all - first;
  bool go_on = true;
  if (refused != 0 || n >= count - done) [[unlikely]] {
    // The varints before the first refused one, at most count - done.
    if (refused != 0) n = static_cast<std::size_t>(_tzcnt_u64(refused)) - first;
    if (n > count - done) n = count - done;
    go_on = false;
    if (n == 0) return false;
    used = at + static_cast<std::size_t>(_tzcnt_u64(_pdep_u64(1ULL << (first + n - 1), ends))) + 1;
  } else if (n != 0) {
    used = at + 64 - static_cast<std::size_t>(__builtin_clzll(ends)); // ends != 0
  }
  // A varint's fifth byte (0 for shorter ones), in its lane k.
  const __m512i fifth = _mm512_maskz_mov_epi8(five, last);
  __m512i pick = _mm512_add_epi8(lane_of_byte, _mm512_set1_epi8(static_cast<char>(first)));
  for (std::size_t g = 0; g < n; g += 16) {
    // Varint first + g + k's first four bytes in 32-bit lane k, those past
    // its end zeroed; its fifth byte alone in another.
    const __m512i start = _mm512_permutexvar_epi8(pick, s);
    const __m512i span = _mm512_permutexvar_epi8(pick, d);
    const __m512i top =
        _mm512_maskz_permutexvar_epi8(_cvtu64_mask64(0x1111111111111111ULL), pick, fifth);
    pick = _mm512_add_epi8(pick, _mm512_set1_epi8(16));
    const __mmask64 inside = _mm512_cmple_epu8_mask(byte_in_lane, span);
    const __m512i x = _mm512_and_si512(
        _mm512_maskz_permutexvar_epi8(inside, _mm512_add_epi8(start, byte_in_lane), w),
        _mm512_set1_epi8(0x7F));
    // 7-bit groups joined: pairs into 14 bits, pairs of those into 28, the
    // fifth byte's 4 bits (checked above) at 28 to 31.
    const __m512i g14 = _mm512_maddubs_epi16(_mm512_set1_epi16(static_cast<short>(0x8001)), x);
    const __m512i g28 = _mm512_madd_epi16(g14, _mm512_set1_epi32(0x40000001));
    __m512i u = _mm512_or_si512(g28, _mm512_slli_epi32(top, 28));
    u = decode_lanes<IntCoding, T>(u);
    T* to = out + done + g;
    if (n - g >= 16)
      _mm512_storeu_si512(to, u);
    else
      _mm512_mask_storeu_epi32(to, static_cast<__mmask16>((1U << (n - g)) - 1U), u);
  }
  done += n;
  return go_on;
}

// Decodes up to `count` T from the `avail` bytes at p (no byte past them is
// read): returns how many decoded into out (each as leb128::load and
// IntCoding::decode would), and in `taken` the bytes they took. It stops
// before the first varint that leb128::load refuses (too long, not the
// shortest, above 32 bits) or that the bytes cut off; out[k] for k at and
// after the returned count are not written.
template <class IntCoding, class T>
BIN_SERIALIZER_AVX512_TARGET inline run load_run(const std::byte* p, std::size_t avail, T* out,
                                                 std::size_t count) noexcept {
  static_assert(sizeof(T) == 4);
  std::size_t done = 0, used = 0, at = 0;
  unsigned from = 0;
  bool go_on = true;
  for (;;) {
    // One-byte varints from the next one on, tried first and after two
    // windows in a row of one-byte varints only (a count or a flag among
    // them): the whole sixteens of them among the next 64 bytes, widened 16
    // at a time, and again while all 64 were; the windows start again after
    // them. (Tried after every window, it cost random identifiers 8 %.)
    while (avail - used >= 64 && count - done >= 64) {
      const std::uint64_t cont = _cvtmask64_u64(_mm512_movepi8_mask(_mm512_loadu_si512(p + used)));
      const std::size_t k =
          cont == 0 ? 64 : static_cast<std::size_t>(_tzcnt_u64(cont)) & ~std::size_t{15};
      for (std::size_t j = 0; j < k; j += 16) {
        __m512i u =
            _mm512_cvtepu8_epi32(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p + used + j)));
        u = decode_lanes<IntCoding, T>(u);
        _mm512_storeu_si512(out + done + j, u);
      }
      if (k == 0) break;
      done += k;
      used += k;
      at = used;
      from = 0;
      if (k != 64) break;
    }
    unsigned ones = 0; // windows in a row of one-byte varints only
    for (; go_on && ones < 2 && avail - at >= 64; at += window_stride, from = 64 - window_stride) {
      const std::size_t before = done;
      go_on =
          window<IntCoding>(_mm512_loadu_si512(p + at), ~0ULL, at, from, out, count, done, used);
      ones = done - before >= window_stride ? ones + 1 : 0;
    }
    if (ones < 2 || !go_on) break;
  }
  if (go_on && at < avail) { // the last bytes, by a masked load
    const std::uint64_t present = _bzhi_u64(~0ULL, static_cast<unsigned>(avail - at));
    (void)window<IntCoding>(_mm512_maskz_loadu_epi8(_cvtu64_mask64(present), p + at), present, at,
                            from, out, count, done, used);
  }
  return {done, used};
}

// Why load_run stopped before the varint at p (avail bytes from p): true
// when the bytes end inside it (no last byte among them, and fewer than 5),
// false when leb128::load refuses it. Out of line, values in and out: the
// caller's reader stays in registers.
[[gnu::noinline]] inline bool cut_off(const std::byte* p, std::size_t avail) noexcept {
  if (avail >= 5) return false;
  for (std::size_t i = 0; i < avail; ++i)
    if (static_cast<unsigned>(p[i]) < 0x80) return false;
  return true;
}

#undef BIN_SERIALIZER_AVX512_TARGET

#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic pop
#endif

#else

inline constexpr bool enabled = false;

// Declared so that varint.hpp parses; its calls are discarded here.
template <class IntCoding, class T>
run load_run(const std::byte* p, std::size_t avail, T* out, std::size_t count) noexcept;
bool cut_off(const std::byte* p, std::size_t avail) noexcept;

#endif

} // namespace bin_serializer::detail::leb128::avx512
