// The Reflectable concept: a type that lists its fields to a visitor.
//
//   struct Player {
//     Vec pos;
//     std::string name;
//     template <class V> auto reflect(V&& v) { return v(pos, name); }
//     template <class V> auto reflect(V&& v) const { return v(pos, name); }
//   };
//
// Both overloads are required: the const one is used to serialize, the
// non-const one to deserialize into the fields. reflect() must return what the
// visitor returns; that is how the library learns the field types at compile
// time (for pointer checks and size bounds) without an object, and how a
// failure in field N stops the fold before field N+1.
//
// reflect() is also how a member is left off the wire: do not list it.
#pragma once

#include <type_traits>
#include <utility>

#include "type_list.hpp"

namespace bin_serializer {

namespace detail {
// A visitor that does nothing but report the types it was called with.
struct reflect_probe {
  template <class... Fields>
  constexpr type_list<std::remove_cvref_t<Fields>...> operator()(Fields&&...) const noexcept {
    return {};
  }
};

template <class T>
concept has_reflect_member = requires(T& t) { t.reflect(std::declval<reflect_probe&>()); };
} // namespace detail

template <class T>
concept Reflectable = requires(T& t, const T& ct, detail::reflect_probe& probe) {
  { t.reflect(probe) } -> detail::is_type_list;
  { ct.reflect(probe) } -> detail::is_type_list;
};

// type_list<F1, F2, ...>: the field types of a Reflectable T, in wire order.
template <Reflectable T>
using reflected_fields_t =
    decltype(std::declval<const T&>().reflect(std::declval<detail::reflect_probe&>()));

} // namespace bin_serializer
