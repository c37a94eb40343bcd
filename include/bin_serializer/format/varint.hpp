// Leaves of a varint format: LEB128 integers and lengths (format/leb128.hpp),
// everything else as the portable format. A format's header derives its
// policy from varint_leaves<IntCoding> and adds its own decisions (id, name,
// host_layout, refuses); compact is varint_leaves<leb128::zigzag>.
//
//   lengths and counts      unsigned LEB128 varint (1 to 10 bytes)
//   16-, 32-, 64-bit ints   unsigned LEB128 varint of IntCoding::encode(v)
//   and enums over them     (zigzag, two_complement: leb128.hpp); at most 3,
//                           5 or 10 bytes
//   everything else         as portable: 8-bit integers, bool, characters,
//                           IEEE floats little-endian; the evolvable prefix
//                           fields fixed uint32s (they are back-patched);
//                           packed bits as portable
//
// IntCoding is the one choice of how integers are coded: store_scalar,
// load_scalar, scalar_size and the four-at-a-time group paths all go through
// it, so a format composed with another coding cannot be half-applied. A
// format is composed from these leaves, never derived from another format's
// policy (docs/contributing.md).
#pragma once

#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <type_traits>
#include <utility>

#include "../config.hpp"
#include "access.hpp"
#include "endian.hpp"
#include "fixed_width.hpp"
#include "leb128.hpp"
#include "leb128_avx512.hpp"
#include "leb128_blocks.hpp"

namespace bin_serializer::detail {

template <class IntCoding>
struct varint_leaves {
private:
  // Everything that is not a varint: as the portable format.
  using fixed = fixed_width_leaves<std::endian::little>;
  template <class T>
  static constexpr bool varint = leb128::is_varint<T>();

public:
  using int_coding = IntCoding;

  // Measuring a message exactly costs a pass over every varint; serialize()
  // reserves each leaf's longest encoding instead (core/encode.hpp).
  static constexpr bool sizes_vary = true;

  template <class T>
  static constexpr bool object_bytes_scalar = !varint<T> && fixed::object_bytes_scalar<T>;
  template <class T>
  static constexpr bool little_endian_scalar = !varint<T>;

  template <class T>
  static constexpr std::size_t scalar_min = leb128::min_size<T>();
  template <class T>
  static constexpr std::size_t scalar_max = leb128::max_size<T>();

  template <class T>
  BIN_SERIALIZER_INLINE static constexpr std::size_t scalar_size(const T& v) noexcept {
    if constexpr (varint<T>)
      return leb128::size(IntCoding::encode(v));
    else
      return sizeof(T);
  }
  // A 64-bit scalar is stored with one word (store_wide): up to 8 bytes past
  // the end of a shorter encoding, within its 10-byte maximum.
  static constexpr std::size_t store_slack = 8;

  template <class T>
  BIN_SERIALIZER_INLINE static std::byte* store_scalar(std::byte* p, T v) noexcept {
    if constexpr (varint<T> && sizeof(T) == 8)
      return leb128::store_wide(p, IntCoding::encode(v));
    else if constexpr (varint<T> && sizeof(T) == 4)
      return leb128::store_narrow(p, IntCoding::encode(v));
    else if constexpr (varint<T> && sizeof(T) == 2 && leb128::unrolled_short_store)
      return leb128::store_short(p, IntCoding::encode(v));
    else if constexpr (varint<T>)
      return leb128::store(p, IntCoding::encode(v));
    else
      return fixed::store_scalar(p, v);
  }
  template <class R, class T>
  BIN_SERIALIZER_INLINE static bool load_scalar(R& r, T& v) noexcept {
    if constexpr (varint<T>) {
      leb128::unsigned_of<T> u{};
      if (!leb128::load(r, u)) return false;
      v = IntCoding::template decode<T>(u);
      return true;
    } else {
      return fixed::load_scalar(r, v);
    }
  }

  // Arrays of varints, four elements at a time (format.hpp, put_scalars and
  // get_scalars), with the same IntCoding and the same bytes as four
  // store_scalar / load_scalar calls. Four that all take one byte (small
  // counts, codes) are one test and one move of the cursor, either way; so
  // are four 32-bit values that all take five bytes (hashes, random
  // identifiers), with one more test of their fifth bytes when decoding. Any
  // other four go one by one, through this policy's store_scalar and
  // load_scalar. The first element's length picks which group test to try,
  // if any: arrays of two- to four-byte values then pay one comparison per
  // four elements, not a failed test of each kind. Unrolled by folds: g++ -O2
  // keeps a loop over four and spills the values to the stack.
  static constexpr std::size_t scalar_group = 4;
  template <class T>
    requires(varint<T>)
  BIN_SERIALIZER_INLINE static std::byte* store_group(std::byte* p, const T* v) noexcept {
    return store_four(p, v, std::make_index_sequence<scalar_group>{});
  }
  template <class T, class R>
    requires(varint<T> && R::contiguous)
  BIN_SERIALIZER_INLINE static bool load_group(R& r, T* out) noexcept {
    return load_four<false>(r, out, std::make_index_sequence<scalar_group>{}) != 0;
  }
  // The same, saying how many decoded (format.hpp): a vector's failure keeps
  // the elements before the one that failed.
  template <class T, class R>
    requires(varint<T> && R::contiguous)
  BIN_SERIALIZER_INLINE static std::size_t load_group_count(R& r, T* out) noexcept {
    return load_four<true>(r, out, std::make_index_sequence<scalar_group>{});
  }
  // Four one-byte values, when the caller knows four bytes are left
  // (format.hpp, get_scalar_run): one test of the four bytes, no bounds
  // check. Anything else returns false having read and recorded nothing.
  template <class T, class R>
    requires(varint<T> && R::contiguous)
  BIN_SERIALIZER_INLINE static bool load_short_group(R& r, T* out) noexcept {
    return load_four_short(r, out, std::make_index_sequence<scalar_group>{});
  }

  // Sixteen at a time where the CPU has the vectors for it
  // (leb128_blocks.hpp): sixteen one-byte or sixteen two-byte values are one
  // test and one narrowing or widening of lanes. store_block writes the same
  // bytes as sixteen store_scalar calls whatever the values: the first
  // value's length picks the block to try (one comparison, two for two
  // bytes); when it or any other value takes another length, four groups.
  // load_short_block decodes sixteen one-byte values and load_pair_block
  // sixteen two-byte ones (if the reader holds the 16 more bytes they take
  // beyond the one per element it is known to hold: format.hpp) and return
  // true; else false, having read and recorded nothing (the caller goes on).
  static constexpr std::size_t scalar_block = leb128::blocks::size;
#if BIN_SERIALIZER_LEB128_BLOCKS
  template <class T>
    requires(leb128::blocks::available<IntCoding, T>)
  BIN_SERIALIZER_INLINE static std::byte* store_block(std::byte* p, const T* v) noexcept {
    const auto u0 = IntCoding::encode(v[0]);
    if (u0 < 0x80) {
      if (leb128::blocks::store_small<IntCoding>(p, v)) return p + scalar_block;
    } else if (u0 < 0x4000) {
      if (leb128::blocks::store_pairs<IntCoding>(p, v)) return p + 2 * scalar_block;
    }
    for (std::size_t k = 0; k < scalar_block; k += scalar_group) p = store_group(p, v + k);
    return p;
  }
  template <class T, class R>
    requires(leb128::blocks::available<IntCoding, T> && R::contiguous)
  BIN_SERIALIZER_INLINE static bool load_short_block(R& r, T* out) noexcept {
    if (!leb128::blocks::load_small<IntCoding>(take_counted(r, 0), out)) return false;
    (void)take_counted(r, scalar_block);
    return true;
  }
  template <class T, class R>
    requires(leb128::blocks::available<IntCoding, T> && R::contiguous)
  BIN_SERIALIZER_INLINE static bool load_pair_block(R& r, T* out, std::size_t after) noexcept {
    if (!has_room(r, 2 * scalar_block + after) ||
        !leb128::blocks::load_pairs<IntCoding>(take_counted(r, 0), out))
      return false;
    (void)take_counted(r, 2 * scalar_block);
    return true;
  }
#endif
  // Whether the CPU has what leb128_avx512.hpp needs (found at run time):
  // then what follows a vector's one- and two-byte blocks decodes through
  // load_run (std/codec_support.hpp, get_scalars_into): up to count values
  // of any lengths, 64 bytes at a time, as count load_scalar calls would
  // leave them. The run stops only before a varint that leb128::load
  // refuses (invalid_value at its first byte) or that the bytes cut off (the
  // reader's own report of running out, at the same place): which of the
  // two is found out of line, so that the fallback's code is not laid out
  // around a copy of load_scalar (clang: 3 % more instructions on a
  // thousand mixed varints).
  template <class T>
    requires(leb128::avx512::available<IntCoding, T>)
  BIN_SERIALIZER_INLINE static bool runs_enabled() noexcept {
    return leb128::avx512::enabled;
  }
  template <class T, class R>
    requires(leb128::avx512::available<IntCoding, T> && R::contiguous && !short_form<R>())
  BIN_SERIALIZER_INLINE static std::size_t load_run(R& r, T* out, std::size_t count) noexcept {
    const leb128::avx512::run got =
        leb128::avx512::load_run<IntCoding>(take_counted(r, 0), r.remaining(), out, count);
    (void)take_counted(r, got.taken);
    if (got.count != count) [[unlikely]] {
      if (leb128::avx512::cut_off(take_counted(r, 0), r.remaining()))
        (void)r.take(r.remaining() + 1);
      else
        (void)r.fail(errc::invalid_value, r.position());
    }
    return got.count;
  }

private:
  template <class T, std::size_t... K>
  BIN_SERIALIZER_INLINE static std::byte* store_four(std::byte* p, const T* v,
                                                     std::index_sequence<K...>) noexcept {
    using U = leb128::unsigned_of<T>;
    const U u[] = {IntCoding::encode(v[K])...};
    if (u[0] < 0x80) {
      if ((u[K] | ...) < 0x80) {
        ((p[K] = static_cast<std::byte>(u[K])), ...);
        return p + sizeof...(K);
      }
    } else if constexpr (sizeof(U) == 4 && leb128::blocks::available<IntCoding, T>) {
      // The test and the four in vector lanes (leb128_blocks.hpp).
      if (leb128::blocks::store_long4<IntCoding>(p, v)) return p + 5 * sizeof...(K);
    } else if constexpr (sizeof(U) == 4) {
      // The least of the other three, by values (std::min's references make
      // g++ spill them).
      const U low12 = u[1] < u[2] ? u[1] : u[2];
      const U low = low12 < u[3] ? low12 : u[3];
      if (u[0] >= (U{1} << 28) && low >= (U{1} << 28)) {
        ((store_little(p + 5 * K, leb128::spread7_32(u[K]) | 0x80808080U),
          p[5 * K + 4] = static_cast<std::byte>(u[K] >> 28)),
         ...);
        return p + 5 * sizeof...(K);
      }
    }
    ((p = store_scalar(p, v[K])), ...);
    return p;
  }

  template <class T, class R, std::size_t... K>
  BIN_SERIALIZER_INLINE static bool load_four_short(R& r, T* out,
                                                    std::index_sequence<K...>) noexcept {
    static_assert(sizeof...(K) == 4);
    using U = leb128::unsigned_of<T>;
    const std::byte* p = take_counted(r, 0);
    if ((load_little<std::uint32_t>(p) & 0x80808080U) != 0) return false;
    ((out[K] = IntCoding::template decode<T>(static_cast<U>(static_cast<unsigned>(p[K])))), ...);
    (void)take_counted(r, 4);
    return true;
  }

  // Returns 4 when all four decoded; otherwise, with Count, the index of the
  // one that failed (without: 0).
  template <bool Count, class T, class R, std::size_t... K>
  BIN_SERIALIZER_INLINE static std::size_t load_four(R& r, T* out,
                                                     std::index_sequence<K...>) noexcept {
    static_assert(sizeof...(K) == 4);
    using U = leb128::unsigned_of<T>;
    const std::byte* p = take_counted(r, 0);
    if (has_room(r, 4) && static_cast<unsigned>(p[0]) < 0x80 &&
        (load_little<std::uint32_t>(p) & 0x80808080U) == 0) [[likely]] {
      ((out[K] = IntCoding::template decode<T>(static_cast<U>(static_cast<unsigned>(p[K])))), ...);
      (void)take_counted(r, 4);
      return 4;
    }
    if constexpr (sizeof(U) == 4) {
      // Four 32-bit values of five bytes each (hashes, random identifiers),
      // tried when the first one's word continues through its four bytes:
      // then every word must (one test for the other three) and every fifth
      // byte must be 1 to 15, the one encoding (one branch for the four).
      // Each value is gathered from its word and fifth byte. Anything else,
      // refusals included, goes one by one below, which reports them.
      if (has_room(r, 20) && (load_little<std::uint32_t>(p) & 0x80808080U) == 0x80808080U) {
        if constexpr (leb128::blocks::available<IntCoding, T>) { // in vector lanes
          if (leb128::blocks::load_long4<IntCoding>(p, out)) {
            (void)take_counted(r, 20);
            return 4;
          }
        } else {
          const std::uint32_t w[] = {load_little<std::uint32_t>(p + 5 * K)...};
          const unsigned last[] = {static_cast<unsigned>(p[5 * K + 4])...};
          if (((w[K] & ...) & 0x80808080U) == 0x80808080U && ((last[K] - 1U < 15U) & ...)) {
            ((out[K] = IntCoding::template decode<T>(
                  static_cast<U>(leb128::gather7_32(w[K]) | (last[K] << 28)))),
             ...);
            (void)take_counted(r, 20);
            return 4;
          }
        }
      }
    }
    if constexpr (Count) {
      std::size_t k = 0;
      (void)((load_scalar(r, out[K]) && (++k, true)) && ...);
      return k;
    } else {
      return (load_scalar(r, out[K]) && ...) ? 4 : 0;
    }
  }

public:
  static constexpr std::size_t length_min = 1;
  static constexpr std::size_t length_max = leb128::max_bytes<std::uint64_t>;
  BIN_SERIALIZER_INLINE static constexpr std::size_t length_size(std::size_t n) noexcept {
    return leb128::size(n);
  }
  BIN_SERIALIZER_INLINE static std::byte* store_length(std::byte* p, std::size_t n) noexcept {
    return leb128::store(p, n);
  }
  template <class R>
  BIN_SERIALIZER_INLINE static bool load_length(R& r, std::uint64_t& v) noexcept {
    return leb128::load<std::uint64_t, false>(r, v);
  }
  // Most lengths and counts take one byte, any below 0x80 (always the
  // shortest form): the reader's fast path (format.hpp, short_length).
  static constexpr std::uint64_t short_length_bound = 0x80;
  BIN_SERIALIZER_INLINE static bool short_length(const std::byte* p, std::uint64_t& v) noexcept {
    v = static_cast<unsigned>(p[0]);
    return v < short_length_bound;
  }

  // The evolvable prefix's fields: fixed little-endian uint32s (they are
  // back-patched, so never variable-length).
  static constexpr std::uint32_t prefix_u32(std::uint32_t v) noexcept {
    return fixed::prefix_u32(v);
  }
  static constexpr std::uint32_t from_prefix_u32(std::uint32_t v) noexcept {
    return fixed::from_prefix_u32(v);
  }
  // Packed bits: as the portable format (byte k holds bits 8k to 8k + 7).
  BIN_SERIALIZER_INLINE static constexpr std::size_t bit_byte(std::size_t k,
                                                              std::size_t bytes) noexcept {
    return fixed::bit_byte(k, bytes);
  }
};

} // namespace bin_serializer::detail
