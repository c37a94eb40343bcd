// Direct access to a contiguous reader's bytes, for whoever decodes in place
// (the std families, a format's variable-length leaves): what every reader
// offers, or proves, beyond the codec interface of cursor/reader.hpp. It is in
// format/ because a format's leaves use it, and format/ comes before cursor/.
#pragma once

#include <cstddef>

#include "../config.hpp"

namespace bin_serializer::detail {

// r.take(n) for n bytes a read_length on r has already proved present: the
// contiguous reader skips the second comparison, any other checks again.
template <class R>
BIN_SERIALIZER_INLINE const std::byte* take_counted(R& r, std::size_t n) noexcept {
  if constexpr (requires { r.take_counted(n); })
    return r.take_counted(n);
  else
    return r.take(n);
}

// Whether at least n more bytes can be read from a contiguous reader r: one
// comparison, or none inside a run whose largest encoding was checked once
// (core/read_fields.hpp). Lets a format decode a variable-length leaf without
// a bounds check per byte.
template <class R>
BIN_SERIALIZER_INLINE bool has_room(const R& r, std::size_t n) noexcept {
  if constexpr (requires { requires R::room_proven; })
    return true;
  else
    return n <= r.remaining();
}

// Whether r is a short-form reader (cursor/run_reader.hpp): one over bytes
// in which every leaf of varying size must take its fewest bytes. A format
// then decodes such a leaf only in that form, else it returns false and
// records nothing (the caller decodes the same bytes again the ordinary way).
template <class R>
consteval bool short_form() {
  if constexpr (requires { requires R::short_form; })
    return true;
  else
    return false;
}

} // namespace bin_serializer::detail
