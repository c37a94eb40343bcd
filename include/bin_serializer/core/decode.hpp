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
#include "shape.hpp"
#include "size.hpp"
#include "validate.hpp"
#include "../reflect/enum_range.hpp"

namespace bin_serializer {

namespace detail {

// One value: what its description (core/shape.hpp) says to read.
template <class R, class T>
BIN_SERIALIZER_INLINE bool read_value(R& r, T& value) {
  static_assert(!std::is_const_v<T>,
                "bin_serializer: cannot deserialize into a const object or const member; "
                "make it non-const or leave it out of reflect()");
  return shape<R::opts, T>::read(r, value);
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
  if constexpr (!detail::has_layout<Opts, std::remove_const_t<T>>)
    return detail::diagnose_layout<Opts, std::remove_const_t<T>>(), false; // see has_layout
  else
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
