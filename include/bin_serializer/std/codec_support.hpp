// Shared machinery for the std type-family codecs (std/vector.hpp, std/map.hpp, ...).
//
// What the codecs have in common:
//
//   min_size_of<Opts, T>()      fewest bytes any encoding of T occupies (the
//                               min_size of T's description, core/shape.hpp;
//                               a codec states it in its facts,
//                               core/codec_facts.hpp): the per-element figure
//                               passed to read_length, so a hostile count is
//                               refused before allocating
//   has_fixed_size<Opts, T>()   every T encodes to the same number of bytes
//                               (then a container's size is count * that)
//   is_object_bytes<Opts, T>()  T's encoding IS its object representation, so
//                               a run of T can be one memcpy
//   elements_size(_bound)       bytes of a range's elements (at most)
//   reserve_hint<T>(n, left)    how many elements to reserve up front without
//                               letting a count prefix alone allocate much more
//                               than the input holds
//   write_counted / read_*      count + elements, shared by vector, span, list...
//   sequence_codec<C, Appender> a whole codec for a container encoded as
//                               [count][count elements], whose read is
//                               hostile-count safe by construction (below)
//
// A count or length prefix is the format's (format/<name>.hpp: a fixed-width
// integer or a varint); the layouts in these headers write it as [count].
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <iterator>
#include <limits>
#include <ranges>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "../core/codec_facts.hpp"
#include "../core/field.hpp"
#include "../core/validate.hpp"
#include "../error.hpp"
#include "../options.hpp"
#include "../core/classify.hpp"
#include "../core/diagnostics.hpp"
#include "../core/size.hpp"
#include "../cursor/run_reader.hpp"
#include "string.hpp"
#include "../core/schema_tokens.hpp"

namespace bin_serializer::detail::std_codec {

// Every count and length prefix is written by write_length; its size is the
// format's (format/<name>.hpp).
template <options Opts>
inline constexpr std::size_t length_prefix_min = format_of<Opts>::length_min;
template <options Opts>
BIN_SERIALIZER_INLINE constexpr std::size_t length_prefix_size(std::size_t n) noexcept {
  return format_of<Opts>::length_size(n);
}

// ---- lower bound on an encoding's size --------------------------------------

// What core/shape.hpp's description of T says.
template <options Opts, class T>
consteval std::size_t min_size_of() {
  return shape<Opts, std::remove_cvref_t<T>>::min_size();
}

// ---- exact size known from the type alone -----------------------------------

template <options Opts, class T>
consteval bool has_fixed_size() {
  using U = std::remove_cvref_t<T>;
  if constexpr (has_bounded_size<Opts, U>())
    return max_size_of<Opts, U>() == min_size_of<Opts, U>();
  else
    return false;
}

// Largest encoding of T, for types known to be bounded (callers check first).
template <options Opts, class T>
consteval std::size_t max_size_of_decayed() {
  return max_size_of<Opts, std::remove_cvref_t<T>>();
}

// ---- encoding == object bytes ------------------------------------------------

// True when serialize(T) writes exactly T's object representation (sizeof(T)
// bytes, padding included) and deserialize accepts any such bytes. Such
// elements are copied as one block. That is a bulk type (in the portable
// format: one whose memory already is its encoding) without checked contents
// (bool, ranged enums, and with opts.check_trivial_members structs holding
// them: shape<Opts, T>::validates()) and without pointers (those must reach the
// library's pointer diagnostic), or a type whose codec says so: a codec may
// declare (core/classify.hpp, detail::codec_is_object_bytes)
//   template <options Opts> static constexpr bool object_bytes = ...;
// as the core's chrono codecs and std::array's (array.hpp) do.
template <options Opts, class T>
consteval bool is_object_bytes() {
  return shape<Opts, T>::object_bytes(); // core/shape.hpp
}

// ---- helpers for the codecs ---------------------------------------------------

// Instantiates the library's "raw pointer" diagnostic if T would be copied as
// object bytes although a pointer is visible in its fields (the bulk path of
// core/encode.hpp does the same). Only bulk types need it: a bare pointer, or
// one inside a reflected type, is refused by serialize_field itself, and a
// type with a codec checks its own elements.
template <options Opts, class T>
constexpr void refuse_pointers() {
  using U = std::remove_cv_t<T>;
  if constexpr (bulk_copyable<Opts, U> && holds_pointer<Opts, U>)
    (void)sizeof(raw_pointer_is_not_serializable<U>);
}

template <class T>
constexpr void require_default_constructible() {
  static_assert(std::is_default_constructible_v<T>,
                "bin_serializer: decoding this container default-constructs each element "
                "(or key / mapped value) and then decodes into it, so the element type must "
                "be default constructible. Give it a default constructor, or decode into a "
                "container of a type that has one.");
}

// Elements to reserve before decoding `count` of them. read_length already
// proved `count` fits in the input at min_size_of bytes each, but an element's
// object can be much larger than its smallest encoding (an optional<big
// struct> can be 1 byte on the wire), so the up-front reservation is also
// capped at roughly max(input left, one stream chunk) bytes; beyond that the
// container grows geometrically with what actually decodes.
// `bytes_each` is what reserving one element costs (sizeof(T) for a vector).
constexpr std::size_t reserve_hint_bytes(std::size_t count, std::size_t remaining,
                                         std::size_t bytes_each) noexcept {
  constexpr std::size_t unknown = std::numeric_limits<std::size_t>::max();
  const std::size_t budget = std::max(remaining == unknown ? 0 : remaining, stream_chunk_bytes);
  const std::size_t cap = std::max<std::size_t>(1, budget / bytes_each);
  return std::min(count, cap);
}

template <class T>
constexpr std::size_t reserve_hint(std::size_t count, std::size_t remaining) noexcept {
  return reserve_hint_bytes(count, remaining, sizeof(T));
}

// Sum of the encoded sizes of a range's elements.
template <options Opts, class E, class Range>
constexpr std::size_t elements_size(const Range& range, std::size_t count) {
  if constexpr (has_fixed_size<Opts, E>()) {
    (void)range;
    return count * max_size_of_decayed<Opts, E>();
  } else {
    (void)count;
    std::size_t total = 0;
    for (const auto& element : range) total += ::bin_serializer::serialized_size<Opts>(element);
    return total;
  }
}

// At least elements_size (shape.hpp's size_bound): a bounded element's
// largest encoding, without looking at it.
template <options Opts, class E, class Range>
constexpr std::size_t elements_size_bound(const Range& range, std::size_t count) {
  if constexpr (has_bounded_size<Opts, std::remove_cvref_t<E>>()) {
    (void)range;
    return count * max_size_of_decayed<Opts, E>();
  } else {
    (void)count;
    std::size_t total = 0;
    for (const auto& element : range) total += size_bound_of<Opts>(element);
    return total;
  }
}

// Every element of a range, in order.
template <class W, class Range>
BIN_SERIALIZER_INLINE bool write_each(W& w, const Range& range) {
  for (const auto& element : range)
    if (!::bin_serializer::serialize_field(w, element)) return false;
  return true;
}

// [count][count elements]: vector and span. Elements whose encoding is
// their object bytes go out as one block.
template <class W, class E>
BIN_SERIALIZER_INLINE bool write_counted(W& w, const E* data, std::size_t count) {
  refuse_pointers<W::opts, E>();
  if constexpr (is_object_bytes<W::opts, E>()) {
    const std::size_t bytes = count * sizeof(E);
    if (!(w.reserve(length_prefix_size<W::opts>(count) + bytes) && w.write_length(count)))
      return false;
    // An empty vector's data() may be null: never hand that to memcpy.
    return count == 0 || w.write_bytes(data, bytes);
  } else if constexpr (format_scalar<W::opts, E> && stores_groups<format_of<W::opts>, E>) {
    // Varints (compact): a group of them at a time, as a std::array's
    // (format/format.hpp, put_scalar_run), the same bytes.
    return w.write_length(count) && put_scalar_run<format_of<W::opts>>(w, data, count);
  } else {
    if (!w.write_length(count)) return false;
    // The element by pointer, the trip count by a counter, as vector.hpp's
    // decode: clang then steps an address instead of scaling an index (a Car
    // serializes in 28 fewer instructions with clang in the compact format, 8
    // fewer in the native one).
    const E* e = data;
    for (std::size_t left = count; left != 0; --left, ++e)
      if (!::bin_serializer::serialize_field(w, *e)) return false;
    return true;
  }
}

// Reads `count` object-bytes elements into v (a vector of E), replacing its
// contents. read_length has checked count against the input.
template <class R, class Vec>
BIN_SERIALIZER_INLINE bool read_object_bytes_into(R& r, Vec& v, std::size_t count) {
  using E = typename Vec::value_type;
  if constexpr (R::contiguous) {
    // All count * sizeof(E) bytes are present: one allocation, one copy. A
    // reused vector usually has the count already: then no call (GCC does
    // not inline resize()).
    if (v.size() != count) [[unlikely]]
      v.resize(count);
    // read_length checked count at sizeof(E) bytes each (E is object bytes).
    const std::byte* p = detail::take_counted(r, count * sizeof(E));
    if (p == nullptr) return false;
    if (count != 0) std::memcpy(v.data(), p, count * sizeof(E));
    return true;
  } else {
    // The source may not know how much input is left: grow in bounded chunks
    // so memory follows the bytes actually received, not the count prefix.
    v.clear();
    constexpr std::size_t chunk = std::max<std::size_t>(1, stream_chunk_bytes / sizeof(E));
    for (std::size_t done = 0; done < count;) {
      const std::size_t step = std::min(chunk, count - done);
      v.resize(done + step);
      if (!r.read_bytes(v.data() + done, step * sizeof(E))) return false;
      done += step;
    }
    return true;
  }
}

// ---- elements of bounded size -------------------------------------------------

// The largest encoding of an element whose size the library computes and
// which is not one copy (a struct of varints, of bools, an optional of a
// scalar), else 0. Not for one holding an evolvable struct: that bound is
// its own version's, another version's bytes are longer (holds_evolvable).
template <options Opts, class T>
consteval std::size_t bounded_element_max() {
  using S = shape<Opts, T>;
  if constexpr (S::bounded() && S::presizable() && !is_object_bytes<Opts, T>() &&
                !holds_evolvable<Opts, T>)
    return S::max_size();
  else
    return 0;
}

// Decodes `count` elements of T with f(reader). When the input holds `count`
// of T's largest encodings, that is checked once and f reads through a reader
// that checks nothing more (cursor/run_reader.hpp); otherwise f reads through
// r, checking every read, so the error and its offset are those of the
// element that does not fit. Either way the input moves on by what f took.
template <class T, class R, class F>
BIN_SERIALIZER_INLINE bool read_elements(R& r, std::size_t count, F&& f) {
  constexpr std::size_t max = bounded_element_max<R::opts, T>();
  if constexpr (max != 0 && run_capable<R>) {
    if constexpr (max == min_size_of<R::opts, T>()) {
      // One size (a struct holding a bool): read_length checked the count at
      // that size already, so the compiler folds this check away.
      if (count <= r.remaining() / max) [[likely]]
        return read_present<false>(r, count * max, f);
    } else {
      // Sizes that vary (varints): one multiplication, checked for overflow,
      // instead of a division by a constant that is not a power of two.
      std::size_t bytes = 0;
      if (!__builtin_mul_overflow(count, max, &bytes) && bytes <= r.remaining()) [[likely]]
        return read_present<false>(r, bytes, f);
    }
  }
  return f(r);
}

// One element, from the reader read_elements hands f. Through a run_reader
// (its elements' largest encodings all present), a struct element with one
// varint is read in short form first (cursor/run_reader.hpp): a vector of
// {varint, float} pairs then steps by a constant per element. If that fails,
// the ordinary read of the same bytes decides and reports. (A lone varint
// gains nothing from it; with more than one varint, the pass is abandoned
// too often: core/read_fields.hpp.)
template <class In, class T>
BIN_SERIALIZER_INLINE bool read_element(In& in, T& element) {
  if constexpr (requires { In::in_run; } && !short_form<In>() &&
                bounded_element_max<In::opts, T>() != 0 && !format_scalar<In::opts, T> &&
                shape<In::opts, T>::varying_leaves() == 1) {
    if (try_short_form<false>(in, in.remaining(), [&](auto& s) BIN_SERIALIZER_LAMBDA_INLINE {
          return ::bin_serializer::deserialize_field(s, element);
        })) [[likely]]
      return true;
  }
  return ::bin_serializer::deserialize_field(in, element);
}

// Whether a vector of T read through R decodes a group of elements at a
// time (read_scalar_groups): scalars the format decodes in groups (compact's
// varints, from a contiguous reader), without a value check (a ranged enum's
// elements are checked one by one, bools are not grouped).
template <class R, class T>
consteval bool reads_scalar_groups() {
  if constexpr (format_scalar<R::opts, T> && !is_object_bytes<R::opts, T>())
    return !shape<R::opts, T>::validates() && loads_groups<format_of<R::opts>, T, R>;
  else
    return false;
}

// `count` scalars decoded into out (format/format.hpp, get_scalar_blocks
// and get_scalar_run): how many decoded, count when all did. With Proven,
// the caller knows r holds a byte or more for each element (read_length
// proved it for a vector's count); without, it is tested here, and if not,
// every group goes through load_group_count, which checks its bounds. The
// blocks a run starts with read through r itself; the rest by the format's
// runs where the CPU has them (load_run), else through a run_reader for as
// many elements as the bytes left hold at their largest encodings
// (read_elements: the groups' bounds checks then fold away), and the few
// after those through r. (A vector that ends the input is almost never
// there at its largest encodings, 5000 bytes for 1000 int32 varints: read
// through r, all its groups would check their bounds.)
template <bool Proven, class R, class E>
BIN_SERIALIZER_INLINE std::size_t get_scalars_into(R& r, E* out, std::size_t count) {
  using F = format_of<R::opts>;
  std::size_t decoded = 0;
  if (Proven || count <= r.remaining()) [[likely]] {
    const std::size_t head = get_scalar_blocks<F>(r, out, count);
    const std::size_t rest = count - head;
    if (rest == 0) [[likely]]
      return count;
    if constexpr (loads_runs<F, E, R>) {
      // Tested here only: a vector of one- and two-byte blocks never pays.
      if (F::template runs_enabled<E>()) return head + F::template load_run<E>(r, out + head, rest);
    }
    constexpr std::size_t most = bounded_element_max<R::opts, E>();
    static_assert(most != 0);
    const std::size_t fit = r.remaining() / most;
    const std::size_t first = rest < fit ? rest : fit;
    E* at = out + head;
    (void)read_elements<E>(r, first, [&](auto& in) BIN_SERIALIZER_LAMBDA_INLINE {
      decoded = get_scalar_run<F, true>(in, at, first);
      return decoded == first;
    });
    if (decoded != first || first == rest) return head + decoded;
    const std::size_t last = rest - first;
    at += first;
    // With a byte left for each, one-byte blocks and groups need no bounds check.
    if (last <= r.remaining()) {
      const std::size_t blocks = get_scalar_blocks<F>(r, at, last);
      decoded = blocks + get_scalar_run<F, true>(r, at + blocks, last - blocks);
    } else
      decoded = get_scalar_run<F, false>(r, at, last);
    return head + first + decoded;
  }
  (void)read_elements<E>(r, count, [&](auto& in) BIN_SERIALIZER_LAMBDA_INLINE {
    decoded = get_scalar_run<F, false>(in, out, count);
    return decoded == count;
  });
  return decoded;
}

// Decodes `count` scalars into the std::vector v (what vector.hpp's read
// does element by element, a group at a time: get_scalars_into). Its
// contract is that of the element-by-element read: the elements v holds are
// decoded into first, the vector grows for the rest and, on a failure, keeps
// the elements before the failing one and that one (as it was: a reused
// element keeps its old value, an appended one is value-initialised, as
// emplace_back() leaves it), nothing after.
//
// read_length proved `count` elements present at one byte each: so for the
// first run (get_scalars_into's Proven); elements of several bytes can use
// up that margin, so a later one is tested again.
//
// Growth follows the bytes: each step grows the vector by reserve_hint of
// what is left (about the input left, in bytes, as the element-by-element
// read reserves) or by doubling if that is more, each step decoded before
// the next allocation; a count prefix alone never allocates much more than
// the input's size.
template <class R, class Vec>
BIN_SERIALIZER_INLINE bool read_scalar_groups(R& r, Vec& v, std::size_t count) {
  using E = typename Vec::value_type;
  static_assert(min_size_of<R::opts, E>() >= 1);
  if (count <= v.size()) [[likely]] {
    // Every element is there already (a vector decoded into again): one run.
    if (count != v.size()) [[unlikely]]
      v.erase(v.begin() + static_cast<std::ptrdiff_t>(count), v.end());
    const std::size_t decoded = get_scalars_into<true>(r, v.data(), count);
    if (decoded != count) [[unlikely]] {
      v.erase(v.begin() + static_cast<std::ptrdiff_t>(decoded + 1), v.end());
      return false;
    }
    return true;
  }
  std::size_t done = 0;
  for (;;) {
    const std::size_t ready = v.size(); // decoded: [0, done); storage: [0, ready)
    const std::size_t step = ready - done;
    const std::size_t decoded = get_scalars_into<false>(r, v.data() + done, step);
    if (decoded != step) [[unlikely]] {
      v.erase(v.begin() + static_cast<std::ptrdiff_t>(done + decoded + 1), v.end());
      return false;
    }
    done = ready;
    if (done == count) return true;
    // What is left, as far as reserve_hint allows; at least doubling.
    const std::size_t left = count - done;
    v.resize(done + std::max(reserve_hint<E>(left, r.remaining()), std::min(done, left)));
  }
}

// Reads `count` elements one by one, appending each with emplace_back() and
// decoding into it. On failure the container keeps what was decoded.
template <class R, class Seq>
BIN_SERIALIZER_INLINE bool read_appending(R& r, Seq& seq, std::size_t count) {
  using E = typename Seq::value_type;
  require_default_constructible<E>();
  return read_elements<E>(r, count, [&](auto& in) BIN_SERIALIZER_LAMBDA_INLINE {
    for (std::size_t i = 0; i < count; ++i) {
      seq.emplace_back();
      if (!read_element(in, seq.back())) return false;
    }
    return true;
  });
}

// ---- sequences: [count][count elements] ---------------------------------------
//
// A container whose encoding is a count and its elements (deque, list,
// forward_list; a test family such as std::valarray) derives its codec from
// sequence_codec<C, Appender> and writes no read of its own. The read is where
// a count from the input becomes memory, and it is bounded by construction:
//
//   1. read_length(n, min_size of the element): a count above
//      options::max_element_count fails with limit_exceeded, and one the input
//      left cannot hold at the element's smallest encoding with truncated,
//      before anything is allocated (a stream that cannot say what is left
//      is not checked here: step 3 bounds it);
//   2. the appender reserves at most reserve_hint(n, remaining) elements:
//      about the input left in bytes, or one stream chunk, however large n;
//   3. elements are appended one by one as they decode (or, for elements
//      that are their object bytes, copied in stream_chunk_bytes steps,
//      read_object_bytes_into): memory grows with the bytes actually
//      received, and a short input fails at the first element it lacks.
//
// An Appender is how the family adds elements: constructed from (container,
// elements to reserve), next() gives the default-constructed element to
// decode into, finish() runs once at the end, whether or not all decoded
// (the container then holds what was decoded).

// The number of elements of a container that stores it (a forward_list
// does not: one pass to count).
template <class C>
constexpr std::size_t sequence_count(const C& c) {
  if constexpr (requires { c.size(); })
    return static_cast<std::size_t>(c.size());
  else
    return static_cast<std::size_t>(std::distance(std::begin(c), std::end(c)));
}

// clear(), then emplace_back() per element: vector, deque, list.
template <class C>
struct back_appender {
  C& c;
  back_appender(C& container, std::size_t reserve) : c(container) {
    c.clear();
    if constexpr (requires { c.reserve(reserve); }) c.reserve(reserve);
  }
  BIN_SERIALIZER_INLINE auto& next() {
    c.emplace_back();
    return c.back();
  }
  void finish() noexcept {}
};

// clear(), then emplace_after() the last element: forward_list.
template <class C>
struct after_appender {
  C& c;
  typename C::iterator last;
  after_appender(C& container, std::size_t) : c(container) {
    c.clear();
    last = c.before_begin();
  }
  BIN_SERIALIZER_INLINE auto& next() {
    last = c.emplace_after(last);
    return *last;
  }
  void finish() noexcept {}
};

// For a container that cannot grow one element at a time (std::valarray: its
// resize() discards the values): the elements are decoded into a std::vector
// and handed over at the end with Build::adopt(container, std::move(vector)).
template <class C, class Build, class E = typename C::value_type>
struct staged_appender {
  C& c;
  std::vector<E> staged;
  staged_appender(C& container, std::size_t reserve) : c(container) { staged.reserve(reserve); }
  BIN_SERIALIZER_INLINE E& next() { return staged.emplace_back(); }
  std::vector<E>& block() noexcept { return staged; } // object-bytes elements: one copy
  void finish() { Build::adopt(c, std::move(staged)); }
};

// Reads [count][count elements] through an Appender (above).
template <class E, class Appender, class R, class C>
bool read_sequence(R& r, C& c) {
  refuse_pointers<R::opts, E>();
  require_default_constructible<E>();
  std::size_t n = 0;
  if (!r.read_length(n, min_size_of<R::opts, E>())) return false;
  Appender out(c, reserve_hint<E>(n, r.remaining()));
  bool ok = false;
  if constexpr (is_object_bytes<R::opts, E>() && requires { out.block(); }) {
    ok = read_object_bytes_into(r, out.block(), n);
  } else {
    ok = read_elements<E>(r, n, [&](auto& in) BIN_SERIALIZER_LAMBDA_INLINE {
      for (std::size_t i = 0; i < n; ++i)
        if (!read_element(in, out.next())) return false;
      return true;
    });
  }
  out.finish();
  return ok;
}

// A whole codec for C, encoded as [count][count elements] (the bytes of the
// std::vector with the same elements). The family supplies the Appender;
// everything else, the facts included, is here.
template <class C, class Appender, class E = typename C::value_type>
struct sequence_codec {
  // What Serializable<T> checks inside (core/classify.hpp), and what the
  // container borrows from (core/shape.hpp).
  using elements = type_list<E>;

  // Fingerprint (core/schema_tokens.hpp): SEQUENCE, then the element.
  template <class H>
  static constexpr void schema(H& h) {
    h.token(schema::t_sequence);
    h.template type<E>();
  }

  template <options Opts>
  static constexpr codec_facts facts{.min_size = length_prefix_min<Opts>, .has_size = true};

  template <class W>
  static bool write(W& w, const C& c) {
    if constexpr (std::ranges::contiguous_range<const C>)
      return write_counted(w, std::ranges::data(c), sequence_count(c));
    else
      return w.write_length(sequence_count(c)) && write_each(w, c);
  }

  template <options Opts>
  static constexpr std::size_t size(const C& c) {
    const std::size_t n = sequence_count(c);
    return length_prefix_size<Opts>(n) + elements_size<Opts, E>(c, n);
  }

  template <class R>
  static bool read(R& r, C& c) {
    return read_sequence<E, Appender>(r, c);
  }
};

// ---- associative containers (map.hpp, set.hpp) --------------------------------

// Before decoding `count` entries into an unordered container: size its bucket
// array once (bounded like reserve_hint). reserve(n) allocates buckets, not
// nodes: one pointer each, counted twice for the implementation's rounding up
// to its next bucket count. Ordered containers have nothing to reserve.
template <class C>
void reserve_entries(C& c, std::size_t count, std::size_t remaining) {
  if constexpr (requires { c.reserve(count); })
    c.reserve(reserve_hint_bytes(count, remaining, 2 * sizeof(void*)));
}

// Inserts one decoded entry at the end: for an ordered container the hint
// end() makes sorted input (the order a std::map or std::set writes) O(1) per
// entry and keeps equal keys of a multi-container in their encoded order; the
// unordered ones accept the hint too. `inserted` is false when a container
// with unique keys already held the key.
template <class C, class... Args>
auto emplace_at_end(C& c, bool& inserted, Args&&... args) {
  const std::size_t before = c.size();
  auto it = c.emplace_hint(c.end(), std::forward<Args>(args)...);
  inserted = c.size() != before;
  return it;
}

} // namespace bin_serializer::detail::std_codec
