// Which wire layout a type gets: the library's one dispatch table, found by one
// walk over the type.
//
// category_of<Opts, T>() sorts every type into exactly one category, in this
// order:
//
//   refused     raw pointers, member pointers, nullptr_t: an address means
//               nothing to the reader, so these never compile
//   not_portable a type the call's format refuses (format_policy::refuses:
//               wchar_t, long double, non-IEEE floats in the host-independent
//               formats, whose size or encoding differs between platforms)
//   codec       codec<T> is specialised (core/extension.hpp): the type's
//               family defines its own layout. Checked before memcpy because
//               some families are trivially copyable yet need a defined
//               layout (an optional's presence byte must be 0 or 1)
//   evolvable   opted in to append-only evolution (reflect/evolution.hpp): a
//               length and field-count prefix, then the fields
//   bulk        one copy of the object bytes. In a format with host_layout
//               (native): trivially copyable, no part with a layout of its
//               own, and every byte accounted for by a member the library
//               sees (padding included), or opted in through
//               trivially_serializable<T>. A type with reflect() qualifies
//               only when reflect() provably lists every member in
//               declaration order. In the other formats: a type whose memory
//               already IS its encoding (scalars the format calls
//               object_bytes_scalar, padding-free aggregates of them)
//   scalar      an integer, float, enum or bool the format encodes itself
//   array       C array of elements that are not one block, element by element
//   reflectable reflect(visitor) lists the fields: each in that order
//   aggregate   a plain aggregate (no reflect()): fields in declaration order
//   unsupported none of the above (or a std family whose header is missing):
//               core/diagnostics.hpp says why
//
// walk<Opts, T>() decides this with one if-constexpr chain on T's kind, from
// the facts of T's parts (struct fields, array elements): whether some part
// has a layout of its own, whether every byte is visible, whether T's memory
// is its encoding, whether a pointer hides in it. Its result also lists the
// parts that reach<Opts, T> (below) visits for the facts that need a depth
// limit because a codec's elements may lead back to T: whether T and
// everything in it has a layout (Serializable), and whether T nests deeper
// than forced inlining may follow (outline_element).
#pragma once

#include <array>
#include <cstddef>
#include <memory>
#include <type_traits>
#include <utility>

#include "../config.hpp"
#include "../format/all.hpp"
#include "../options.hpp"
#include "../reflect/aggregate.hpp"
#include "../reflect/evolution.hpp"
#include "../reflect/members.hpp"
#include "../reflect/reflect.hpp"
#include "../reflect/std_families.hpp"
#include "../reflect/type_list.hpp"
#include "extension.hpp"

namespace bin_serializer::detail {

enum class category : unsigned char {
  refused,
  not_portable,
  codec,
  bulk,
  scalar,
  array,
  reflectable,
  aggregate,
  unsupported,
  evolvable
};

template <class T>
concept refused_type =
    std::is_pointer_v<T> || std::is_member_pointer_v<T> || std::is_null_pointer_v<T>;

// ---- may reflect() stand for the object's memory?
//
// A reflect() that leaves a member out must keep it off the wire, so a type
// with reflect() is copied whole only when reflect() lists exactly its
// members, in declaration order: same field types as the aggregate's
// structured binding, and (checked in a constant evaluation on a
// value-initialised T) the same objects. A reflect() that is not constexpr
// cannot be proven, and its type is encoded field by field.
template <class T>
concept constant_default =
    requires { typename std::bool_constant<(static_cast<void>(T{}), true)>; };

template <class T>
constexpr bool reflect_lists_every_member_in_order() {
  constexpr std::size_t n = aggregate_fields_t<T>::size;
  if constexpr (n == 0) {
    return true;
  } else {
    T object{};
    const T& c = object;
    const void* listed[n] = {};
    const void* declared[n] = {};
    auto take = [](const void** out) {
      return [out](const auto&... fields) {
        std::size_t i = 0;
        ((out[i++] = static_cast<const void*>(std::addressof(fields))), ...);
        return true;
      };
    };
    (void)c.reflect(take(listed));
    (void)visit_aggregate(c, take(declared));
    for (std::size_t i = 0; i < n; ++i)
      if (listed[i] != declared[i]) return false;
    return true;
  }
}

template <class T>
concept reflect_provably_complete = requires {
  typename std::bool_constant<reflect_lists_every_member_in_order<T>()>;
} && reflect_lists_every_member_in_order<T>();

// ---- the walk

// What walk<Opts, T>() finds. Parts: the types reach<Opts, T> visits next
// (fields, the element, a codec's elements); Nested: those whose depth counts
// for inlining (the parts, or a codec's template arguments when it lists no
// elements).
template <class Parts, class Nested = Parts>
struct type_facts {
  using parts = Parts;
  using nested = Nested;
  category kind;
  bool layout_codec; // a part (or T) has a layout other than its object bytes
  bool visible;      // every byte of T belongs to a member the library sees
  bool packed;       // T's object bytes are its encoding (formats without host_layout)
  bool refused;      // a raw pointer in T's listed structure
  bool own_ok;       // T itself has a layout (its parts aside)
};

template <options Opts, class T>
consteval auto walk();

// Computed once per format and type, however often asked.
template <options Opts, class T>
inline constexpr auto facts_of = walk<Opts, T>();

template <options Opts, class... Fs>
consteval bool any_layout_codec(type_list<Fs...>) {
  return (facts_of<Opts, Fs>.layout_codec || ...);
}
template <options Opts, class... Fs>
consteval bool all_visible(type_list<Fs...>) {
  return (facts_of<Opts, Fs>.visible && ...);
}
template <options Opts, class... Fs>
consteval bool all_packed_without_padding(type_list<Fs...>, std::size_t size) {
  return (facts_of<Opts, Fs>.packed && ...) && (sizeof(Fs) + ... + 0) == size;
}
template <options Opts, class... Fs>
consteval bool any_refused(type_list<Fs...>) {
  return (facts_of<Opts, Fs>.refused || ...);
}

template <class T>
struct type_args {
  using type = type_list<>;
};
template <template <class...> class Tm, class... As>
struct type_args<Tm<As...>> {
  using type = type_list<As...>;
};

template <class T>
consteval auto codec_parts() {
  if constexpr (codec_lists_elements<T>)
    return typename codec<T>::elements{};
  else
    return type_list<>{};
}

// A struct's facts from its fields: reflect()'s for what is sent, the
// declared members' for what its memory holds.
template <options Opts, class U>
consteval bool fields_layout_codec() {
  if constexpr (Reflectable<U>)
    return any_layout_codec<Opts>(reflected_fields_t<U>{});
  else if constexpr (has_reflect_member<U>)
    return false;
  else if constexpr (bindable_aggregate<U>)
    return any_layout_codec<Opts>(aggregate_fields_t<U>{});
  else
    return false;
}

template <options Opts, class U>
consteval bool reflect_covers_object() {
  if constexpr (!bindable_aggregate<U>)
    return false; // private members or a base: reflect() cannot be checked against them
  else if constexpr (!std::is_same_v<reflected_fields_t<U>, aggregate_fields_t<U>>)
    return false; // a member left out, reordered or repeated
  else if constexpr (!constant_default<U>)
    return false; // cannot prove which members reflect() names
  else if constexpr (!all_visible<Opts>(aggregate_fields_t<U>{}))
    return false;
  else
    return reflect_provably_complete<U>;
}

template <options Opts, class U>
consteval bool fields_visible() {
  if constexpr (opted_in_bulk<U>)
    return !has_reflect_member<U>;
  else if constexpr (Reflectable<U>)
    return reflect_covers_object<Opts, U>();
  else if constexpr (has_reflect_member<U>)
    return false;
  else if constexpr (bindable_aggregate<U>)
    return all_visible<Opts>(aggregate_fields_t<U>{});
  else
    return false;
}

// Types with reflect() are never packed: reflect() may skip or reorder
// fields, so their memory says nothing about their encoding.
template <options Opts, class U>
consteval bool fields_packed() {
  if constexpr (format_of<Opts>::host_layout || !std::is_trivially_copyable_v<U> ||
                has_reflect_member<U> || !bindable_aggregate<U>)
    return false;
  else
    return all_packed_without_padding<Opts>(aggregate_fields_t<U>{}, sizeof(U));
}

template <options Opts, class U>
consteval auto fields_parts() {
  if constexpr (has_visible_fields<U>)
    return member_types_t<U>{};
  else
    return type_list<>{};
}

// The category of a type that is not a pointer, refused scalar, codec, std
// family or evolvable struct, from its facts.
template <options Opts, class U>
consteval category plain_kind(bool layout_codec, bool visible, bool packed) {
  const bool bulk = format_of<Opts>::host_layout
                        ? std::is_trivially_copyable_v<U> && !layout_codec && visible
                        : packed;
  if (opted_in_bulk<U> && has_reflect_member<U>)
    return category::unsupported; // two descriptions of one type: say which to drop
  if (bulk) return category::bulk;
  if (scalar_type<U>) return category::scalar;
  if (std::is_array_v<U>) return category::array;
  if (Reflectable<U>) return category::reflectable;
  if (has_reflect_member<U>) return category::unsupported; // a reflect() that does not fit
  if (bindable_aggregate<U>) return category::aggregate;
  return category::unsupported;
}

template <options Opts, class T>
consteval auto walk() {
  using U = std::remove_cv_t<T>;
  using F = format_of<Opts>;
  using none = type_list<>;
  if constexpr (refused_type<U>) {
    // Visible, and refused where it is found.
    return type_facts<none>{category::refused, false, true, false, true, false};
  } else if constexpr (F::template refuses<U>) {
    return type_facts<none>{category::not_portable, false, true, false, false, false};
  } else if constexpr (has_codec<U>) {
    constexpr bool block = codec_in_block<Opts, U>();
    using parts = decltype(codec_parts<U>());
    using nested = std::conditional_t<codec_lists_elements<U>, parts, typename type_args<U>::type>;
    return type_facts<parts, nested>{category::codec, !block, true, block, false, true};
  } else if constexpr (is_std_family<U>) {
    // Its codec header is not included: never copy it as bytes.
    return type_facts<none>{category::unsupported, true, false, false, false, false};
  } else if constexpr (evolvable_type<U>) {
    // Its prefix is a layout of its own; its versions<...> must fit its fields.
    using parts = decltype(fields_parts<Opts, U>());
    constexpr bool ok = has_visible_fields<U> &&
                        versions_well_formed<U>(parts::size - ends_with_unknown_fields(parts{}));
    return type_facts<parts>{category::evolvable,        true, fields_visible<Opts, U>(), false,
                             any_refused<Opts>(parts{}), ok};
  } else if constexpr (scalar_type<U>) {
    constexpr bool packed = !F::host_layout && F::template object_bytes_scalar<U>;
    return type_facts<none>{
        plain_kind<Opts, U>(false, true, packed), false, true, packed, false, true};
  } else if constexpr (std::is_array_v<U>) {
    using E = std::remove_extent_t<U>;
    constexpr auto e = facts_of<Opts, E>;
    return type_facts<type_list<E>>{plain_kind<Opts, U>(e.layout_codec, e.visible, e.packed),
                                    e.layout_codec,
                                    e.visible,
                                    e.packed,
                                    e.refused,
                                    true};
  } else {
    using parts = decltype(fields_parts<Opts, U>());
    constexpr bool layout_codec = fields_layout_codec<Opts, U>();
    constexpr bool visible = fields_visible<Opts, U>();
    constexpr bool packed = fields_packed<Opts, U>();
    constexpr category kind = plain_kind<Opts, U>(layout_codec, visible, packed);
    return type_facts<
        parts, std::conditional_t<has_visible_fields<U>, parts, typename type_args<U>::type>>{
        kind,
        layout_codec,
        visible,
        packed,
        any_refused<Opts>(parts{}),
        kind != category::unsupported};
  }
}

template <options Opts, class T>
consteval category category_of() {
  return facts_of<Opts, std::remove_cv_t<T>>.kind;
}

// A pointer in T's listed structure (its fields, recursively, and C array
// elements): refused even inside a trivially copyable type that would
// otherwise be copied without looking at its fields.
template <options Opts, class T>
inline constexpr bool holds_pointer = facts_of<Opts, std::remove_cv_t<T>>.refused;

// Whether a format may copy T's object bytes as they are.
template <options Opts, class T>
inline constexpr bool bulk_copyable = category_of<Opts, T>() == category::bulk;

// Whether a value of T, inside a struct copied as one block, may be copied
// with it (its object bytes are its encoding there, checks aside): what a
// codec whose value is its parts' bytes (std::array) states as in_block.
template <options Opts, class T>
consteval bool copies_in_block() {
  constexpr auto f = facts_of<Opts, std::remove_cv_t<T>>;
  if constexpr (format_of<Opts>::host_layout)
    return std::is_trivially_copyable_v<T> && !f.layout_codec && f.visible && !f.refused;
  else
    return f.packed;
}

// A leaf the format encodes itself (format_policy::store_scalar).
template <options Opts, class T>
inline constexpr bool format_scalar = category_of<Opts, T>() == category::scalar;

// ---- what needs a depth limit: a codec's elements may lead back to T
//
// reach<Opts, T, Levels>: whether T and every part within Levels levels has a
// layout (Serializable: a std::vector<int*> is refused where it is used, with
// one message), and whether T nests deeper than that (forced inlining must
// stop: core/encode.hpp). A recursive type (a tree node holding a vector of
// nodes) ends at the limit; its codecs check the rest when instantiated.
// Levels are struct fields, array elements and a codec's elements.
inline constexpr std::size_t inline_nesting_limit = 12;

struct reach_facts {
  bool serializable;
  bool deep;
  bool evolvable; // T or a part is an evolvable struct (at the limit: maybe)
};

template <options Opts, class T, std::size_t Levels>
consteval reach_facts reach();

template <options Opts, class T, std::size_t Levels>
inline constexpr reach_facts reach_of = reach<Opts, T, Levels>();

template <options Opts, std::size_t Levels, class... Ps>
consteval bool all_reach_serializable(type_list<Ps...>) {
  return (reach_of<Opts, std::remove_cv_t<Ps>, Levels>.serializable && ...);
}
template <options Opts, std::size_t Levels, class... Ps>
consteval bool any_reach_deep(type_list<Ps...>) {
  return (reach_of<Opts, std::remove_cv_t<Ps>, Levels>.deep || ...);
}
template <options Opts, std::size_t Levels, class... Ps>
consteval bool any_reach_evolvable(type_list<Ps...>) {
  return (reach_of<Opts, std::remove_cv_t<Ps>, Levels>.evolvable || ...);
}

template <options Opts, class T, std::size_t Levels>
consteval reach_facts reach() {
  constexpr auto f = facts_of<Opts, T>;
  using parts = typename decltype(f)::parts;
  using nested = typename decltype(f)::nested;
  constexpr bool own = f.own_ok && (f.kind != category::bulk || !f.refused);
  if constexpr (Levels == 0) {
    return {own, true, true};
  } else if constexpr (std::is_empty_v<T> || std::is_scalar_v<T>) {
    return {own, false, false}; // comparators, allocators, hashers; leaves
  } else {
    // A block is checked by its pointer fact, not its parts' layouts.
    constexpr bool parts_ok =
        f.kind == category::bulk || all_reach_serializable<Opts, Levels - 1>(parts{});
    // A block holds no evolvable struct (its prefix is a layout of its own).
    constexpr bool evolvable =
        f.kind == category::evolvable ||
        (f.kind != category::bulk && any_reach_evolvable<Opts, Levels - 1>(parts{}));
    return {own && parts_ok, any_reach_deep<Opts, Levels - 1>(nested{}), evolvable};
  }
}

// T, and every type it holds, has a layout in format Opts.
template <options Opts, class T>
inline constexpr bool has_layout =
    reach_of<Opts, std::remove_cv_t<T>, inline_nesting_limit>.serializable;

// An element reached through serialize_field / deserialize_field is an
// ordinary call, not forced inline, when its type nests deeper than
// inline_nesting_limit levels, which every recursive type does.
template <class T>
inline constexpr bool outline_element =
    reach_of<native, std::remove_cv_t<T>, inline_nesting_limit>.deep;

// Whether T is or holds an evolvable struct (a field, an element, within the
// nesting limit; past it, assumed). Its bounds (shape<Opts, T>::max_size())
// are this version's, for writing: another version's bytes may be longer,
// so a decoder never reads one through a window of that size (a run of
// fields: core/run_layout.hpp; bounded elements: std/codec_support.hpp).
template <options Opts, class T>
inline constexpr bool holds_evolvable =
    reach_of<Opts, std::remove_cv_t<T>, inline_nesting_limit>.evolvable;

// A value that is one block of bytes (a trivially copyable struct, a scalar):
// its encoding has a fixed length, so e.g. a framed message of it has a
// constant header (frame/message.hpp).
template <options Opts, class T>
inline constexpr bool inline_top_level =
    category_of<Opts, T>() == category::bulk || category_of<Opts, T>() == category::scalar;

} // namespace bin_serializer::detail

namespace bin_serializer {

// T has a wire layout in the given format (default: native).
template <class T, options Opts = native>
concept Serializable = detail::has_layout<Opts, std::remove_cvref_t<T>>;

} // namespace bin_serializer
