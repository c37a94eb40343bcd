// One-call conversions between a value and a std::vector<std::byte>, for code
// that does not keep a buffer around:
//
//   std::optional<std::vector<std::byte>> bytes = bin_serializer::to_bytes(order);
//   std::optional<Order> back = bin_serializer::from_bytes<Order>(*bytes);
//
// Like the rest of the library they never throw (allocation aside) and report
// failure through their result: an empty optional, or false from the
// out-parameter forms, which also give the reason:
//
//   std::vector<std::byte> out;
//   bin_serializer::error why;
//   if (!bin_serializer::to_bytes(order, out, &why)) ...
//
// from_bytes() decodes exactly one value that must span every byte of the
// input: trailing bytes are an error (invalid_value at the first extra byte),
// since a caller who hands over "the bytes of a T" means all of them. Use
// BufferView and deserialize() to read several values from one range.
#pragma once

#include <cstddef>
#include <optional>
#include <ranges>
#include <span>
#include <type_traits>
#include <vector>

#include "../buffer/buffer_view.hpp"
#include "decode.hpp"
#include "../error.hpp"
#include "../options.hpp"
#include "encode.hpp"
#include "size.hpp"
#include "../buffer/span_buffer.hpp"

namespace bin_serializer {

// Replaces out's contents with value's encoding. On failure out is empty and,
// if why is given, *why says what failed.
template <options Opts = native, class T>
bool to_bytes(const T& value, std::vector<std::byte>& out, error* why = nullptr) {
  const std::size_t n = serialized_size<Opts>(value);
  out.resize(n);
  SpanBuffer buf(out);
  if (serialize<Opts>(buf, value) && buf.size() == n) [[likely]]
    return true;
  if (why != nullptr) *why = buf.last_error() ? buf.last_error() : error{errc::invalid_value, n};
  out.clear();
  return false;
}

// The encoding of value, or an empty optional if it cannot be encoded.
template <options Opts = native, class T>
[[nodiscard]] std::optional<std::vector<std::byte>> to_bytes(const T& value) {
  std::optional<std::vector<std::byte>> out(std::in_place);
  if (!to_bytes<Opts>(value, *out)) out.reset();
  return out;
}

// Decodes value from all of bytes (see above). On failure value may hold some
// decoded fields and *why (if given) has the reason and offset.
template <options Opts = native, class T>
bool from_bytes(BufferView bytes, T& value, error* why = nullptr) {
  if (!deserialize<Opts>(bytes, value)) {
    if (why != nullptr) *why = bytes.last_error();
    return false;
  }
  if (bytes.remaining() != 0) {
    if (why != nullptr) *why = {errc::invalid_value, bytes.read_position()};
    return false;
  }
  return true;
}

// Same, from any contiguous range of bytes or chars (a temporary is fine: it
// lives until the call returns).
template <options Opts = native, contiguous_bytes R, class T>
  requires(!std::is_same_v<std::remove_cvref_t<R>, BufferView>)
bool from_bytes(R&& bytes, T& value, error* why = nullptr) {
  return from_bytes<Opts>(BufferView(static_cast<const void*>(std::ranges::data(bytes)),
                                     static_cast<std::size_t>(std::ranges::size(bytes))),
                          value, why);
}

// The value decoded from all of bytes (a BufferView or any contiguous range of
// bytes or chars), or an empty optional.
template <class T, options Opts = native, class R>
  requires std::is_default_constructible_v<T> &&
           (contiguous_bytes<R> || std::is_same_v<std::remove_cvref_t<R>, BufferView>)
[[nodiscard]] std::optional<T> from_bytes(R&& bytes) {
  std::optional<T> out(std::in_place);
  if (!from_bytes<Opts>(static_cast<R&&>(bytes), *out)) out.reset();
  return out;
}

} // namespace bin_serializer
