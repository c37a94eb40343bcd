// Which wire layout a type gets: the library's one dispatch table.
//
// category_of<T>() sorts every type into exactly one category, in this order:
//
//   refused     raw pointers, member pointers, nullptr_t: an address means
//               nothing to the reader, so these never compile
//   codec       codec<T> is specialised: the type's family defines its own
//               layout (std::string in std/string.hpp, later the other std
//               families). Checked before memcpy because some families are
//               trivially copyable yet need a defined layout (an optional's
//               presence byte must be 0 or 1, not whatever the flag held)
//   not_portable a type the call's format refuses (format_policy::refuses:
//               wchar_t, long double, non-IEEE floats in the host-independent
//               formats, whose size or encoding differs between platforms)
//   evolvable   opted in to append-only evolution (evolution.hpp): a length
//               and field-count prefix, then the fields; never bulk-copied
//   bulk        one copy of the object bytes. In a format with host_layout
//               (native): trivially copyable and every byte accounted for
//               (see layout_visible below), padding included. A type with
//               reflect() qualifies only when reflect() provably lists every
//               member in declaration order; a type whose members the
//               library cannot see (private members without reflect(),
//               unions) only when opted in through trivially_serializable<T>.
//               In the other formats: a type whose memory already IS its
//               encoding (scalars the format calls object_bytes_scalar,
//               padding-free aggregates of them)
//   scalar      an integer, float, enum or bool the format encodes itself
//               (format_policy::store_scalar: byte-swapped, a varint, ...)
//   array       C array of non-trivially-copyable elements, element by element
//   reflectable reflect(visitor) lists the fields: each in that order
//   aggregate   a plain aggregate (no reflect()): fields in declaration order,
//               found by reflect/aggregate.hpp
//   unsupported none of the above: a compile error naming the type and
//               showing the reflect() to write
//
// The serializer and deserializer each switch on this category in one
// if-constexpr chain; type families plug in through codec<T> without touching it.
#pragma once

#include <array>
#include <bitset>
#include <chrono>
#include <cstddef>
#include <optional>
#include <span>
#include <string_view>
#include <variant>
#include <limits>
#include <memory>
#include <tuple>
#include <type_traits>
#include <utility>

#include "../reflect/aggregate.hpp"
#include "codec_facts.hpp"
#include "../format/all.hpp"
#include "../reflect/type_list.hpp"
#include "../config.hpp"
#include "../reflect/evolution.hpp"
#include "../options.hpp"
#include "../reflect/reflect.hpp"

namespace bin_serializer {

namespace detail {
struct no_codec {};
} // namespace detail

// Extension point. Specialise for a type (or a family, with a constrained
// partial specialisation) to give it a wire layout:
//
//   template <> struct bin_serializer::codec<Money> {
//     template <class W> static bool write(W& w, const Money& m) { return serialize_field(w, m.cents); }
//     template <class R> static bool read(R& r, Money& m) { return deserialize_field(r, m.cents); }
//   };
//
// W and R are the library's writer and reader (cursor/writer.hpp,
// cursor/reader.hpp); serialize_field / deserialize_field recurse into members.
template <class T>
struct codec : detail::no_codec {};

// Opt-in for a trivially copyable type whose members the library cannot see
// (private members and no reflect(), a union, a class with a base): its object
// bytes, padding included, become its native encoding. The library can then
// no longer check it for pointers; that is the promise the opt-in makes.
//
//   template <> struct bin_serializer::trivially_serializable<MyType> : std::true_type {};
template <class T>
struct trivially_serializable : std::false_type {};

namespace detail {

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
concept has_codec = !std::is_base_of_v<no_codec, codec<T>>;

// Standard library types whose layout is defined by a codec header under
// std/. Without that header they must not fall through to memcpy (a
// std::optional's flag, a std::span's pointer) or to another category: the
// layout would then depend on which headers a translation unit happened to
// include. So they are "unsupported" until their codec is visible.
template <class T>
inline constexpr bool is_std_family = false;
template <class T>
inline constexpr bool is_std_family<std::optional<T>> = true;
template <class... Ts>
inline constexpr bool is_std_family<std::variant<Ts...>> = true;
template <class T, std::size_t N>
inline constexpr bool is_std_family<std::span<T, N>> = true;
template <class C, class Tr>
inline constexpr bool is_std_family<std::basic_string_view<C, Tr>> = true;
template <class A, class B>
inline constexpr bool is_std_family<std::pair<A, B>> = true;
template <class... Ts>
inline constexpr bool is_std_family<std::tuple<Ts...>> = true;
template <class T, std::size_t N>
inline constexpr bool is_std_family<std::array<T, N>> = true;
template <std::size_t N>
inline constexpr bool is_std_family<std::bitset<N>> = true;
template <class R, class P>
inline constexpr bool is_std_family<std::chrono::duration<R, P>> = true;
template <class C, class D>
inline constexpr bool is_std_family<std::chrono::time_point<C, D>> = true;
template <>
inline constexpr bool is_std_family<std::monostate> = true;

template <class T>
concept refused_type =
    std::is_pointer_v<T> || std::is_member_pointer_v<T> || std::is_null_pointer_v<T>;

// A codec may state that, in format Opts, its encoding is exactly the
// object's bytes (chrono durations, std::array of scalars): .object_bytes in
// its facts (core/codec_facts.hpp).
template <options Opts, class T>
consteval bool codec_is_object_bytes() {
  return facts_of_codec<Opts, T>.object_bytes;
}

// ---- a format without host_layout: which types are their own encoding

template <class T>
inline constexpr bool is_std_array_v = false;
template <class T, std::size_t N>
inline constexpr bool is_std_array_v<std::array<T, N>> = true;

template <options Opts, class T>
consteval bool packed_object_bytes();

template <options Opts, class... Fs>
consteval bool all_packed_object_bytes(type_list<Fs...>) {
  return (packed_object_bytes<Opts, Fs>() && ...);
}
template <class... Fs>
consteval std::size_t sum_sizeof(type_list<Fs...>) {
  return (sizeof(Fs) + ... + 0);
}

// True when T's object bytes are exactly its encoding in a format whose
// layout is not the host's: scalars the format calls object_bytes_scalar,
// arrays of such, and plain aggregates of such with no padding (fields in
// declaration order = memory order). Types with reflect() are excluded:
// reflect() may skip or reorder fields, so their memory says nothing about
// their encoding.
template <options Opts, class T>
consteval bool packed_object_bytes() {
  using U = std::remove_cv_t<T>;
  using F = format_of<Opts>;
  if constexpr (evolvable_type<U>)
    return false;
  else if constexpr (is_std_array_v<U>)
    return sizeof(U) == std::tuple_size_v<U> * sizeof(typename U::value_type) &&
           packed_object_bytes<Opts, typename U::value_type>();
  else if constexpr (has_codec<U>)
    return codec_is_object_bytes<Opts, U>();
  else if constexpr (scalar_type<U>)
    return !F::template refuses<U> && F::template object_bytes_scalar<U>;
  else if constexpr (std::is_array_v<U>)
    return packed_object_bytes<Opts, std::remove_extent_t<U>>();
  else if constexpr (!std::is_trivially_copyable_v<U> || has_reflect_member<U>)
    return false;
  else if constexpr (bindable_aggregate<U>)
    return all_packed_object_bytes<Opts>(aggregate_fields_t<U>{}) &&
           sum_sizeof(aggregate_fields_t<U>{}) == sizeof(U);
  else
    return false;
}

// Does T contain (as an array element or a visible field, at any depth) a
// type whose codec defines a layout other than its object bytes? Then T must
// not be copied as a block even if trivially copyable: std::optional<uint8_t>
// arr[2] has to be two presence-byte encodings, with their checks.
template <options Opts, class T>
consteval bool holds_layout_codec();

template <options Opts, class... Fs>
consteval bool any_layout_codec(type_list<Fs...>) {
  return (holds_layout_codec<Opts, Fs>() || ...);
}

template <options Opts, class T>
consteval bool holds_layout_codec() {
  using U = std::remove_cv_t<T>;
  if constexpr (evolvable_type<U>)
    return true; // its prefix is a layout of its own
  else if constexpr (is_std_array_v<U>)
    return holds_layout_codec<
        Opts, typename U::value_type>(); // its codec copies bulk elements as a block
  else if constexpr (has_codec<U>)
    return !codec_is_object_bytes<Opts, U>();
  else if constexpr (is_std_family<U>)
    return true; // header missing: never copy it as bytes
  else if constexpr (std::is_array_v<U>)
    return holds_layout_codec<Opts, std::remove_extent_t<U>>();
  else if constexpr (Reflectable<U>)
    return any_layout_codec<Opts>(reflected_fields_t<U>{});
  else if constexpr (has_reflect_member<U>)
    return false;
  else if constexpr (bindable_aggregate<U>)
    return any_layout_codec<Opts>(aggregate_fields_t<U>{});
  else
    return false;
}

template <class T>
concept opted_in_bulk = trivially_serializable<std::remove_cv_t<T>>::value;

template <class T>
concept smart_pointer = requires { typename T::element_type; } &&
                        (requires(const T& p) { p.get(); } || requires(const T& p) { p.lock(); });

// ---- when may a native one-copy replace the field-by-field encoding?
//
// Only when the copy provably sends what the fields would, plus padding:
// every byte of T belongs to a member the library can see (recursively), or
// the user opted T in. A reflect() that leaves a member out must keep it off
// the wire, so a type with reflect() is copied whole only when reflect()
// lists exactly its members, in declaration order: same field types as the
// aggregate's structured binding, and (checked in a constant evaluation on a
// value-initialised T) the same objects. Anything else is encoded field by
// field.
template <class T>
consteval bool layout_visible();

template <class... Fs>
consteval bool all_layout_visible(type_list<Fs...>) {
  return (layout_visible<Fs>() && ...);
}

template <class T>
concept constant_default =
    requires { typename std::bool_constant<(static_cast<void>(T{}), true)>; };

// Constant-evaluated only when reflect() is constexpr; a reflect() that is not
// cannot be proven and its type is encoded field by field.
template <class T>
constexpr bool reflect_lists_every_member_in_order() {
  constexpr std::size_t n = aggregate_fields_t<T>::size;
  if constexpr (n == 0) {
    return true;
  } else {
    T object{};
    const T& c = object;
    std::array<const void*, n> listed{};
    std::array<const void*, n> declared{};
    auto take_listed = [&listed](const auto&... fields) {
      listed = {static_cast<const void*>(std::addressof(fields))...};
      return true;
    };
    auto take_declared = [&declared](const auto&... fields) {
      declared = {static_cast<const void*>(std::addressof(fields))...};
      return true;
    };
    (void)c.reflect(take_listed);
    (void)visit_aggregate(c, take_declared);
    for (std::size_t i = 0; i < n; ++i)
      if (listed[i] != declared[i]) return false;
    return true;
  }
}

template <class T>
concept reflect_provably_complete = requires {
  typename std::bool_constant<reflect_lists_every_member_in_order<T>()>;
} && reflect_lists_every_member_in_order<T>();

template <class T>
consteval bool reflect_covers_object() {
  if constexpr (!bindable_aggregate<T>)
    return false; // private members or a base: reflect() cannot be checked against them
  else if constexpr (!std::is_same_v<reflected_fields_t<T>, aggregate_fields_t<T>>)
    return false; // a member left out, reordered or repeated
  else if constexpr (!constant_default<T>)
    return false; // cannot prove which members reflect() names
  else if constexpr (!all_layout_visible(aggregate_fields_t<T>{}))
    return false;
  else
    return reflect_provably_complete<T>;
}

template <class T>
consteval bool layout_visible() {
  using U = std::remove_cv_t<T>;
  if constexpr (scalar_type<U> || refused_type<U>)
    return true; // a pointer is visible, and refused where it is found
  else if constexpr (std::is_array_v<U>)
    return layout_visible<std::remove_extent_t<U>>();
  else if constexpr (has_codec<U>)
    return true; // its codec decides (holds_layout_codec)
  else if constexpr (opted_in_bulk<U>)
    return !has_reflect_member<U>;
  else if constexpr (Reflectable<U>)
    return reflect_covers_object<U>();
  else if constexpr (has_reflect_member<U>)
    return false;
  else if constexpr (bindable_aggregate<U>)
    return all_layout_visible(aggregate_fields_t<U>{});
  else
    return false;
}

// Whether a format may copy T's object bytes as they are.
template <options Opts, class T>
consteval bool bulk_copyable_fn() {
  if constexpr (format_of<Opts>::host_layout)
    return std::is_trivially_copyable_v<T> && !holds_layout_codec<Opts, T>() && layout_visible<T>();
  else
    return packed_object_bytes<Opts, T>();
}
template <options Opts, class T>
inline constexpr bool bulk_copyable = bulk_copyable_fn<Opts, T>();

template <options Opts, class T>
consteval category category_of() {
  using U = std::remove_cv_t<T>;
  if constexpr (refused_type<U>)
    return category::refused;
  else if constexpr (format_of<Opts>::template refuses<U>)
    return category::not_portable;
  else if constexpr (has_codec<U>)
    return category::codec;
  else if constexpr (is_std_family<U>)
    return category::unsupported; // its codec header is not included
  else if constexpr (evolvable_type<U>)
    return category::evolvable;
  else if constexpr (opted_in_bulk<U> && has_reflect_member<U>)
    return category::unsupported; // two descriptions of one type: say which to drop
  else if constexpr (bulk_copyable<Opts, U>)
    return category::bulk;
  else if constexpr (scalar_type<U>)
    return category::scalar;
  else if constexpr (std::is_array_v<U>)
    return category::array;
  else if constexpr (Reflectable<U>)
    return category::reflectable;
  else if constexpr (has_reflect_member<U>)
    return category::unsupported; // a reflect() that does not fit Reflectable
  else if constexpr (bindable_aggregate<U>)
    return category::aggregate;
  else
    return category::unsupported;
}

// A type whose fields the library can see: through reflect(), or as a plain
// aggregate.
template <class T>
concept has_visible_fields = Reflectable<T> || (bindable_aggregate<T> && !has_reflect_member<T>);

// type_list of the fields of a has_visible_fields type, in wire order.
template <class T>
consteval auto member_types() {
  if constexpr (Reflectable<T>)
    return reflected_fields_t<T>{};
  else
    return aggregate_fields_t<T>{};
}
template <class T>
using member_types_t = decltype(member_types<T>());

// Calls f(field0, field1, ...): reflect() when the type has one, otherwise the
// aggregate's fields in declaration order.
template <class T, class F>
BIN_SERIALIZER_INLINE constexpr decltype(auto) visit_members(T& value, F& f) {
  if constexpr (Reflectable<std::remove_cv_t<T>>)
    return value.reflect(f);
  else
    return visit_aggregate(value, f);
}

// True if a raw pointer is visible anywhere in T's listed structure (its
// reflect() fields, recursively, and C array elements). Used to refuse
// pointers even inside trivially copyable types that would otherwise be copied
// without looking at their fields.
template <class T>
consteval bool contains_refused();

template <class... Fs>
consteval bool any_refused(type_list<Fs...>) {
  return (contains_refused<Fs>() || ...);
}

template <class T>
consteval bool contains_refused() {
  using U = std::remove_cv_t<T>;
  if constexpr (refused_type<U>)
    return true;
  else if constexpr (std::is_array_v<U>)
    return contains_refused<std::remove_extent_t<U>>();
  else if constexpr (has_visible_fields<U>)
    return any_refused(member_types_t<U>{});
  else if constexpr (tuple_like<U>)
    return []<std::size_t... I>(std::index_sequence<I...>) {
      return (contains_refused<std::tuple_element_t<I, U>>() || ...);
    }(std::make_index_sequence<std::tuple_size_v<U>>{});
  else
    return false;
}

// ---- diagnostics: instantiated only to fail, each naming the offending type.

template <class T>
struct raw_pointer_is_not_serializable {
  static_assert(dependent_false<T>,
                "bin_serializer: a raw pointer cannot be serialized: its value is an address "
                "in this process and means nothing to the reader. Serialize what it points "
                "to instead (hold the value itself, or a std::optional<T> / std::vector<T> "
                "of it), or leave the member out of reflect().");
};

template <class T>
struct reflect_must_return_visitor_result {
  static_assert(dependent_false<T>,
                "bin_serializer: this type has a reflect() member, but not both overloads "
                "returning the visitor's result. Write exactly:\n"
                "    template <class V> auto reflect(V&& v) { return v(field1, field2); }\n"
                "    template <class V> auto reflect(V&& v) const { return v(field1, field2); }");
};

template <class T>
struct aggregate_fields_not_visible {
  static_assert(dependent_false<T>,
                "bin_serializer: this aggregate (named in this diagnostic) cannot be reflected "
                "automatically: it has a base class, a reference member, a member that cannot "
                "be initialised from one value (e.g. std::string_view), or more fields than "
                "detail::max_aggregate_fields. List the fields yourself:\n"
                "    template <class V> auto reflect(V&& v) { return v(field1, field2); }\n"
                "    template <class V> auto reflect(V&& v) const { return v(field1, field2); }");
};

template <class T>
struct std_type_needs_its_header {
  static_assert(dependent_false<T>,
                "bin_serializer: this standard library type (named in this diagnostic) is "
                "serialized by a codec in its own header, which this translation unit does not "
                "include. Include <bin_serializer/bin_serializer.hpp> (which includes them all), "
                "<bin_serializer/std/all.hpp>, or the family's header, e.g. "
                "<bin_serializer/std/optional.hpp>.");
};

template <class T>
struct type_is_not_portable {
  static_assert(dependent_false<T>,
                "bin_serializer: this type (named in this diagnostic) has no portable encoding: "
                "wchar_t and long double differ in size between platforms. Use char16_t / "
                "char32_t / a fixed-width integer, or double, or serialize with the native format.");
};

template <class T>
struct trivially_copyable_without_fields {
  static_assert(dependent_false<T>,
                "bin_serializer: in the portable format a trivially copyable type is written "
                "field by field (its memory layout is host-specific), but this type's fields are "
                "not visible. Give it reflect():\n"
                "    template <class V> auto reflect(V&& v) { return v(field1, field2); }\n"
                "    template <class V> auto reflect(V&& v) const { return v(field1, field2); }\n"
                "or a codec<T> specialisation, or use the native format.");
};

template <class T>
struct type_is_not_serializable {
  static_assert(dependent_false<T>,
                "bin_serializer: no wire layout for this type (named in this diagnostic). "
                "It is not trivially copyable, has no codec<T> specialisation and no "
                "reflect(). List the fields it should send:\n"
                "    template <class V> auto reflect(V&& v) { return v(field1, field2); }\n"
                "    template <class V> auto reflect(V&& v) const { return v(field1, field2); }\n"
                "or specialise bin_serializer::codec<T>. (A standard container or string needs "
                "its codec header: <bin_serializer/bin_serializer.hpp> includes them all.)");
};

template <class T>
struct fields_not_visible_opt_in {
  static_assert(dependent_false<T>,
                "bin_serializer: this trivially copyable type (named in this diagnostic) hides "
                "its members from the library (private members without reflect(), or a union), "
                "so it cannot check them for pointers and will not copy its bytes on a guess. "
                "Either list the fields it should send:\n"
                "    template <class V> auto reflect(V&& v) { return v(field1, field2); }\n"
                "    template <class V> auto reflect(V&& v) const { return v(field1, field2); }\n"
                "or, if its object bytes are what should be sent, opt it in with one line at "
                "namespace scope:\n"
                "    template <> struct bin_serializer::trivially_serializable<T> : std::true_type {};");
};

template <class T>
struct aggregate_has_base_class {
  static_assert(dependent_false<T>,
                "bin_serializer: this struct (named in this diagnostic) has a base class, and "
                "the library cannot see a base's members on its own. List every field to send, "
                "the base's and its own, in a reflect() of the derived struct:\n"
                "    template <class V> auto reflect(V&& v) { return v(base_field, field1); }\n"
                "    template <class V> auto reflect(V&& v) const { return v(base_field, field1); }\n"
                "or give it a codec<T> specialisation. (A trivially copyable one may instead be "
                "opted in: template <> struct bin_serializer::trivially_serializable<T> : "
                "std::true_type {};)");
};

template <class T>
struct smart_pointer_is_not_serializable {
  static_assert(dependent_false<T>,
                "bin_serializer: a smart pointer (std::unique_ptr, std::shared_ptr, ...; named "
                "in this diagnostic) is not serializable: it owns or shares an object through "
                "its address, and an address means nothing to the reader. No header adds it. "
                "Hold the value itself, or std::optional<T> for a value that may be absent, or "
                "std::vector<T> for several; or leave the member out of reflect() and rebuild "
                "it after decoding.");
};

template <class T>
struct polymorphic_type_is_not_serializable {
  static_assert(dependent_false<T>,
                "bin_serializer: this class (named in this diagnostic) has virtual functions: "
                "its bytes hold a vtable pointer and the library will not copy them. List the "
                "data members to send:\n"
                "    template <class V> auto reflect(V&& v) { return v(field1, field2); }\n"
                "    template <class V> auto reflect(V&& v) const { return v(field1, field2); }\n"
                "(the dynamic type is not sent: decode into the same concrete class).");
};

template <class T>
struct opted_in_type_has_reflect {
  static_assert(dependent_false<T>,
                "bin_serializer: this type (named in this diagnostic) has both reflect() and "
                "a trivially_serializable<T> opt-in; they describe different encodings. Remove "
                "the opt-in (reflect() decides what is sent) or remove reflect().");
};

template <class T>
struct reflect_is_const_only {
  static_assert(dependent_false<T>,
                "bin_serializer: cannot deserialize this type (named in this diagnostic): "
                "reflect() on a non-const object gives only const fields. Usually only the const "
                "overload of reflect() exists; add the non-const one next to it:\n"
                "    template <class V> auto reflect(V&& v) { return v(field1, field2); }\n"
                "    template <class V> auto reflect(V&& v) const { return v(field1, field2); }\n"
                "(if every listed member really is const, make them non-const).");
};

// reflect() on a non-const T hands out only const fields: only the const
// overload exists (or every listed member is const).
struct constness_probe {
  template <class... Fs>
  constexpr auto operator()(Fs&&...) const noexcept {
    return std::bool_constant<(sizeof...(Fs) != 0 &&
                               (std::is_const_v<std::remove_reference_t<Fs>> && ...))>{};
  }
};
template <class T>
concept reflect_gives_only_const =
    Reflectable<T> && decltype(std::declval<T&>().reflect(std::declval<constness_probe&>()))::value;

// An evolvable struct's own checks (core/evolution_io.hpp).
template <class T>
consteval bool check_evolvable();

// Why a type has no layout: one reason per diagnostic above.
enum class unsupported_reason : unsigned char {
  evolution,
  raw_pointer,
  std_header_missing,
  not_portable,
  owning_pointer,
  opted_in_with_reflect,
  bad_reflect,
  base_class,
  fields_hidden_portable,
  polymorphic,
  fields_hidden_opt_in,
  aggregate_not_visible,
  no_layout
};

template <class T, options Opts = options{}>
consteval unsupported_reason why_unsupported() {
  using U = std::remove_cv_t<T>;
  using enum unsupported_reason;
  if constexpr (refused_type<U>)
    return raw_pointer;
  else if constexpr (evolvable_type<U> && !has_codec<U>)
    return evolution;
  else if constexpr (is_std_family<U> && !has_codec<U>)
    return std_header_missing;
  else if constexpr (format_of<Opts>::template refuses<U>)
    return not_portable;
  else if constexpr (smart_pointer<U>)
    return owning_pointer;
  else if constexpr (opted_in_bulk<U> && has_reflect_member<U>)
    return opted_in_with_reflect;
  else if constexpr (has_reflect_member<U>)
    return bad_reflect;
  else if constexpr (aggregate_with_base<U>)
    return base_class;
  else if constexpr (!format_of<Opts>::host_layout && std::is_trivially_copyable_v<U> &&
                     !plain_aggregate<U>)
    return fields_hidden_portable;
  else if constexpr (std::is_polymorphic_v<U>)
    return polymorphic;
  else if constexpr (std::is_trivially_copyable_v<U> && !plain_aggregate<U>)
    return fields_hidden_opt_in;
  else if constexpr (plain_aggregate<U>)
    return aggregate_not_visible;
  else
    return no_layout;
}

// Instantiates the one diagnostic for reason R, naming U. It takes no
// options, so a compiler's instantiation trace does not print them again.
template <unsupported_reason R, class U>
constexpr void report_unsupported() {
  using enum unsupported_reason;
  if constexpr (R == evolution)
    (void)check_evolvable<U>();
  else if constexpr (R == raw_pointer)
    (void)sizeof(raw_pointer_is_not_serializable<U>);
  else if constexpr (R == std_header_missing)
    (void)sizeof(std_type_needs_its_header<U>);
  else if constexpr (R == not_portable)
    (void)sizeof(type_is_not_portable<U>);
  else if constexpr (R == owning_pointer)
    (void)sizeof(smart_pointer_is_not_serializable<U>);
  else if constexpr (R == opted_in_with_reflect)
    (void)sizeof(opted_in_type_has_reflect<U>);
  else if constexpr (R == bad_reflect)
    (void)sizeof(reflect_must_return_visitor_result<U>);
  else if constexpr (R == base_class)
    (void)sizeof(aggregate_has_base_class<U>);
  else if constexpr (R == fields_hidden_portable)
    (void)sizeof(trivially_copyable_without_fields<U>);
  else if constexpr (R == polymorphic)
    (void)sizeof(polymorphic_type_is_not_serializable<U>);
  else if constexpr (R == fields_hidden_opt_in)
    (void)sizeof(fields_not_visible_opt_in<U>);
  else if constexpr (R == aggregate_not_visible)
    (void)sizeof(aggregate_fields_not_visible<U>);
  else
    (void)sizeof(type_is_not_serializable<U>);
}

// Instantiates the diagnostic that explains why T has no layout.
template <class T, options Opts = options{}>
constexpr void explain_unsupported() {
  report_unsupported<why_unsupported<T, Opts>(), std::remove_cv_t<T>>();
}

// A codec may list the types it holds (a container's element, an optional's
// value, a variant's alternatives):
//   using elements = type_list<T>;
// Serializable<T> then requires each of them, so a std::vector<int*> is
// refused where it is used with one message, not deep inside the codec.
template <class T>
concept codec_lists_elements = has_codec<T> && is_type_list<typename codec<T>::elements>;

// How many codecs deep Serializable looks for element types: a recursive type
// (a node holding a vector of nodes) ends there; its codec checks the rest.
inline constexpr std::size_t element_check_depth = 4;

template <options Opts, class T, std::size_t Depth = element_check_depth>
consteval bool is_serializable();

template <options Opts, std::size_t Depth, class... Fs>
consteval bool all_serializable(type_list<Fs...>) {
  return (is_serializable<Opts, Fs, Depth>() && ...);
}

template <options Opts, class T, std::size_t Depth>
consteval bool is_serializable() {
  using U = std::remove_cv_t<T>;
  constexpr category c = category_of<Opts, T>();
  if constexpr (c == category::refused || c == category::not_portable || c == category::unsupported)
    return false;
  else if constexpr (c == category::array)
    return is_serializable<Opts, std::remove_extent_t<U>, Depth>();
  else if constexpr (c == category::reflectable || c == category::aggregate)
    return all_serializable<Opts, Depth>(member_types_t<U>{});
  else if constexpr (c == category::evolvable) {
    if constexpr (has_visible_fields<U>)
      return versions_well_formed<U>(member_types_t<U>::size) &&
             all_serializable<Opts, Depth>(member_types_t<U>{});
    else
      return false;
  } else if constexpr (c == category::bulk)
    return !contains_refused<T>();
  else if constexpr (c == category::codec && codec_lists_elements<U> && Depth != 0)
    return all_serializable<Opts, Depth - 1>(typename codec<U>::elements{});
  else
    return true; // a codec checks its own element types when instantiated
}

// ---- the first type without a layout, for the one diagnostic
//
// first_unsupported_t<Opts, T>: T itself, or the first field or element inside
// it (depth first, in wire order) that makes Serializable<T> false; the walk
// is is_serializable's, and is instantiated only when that is false.
template <options Opts, class T, std::size_t Depth = element_check_depth>
consteval auto first_unsupported();

template <options Opts, std::size_t Depth>
consteval auto first_unsupported_of(type_list<>) {
  return std::type_identity<void>{};
}
template <options Opts, std::size_t Depth, class F, class... Fs>
consteval auto first_unsupported_of(type_list<F, Fs...>) {
  if constexpr (!is_serializable<Opts, F, Depth>())
    return first_unsupported<Opts, F, Depth>();
  else
    return first_unsupported_of<Opts, Depth>(type_list<Fs...>{});
}

consteval auto first_refused_of(type_list<>);
template <class F, class... Fs>
consteval auto first_refused_of(type_list<F, Fs...>);

// The raw pointer inside a type that would otherwise be one block.
template <class T>
consteval auto first_refused() {
  using U = std::remove_cv_t<T>;
  if constexpr (refused_type<U>)
    return std::type_identity<U>{};
  else if constexpr (std::is_array_v<U>)
    return first_refused<std::remove_extent_t<U>>();
  else if constexpr (has_visible_fields<U>)
    return []<class... Fs>(type_list<Fs...>) {
      return first_refused_of(type_list<Fs...>{});
    }(member_types_t<U>{});
  else if constexpr (tuple_like<U>)
    return []<std::size_t... I>(std::index_sequence<I...>) {
      return first_refused_of(type_list<std::tuple_element_t<I, U>...>{});
    }(std::make_index_sequence<std::tuple_size_v<U>>{});
  else
    return std::type_identity<U>{};
}
consteval auto first_refused_of(type_list<>) { return std::type_identity<void>{}; }
template <class F, class... Fs>
consteval auto first_refused_of(type_list<F, Fs...>) {
  if constexpr (contains_refused<F>())
    return first_refused<F>();
  else
    return first_refused_of(type_list<Fs...>{});
}

template <class T>
consteval bool evolution_well_formed() {
  if constexpr (has_visible_fields<T>)
    return versions_well_formed<T>(member_types_t<T>::size);
  else
    return false;
}

template <options Opts, class T, std::size_t Depth>
consteval auto first_unsupported() {
  using U = std::remove_cv_t<T>;
  constexpr category c = category_of<Opts, T>();
  if constexpr (c == category::array)
    return first_unsupported<Opts, std::remove_extent_t<U>, Depth>();
  else if constexpr (c == category::evolvable) {
    if constexpr (!evolution_well_formed<U>())
      return std::type_identity<U>{}; // its versions<...> or its fields: check_evolvable says
    else
      return first_unsupported_of<Opts, Depth>(member_types_t<U>{});
  } else if constexpr ((c == category::reflectable || c == category::aggregate) &&
                       has_visible_fields<U>)
    return first_unsupported_of<Opts, Depth>(member_types_t<U>{});
  else if constexpr (c == category::bulk)
    return first_refused<U>();
  else if constexpr (c == category::codec && codec_lists_elements<U> && Depth != 0)
    return first_unsupported_of<Opts, Depth - 1>(typename codec<U>::elements{});
  else
    return std::type_identity<U>{};
}
template <options Opts, class T>
using first_unsupported_t = typename decltype(first_unsupported<Opts, T>())::type;

// The entry points (serialize, deserialize, ...) test has_layout<Opts, T>
// and, when it is false, call diagnose_layout<Opts, T>() instead of compiling
// anything else for T: it instantiates the one diagnostic for the first type
// without a layout (T, or a field or element of it), which is then the only
// error.
template <options Opts, class T>
inline constexpr bool has_layout = is_serializable<Opts, T>();

template <options Opts, class T>
constexpr void diagnose_layout() {
  using U = first_unsupported_t<Opts, T>;
  report_unsupported<why_unsupported<U, Opts>(), U>();
}

} // namespace detail

// T has a wire layout in the given format (default: native).
template <class T, options Opts = native>
concept Serializable = detail::is_serializable<Opts, std::remove_cvref_t<T>>();

namespace detail {

// ---- where forced inlining must stop
//
// The encoders are forced inline down the whole type (detail/config.hpp), so
// a message compiles to one straight function. A recursive type (a tree node
// holding a vector of nodes) would make that infinite, so an element reached
// through serialize_field / deserialize_field is an ordinary call when its
// type nests deeper than inline_nesting_limit levels, which every recursive
// type does. Levels are struct fields, array elements and template arguments.
inline constexpr std::size_t inline_nesting_limit = 12;

template <class T>
struct type_args {
  using type = type_list<>;
};
template <template <class...> class Tm, class... As>
struct type_args<Tm<As...>> {
  using type = type_list<As...>;
};

template <class T, std::size_t Levels>
consteval bool nests_deeper();

template <std::size_t Levels, class... Ts>
consteval bool any_nests_deeper(type_list<Ts...>) {
  return (nests_deeper<Ts, Levels>() || ...);
}

template <class T, std::size_t Levels>
consteval bool nests_deeper() {
  using U = std::remove_cv_t<T>;
  if constexpr (Levels == 0)
    return true;
  else if constexpr (std::is_empty_v<U> || std::is_scalar_v<U>)
    return false; // comparators, allocators, hashers; leaves
  else if constexpr (std::is_array_v<U>)
    return nests_deeper<std::remove_extent_t<U>, Levels - 1>();
  else if constexpr (is_std_array_v<U>)
    return nests_deeper<typename U::value_type, Levels - 1>();
  else if constexpr (has_visible_fields<U>)
    return any_nests_deeper<Levels - 1>(member_types_t<U>{});
  else
    return any_nests_deeper<Levels - 1>(typename type_args<U>::type{});
}

template <class T>
inline constexpr bool outline_element = nests_deeper<T, inline_nesting_limit>();

// A value that is one block of bytes (a trivially copyable struct, a scalar):
// its encoding has a fixed length, so e.g. a framed message of it has a
// constant header (message.hpp).
template <options Opts, class T>
inline constexpr bool inline_top_level =
    category_of<Opts, T>() == category::bulk || category_of<Opts, T>() == category::scalar;

} // namespace detail

} // namespace bin_serializer
