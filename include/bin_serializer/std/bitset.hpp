// std::bitset<N>.
//
// A format with the host's layout (native): sizeof(std::bitset<N>) bytes, the
//           object as it is (the standard library's word size, so
//           host-specific like everything native).
// Every other format: ceil(N / 8) bytes, packed as the format says: bit i is
// bit (i % 8) of byte F::bit_byte(i / 8, bytes) (format/format.hpp; the
// library's formats: byte i / 8).
// Decoding rejects set bits beyond N (packed: in the byte holding the last
// bits; host words: in the storage words), which no bitset<N> has.
#pragma once

#include <bitset>
#include <cstddef>
#include <cstring>

#include "../core/field.hpp"
#include "../core/size.hpp"
#include "../core/schema_tokens.hpp"

namespace bin_serializer {

template <std::size_t N>
struct codec<std::bitset<N>> {

  // Fingerprint (core/schema_tokens.hpp): BITSET N.
  template <class H>
  static constexpr void schema(H& h) {
    h.token(detail::schema::t_bitset, N);
  }
  using bits = std::bitset<N>;
  static constexpr std::size_t portable_bytes = (N + 7) / 8;

  // A format with the host's layout copies the library's words; the others
  // pack the bits into ceil(N / 8) bytes.
  template <options Opts>
  static constexpr bool host_words = detail::format_of<Opts>::host_layout;
  template <options Opts>
  static constexpr std::size_t bytes = host_words<Opts> ? sizeof(bits) : portable_bytes;

  // What the library knows of the encoding (core/codec_facts.hpp). Every
  // bitset<N> encodes to exactly `bytes`: a struct decodes it within a run of
  // fixed-size fields (run_size, core/read_fields.hpp). size() is exact.
  // min_size is left at its default 0, as before: with it stated, a struct
  // holding a bitset and one varint would be read in short form first
  // (cursor/run_reader.hpp), a change of its own.
  template <options Opts>
  static constexpr codec_facts facts{
      .max_size = bytes<Opts>, .run_size = bytes<Opts>, .has_size = true, .trusted_size = true};

  template <options Opts>
  static constexpr std::size_t size(const bits&) noexcept {
    return bytes<Opts>;
  }

  // The host's words: one copy (the compiler decides on inlining, as for
  // any block). bitset<0> has no bits, only storage the library never
  // initialises: zeros are written rather than whatever those bytes hold.
  template <class W>
    requires host_words<W::opts>
  static bool write(W& w, const bits& b) {
    if constexpr (N == 0) {
      (void)b;
      const unsigned char zeros[sizeof(bits)] = {};
      return w.write_bytes(zeros, sizeof zeros);
    } else {
      return w.write_bytes(&b, sizeof b);
    }
  }
  // The byte of the packed encoding in format Opts that holds bits 8k to 8k + 7.
  template <options Opts>
  BIN_SERIALIZER_INLINE static constexpr std::size_t byte_of(std::size_t k) noexcept {
    return detail::format_of<Opts>::bit_byte(k, portable_bytes);
  }

  // Packed bytes: a few shifts, always inlined into the message's encoder.
  template <class W>
    requires(!host_words<W::opts>)
  BIN_SERIALIZER_INLINE static bool write(W& w, const bits& b) {
    unsigned char out[portable_bytes == 0 ? 1 : portable_bytes] = {};
    if constexpr (N <= 64) {
      // Up to 64 bits: the integer's bytes, no loop over bits.
      const unsigned long long v = b.to_ullong();
      for (std::size_t i = 0; i < portable_bytes; ++i)
        out[byte_of<W::opts>(i)] = static_cast<unsigned char>(v >> (8 * i));
    } else {
      for (std::size_t i = 0; i < N; ++i)
        if (b[i]) {
          unsigned char& o = out[byte_of<W::opts>(i / 8)];
          o = static_cast<unsigned char>(o | (1u << (i % 8)));
        }
    }
    return w.write_bytes(out, portable_bytes);
  }

  template <class R>
  BIN_SERIALIZER_INLINE static bool read(R& r, bits& b) {
    const std::size_t at = r.position();
    if constexpr (host_words<R::opts> && N == 0) {
      unsigned char raw[sizeof(bits)];
      if (!r.read_bytes(raw, sizeof raw)) return false;
      if constexpr (R::opts.validate_values) {
        for (std::size_t i = 0; i < sizeof raw; ++i)
          if (raw[i] != 0) [[unlikely]]
            return r.fail(errc::invalid_value, at + i);
      }
      b = bits{};
      return true;
    } else if constexpr (host_words<R::opts>) {
      bits raw;
      if (!r.read_bytes(&raw, sizeof raw)) return false;
      if constexpr (R::opts.validate_values) {
        // Rebuild from the N valid bits: any difference is a stray bit. Up to
        // 64 bits the constructor from an integer drops the bits past N.
        bits clean;
        if constexpr (N <= 64)
          clean = bits(raw.to_ullong());
        else
          for (std::size_t i = 0; i < N; ++i) clean[i] = raw[i];
        if (std::memcmp(&clean, &raw, sizeof raw) != 0) [[unlikely]]
          return r.fail(errc::invalid_value, at);
      }
      b = raw;
      return true;
    } else {
      unsigned char in[portable_bytes == 0 ? 1 : portable_bytes] = {};
      if (!r.read_bytes(in, portable_bytes)) return false;
      if constexpr (N % 8 != 0 && R::opts.validate_values) {
        constexpr std::size_t last = byte_of<R::opts>(portable_bytes - 1);
        if ((static_cast<unsigned>(in[last]) >> (N % 8)) != 0) [[unlikely]]
          return r.fail(errc::invalid_value, at + last);
      }
      if constexpr (N <= 64) {
        unsigned long long v = 0;
        for (std::size_t i = 0; i < portable_bytes; ++i)
          v |= static_cast<unsigned long long>(in[byte_of<R::opts>(i)]) << (8 * i);
        b = bits(v); // drops bits past N (a stray one was refused above if checked)
      } else {
        bits decoded;
        for (std::size_t i = 0; i < N; ++i)
          decoded[i] = ((static_cast<unsigned>(in[byte_of<R::opts>(i / 8)]) >> (i % 8)) & 1u) != 0;
        b = decoded;
      }
      return true;
    }
  }
};

} // namespace bin_serializer
