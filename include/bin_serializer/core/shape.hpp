// One description per type: shape<Opts, T> says everything the library knows
// about T's encoding in format Opts, for the category core/classify.hpp gave
// it, in one place (the facts are consteval functions, so a walk that needs
// one fact does not compute the others):
//
//   write(w, v), read(r, v)   the encoding
//   size(v)                   exact bytes of v's encoding
//   size_bound(v)             at least size(v), and cheaper to compute where
//                             leaves vary in size (a bounded part is its
//                             max_size() without a look at the value); what
//                             serialize() reserves in such a format
//   min_size()                fewest bytes any T takes (count checks before
//                             allocating: std/codec_support.hpp)
//   bounded(), max_size()     whether every T fits a constant; the constant
//   run_size()                bytes of a T inside a run of fixed-size fields
//                             (core/run_layout.hpp), 0 if it cannot join one
//   varying_leaves()          how many leaves of a bounded T vary in size
//                             (compact's varints; a codec's count as 2, not
//                             known): a run or an element with exactly one is
//                             read in short form first (cursor/run_reader.hpp)
//   object_bytes()            whether T's encoding is its object bytes and
//                             decoding accepts any such bytes (one copy each
//                             way: runs, vectors); writes_object_bytes() the
//                             same for encoding only
//   validates(), invalid_at(p) whether T's object bytes hold values to check
//                             (bool, ranged enums), and the first bad byte
//                             (core/validate.hpp): a block copy asks its parts
//   schema(h)                 its fingerprint tokens (frame/schema_hash.hpp,
//                             docs/wire-format.md section 9)
//   presizable()              whether the library computes size(v) itself,
//                             so a message of T may be written unchecked after
//                             one reservation (cursor/presized_writer.hpp)
//   borrows<D>()              whether a decoded T points into the input bytes
//                             (a string_view, span, array_view, sequence_view
//                             at any depth): such a value is valid only while
//                             those bytes are; the composite descriptions ask
//                             their parts through borrows_within (below), D
//                             levels deep at most. Asked only by APIs that
//                             decode from storage they then release (gRPC,
//                             ZeroMQ): borrows_input_v
//
// Every walk (encode, decode, size, bounds, runs, presizing, value checks)
// asks this description; none switches on the category itself. A codec (a std family,
// a user's) provides the same facts about its type in its own header; the
// codec category below only relays them.
#pragma once

#include <concepts>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <array>
#include <memory>
#include <new>
#include <type_traits>

#include "../config.hpp"
#include "../cursor/counting_writer.hpp"
#include "../format/all.hpp"
#include "../reflect/enum_range.hpp"
#include "../options.hpp"
#include "classify.hpp"
#include "diagnostics.hpp"
#include "codec_facts.hpp"
#include "evolution_io.hpp"
#include "schema_tokens.hpp"
#include "validate.hpp"

namespace bin_serializer::detail {

// The traversal's steps, defined by core/encode.hpp, core/decode.hpp,
// core/write_fields.hpp, core/read_fields.hpp and core/evolution_*.hpp.
template <class W, class T>
bool write_value(W& w, const T& value);
template <class R, class T>
bool read_value(R& r, T& value);
template <class Layout, class W, class... Fs>
bool write_fields(W& w, const Fs&... fields);
template <class Layout, class R, class... Fs>
bool read_fields(R& r, Fs&... fields);
template <class W, class T>
bool write_evolvable(W& w, const T& value);
template <class R, class T>
bool read_evolvable(R& r, T& value);
struct unknown_layout;
template <class T>
struct aggregate_layout;

template <options Opts, class T, category C>
struct shape_of;

template <options Opts, class T>
struct shape_for {
  using U = std::remove_cv_t<T>;
  static constexpr category c = category_of<Opts, U>();
  using type = shape_of<Opts, U, c>;
};

template <options Opts, class T>
using shape = typename shape_for<Opts, T>::type;

// Whether a decoded T points into the input bytes, looking at most Depth
// levels of parts deep (struct fields, elements, template arguments). A
// variable template, so each (T, Depth) is computed once however often it is
// asked. A recursive type (a node holding a vector of nodes) reaches itself
// again; the walk then stops at Depth 0 with false, which is exact: every
// type inside T is reachable from T along a path that visits no type twice,
// so a view anywhere in T is seen within as many levels as T has distinct
// part types (up to borrow_depth_limit).
inline constexpr std::size_t borrow_depth_limit = 32;

template <options Opts, class T, std::size_t Depth>
inline constexpr bool borrows_within = shape<Opts, T>::template borrows<Depth>();

template <options Opts, class T>
inline constexpr bool borrows_within<Opts, T, 0> = false;

template <options Opts, std::size_t Depth, class... Ts>
consteval bool any_borrows(type_list<Ts...>) {
  return (borrows_within<Opts, Ts, Depth> || ...);
}

// A codec's template arguments that may hold values: not the empty ones
// (allocators, comparators, hashers, char_traits, std::ratio).
template <options Opts, class A, std::size_t Depth>
consteval bool argument_borrows() {
  if constexpr (std::is_empty_v<A>)
    return false;
  else
    return borrows_within<Opts, A, Depth>;
}
template <options Opts, std::size_t Depth, class... As>
consteval bool any_argument_borrows(type_list<As...>) {
  return (argument_borrows<Opts, As, Depth>() || ...);
}

// A struct's visible fields, for value checks on its object bytes: whether
// any field's description validates, and the first invalid byte of any.
template <options Opts, class T>
consteval bool members_validate() {
  return []<class... Fs>(type_list<Fs...>) {
    return (shape<Opts, Fs>::validates() || ...);
  }(member_types_t<T>{});
}

template <options Opts, class T>
std::size_t members_invalid_at(const unsigned char* p) noexcept {
  // The bytes were copied into this storage, which (T being trivially
  // copyable) created a T there. Binding its members to references reads no
  // member value, so no invalid bool is ever loaded; only their offsets are
  // used.
  const T& obj = *std::launder(reinterpret_cast<const T*>(p));
  std::size_t bad = no_invalid_byte;
  auto check = [&](const auto& field) {
    using F = std::remove_cvref_t<decltype(field)>;
    const auto off =
        static_cast<std::size_t>(reinterpret_cast<const unsigned char*>(std::addressof(field)) - p);
    const std::size_t at = shape<Opts, F>::invalid_at(p + off);
    if (at != no_invalid_byte) bad = off + at;
    return at == no_invalid_byte;
  };
  auto visit = [&](const auto&... fields) { return (check(fields) && ...); };
  (void)visit_members(obj, visit);
  return bad;
}

// The fingerprint tokens of a leaf: bool, character, integer, float, enum
// (whatever its encoding in the format: the tokens name the type).
template <class T, class H>
constexpr void scalar_schema(H& h) {
  using namespace schema;
  if constexpr (std::is_same_v<T, bool>) {
    h.token(t_bool);
  } else if constexpr (std::is_same_v<T, char> || std::is_same_v<T, char8_t> ||
                       std::is_same_v<T, char16_t> || std::is_same_v<T, char32_t> ||
                       std::is_same_v<T, wchar_t>) {
    h.token(t_char, sizeof(T));
  } else if constexpr (std::is_integral_v<T>) {
    h.token(std::is_signed_v<T> ? t_sint : t_uint, sizeof(T));
  } else if constexpr (std::is_floating_point_v<T>) {
    h.token(t_float, sizeof(T));
  } else {
    using under = std::underlying_type_t<T>;
    if constexpr (ranged_enum<T>) {
      h.token(t_enum_range);
      h.param(static_cast<std::uint64_t>(static_cast<under>(enum_range<T>::min)));
      h.param(static_cast<std::uint64_t>(static_cast<under>(enum_range<T>::max)));
    } else {
      h.token(t_enum);
    }
    h.template type<under>();
  }
}

template <class C>
concept codec_schema_id = requires {
  { C::schema_id } -> std::convertible_to<std::uint64_t>;
};
template <class C>
concept codec_schema_equivalent = requires { typename C::schema_equivalent; };

template <class T>
struct codec_without_schema {
  static_assert(dependent_false<T>,
                "bin_serializer: schema_hash_v cannot see the layout of a type with a custom "
                "codec<T> (named in this diagnostic). Declare in the codec either a unique id\n"
                "    static constexpr std::uint64_t schema_id = 0x5a1e5c0de0000001;\n"
                "or the type it encodes exactly like\n"
                "    using schema_equivalent = std::vector<std::uint8_t>;");
};

// ---- a type the library cannot encode: every use explains why -------------
template <options Opts, class T, category C>
struct shape_of {
  static consteval bool bounded() { return false; }
  static consteval std::size_t max_size() { return 0; }
  static consteval std::size_t min_size() { return 0; } // diagnosed where a value is encoded
  static consteval std::size_t run_size() { return 0; }
  static consteval std::size_t varying_leaves() { return 0; }
  static consteval bool presizable() { return false; }
  static consteval bool object_bytes() { return false; }
  static consteval bool writes_object_bytes() { return false; }
  static consteval bool validates() { return false; }
  static std::size_t invalid_at(const unsigned char*) noexcept { return no_invalid_byte; }
  template <std::size_t Depth>
  static consteval bool borrows() {
    return false;
  }
  template <class H>
  static constexpr void schema(H&) {
    explain_unsupported<T, Opts>();
  }

  template <class W>
  static bool write(W&, const T&) {
    explain_unsupported<T, Opts>();
    return false;
  }
  template <class R>
  static bool read(R&, T&) {
    explain_unsupported<T, Opts>();
    return false;
  }
  static constexpr std::size_t size(const T&) {
    explain_unsupported<T, Opts>();
    return 0;
  }
  static constexpr std::size_t size_bound(const T& value) { return size(value); }
};

// ---- codec<T>: the family's own description --------------------------------
//
// A codec states its facts in one typed declaration (core/codec_facts.hpp):
//   template <options Opts> static constexpr codec_facts facts{.min_size = ..., ...};
// and provides the functions those facts name (size, size_bound, invalid_at),
// and one of schema(h) / schema_equivalent / schema_id for the fingerprint.
// This description reads only those; it names no family.

template <options Opts, class T>
struct shape_of<Opts, T, category::codec> {
  using C = codec<T>;
  static constexpr const codec_facts& facts = facts_of_codec<Opts, T>;
  static consteval bool bounded() { return facts.max_size != codec_facts::unbounded; }
  static consteval std::size_t max_size() { return bounded() ? facts.max_size : 0; }
  static consteval std::size_t min_size() { return facts.min_size; }
  // Whatever a codec holds inside is not known here: a size that varies
  // counts as more than one.
  static consteval std::size_t varying_leaves() {
    return bounded() && min_size() != max_size() ? 2 : 0;
  }
  static consteval std::size_t run_size() { return facts.run_size; }
  static consteval bool object_bytes() { return facts.object_bytes; }
  static consteval bool writes_object_bytes() { return object_bytes(); }
  template <std::size_t Depth>
  static consteval bool borrows() {
    if constexpr (facts.borrows)
      return true;
    else
      // The types its values hold, as the classification lists them
      // (core/classify.hpp): its `elements`, else its template arguments
      // (the empty ones are skipped by argument_borrows).
      return any_argument_borrows<Opts, Depth - 1>(typename decltype(facts_of<Opts, T>)::nested{});
  }
  static consteval bool validates() { return facts.validates; }
  static std::size_t invalid_at(const unsigned char* p) noexcept {
    if constexpr (validates())
      return C::template invalid_at<Opts>(p);
    else
      return no_invalid_byte;
  }
  // The family states its shape (std/), or a user codec an equivalent type
  // or an id: one of the three.
  template <class H>
  static constexpr void schema(H& h) {
    constexpr bool own = requires { C::schema(h); };
    static_assert(int{own} + int{codec_schema_equivalent<C>} + int{codec_schema_id<C>} <= 1,
                  "bin_serializer: a codec states its fingerprint once: schema(h), "
                  "schema_equivalent or schema_id, not two of them.");
    if constexpr (own)
      C::schema(h);
    else if constexpr (codec_schema_equivalent<C>)
      h.template type<typename C::schema_equivalent>();
    else if constexpr (codec_schema_id<C>)
      h.token(schema::t_custom, static_cast<std::uint64_t>(C::schema_id));
    else
      (void)sizeof(codec_without_schema<T>);
  }
  // Its own size() trusted, and every part it lists.
  template <class... Es>
  static consteval bool parts_presizable(type_list<Es...>) {
    return (shape<Opts, Es>::presizable() && ...);
  }
  static consteval bool presizable() {
    if constexpr (outline_element<T> || !facts.trusted_size)
      return false; // recursive (classify.hpp): the checked writer, which recurses by
                    // calls; or a size() the codec does not vouch for
    else if constexpr (codec_lists_elements<T>)
      return parts_presizable(typename C::elements{});
    else
      return true;
  }

  template <class W>
  BIN_SERIALIZER_INLINE static bool write(W& w, const T& value) {
    return C::write(w, value);
  }
  // Containers whose elements may themselves be containers count against
  // opts.max_depth; a bounded type cannot recurse, and a leaf (a string)
  // holds nothing.
  template <class R>
  BIN_SERIALIZER_INLINE static bool read(R& r, T& value) {
    if constexpr (!bounded() && !facts.leaf && R::opts.max_depth != unlimited) {
      if (!r.enter()) return false;
      const bool ok = C::read(r, value);
      r.leave();
      return ok;
    } else {
      return C::read(r, value);
    }
  }
  static constexpr std::size_t size(const T& value) {
    if constexpr (facts.has_size) {
      return C::template size<Opts>(value);
    } else {
      counting_writer<Opts> counter; // measured by writing to nothing
      (void)C::write(counter, value);
      return counter.count;
    }
  }
  static constexpr std::size_t size_bound(const T& value) {
    if constexpr (bounded())
      return max_size();
    else if constexpr (facts.has_size_bound)
      return C::template size_bound<Opts>(value);
    else
      return size(value);
  }
};

// ---- bulk: one copy of the object bytes -----------------------------------
template <options Opts, class T>
struct shape_of<Opts, T, category::bulk> {
  static consteval bool bounded() { return true; }
  static consteval std::size_t max_size() { return sizeof(T); }
  static consteval std::size_t min_size() { return sizeof(T); }
  static consteval std::size_t run_size() { return sizeof(T); }
  static consteval std::size_t varying_leaves() { return 0; }
  static consteval bool presizable() { return !outline_element<T>; }
  // Unless it holds bools or ranged enums to check (core/validate.hpp).
  static consteval bool object_bytes() { return !validates() && !holds_pointer<Opts, T>; }
  static consteval bool writes_object_bytes() { return !holds_pointer<Opts, T>; }
  // Copied into the value: a view cannot be bulk (its codec has a layout).
  template <std::size_t Depth>
  static consteval bool borrows() {
    return false;
  }
  // A leaf as such, an array as its elements, a struct as its visible fields
  // (with opts.check_trivial_members), each asked of its own description.
  static consteval bool validates() {
    if constexpr (scalar_type<T>)
      return leaf_validates<Opts, T>();
    else if constexpr (std::is_array_v<T>)
      return Opts.validate_values && shape<Opts, std::remove_extent_t<T>>::validates();
    else if constexpr (Opts.validate_values && Opts.check_trivial_members && has_visible_fields<T>)
      return members_validate<Opts, T>();
    else
      return false;
  }
  static std::size_t invalid_at(const unsigned char* p) noexcept {
    if constexpr (!validates())
      return no_invalid_byte;
    else if constexpr (scalar_type<T>)
      return leaf_invalid_at<T>(p);
    else if constexpr (std::is_array_v<T>)
      return elements_invalid_at<shape<Opts, std::remove_extent_t<T>>, std::remove_extent_t<T>,
                                 std::extent_v<T>>(p);
    else
      return members_invalid_at<Opts, T>(p);
  }
  // A leaf or an array as such; a struct copied with its padding (host
  // layout) as its size, plus its fields when the library can see them.
  template <class H>
  static constexpr void schema(H& h) {
    if constexpr (scalar_type<T>) {
      scalar_schema<T>(h);
    } else if constexpr (std::is_array_v<T>) {
      h.token(schema::t_array, std::extent_v<T>);
      h.template type<std::remove_extent_t<T>>();
    } else {
      if constexpr (format_of<Opts>::host_layout) h.token(schema::t_bulk, sizeof(T));
      if constexpr (has_visible_fields<T>) h.template fields<T>();
    }
  }

  template <class W>
  BIN_SERIALIZER_INLINE static bool write(W& w, const T& value) {
    if constexpr (holds_pointer<Opts, T>) (void)sizeof(raw_pointer_is_not_serializable<T>);
    return w.write_bytes(std::addressof(value), sizeof(T));
  }
  template <class R>
  BIN_SERIALIZER_INLINE static bool read(R& r, T& value) {
    if constexpr (holds_pointer<Opts, T>) (void)sizeof(raw_pointer_is_not_serializable<T>);
    // A const (or reference) member deletes assignment; copying bytes over it
    // would modify a const object.
    using element = std::remove_all_extents_t<T>;
    static_assert(std::is_assignable_v<element&, const element&> ||
                      std::is_assignable_v<element&, element&&>,
                  "bin_serializer: cannot deserialize into a trivially copyable type with a "
                  "const member (it cannot be assigned); make the member non-const, or "
                  "deserialize into a mutable twin of the struct and construct from it");
    if constexpr (validates()) {
      // Checked on a scratch copy so a rejected value never reaches `value`.
      const std::size_t at = r.position();
      alignas(T) unsigned char raw[sizeof(T)]{};
      if (!r.read_bytes(raw, sizeof raw)) return false;
      const std::size_t bad = invalid_at(raw);
      if (bad != no_invalid_byte) [[unlikely]]
        return r.fail(errc::invalid_value, at + bad);
      std::memcpy(std::addressof(value), raw, sizeof raw);
      return true;
    } else {
      return r.read_bytes(std::addressof(value), sizeof(T));
    }
  }
  static constexpr std::size_t size(const T&) { return sizeof(T); }
  static constexpr std::size_t size_bound(const T&) { return sizeof(T); }
};

// ---- scalar: a leaf the format encodes (format/<name>.hpp) ----------------
template <options Opts, class T>
struct shape_of<Opts, T, category::scalar> {
  using F = format_of<Opts>;
  static consteval bool bounded() { return true; }
  static consteval std::size_t max_size() { return F::template scalar_max<T>; }
  static consteval std::size_t min_size() { return F::template scalar_min<T>; }
  // A variable-length leaf (compact's varints) cannot join a run.
  static consteval std::size_t run_size() { return min_size() == max_size() ? max_size() : 0; }
  static consteval std::size_t varying_leaves() { return min_size() == max_size() ? 0 : 1; }
  static consteval bool presizable() { return true; }
  static consteval bool object_bytes() { return false; } // the format encodes it
  static consteval bool writes_object_bytes() { return false; }
  template <std::size_t Depth>
  static consteval bool borrows() {
    return false;
  }
  static consteval bool validates() { return leaf_validates<Opts, T>(); }
  static std::size_t invalid_at(const unsigned char* p) noexcept {
    if constexpr (validates())
      return leaf_invalid_at<T>(p);
    else
      return no_invalid_byte;
  }
  template <class H>
  static constexpr void schema(H& h) {
    scalar_schema<T>(h);
  }

  template <class W>
  BIN_SERIALIZER_INLINE static bool write(W& w, const T& value) {
    return put_scalar<F>(w, value);
  }
  template <class R>
  BIN_SERIALIZER_INLINE static bool read(R& r, T& value) {
    [[maybe_unused]] std::size_t at = 0;
    if constexpr (validates()) at = r.position();
    T v{};
    if (!F::load_scalar(r, v)) return false;
    if constexpr (validates()) {
      // A ranged enum: check the decoded value before it reaches `value`.
      unsigned char raw[sizeof(T)];
      std::memcpy(raw, &v, sizeof raw);
      if (invalid_at(raw) != no_invalid_byte) [[unlikely]]
        return r.fail(errc::invalid_value, at);
    }
    value = v;
    return true;
  }
  static constexpr std::size_t size(const T& value) { return F::scalar_size(value); }
  static constexpr std::size_t size_bound(const T&) { return max_size(); }
};

// ---- array: a C array of elements that are not one block -------------------
template <options Opts, class T>
struct shape_of<Opts, T, category::array> {
  using E = std::remove_extent_t<T>;
  using element = shape<Opts, E>;
  static consteval bool bounded() { return element::bounded(); }
  static consteval std::size_t max_size() { return std::extent_v<T> * element::max_size(); }
  static consteval std::size_t min_size() { return std::extent_v<T> * element::min_size(); }
  static consteval std::size_t run_size() { return std::extent_v<T> * element::run_size(); }
  static consteval std::size_t varying_leaves() {
    return std::extent_v<T> * element::varying_leaves();
  }
  static consteval bool presizable() {
    if constexpr (outline_element<T>)
      return false;
    else
      return element::presizable();
  }
  static consteval bool object_bytes() { return false; } // else it would be bulk
  static consteval bool writes_object_bytes() { return false; }
  template <std::size_t Depth>
  static consteval bool borrows() {
    return borrows_within<Opts, E, Depth - 1>;
  }
  // Never inside a block copy (it would be bulk then): its elements check
  // themselves as they are read.
  static consteval bool validates() { return false; }
  static std::size_t invalid_at(const unsigned char*) noexcept { return no_invalid_byte; }
  template <class H>
  static constexpr void schema(H& h) {
    h.token(schema::t_array, std::extent_v<T>);
    h.template type<E>();
  }

  // Scalars the format encodes (compact's varints) go through the format's
  // group hooks, as std::array's do (format/format.hpp, put_scalars); a
  // scalar with a value check (a ranged enum) is read one by one.
  static constexpr bool scalar_elements = format_scalar<Opts, E>;

  template <class W>
  BIN_SERIALIZER_INLINE static bool write(W& w, const T& value) {
    if constexpr (scalar_elements) {
      return put_scalars<format_of<Opts>, E, std::extent_v<T>>(w, value);
    } else {
      for (const auto& e : value)
        if (!write_value(w, e)) return false;
      return true;
    }
  }
  template <class R>
  BIN_SERIALIZER_INLINE static bool read(R& r, T& value) {
    if constexpr (scalar_elements && !element::validates()) {
      return get_scalars<format_of<Opts>, E, std::extent_v<T>>(r, value);
    } else {
      for (auto& e : value)
        if (!read_value(r, e)) return false;
      return true;
    }
  }
  static constexpr std::size_t size(const T& value) {
    std::size_t total = 0;
    for (const auto& e : value) total += shape<Opts, E>::size(e);
    return total;
  }
  static constexpr std::size_t size_bound(const T& value) {
    if constexpr (bounded()) {
      return max_size();
    } else {
      std::size_t total = 0;
      for (const auto& e : value) total += shape<Opts, E>::size_bound(e);
      return total;
    }
  }
};

// ---- fields: a struct with reflect(), a plain aggregate, an evolvable struct

template <options Opts, class... Fs>
struct fields_shape {
  static consteval bool bounded() { return (shape<Opts, Fs>::bounded() && ...); }
  static consteval std::size_t max_size() { return (shape<Opts, Fs>::max_size() + ... + 0); }
  static consteval std::size_t min_size() { return (shape<Opts, Fs>::min_size() + ... + 0); }
  static consteval std::size_t varying_leaves() {
    return (shape<Opts, Fs>::varying_leaves() + ... + 0);
  }
  static consteval bool presizable() { return (shape<Opts, Fs>::presizable() && ...); }
  template <std::size_t Depth>
  static consteval bool borrows() {
    return (borrows_within<Opts, Fs, Depth> || ...);
  }
  static consteval std::size_t run_size() {
    if constexpr (sizeof...(Fs) == 0) {
      return std::size_t{0};
    } else {
      const std::size_t sizes[] = {shape<Opts, Fs>::run_size()...};
      std::size_t total = 0;
      for (const std::size_t s : sizes) {
        if (s == 0) return std::size_t{0};
        total += s;
      }
      return total;
    }
  }
};

template <options Opts, class... Fs>
consteval auto fields_shape_of(type_list<Fs...>) -> fields_shape<Opts, Fs...>;

// Bytes of a struct's fields, one after another (an evolvable struct's body).
template <options Opts, class T>
constexpr std::size_t fields_size(const T& value) {
  auto visit = [](const auto&... f) BIN_SERIALIZER_LAMBDA_INLINE -> std::size_t {
    return (shape<Opts, std::remove_cvref_t<decltype(f)>>::size(f) + ... + 0);
  };
  return visit_members(value, visit);
}

// The same, bounded from above (size_bound).
template <options Opts, class T>
constexpr std::size_t fields_size_bound(const T& value) {
  auto visit = [](const auto&... f) BIN_SERIALIZER_LAMBDA_INLINE -> std::size_t {
    return (shape<Opts, std::remove_cvref_t<decltype(f)>>::size_bound(f) + ... + 0);
  };
  return visit_members(value, visit);
}

template <options Opts, class T>
using fields_of = decltype(fields_shape_of<Opts>(member_types_t<T>{}));

template <options Opts, class T, category C>
  requires(C == category::reflectable || C == category::aggregate)
struct shape_of<Opts, T, C> {
  using fields = fields_of<Opts, T>;
  static consteval bool bounded() { return fields::bounded(); }
  static consteval std::size_t max_size() { return fields::max_size(); }
  static consteval std::size_t min_size() { return fields::min_size(); }
  static consteval std::size_t run_size() { return fields::run_size(); }
  static consteval std::size_t varying_leaves() { return fields::varying_leaves(); }
  static consteval bool presizable() {
    if constexpr (outline_element<T>)
      return false;
    else
      return fields::presizable();
  }
  static consteval bool object_bytes() { return false; } // field by field
  static consteval bool writes_object_bytes() { return false; }
  template <std::size_t Depth>
  static consteval bool borrows() {
    return fields::template borrows<Depth - 1>();
  }
  // Read field by field, each checking itself; inside a block copy (a
  // trivially copyable struct holding it), its fields' checks on those bytes.
  static consteval bool validates() {
    if constexpr (Opts.validate_values && Opts.check_trivial_members &&
                  std::is_trivially_copyable_v<T>)
      return members_validate<Opts, T>();
    else
      return false;
  }
  static std::size_t invalid_at(const unsigned char* p) noexcept {
    if constexpr (validates())
      return members_invalid_at<Opts, T>(p);
    else
      return no_invalid_byte;
  }
  template <class H>
  static constexpr void schema(H& h) {
    h.template fields<T>();
  }

  // Fields in order; && folds left to right and stops at the first failure.
  // A plain aggregate's field offsets are known from its type (adjacent
  // fields become one copy, core/write_fields.hpp).
  using layout = std::conditional_t<C == category::aggregate, aggregate_layout<T>, unknown_layout>;

  template <class W>
  BIN_SERIALIZER_INLINE static bool write(W& w, const T& value) {
    auto visit = [&w](const auto&... f)
                     BIN_SERIALIZER_LAMBDA_INLINE -> bool { return write_fields<layout>(w, f...); };
    return visit_members(value, visit);
  }
  template <class R>
  BIN_SERIALIZER_INLINE static bool read(R& r, T& value) {
    if constexpr (C == category::reflectable && reflect_gives_only_const<T>) {
      (void)sizeof(reflect_is_const_only<T>); // one message instead of one per field
      return false;
    } else {
      auto visit = [&r](auto&... f) BIN_SERIALIZER_LAMBDA_INLINE -> bool {
        return read_fields<layout>(r, f...);
      };
      return visit_members(value, visit);
    }
  }
  static constexpr std::size_t size(const T& value) { return fields_size<Opts>(value); }
  static constexpr std::size_t size_bound(const T& value) {
    if constexpr (bounded())
      return max_size();
    else
      return fields_size_bound<Opts>(value);
  }
};

template <options Opts, class T>
consteval auto evolvable_fields() {
  if constexpr (has_visible_fields<T>)
    return fields_of<Opts, T>{};
  else
    return fields_shape<Opts>{}; // check_evolvable() says what to write
}

template <options Opts, class T>
struct shape_of<Opts, T, category::evolvable> {
  // [u32 body_length][u32 field_count][fields] (core/evolution_io.hpp). An
  // older writer may have sent no field beyond the prefix.
  using fields = decltype(evolvable_fields<Opts, T>());
  static consteval bool bounded() { return fields::bounded(); }
  static consteval std::size_t max_size() { return evolvable_prefix_bytes + fields::max_size(); }
  static consteval std::size_t min_size() { return evolvable_prefix_bytes; }
  static consteval std::size_t run_size() { return 0; }
  static consteval std::size_t varying_leaves() { return 0; } // never in a run or bounded element
  static consteval bool presizable() {
    if constexpr (outline_element<T> || !has_visible_fields<T>)
      return false;
    else
      return fields::presizable();
  }
  static consteval bool object_bytes() { return false; } // its prefix is a layout of its own
  static consteval bool writes_object_bytes() { return false; }
  template <std::size_t Depth>
  static consteval bool borrows() {
    return fields::template borrows<Depth - 1>();
  }
  static consteval bool validates() { return false; } // never a block copy
  static std::size_t invalid_at(const unsigned char*) noexcept { return no_invalid_byte; }
  template <class H>
  static constexpr void schema(H& h) {
    h.template evolvable<T>();
  }

  template <class W>
  BIN_SERIALIZER_INLINE static bool write(W& w, const T& value) {
    return write_evolvable(w, value);
  }
  template <class R>
  BIN_SERIALIZER_INLINE static bool read(R& r, T& value) {
    return read_evolvable(r, value);
  }
  static constexpr std::size_t size(const T& value) {
    return evolvable_prefix_bytes + fields_size<Opts>(value);
  }
  static constexpr std::size_t size_bound(const T& value) {
    if constexpr (bounded())
      return max_size();
    else
      return evolvable_prefix_bytes + fields_size_bound<Opts>(value);
  }
};

} // namespace bin_serializer::detail

namespace bin_serializer {

// Whether a T decoded in format Opts points into the input bytes: it holds a
// std::basic_string_view, std::span, array_view or sequence_view (or a value
// of a codec that states borrows) at any depth, in a struct field, a
// container element, an optional, a variant alternative, a tuple, a C array.
// Such a value is valid only while the bytes it was decoded from are alive
// and unchanged; an API that decodes from storage it releases afterwards
// (io/grpc.hpp, io/zmq.hpp) refuses these types at compile time.
template <class T, options Opts = native>
inline constexpr bool borrows_input_v =
    detail::borrows_within<Opts, std::remove_cvref_t<T>, detail::borrow_depth_limit>;

} // namespace bin_serializer
