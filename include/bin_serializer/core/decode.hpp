// deserialize(): bytes -> value, and deserialize_field(), the per-field step.
#pragma once

#include <cstddef>
#include <cstring>
#include <memory>
#include <type_traits>

#include "../buffer/concepts.hpp"
#include "../config.hpp"
#include "read_fields.hpp"
#include "../cursor/reader.hpp"
#include "../options.hpp"
#include "classify.hpp"
#include "size.hpp"
#include "validate.hpp"
#include "../reflect/enum_range.hpp"
#include "../std/string.hpp"

namespace bin_serializer {

namespace detail {

// Containers whose elements may themselves be containers count against
// opts.max_depth; a bounded type cannot recurse, and a string is a leaf.
template <options Opts, class T>
inline constexpr bool may_nest = !BoundedSize<T, Opts> && !is_string_leaf<T>;

template <class R, class T>
bool read_evolvable(R& r, T& value); // detail/evolution_read.hpp

// The dispatch: one branch per category of serializable.hpp, mirroring write_value.
template <class R, class T>
BIN_SERIALIZER_INLINE bool read_value(R& r, T& value) {
  static_assert(!std::is_const_v<T>,
                "bin_serializer: cannot deserialize into a const object or const member; "
                "make it non-const or leave it out of reflect()");
  constexpr category c = category_of<R::opts, T>();
  if constexpr (c == category::codec) {
    if constexpr (may_nest<R::opts, T> && R::opts.max_depth != unlimited) {
      if (!r.enter()) return false;
      const bool ok = codec<T>::read(r, value);
      r.leave();
      return ok;
    } else {
      return codec<T>::read(r, value);
    }
  } else if constexpr (c == category::bulk) {
    if constexpr (contains_refused<T>()) (void)sizeof(raw_pointer_is_not_serializable<T>);
    // A const (or reference) member deletes assignment; copying bytes over it
    // would modify a const object.
    using element = std::remove_all_extents_t<T>;
    static_assert(std::is_assignable_v<element&, const element&> ||
                      std::is_assignable_v<element&, element&&>,
                  "bin_serializer: cannot deserialize into a trivially copyable type with a "
                  "const member (it cannot be assigned); make the member non-const, or "
                  "deserialize into a mutable twin of the struct and construct from it");
    if constexpr (bulk_needs_check<R::opts, T>()) {
      // Checked on a scratch copy so a rejected value never reaches `value`.
      const std::size_t at = r.position();
      alignas(T) unsigned char raw[sizeof(T)]{};
      if (!r.read_bytes(raw, sizeof raw)) return false;
      const std::size_t bad = find_invalid<R::opts, T>(raw);
      if (bad != no_invalid_byte) [[unlikely]]
        return r.fail(errc::invalid_value, at + bad);
      std::memcpy(std::addressof(value), raw, sizeof raw);
      return true;
    } else {
      return r.read_bytes(std::addressof(value), sizeof(T));
    }
  } else if constexpr (c == category::scalar) {
    const std::size_t at = r.position();
    T v{};
    if (!format_of<R::opts>::load_scalar(r, v)) return false;
    if constexpr (bulk_needs_check<R::opts, T>()) {
      // A ranged enum: check the decoded value before it reaches `value`.
      unsigned char raw[sizeof(T)];
      std::memcpy(raw, &v, sizeof raw);
      if (find_invalid<R::opts, T>(raw) != no_invalid_byte) [[unlikely]]
        return r.fail(errc::invalid_value, at);
    }
    value = v;
    return true;
  } else if constexpr (c == category::array) {
    for (auto& element : value)
      if (!read_value(r, element)) return false;
    return true;
  } else if constexpr (c == category::reflectable && reflect_gives_only_const<T>) {
    (void)sizeof(reflect_is_const_only<T>); // one message instead of one per field
    return false;
  } else if constexpr (c == category::reflectable || c == category::aggregate) {
    using layout = std::conditional_t<c == category::aggregate,
                                      aggregate_layout<std::remove_cv_t<T>>, unknown_layout>;
    auto visit = [&r](auto&... fields) BIN_SERIALIZER_LAMBDA_INLINE -> bool {
      return read_fields<layout>(r, fields...);
    };
    return visit_members(value, visit);
  } else if constexpr (c == category::evolvable) {
    return read_evolvable(r, value);
  } else {
    explain_unsupported<T, R::opts>();
    return false;
  }
}

} // namespace detail

// Reads value from buffer's read position. On failure returns false, leaves
// the read position where it was (buffers with direct access, or with
// read_position()/seek()), and buffer.last_error() says why and at which byte.
// The target may then hold some fields already decoded, but is always a valid,
// destructible object.
namespace detail {

template <options Opts, class B, class T>
BIN_SERIALIZER_INLINE bool deserialize_one(B& buffer, T& value) {
  reader_for<Opts, B> r(buffer);
  if (read_value(r, value)) [[likely]] {
    r.commit();
    return true;
  }
  r.rollback();
  return false;
}

} // namespace detail

// Always inlined, like serialize(): the reader's cursor stays in registers.
template <options Opts = native, ReadableBuffer B, class T>
BIN_SERIALIZER_INLINE bool deserialize(B& buffer, T& value) {
  return detail::deserialize_one<Opts>(buffer, value);
}

namespace detail {
template <class R, class T>
BIN_SERIALIZER_NOINLINE bool read_value_outlined(R& r, T& value) {
  return read_value(r, value);
}
} // namespace detail

// Reads one field. Inside a codec, `in` is the reader the codec received;
// called with a buffer it is deserialize() with default options.
template <class In, class T>
BIN_SERIALIZER_INLINE bool deserialize_field(In& in, T& value) {
  if constexpr (detail::is_reader_v<In> && detail::outline_element<T>)
    return detail::read_value_outlined(in, value); // a recursive type: see outline_element
  else if constexpr (detail::is_reader_v<In>)
    return detail::read_value(in, value);
  else
    return deserialize(in, value);
}

} // namespace bin_serializer

#include "evolution_read.hpp"
