// What a wire format is: the contract each format/<name>.hpp fulfils, and
// format_of<Opts>, the only way the rest of the library reaches a format.
//
// The traversal (core/) walks structs, arrays and containers identically in
// every format. Whatever differs between formats is a member of that format's
// format_policy specialisation, and nothing outside format/ asks which format
// it is in: every byte a format writes (integers, floats, characters, lengths,
// packed bits) comes from these members. The leaves a policy is composed
// from: fixed_width.hpp (any byte order), varint.hpp (LEB128 with a choice of
// integer coding, leb128.hpp). registry.hpp checks a policy for the required
// members (wire_format_policy) where it is registered.
//
//   id, name               the header byte of framed messages and the schema
//                          token (docs/wire-format.md sections 1, 9, 10)
//   host_layout            values in this host's memory layout (byte order,
//                          sizes, padding): a trivially copyable type is one
//                          copy of its object bytes, padding included
//   refuses<T>             T has no encoding in this format (compile error)
//   object_bytes_scalar<T> a scalar (integer, float, enum, bool, character)
//                          whose encoding is its object bytes: it and
//                          padding-free structs of such scalars are copied
//                          as blocks, strings of such characters too (and a
//                          string_view of them can point into the input)
//   little_endian_scalar<T> the scalar's encoding is its little-endian bytes
//                          (views swap them on a big-endian host)
//   sizes_vary             a leaf's size depends on its value: serialize()
//                          then reserves an upper bound (size_bound, cheap)
//                          instead of measuring the message exactly first
//   scalar_min<T>, scalar_max<T>, scalar_size(v)
//                          bytes one scalar occupies: fewest, most, exactly
//   store_scalar(p, v)     encode into the scalar_max bytes at p (it may write
//                          anywhere in them: a word store); returns the end
//                          of the encoding
//   store_slack            how far past the end of its encoding a store may
//                          write at most (0 for exact stores); serialize()
//                          reserves that much beyond the message
//   load_scalar(r, v)      decode from a reader (failure recorded in r).
//                          A format whose sizes vary also decodes through
//                          short-form readers (detail::short_form<R>(),
//                          cursor/run_reader.hpp): there each leaf must take
//                          its fewest bytes, or the load returns false
//                          without recording anything
//   length_min, length_max, length_size(n), store_length(p, n), load_length(r, v)
//                          the same for length and count prefixes
//   short_length_bound, short_length(p, v)   (optional)
//                          a length that fits the one byte at p: true and its
//                          value (below the bound), false if it takes more;
//                          the contiguous reader then checks the count with
//                          one comparison (cursor/reader.hpp, read_length)
//   scalar_group, store_group(p, v), load_group(r, out)   (optional)
//                          a std::array's scalars taken scalar_group at a
//                          time (put_scalars and get_scalars below): store
//                          the group at p within scalar_group * scalar_max
//                          bytes, or decode it, with the bytes and refusals
//                          of one store_scalar / load_scalar each
//   load_group_count(r, out)   (optional, with load_group)
//                          load_group that says how far it got: scalar_group
//                          when the whole group decoded, else k, the index of
//                          the element whose failure it recorded (those
//                          before it decoded). A std::vector's elements are
//                          decoded a group at a time with it (put_scalar_run,
//                          get_scalar_run below), and a failure keeps the
//                          elements before the failing one
//   scalar_block, store_block(p, v), load_short_block(r, out),
//   load_pair_block(r, out, after)   (optional)
//                          scalar_block (a multiple of scalar_group) scalars
//                          at a time, before the groups: store_block writes
//                          the bytes of scalar_block store_scalar calls.
//                          When the caller knows r holds a byte for each of
//                          these and of the `after` elements that follow,
//                          load_short_block decodes them if each takes one
//                          byte, load_pair_block if each takes two and a
//                          byte is left for each of those after (true,
//                          taken); else they return false with nothing read
//                          or recorded and the groups go on
//   load_short_group(r, out)   (optional, with load_group_count)
//                          scalar_group values of one byte each, when the
//                          caller knows scalar_group bytes are left: true
//                          with them decoded and taken, else false with
//                          nothing read or recorded (get_scalar_run)
//   runs_enabled<T>(), load_run(r, out, count)   (optional)
//                          where runs_enabled (found at run time: compact's
//                          AVX-512, 32-bit values), what follows a vector's
//                          blocks, any lengths at once, with get_scalar_run's
//                          contract: how many decoded into out; fewer than
//                          count when the next one failed, as load_scalar
//                          records it, nothing of it written
//   prefix_u32(v), from_prefix_u32(v)
//                          the fixed 4-byte fields of an evolvable struct's
//                          prefix (back-patched, so never variable-length)
//   bit_byte(k, bytes)     packed bits (std::bitset<N> outside host_layout,
//                          in bytes = ceil(N / 8) bytes): the index of the
//                          byte whose bit j is bit 8k + j
//
// Characters are scalars like any other: store_scalar / load_scalar, and a
// format encodes each character type in a fixed width (scalar_min ==
// scalar_max).
#pragma once

#include <concepts>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <limits>
#include <type_traits>

#include "../config.hpp"
#include "../options.hpp" // wire_format

namespace bin_serializer {

template <wire_format F>
struct format_policy; // specialised once per format, in the format's header

namespace detail {

// The leaves every format encodes itself: integers, floats, enums, bool and
// characters.
template <class T>
concept scalar_type = std::is_arithmetic_v<T> || std::is_enum_v<T>;

// Scalars whose size or encoding differs between platforms: a host-independent
// format refuses them.
template <class T>
concept platform_dependent =
    std::is_same_v<T, wchar_t> || std::is_same_v<T, long double> ||
    (std::is_floating_point_v<T> && !std::numeric_limits<T>::is_iec559) ||
    (std::is_enum_v<T> && std::is_same_v<std::underlying_type_t<T>, wchar_t>);

// The policy of the call whose options are Opts.
template <auto Opts>
using format_of = format_policy<Opts.format>;

// A leaf of Min to Max bytes that store(p) encodes at p, returning the end,
// through any writer (a length prefix: write_length; a scalar: the core). A
// variable-length leaf is stored in place by a writer with direct access
// (store_at), after making room for the longest encoding; anything else is
// encoded on the stack, then one write_bytes (for a fixed-size leaf that is
// one store).
template <std::size_t Min, std::size_t Max, class W, class Store>
BIN_SERIALIZER_INLINE bool put_leaf(W& w, Store&& store) noexcept {
  if constexpr (Min != Max && requires { w.template store_at<Max>(store); }) {
    return w.template store_at<Max>(store);
  } else {
    std::byte tmp[Max];
    const std::byte* end = store(tmp);
    return w.write_bytes(tmp, static_cast<std::size_t>(end - tmp));
  }
}

template <class F, class W>
BIN_SERIALIZER_INLINE bool put_length(W& w, std::size_t n) noexcept {
  return put_leaf<F::length_min, F::length_max>(
      w, [n](std::byte* p) BIN_SERIALIZER_LAMBDA_INLINE { return F::store_length(p, n); });
}

template <class F, class W, class T>
BIN_SERIALIZER_INLINE bool put_scalar(W& w, T v) noexcept {
  return put_leaf<F::template scalar_min<T>, F::template scalar_max<T>>(
      w, [v](std::byte* p) BIN_SERIALIZER_LAMBDA_INLINE { return F::store_scalar(p, v); });
}

// Whether a format has the block hooks for T (and, decoding, reader R).
template <class F, class T>
inline constexpr bool stores_blocks =
    requires(std::byte* p, const T* v) { F::template store_block<T>(p, v); };
template <class F, class T, class R>
inline constexpr bool loads_blocks = requires(R& r, T* out, std::size_t after) {
  F::template load_short_block<T>(r, out);
  F::template load_pair_block<T>(r, out, after);
};

// Whether a format decodes runs of T of any lengths at once (load_run).
template <class F, class T, class R>
inline constexpr bool loads_runs = requires(R& r, T* out, std::size_t count) {
  { F::template runs_enabled<T>() } -> std::same_as<bool>;
  F::template load_run<T>(r, out, count);
};

// The scalars of the blocks among N (0 without block hooks).
template <class F, class T, std::size_t N>
consteval std::size_t blocked_scalars() {
  if constexpr (stores_blocks<F, T>)
    return N - N % F::scalar_block;
  else
    return 0;
}

// How many of N scalars of T a format encodes scalar_group at a time: the
// whole groups' elements (0 without group hooks). A constant, so that the loop
// over the rest starts where the compiler knows (g++ -O2 otherwise warns
// that a late iteration of it would index past the array).
template <class F, class T, std::size_t N>
consteval std::size_t grouped_scalars() {
  if constexpr (requires(std::byte* p, const T* v) { F::template store_group<T>(p, v); })
    return N - N % F::scalar_group;
  else
    return 0;
}

// N scalars of T one after another (a std::array's or a C array's
// elements). A format with store_group encodes them scalar_group at a time,
// each group in place as one leaf of at most scalar_group * scalar_max
// bytes; otherwise, and for the last few, one put_scalar each.
template <class F, class T, std::size_t N, class W>
BIN_SERIALIZER_INLINE bool put_scalars(W& w, const T* v) noexcept {
  constexpr std::size_t grouped = grouped_scalars<F, T, N>();
  constexpr std::size_t blocked = blocked_scalars<F, T, N>();
  if constexpr (blocked != 0) {
    constexpr std::size_t B = F::scalar_block;
    for (std::size_t i = 0; i < blocked; i += B) {
      const T* block = v + i;
      auto store = [block](std::byte* p) BIN_SERIALIZER_LAMBDA_INLINE {
        return F::template store_block<T>(p, block);
      };
      if (!put_leaf<B * F::template scalar_min<T>, B * F::template scalar_max<T>>(w, store))
        return false;
    }
  }
  if constexpr (grouped != 0) {
    constexpr std::size_t G = F::scalar_group;
    constexpr std::size_t most = G * F::template scalar_max<T>;
    for (std::size_t i = blocked; i < grouped; i += G) {
      const T* group = v + i;
      auto store = [group](std::byte* p) BIN_SERIALIZER_LAMBDA_INLINE {
        return F::template store_group<T>(p, group);
      };
      if (!put_leaf<G * F::template scalar_min<T>, most>(w, store)) return false;
    }
  }
  for (std::size_t i = grouped; i < N; ++i)
    if (!put_scalar<F>(w, v[i])) return false;
  return true;
}

// Decoding the same: load_group for each whole group, then load_scalar. For
// scalars without a value check (a ranged enum has one: its shape reads it).
// load_group need not take every reader (compact's takes contiguous ones
// only): through the others every element is read one by one.
template <class F, class T, std::size_t N, class R>
BIN_SERIALIZER_INLINE bool get_scalars(R& r, T* out) noexcept {
  constexpr std::size_t grouped = grouped_scalars<F, T, N>();
  if constexpr (grouped != 0 && requires { F::template load_group<T>(r, out); }) {
    std::size_t i = 0;
    if constexpr (loads_blocks<F, T, R>) {
      // Blocks, once the N bytes (one each) are known to be there.
      constexpr std::size_t blocked = blocked_scalars<F, T, N>();
      if (N <= r.remaining()) {
        // One-byte blocks, then two-byte ones (runs are mostly of one kind).
        for (; i < blocked; i += F::scalar_block) {
#if BIN_SERIALIZER_DEBUG
          if (r.remaining() < N - i) std::abort();
#endif
          if (!F::template load_short_block<T>(r, out + i)) break;
        }
        for (; i < blocked; i += F::scalar_block)
          if (!F::template load_pair_block<T>(r, out + i, N - i - F::scalar_block)) break;
      }
    }
    for (; i < grouped; i += F::scalar_group)
      if (!F::template load_group<T>(r, out + i)) return false;
    for (std::size_t k = grouped; k < N; ++k)
      if (!F::load_scalar(r, out[k])) return false;
  } else {
    for (std::size_t i = 0; i < N; ++i)
      if (!F::load_scalar(r, out[i])) return false;
  }
  return true;
}

// A vector's scalars (a count known only at run time): whether T has the
// group hooks put_scalar_run and get_scalar_run use. Decoding also needs the
// reader: compact's load_group takes contiguous ones only.
template <class F, class T>
inline constexpr bool stores_groups =
    requires(std::byte* p, const T* v) { F::template store_group<T>(p, v); };
template <class F, class T, class R>
inline constexpr bool loads_groups =
    requires(R& r, T* out) { F::template load_group_count<T>(r, out); };

// put_scalars for `count` scalars: whole groups, then the rest one by one.
// The same bytes as count put_scalar calls.
template <class F, class T, class W>
BIN_SERIALIZER_INLINE bool put_scalar_run(W& w, const T* v, std::size_t count) noexcept {
  constexpr std::size_t G = F::scalar_group;
  constexpr std::size_t most = G * F::template scalar_max<T>;
  if constexpr (stores_blocks<F, T>) {
    constexpr std::size_t B = F::scalar_block;
    for (std::size_t left = count / B; left != 0; --left, v += B) {
      auto store = [v](std::byte* p)
                       BIN_SERIALIZER_LAMBDA_INLINE { return F::template store_block<T>(p, v); };
      if (!put_leaf<B * F::template scalar_min<T>, B * F::template scalar_max<T>>(w, store))
        return false;
    }
    count %= B;
  }
  for (std::size_t left = count / G; left != 0; --left, v += G) {
    auto store = [v](std::byte* p)
                     BIN_SERIALIZER_LAMBDA_INLINE { return F::template store_group<T>(p, v); };
    if (!put_leaf<G * F::template scalar_min<T>, most>(w, store)) return false;
  }
  for (std::size_t left = count % G; left != 0; --left, ++v)
    if (!put_scalar<F>(w, *v)) return false;
  return true;
}

// get_scalars for `count` scalars, in two calls: get_scalar_blocks for the
// blocks a run starts with, then get_scalar_run for the rest. Each returns
// how many decoded, count when all did; fewer from get_scalar_run: the
// element at that index failed (recorded in r) and those before it decoded,
// exactly as count load_scalar calls would leave them. The element that
// failed is not written.
//
// get_scalar_blocks, and get_scalar_run with ShortGroups, ask of the caller
// that r hold a byte or more for each of the count elements (a vector's
// count, as read_length proved it at one byte each: std/codec_support.hpp,
// get_scalars_into). A block or group of one-byte values keeps that so: the
// next one's bytes are there, and load_short_block and load_short_group
// (optional) test them with no bounds check; a block of two-byte values
// (load_pair_block) checks that its 16 more bytes leave a byte for each
// element after it. get_scalar_blocks decodes one-byte blocks, then
// two-byte blocks, and stops at the first block that is neither, having
// read nothing of it; get_scalar_run goes on with one-byte groups (with
// ShortGroups), and the first group that is anything else, and every group
// after it, goes through load_group_count, which checks.
template <class F, class T, class R>
BIN_SERIALIZER_INLINE std::size_t get_scalar_blocks(R& r, T* out, std::size_t count) noexcept {
  std::size_t elements = count; // left to decode
  if constexpr (requires { F::template load_short_group<T>(r, out); } && loads_blocks<F, T, R>) {
    static_assert(F::template scalar_min<T> >= 1);
    constexpr std::size_t B = F::scalar_block;
#if BIN_SERIALIZER_DEBUG
    if (r.remaining() < count) std::abort();
#endif
    for (; elements >= B; elements -= B, out += B)
      if (!F::template load_short_block<T>(r, out)) break;
    for (; elements >= B; elements -= B, out += B)
      if (!F::template load_pair_block<T>(r, out, elements - B)) break;
  }
  return count - elements;
}

template <class F, bool ShortGroups, class T, class R>
BIN_SERIALIZER_INLINE std::size_t get_scalar_run(R& r, T* out, std::size_t count) noexcept {
  constexpr std::size_t G = F::scalar_group;
  T* e = out;
  std::size_t left = count / G; // groups
  if constexpr (ShortGroups && requires { F::template load_short_group<T>(r, e); }) {
    static_assert(F::template scalar_min<T> >= 1);
    for (; left != 0; --left, e += G) {
#if BIN_SERIALIZER_DEBUG
      if (r.remaining() < G * left) std::abort();
#endif
      if (!F::template load_short_group<T>(r, e)) break;
    }
  }
  for (; left != 0; --left, e += G) {
    const std::size_t k = F::template load_group_count<T>(r, e);
    if (k != G) [[unlikely]]
      return static_cast<std::size_t>(e - out) + k;
  }
  for (std::size_t rest = count % G; rest != 0; --rest, ++e)
    if (!F::load_scalar(r, *e)) [[unlikely]]
      return static_cast<std::size_t>(e - out);
  return count;
}

} // namespace detail

} // namespace bin_serializer
