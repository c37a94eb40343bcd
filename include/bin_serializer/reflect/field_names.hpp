// The names of a type's fields and of the type itself, for descriptions
// (frame/schema_json.hpp). Never asked by encode, decode, size or the
// fingerprint: names are not on the wire.
//
//   field_names_v<T>   std::array<std::string_view, N>, one name per visible
//                      field in wire order
//   type_name_v<T>     the compiler's spelling of T ("workloads::Person")
//
// Where a field name comes from, first that applies:
//   1. the type declares them, next to reflect() (or to override an
//      aggregate's), one name per field in wire order:
//        static constexpr std::array bin_serializer_field_names{"pos", "name"};
//      (a C array of string literals works too), or without touching the type
//        template <> struct bin_serializer::field_names<Player> {
//          static constexpr std::array value{"pos", "name"};
//        };
//   2. a plain aggregate: its members' names, found by the compiler (below);
//   3. otherwise "field0", "field1", ...
//
// How an aggregate's names are found: a structured binding of an extern
// object of T (declared, never defined, never odr-used: only addresses of its
// members are formed, in constant evaluation) gives the address of each
// member; a function templated on that address spells it, member name last,
// in __PRETTY_FUNCTION__; the name is the identifier that ends there. Where
// that identifier starts and ends is measured once on a probe struct, so no
// compiler's spelling is written down here. GCC 12+ and Clang 19+.
#pragma once

#include <array>
#include <cstddef>
#include <iterator>
#include <string_view>
#include <tuple>
#include <type_traits>

#include "aggregate.hpp"
#include "members.hpp"
#include "reflect.hpp"
#include "type_list.hpp"

namespace bin_serializer {

// Non-intrusive field names: specialise with a `static constexpr` array
// `value` of one name per field, in wire order.
template <class T>
struct field_names {};

namespace detail::names {

// ---- type names ------------------------------------------------------------

template <class T>
consteval std::string_view raw_type_name() {
  return __PRETTY_FUNCTION__;
}

// Where a type's spelling starts and how many characters follow it, measured
// on `double` (a name nothing else in the function's name contains).
consteval std::size_t type_name_prefix() { return raw_type_name<double>().rfind("double"); }
consteval std::size_t type_name_suffix() {
  return raw_type_name<double>().size() - type_name_prefix() - std::string_view{"double"}.size();
}
static_assert(raw_type_name<double>().find("double") == raw_type_name<double>().rfind("double"),
              "bin_serializer: this compiler's __PRETTY_FUNCTION__ does not spell type names "
              "as expected (GCC 12+ and Clang 19+ do)");

template <class T>
consteval std::string_view type_name() {
  const std::string_view raw = raw_type_name<T>();
  return raw.substr(type_name_prefix(), raw.size() - type_name_prefix() - type_name_suffix());
}

// ---- aggregate member names --------------------------------------------------

template <class T>
struct holder {
  T value;
};

#if defined(__clang__)
#pragma clang diagnostic push
#pragma clang diagnostic ignored "-Wundefined-var-template"
#pragma clang diagnostic ignored "-Wundefined-internal"
#endif
// Declared only: its members' addresses are formed in constant evaluation,
// never read, so no definition is needed. Wrapped, so that Clang also accepts
// a T without linkage (a local or unnamed-namespace struct).
template <class T>
extern const holder<T> external_object;

// The address of a member, as a structural value (a template argument).
template <class M>
struct member_address {
  const M* p;
};

struct collect_addresses {
  template <class... Ms>
  constexpr auto operator()(const Ms&... members) const {
    return std::tuple<member_address<Ms>...>{member_address<Ms>{&members}...};
  }
};

template <class T>
consteval auto member_addresses() {
  return bind_fields<aggregate_field_count<T>>(external_object<T>.value, collect_addresses{});
}
#if defined(__clang__)
#pragma clang diagnostic pop
#endif

template <auto Address>
consteval std::string_view raw_member_name() {
  return __PRETTY_FUNCTION__;
}

struct member_name_probe {
  int bin_serializer_probe_member;
};
inline constexpr std::string_view probe_member_spelling = "bin_serializer_probe_member";

consteval std::size_t member_name_suffix() {
  constexpr std::string_view raw =
      raw_member_name<std::get<0>(member_addresses<member_name_probe>())>();
  return raw.size() - raw.rfind(probe_member_spelling) - probe_member_spelling.size();
}

consteval bool identifier_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
         static_cast<unsigned char>(c) >= 0x80; // a UTF-8 identifier
}

template <class T, std::size_t I>
consteval std::string_view aggregate_member_name() {
  constexpr std::string_view raw = raw_member_name<std::get<I>(member_addresses<T>())>();
  const std::size_t end = raw.size() - member_name_suffix();
  std::size_t begin = end;
  while (begin > 0 && identifier_char(raw[begin - 1])) --begin;
  return raw.substr(begin, end - begin);
}

// ---- positional names ----------------------------------------------------------

inline constexpr std::size_t max_positional = 1000;

template <std::size_t I>
inline constexpr auto positional_storage = [] {
  static_assert(I < max_positional);
  std::array<char, 9> s{'f', 'i', 'e', 'l', 'd'};
  std::size_t n = 5;
  if (I >= 100) s[n++] = static_cast<char>('0' + I / 100);
  if (I >= 10) s[n++] = static_cast<char>('0' + I / 10 % 10);
  s[n++] = static_cast<char>('0' + I % 10);
  s[8] = static_cast<char>(n); // the length, past the name
  return s;
}();

template <std::size_t I>
consteval std::string_view positional_name() {
  return {positional_storage<I>.data(), static_cast<std::size_t>(positional_storage<I>[8])};
}

// ---- which source ---------------------------------------------------------------

template <class T>
concept declares_names_member = requires { T::bin_serializer_field_names; };
template <class T>
concept declares_names_trait = requires { field_names<T>::value; };

template <class T>
consteval std::size_t visible_field_count() {
  return []<class... Fs>(type_list<Fs...>) { return sizeof...(Fs); }(member_types_t<T>{});
}

template <class T>
consteval const auto& declared_names() {
  if constexpr (declares_names_trait<T>)
    return field_names<T>::value;
  else
    return T::bin_serializer_field_names;
}

template <class T, std::size_t... I>
consteval auto names_of(std::index_sequence<I...>) {
  if constexpr (declares_names_trait<T> || declares_names_member<T>) {
    constexpr std::size_t declared = std::size(declared_names<T>());
    static_assert(declared == sizeof...(I),
                  "bin_serializer: the declared field names (bin_serializer_field_names or "
                  "field_names<T>::value) must give one name per field, in wire order");
    if constexpr (declared == sizeof...(I))
      return std::array<std::string_view, sizeof...(I)>{
          std::string_view{declared_names<T>()[I]}...};
    else
      return std::array<std::string_view, sizeof...(I)>{positional_name<I>()...}; // one error

  } else if constexpr (!Reflectable<T> && bindable_aggregate<T>) {
    return std::array<std::string_view, sizeof...(I)>{aggregate_member_name<T, I>()...};
  } else {
    return std::array<std::string_view, sizeof...(I)>{positional_name<I>()...};
  }
}

} // namespace detail::names

// One name per visible field of T, in wire order (see the top of this file).
template <class T>
inline constexpr auto field_names_v =
    detail::names::names_of<T>(std::make_index_sequence<detail::names::visible_field_count<T>()>{});

// The compiler's spelling of T: informative (it may differ between compilers
// for unnamed and local types and for template arguments).
template <class T>
inline constexpr std::string_view type_name_v = detail::names::type_name<T>();

} // namespace bin_serializer
