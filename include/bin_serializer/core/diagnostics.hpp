// Why a type has no layout, said once: the entry points (serialize,
// deserialize, ...) test has_layout<Opts, T> (core/classify.hpp) and, when it
// is false, call diagnose_layout<Opts, T>() instead of compiling anything
// else for T. It finds the first type without a layout (T, or a field or
// element inside it, depth first in wire order: first_unsupported_t) and
// instantiates the one static_assert below that explains it, naming that
// type and showing the code to write.
#pragma once

#include <cstddef>
#include <type_traits>
#include <utility>

#include "../options.hpp"
#include "../reflect/aggregate.hpp"
#include "../reflect/evolution.hpp"
#include "../reflect/members.hpp"
#include "../reflect/std_families.hpp"
#include "../reflect/type_list.hpp"
#include "classify.hpp"
#include "extension.hpp"

namespace bin_serializer::detail {

template <class T>
concept smart_pointer = requires { typename T::element_type; } &&
                        (requires(const T& p) { p.get(); } || requires(const T& p) { p.lock(); });

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

// ---- the first type without a layout
//
// first_unsupported<Opts, T, Levels>, for a T that reach<Opts, T, Levels>
// finds without a layout: a block that hides a pointer gives the pointer; a
// type without a layout of its own gives itself; otherwise the first of its
// parts (fields, the element, a codec's elements) that has none, one level
// down, as reach counts them.
template <options Opts, class T>
consteval auto first_pointer();

template <options Opts, class T>
consteval auto first_pointer_of(std::type_identity<T> none, type_list<>) {
  return none;
}
template <options Opts, class T, class P, class... Ps>
consteval auto first_pointer_of(std::type_identity<T> none, type_list<P, Ps...>) {
  if constexpr (holds_pointer<Opts, P>)
    return first_pointer<Opts, std::remove_cv_t<P>>();
  else
    return first_pointer_of<Opts>(none, type_list<Ps...>{});
}

template <options Opts, class T>
consteval auto first_pointer() {
  if constexpr (refused_type<T>)
    return std::type_identity<T>{};
  else
    return first_pointer_of<Opts>(std::type_identity<T>{},
                                  typename decltype(facts_of<Opts, T>)::parts{});
}

template <options Opts, class T, std::size_t Levels>
consteval auto first_unsupported();

template <options Opts, std::size_t Levels, class T>
consteval auto first_unsupported_of(std::type_identity<T> none, type_list<>) {
  return none;
}
template <options Opts, std::size_t Levels, class T, class P, class... Ps>
consteval auto first_unsupported_of(std::type_identity<T> none, type_list<P, Ps...>) {
  using U = std::remove_cv_t<P>;
  if constexpr (!reach_of<Opts, U, Levels>.serializable)
    return first_unsupported<Opts, U, Levels>();
  else
    return first_unsupported_of<Opts, Levels>(none, type_list<Ps...>{});
}

template <options Opts, class T, std::size_t Levels>
consteval auto first_unsupported() {
  constexpr auto f = facts_of<Opts, T>;
  if constexpr (f.kind == category::bulk)
    return first_pointer<Opts, T>();
  else if constexpr (!f.own_ok || Levels == 0)
    return std::type_identity<T>{}; // an evolvable one's versions<...>: check_evolvable says
  else
    return first_unsupported_of<Opts, Levels - 1>(std::type_identity<T>{},
                                                  typename decltype(f)::parts{});
}
template <options Opts, class T>
using first_unsupported_t =
    typename decltype(first_unsupported<Opts, std::remove_cv_t<T>, inline_nesting_limit>())::type;

template <options Opts, class T>
constexpr void diagnose_layout() {
  using U = first_unsupported_t<Opts, T>;
  report_unsupported<why_unsupported<U, Opts>(), U>();
}

} // namespace bin_serializer::detail
