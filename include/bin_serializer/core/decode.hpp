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
#include "diagnostics.hpp"
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

namespace detail {

// ---- what deserialize() refuses beyond a missing layout: one message each

template <class T>
struct view_needs_contiguous_input {
  static_assert(dependent_false<T>,
                "bin_serializer: cannot deserialize this type (named in this diagnostic) from "
                "a stream: it holds a view (std::basic_string_view, std::span, array_view or "
                "sequence_view) that points into the input bytes, and a stream hands out copies "
                "of a block it then reuses. Decode from a contiguous buffer (Buffer, "
                "FixedBuffer<N>, BufferView, MappedFile), or hold owning types: std::string "
                "instead of a string_view, std::vector instead of a span, array_view or "
                "sequence_view (same bytes).");
};

template <class T>
struct const_member_cannot_be_decoded {
  static_assert(dependent_false<T>,
                "bin_serializer: cannot deserialize into a const object or const member of "
                "this type (named in this diagnostic): decoding writes every field it lists. "
                "Make the member non-const, or leave it out of reflect() (it is then neither "
                "sent nor read).");
};

// reflect() on a non-const T hands out some const field.
struct any_const_probe {
  template <class... Fs>
  constexpr auto operator()(Fs&&...) const noexcept {
    return std::bool_constant<(std::is_const_v<std::remove_reference_t<Fs>> || ...)>{};
  }
};

// Whether T or a field of it (through visible fields and C arrays) is const.
template <class T>
consteval bool holds_const_field() {
  if constexpr (std::is_const_v<T>)
    return true;
  else if constexpr (std::is_array_v<T>)
    return holds_const_field<std::remove_extent_t<T>>();
  else if constexpr (Reflectable<T>) {
    if constexpr (reflect_gives_only_const<T>)
      return false; // reflect() with only a const overload has its own message
    else if constexpr (decltype(std::declval<T&>().reflect(
                           std::declval<any_const_probe&>()))::value)
      return true;
    else
      return []<class... Fs>(type_list<Fs...>) {
        return (holds_const_field<Fs>() || ...);
      }(member_types_t<T>{});
  } else if constexpr (has_visible_fields<T>)
    return []<class... Fs>(type_list<Fs...>) {
      return (holds_const_field<Fs>() || ...);
    }(member_types_t<T>{});
  else
    return false;
}

// What deserialize<Opts>(B&, T&) may compile: T has a layout, views only
// from contiguous input, no const fields. Otherwise diagnose_decode gives the
// one message.
template <options Opts, class B, class T>
consteval bool decodable() {
  if constexpr (!has_layout<Opts, T>)
    return false;
  else if constexpr (!ContiguousReadableBuffer<B> && borrows_input_v<T, Opts>)
    return false;
  else
    return !holds_const_field<T>();
}

template <options Opts, class B, class T>
constexpr void diagnose_decode() {
  if constexpr (!has_layout<Opts, T>)
    diagnose_layout<Opts, T>();
  else if constexpr (!ContiguousReadableBuffer<B> && borrows_input_v<T, Opts>)
    (void)sizeof(view_needs_contiguous_input<T>);
  else
    (void)sizeof(const_member_cannot_be_decoded<T>);
}

} // namespace detail

// Reads value from buffer's read position. On failure returns false, leaves
// the read position where it was (buffers with direct access, or with
// read_position()/seek()), and buffer.last_error() says why and at which byte.
// The target may then hold some fields already decoded, but is always a valid,
// destructible object.
namespace detail {

// A value that is one copy of its object bytes (bulk, nothing to validate,
// no pointer; or a codec whose facts say so, as std::array of scalars: the
// facts promise any sizeof(T) bytes decode), from a buffer whose read()
// fails exactly as the reader would: that read(). What the reader's path
// refuses at compile time (a const member) it still refuses:
// deserialize_one instantiates that path anyway.
template <options Opts, class B, class T>
consteval bool read_object_directly() {
  if constexpr (!requires { requires B::reads_objects_directly; })
    return false;
  else if constexpr (constexpr category c = category_of<Opts, std::remove_cv_t<T>>();
                     c != category::bulk && c != category::codec)
    return false;
  else // within max_total_bytes, where the reader would say truncated too
    return shape<Opts, T>::object_bytes() && sizeof(T) <= Opts.max_total_bytes;
}

template <options Opts, class B, class T>
BIN_SERIALIZER_INLINE bool deserialize_one(B& buffer, T& value) {
  // No else: the reader's path stays instantiated for such a value too, so
  // its compile-time refusals hold here as well, and g++ keeps inlining the
  // other decodes as before (with an else, compact Person and Tick decoded
  // in 4 and 2 more instructions; scripts/instructions.sh).
  if constexpr (read_object_directly<Opts, B, T>())
    return buffer.read(std::addressof(value), sizeof(T));
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
  if constexpr (!detail::decodable<Opts, B, T>())
    return detail::diagnose_decode<Opts, B, T>(), false; // the one message (has_layout)
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
