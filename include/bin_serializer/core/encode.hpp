// serialize(): value -> bytes, and serialize_field(), the per-field step.
#pragma once

#include <cstddef>
#include <memory>
#include <type_traits>

#include "../buffer/concepts.hpp"
#include "../config.hpp"
#include "write_fields.hpp"
#include "../cursor/presized_writer.hpp"
#include "../cursor/writer.hpp"
#include "../options.hpp"
#include "classify.hpp"
#include "diagnostics.hpp"
#include "shape.hpp"
#include "size.hpp"

namespace bin_serializer {

namespace detail {

// One value: what its description (core/shape.hpp) says to write.
template <class W, class T>
BIN_SERIALIZER_INLINE bool write_value(W& w, const T& value) {
  return shape<W::opts, T>::write(w, value);
}

// Growing a buffer once per message beats growing it per field. For a bounded
// type the bound is a constant; otherwise one cheap traversal (string and
// container lengths) gives the size (size.hpp's reservation_of). Bulk types are a single write
// anyway, and a fixed-capacity buffer cannot grow, so both skip this.
template <options Opts, class W, class B, class T>
BIN_SERIALIZER_INLINE bool reserve_upfront(W& w, const T& value) {
  if constexpr (category_of<Opts, T>() == category::bulk || fixed_capacity<B> ||
                !ContiguousWritableBuffer<B>)
    return true;
  else if constexpr (BoundedSize<T, Opts>)
    return w.reserve(max_serialized_size_v<T, Opts>);
  else
    return w.reserve(reservation_of<Opts>(value));
}

} // namespace detail

namespace detail {

// serialize() through the checked writer alone (no reservation up front).
template <options Opts, class B, class T>
BIN_SERIALIZER_NOINLINE bool serialize_checked(B& buffer, const T& value) {
  writer_for<Opts, B> w(buffer);
  if (write_value(w, value)) [[likely]] {
    w.commit();
    return true;
  }
  w.rollback();
  return false;
}

template <options Opts, class B, class T>
BIN_SERIALIZER_INLINE bool serialize_one(B& buffer, const T& value) {
  writer_for<Opts, B> w(buffer);
  if constexpr (category_of<Opts, T>() != category::bulk && ContiguousWritableBuffer<B> &&
                presizable<Opts, T>()) {
    // One capacity check for the whole message, then unchecked stores. (The
    // reservation folds to a constant for bounded types. Where leaves vary in
    // size it is an upper bound, plus the format's store_slack: a leaf may be
    // stored by a wider write than its encoding.)
    using F = format_of<Opts>;
    const std::size_t bytes = reservation_of<Opts>(value) + F::store_slack;
    if (w.reserve(bytes)) [[likely]] {
      presized_writer<Opts> pw(w.base(), w.cursor(), w.cursor() + bytes);
      if (write_value(pw, value)) [[likely]] {
        w.advance_to(pw.cursor());
        w.commit();
        return true;
      }
      w.fail_with(pw.failure());
    } else if constexpr (F::sizes_vary) {
      // No room for the bound (a fixed buffer near its end): the checked
      // writer, which needs room only for what it writes, so a message that
      // fits is never refused for the sake of speed. Out of line, to keep
      // the common path small.
      return serialize_checked<Opts>(buffer, value);
    }
  } else {
    if (reserve_upfront<Opts, decltype(w), B>(w, value) && write_value(w, value)) [[likely]] {
      w.commit();
      return true;
    }
  }
  w.rollback();
  return false;
}

} // namespace detail

// Appends value to buffer. On failure returns false and leaves the buffer's
// size exactly as before the call (for buffers with direct access: all of the
// library's); buffer.last_error() says why and where.
//
// Always inlined: the caller's buffer cursor then lives in registers for the
// whole message, which on messages of a few dozen bytes is most of the cost
// (an out-of-line call keeps it in memory and adds a prologue per message).
template <options Opts = native, WritableBuffer B, class T>
BIN_SERIALIZER_INLINE bool serialize(B& buffer, const T& value) {
  if constexpr (!detail::has_layout<Opts, T>)
    return detail::diagnose_layout<Opts, T>(), false; // the one diagnostic says why
  else
    return detail::serialize_one<Opts>(buffer, value);
}

// Appends many values with one cursor, for loops that write messages back to
// back (a batch of ticks into a FixedBuffer): the buffer's size is published
// once, by finish() or the destructor, instead of after every value.
//
//   bin_serializer::batch_writer out(buf);
//   for (const Tick& t : ticks)
//     if (!out.write(t)) break;   // this value is undone; earlier ones stay
//   out.finish();
//
// Each write() is all-or-nothing (for buffers with direct access); on failure
// buffer.last_error() says why. Do not touch the buffer until finish().
template <WritableBuffer B, options Opts = native>
class batch_writer {
public:
  explicit batch_writer(B& buffer) noexcept : w_(buffer) {}
  batch_writer(const batch_writer&) = delete;
  batch_writer& operator=(const batch_writer&) = delete;
  ~batch_writer() { finish(); }

  template <class T>
  BIN_SERIALIZER_INLINE bool write(const T& value) {
    const std::size_t mark = w_.mark();
    if (detail::write_value(w_, value)) [[likely]]
      return true;
    w_.rewind(mark);
    w_.report();
    return false;
  }

  // Publishes everything written so far; the batch can continue afterwards.
  void finish() noexcept { w_.commit(); }

private:
  detail::writer_for<Opts, B> w_;
};

namespace detail {
template <class W, class T>
BIN_SERIALIZER_NOINLINE bool write_value_outlined(W& w, const T& value) {
  return write_value(w, value);
}
} // namespace detail

// Writes one field. Inside a codec, `out` is the writer the codec received;
// called with a buffer it is serialize() with default options.
template <class Out, class T>
BIN_SERIALIZER_INLINE bool serialize_field(Out& out, const T& value) {
  if constexpr (detail::is_writer_v<Out> && detail::outline_element<T>)
    return detail::write_value_outlined(out, value); // a recursive type: see outline_element
  else if constexpr (detail::is_writer_v<Out>)
    return detail::write_value(out, value);
  else
    return serialize(out, value);
}

} // namespace bin_serializer

#include "evolution_write.hpp"
