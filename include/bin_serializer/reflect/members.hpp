// The fields the library sees in a type: through reflect(), or as a plain
// aggregate (reflect/aggregate.hpp), in wire order.
//
//   has_visible_fields<T>   one of the two applies
//   member_types_t<T>       type_list of those fields' types
//   visit_members(v, f)     f(field0, field1, ...) on an object
#pragma once

#include <type_traits>

#include "../config.hpp"
#include "aggregate.hpp"
#include "reflect.hpp"
#include "type_list.hpp"

namespace bin_serializer::detail {

template <class T>
concept has_visible_fields = Reflectable<T> || (bindable_aggregate<T> && !has_reflect_member<T>);

template <class T>
consteval auto member_types() {
  if constexpr (Reflectable<T>)
    return reflected_fields_t<T>{};
  else
    return aggregate_fields_t<T>{};
}
template <class T>
using member_types_t = decltype(member_types<T>());

// reflect() when the type has one, otherwise the aggregate's fields in
// declaration order.
template <class T, class F>
BIN_SERIALIZER_INLINE constexpr decltype(auto) visit_members(T& value, F& f) {
  if constexpr (Reflectable<std::remove_cv_t<T>>)
    return value.reflect(f);
  else
    return visit_aggregate(value, f);
}

} // namespace bin_serializer::detail
