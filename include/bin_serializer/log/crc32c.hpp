// CRC32C (Castagnoli): the checksum of record log blocks (docs/wire-format.md
// section 13). crc32c::compute(p, n); crc32c::extend(crc, p, n) continues a
// CRC over more bytes (extend(compute(a), b) == compute(a followed by b)).
//
// Why a codec of its own: the x86-64 crc32 instruction (SSE 4.2) computes it
// at 8 bytes per instruction. It is used when the CPU has it (checked once at
// run time, or always when the build targets SSE 4.2), with three independent
// streams over a block so the instruction's latency is hidden; elsewhere
// (other CPUs, s390x) a slicing-by-8 table. Both give the same values on every
// host: check value compute("123456789", 9) == 0xE3069283.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <cstring>

#include "../config.hpp"

namespace bin_serializer::crc32c {

namespace detail {

inline constexpr std::uint32_t polynomial = 0x82F63B78; // reflected

consteval std::array<std::array<std::uint32_t, 256>, 8> make_tables() {
  std::array<std::array<std::uint32_t, 256>, 8> t{};
  for (std::uint32_t i = 0; i < 256; ++i) {
    std::uint32_t c = i;
    for (int k = 0; k < 8; ++k) c = (c & 1) != 0 ? (c >> 1) ^ polynomial : c >> 1;
    t[0][i] = c;
  }
  for (std::size_t s = 1; s < 8; ++s)
    for (std::size_t i = 0; i < 256; ++i) t[s][i] = (t[s - 1][i] >> 8) ^ t[0][t[s - 1][i] & 0xFF];
  return t;
}
inline constexpr auto tables = make_tables();

// Slicing-by-8 on the raw (unconditioned) register; bytes are read one by
// one into a little-endian word, so big-endian hosts get the same values.
inline std::uint32_t update_table(std::uint32_t crc, const unsigned char* p,
                                  std::size_t n) noexcept {
  while (n >= 8) {
    const std::uint32_t lo = crc ^ (std::uint32_t{p[0]} | std::uint32_t{p[1]} << 8 |
                                    std::uint32_t{p[2]} << 16 | std::uint32_t{p[3]} << 24);
    const std::uint32_t hi = std::uint32_t{p[4]} | std::uint32_t{p[5]} << 8 |
                             std::uint32_t{p[6]} << 16 | std::uint32_t{p[7]} << 24;
    crc = tables[7][lo & 0xFF] ^ tables[6][(lo >> 8) & 0xFF] ^ tables[5][(lo >> 16) & 0xFF] ^
          tables[4][lo >> 24] ^ tables[3][hi & 0xFF] ^ tables[2][(hi >> 8) & 0xFF] ^
          tables[1][(hi >> 16) & 0xFF] ^ tables[0][hi >> 24];
    p += 8;
    n -= 8;
  }
  while (n-- != 0) crc = tables[0][(crc ^ *p++) & 0xFF] ^ (crc >> 8);
  return crc;
}

// Multiplying a CRC register by x^(8k) mod P (appending k zero bytes) is
// linear: four table lookups per constant k. Used to join the three streams.
consteval std::array<std::array<std::uint32_t, 256>, 4> make_shift(std::size_t zero_bytes) {
  // The image of each of the 32 register bits, then every byte value as the
  // xor of its bits' images (few enough steps for any constant evaluator).
  std::array<std::uint32_t, 32> basis{};
  for (std::size_t k = 0; k < 32; ++k) {
    std::uint32_t c = std::uint32_t{1} << k;
    for (std::size_t z = 0; z < zero_bytes; ++z) c = tables[0][c & 0xFF] ^ (c >> 8);
    basis[k] = c;
  }
  std::array<std::array<std::uint32_t, 256>, 4> t{};
  for (std::size_t b = 0; b < 4; ++b)
    for (std::uint32_t i = 0; i < 256; ++i)
      for (std::size_t bit = 0; bit < 8; ++bit)
        if ((i >> bit) & 1) t[b][i] ^= basis[8 * b + bit];
  return t;
}
inline std::uint32_t shift(const std::array<std::array<std::uint32_t, 256>, 4>& t,
                           std::uint32_t c) noexcept {
  return t[0][c & 0xFF] ^ t[1][(c >> 8) & 0xFF] ^ t[2][(c >> 16) & 0xFF] ^ t[3][c >> 24];
}

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define BIN_SERIALIZER_CRC32C_X86 1

// Three streams of `lane` bytes each: the crc32 instruction has a latency of
// three cycles and a throughput of one, so three chains keep it busy.
inline constexpr std::size_t lane = 256;
inline constexpr auto shift_lane = make_shift(lane);
inline constexpr auto shift_two_lanes = make_shift(2 * lane);

[[gnu::target("sse4.2")]] inline std::uint32_t update_hw(std::uint32_t crc, const unsigned char* p,
                                                         std::size_t n) noexcept {
  std::uint64_t c0 = crc;
  while (n >= 3 * lane) {
    std::uint64_t c1 = 0, c2 = 0;
    for (std::size_t i = 0; i < lane; i += 8) {
      std::uint64_t a, b, d;
      std::memcpy(&a, p + i, 8);
      std::memcpy(&b, p + lane + i, 8);
      std::memcpy(&d, p + 2 * lane + i, 8);
      c0 = __builtin_ia32_crc32di(c0, a);
      c1 = __builtin_ia32_crc32di(c1, b);
      c2 = __builtin_ia32_crc32di(c2, d);
    }
    // crc(A B C) = shift(crc(A), |B C|) ^ shift(crc0(B), |C|) ^ crc0(C)
    c0 = shift(shift_two_lanes, static_cast<std::uint32_t>(c0)) ^
         shift(shift_lane, static_cast<std::uint32_t>(c1)) ^ c2;
    p += 3 * lane;
    n -= 3 * lane;
  }
  while (n >= 8) {
    std::uint64_t a;
    std::memcpy(&a, p, 8);
    c0 = __builtin_ia32_crc32di(c0, a);
    p += 8;
    n -= 8;
  }
  auto c = static_cast<std::uint32_t>(c0);
  while (n-- != 0) c = __builtin_ia32_crc32qi(c, *p++);
  return c;
}

inline bool cpu_has_crc32c() noexcept {
#if defined(__SSE4_2__)
  return true;
#else
  static const bool has = __builtin_cpu_supports("sse4.2");
  return has;
#endif
}
#endif

} // namespace detail

// Whether this host computes CRC32C with a hardware instruction.
[[nodiscard]] inline bool hardware() noexcept {
#ifdef BIN_SERIALIZER_CRC32C_X86
  return detail::cpu_has_crc32c();
#else
  return false;
#endif
}

// The CRC of n bytes at p following bytes whose CRC is `crc` (0: none).
[[nodiscard]] inline std::uint32_t extend(std::uint32_t crc, const void* p,
                                          std::size_t n) noexcept {
  const auto* bytes = static_cast<const unsigned char*>(p);
  crc = ~crc;
#ifdef BIN_SERIALIZER_CRC32C_X86
  if (detail::cpu_has_crc32c()) return ~detail::update_hw(crc, bytes, n);
#endif
  return ~detail::update_table(crc, bytes, n);
}

[[nodiscard]] inline std::uint32_t compute(const void* p, std::size_t n) noexcept {
  return extend(0, p, n);
}

// The table path alone (tests compare it with the hardware one).
[[nodiscard]] inline std::uint32_t compute_portable(const void* p, std::size_t n) noexcept {
  return ~detail::update_table(~std::uint32_t{0}, static_cast<const unsigned char*>(p), n);
}

} // namespace bin_serializer::crc32c
