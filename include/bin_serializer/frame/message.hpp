// Framed messages: a 24-byte header (32 with a message type id), then exactly
// what serialize<Opts> writes.
//
//   serialize_message<portable>(out, person);
//   ...
//   Person p;
//   if (!deserialize_message<portable>(in, p))
//     in.last_error();   // errc::schema_mismatch if the writer's Person differs,
//                        // errc::end_of_stream if the input ended cleanly before it
//
// The header (docs/wire-format.md section 10, little-endian in every format):
//   u32 magic "BSMF" | u8 spec_version | u8 format | u16 flags |
//   u64 schema_hash (schema_hash_v<T, Opts>) | u64 payload_length
//   [ u32 type_id | u32 0 ]   only when flags bit 1 is set (message_id_v<T> != 0)
// so a reader refuses data written with another schema, format or message
// type instead of decoding garbage, and a stream reader can frame messages and
// skip the ones it does not understand:
//
//   message_header h;
//   while (read_message_header(in, h)) {
//     if (message_is<Person>(h)) deserialize_message_payload(in, h, person);  // the header's format
//     else skip_message_payload(in, h);
//   }
//
// Two types of the same shape (struct Bid { u64 ts; double px; } and an Ask
// alike) have one schema_hash; give each a message type id to tell them apart:
//
//   struct Ask { std::uint64_t ts; double px;
//                static constexpr std::uint32_t bin_serializer_message_id = 42; };
//   // or, without touching the type:
//   template <> struct bin_serializer::message_id<Ask>
//       : std::integral_constant<std::uint32_t, 42> {};
#pragma once

#include <array>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <type_traits>
#include <utility>

#include "../buffer/concepts.hpp"
#include "../core/decode.hpp"
#include "../format/endian.hpp"
#include "../core/evolution_io.hpp"
#include "../cursor/reader.hpp"
#include "../error.hpp"
#include "../options.hpp"
#include "schema_hash.hpp"
#include "../core/encode.hpp"
#include "../core/size.hpp"

namespace bin_serializer {

inline constexpr std::uint32_t message_magic = 0x464D5342; // bytes "BSMF"
inline constexpr std::uint8_t message_spec_version = 1;
// The header of a message whose type declares no message type id.
inline constexpr std::size_t message_header_size = 24;
// The header of a message whose type declares one: the 24 bytes, then
// u32 type_id and 4 zero bytes (so the payload stays 8-byte aligned).
inline constexpr std::size_t message_header_size_with_id = 32;
// flags bit 0: the (native-format) writer was a big-endian host.
inline constexpr std::uint16_t message_flag_big_endian = 1;
// flags bit 1: a u32 type_id (non-zero) and 4 zero bytes follow the 24 bytes.
inline constexpr std::uint16_t message_flag_type_id = 2;

// A type's message type id: 0 (none) unless the type declares
//   static constexpr std::uint32_t bin_serializer_message_id = <non-zero>;
// or the trait is specialised:
//   template <> struct bin_serializer::message_id<T> : std::integral_constant<std::uint32_t, 42> {};
// Ids are the application's to assign; the library only carries and compares them.
template <class T>
struct message_id;

namespace detail {
template <class T>
consteval std::uint32_t declared_message_id() {
  if constexpr (requires { T::bin_serializer_message_id; }) {
    using M = std::remove_cvref_t<decltype(T::bin_serializer_message_id)>;
    static_assert(std::is_integral_v<M> && !std::is_same_v<M, bool>,
                  "bin_serializer_message_id must be a static constexpr std::uint32_t");
    static_assert(std::in_range<std::uint32_t>(T::bin_serializer_message_id),
                  "bin_serializer_message_id must fit a std::uint32_t");
    return static_cast<std::uint32_t>(T::bin_serializer_message_id);
  } else {
    return 0;
  }
}
} // namespace detail

template <class T>
struct message_id : std::integral_constant<std::uint32_t, detail::declared_message_id<T>()> {};

template <class T>
inline constexpr std::uint32_t message_id_v = message_id<std::remove_cv_t<T>>::value;

// Header bytes of a T message: 24, or 32 when T declares a message type id.
template <class T>
inline constexpr std::size_t message_header_size_v =
    message_id_v<T> != 0 ? message_header_size_with_id : message_header_size;

// Largest framed message of a T (header + max_serialized_size_v), so that
//   FixedBuffer<max_message_size_v<Tick>> out;  serialize_message(out, tick);
// always fits. Only defined for BoundedSize types, like max_serialized_size_v.
template <class T, options Opts = native>
  requires BoundedSize<T, Opts>
inline constexpr std::size_t max_message_size_v =
    message_header_size_v<std::remove_cvref_t<T>> + max_serialized_size_v<T, Opts>;

struct message_header {
  std::uint8_t spec_version = message_spec_version;
  wire_format format = wire_format::native;
  std::uint16_t flags = 0;
  std::uint64_t schema_hash = 0;
  std::uint64_t payload_length = 0;
  // The writer type's message_id_v (0: none; then flags bit 1 is clear).
  std::uint32_t type_id = 0;
  // Bytes this header occupies on the wire (24 or 32).
  [[nodiscard]] constexpr std::size_t size() const noexcept {
    return (flags & message_flag_type_id) != 0 ? message_header_size_with_id : message_header_size;
  }
  friend constexpr bool operator==(const message_header&, const message_header&) = default;
};

// The header a serialize_message<Opts> of a T carries (payload_length aside).
template <class T, options Opts = native>
constexpr message_header message_header_for(std::uint64_t payload_length = 0) noexcept {
  message_header h;
  h.format = Opts.format;
  // Header fields are little-endian; a format in this host's layout says
  // when its payload is big-endian.
  const bool big = detail::format_of<Opts>::host_layout && !detail::little_endian_host;
  h.flags = static_cast<std::uint16_t>((big ? message_flag_big_endian : 0) |
                                       (message_id_v<T> != 0 ? message_flag_type_id : 0));
  h.schema_hash = schema_hash_v<T, Opts>;
  h.payload_length = payload_length;
  h.type_id = message_id_v<T>;
  return h;
}

// Whether deserialize_message<Opts> into a T accepts a message with this
// header: same format, same byte order (native), same message type id (both
// none, or equal), same fingerprint.
template <class T, options Opts>
constexpr bool message_is(const message_header& h) noexcept {
  const message_header mine = message_header_for<T, Opts>();
  return h.format == mine.format && h.flags == mine.flags && h.type_id == mine.type_id &&
         h.schema_hash == mine.schema_hash;
}

// Whether the message is a T in the format its header names (any registered
// format): the format is the writer's to say, so a loop that picks messages
// by type cannot skip every message of a format it forgot to name.
template <class T>
constexpr bool message_is(const message_header& h) noexcept {
  bool is = false;
  (void)detail::all_formats::with(static_cast<std::uint8_t>(h.format), [&h, &is](auto f) {
    is = message_is<T, options{.format = decltype(f)::id}>(h);
  });
  return is;
}

namespace detail {

inline constexpr std::size_t header_offset_format = 5;
inline constexpr std::size_t header_offset_flags = 6;
inline constexpr std::size_t header_offset_hash = 8;
inline constexpr std::size_t header_offset_length = 16;
inline constexpr std::size_t header_offset_type_id = 24;
inline constexpr std::size_t header_offset_reserved = 28;

template <class U>
constexpr void put_le(unsigned char* p, U v) noexcept {
  for (std::size_t i = 0; i < sizeof(U); ++i) p[i] = static_cast<unsigned char>(v >> (8 * i));
}
template <class U>
BIN_SERIALIZER_INLINE U get_le(const unsigned char* p) noexcept {
  U bits;
  std::memcpy(&bits, p, sizeof bits);
  return from_little<U>(bits);
}

// Writes h.size() bytes (24 or 32) into out.
constexpr void encode_header(unsigned char (&out)[message_header_size_with_id],
                             const message_header& h) noexcept {
  put_le(out, message_magic);
  out[4] = h.spec_version;
  out[header_offset_format] = static_cast<unsigned char>(h.format);
  put_le(out + header_offset_flags, h.flags);
  put_le(out + header_offset_hash, h.schema_hash);
  put_le(out + header_offset_length, h.payload_length);
  put_le(out + header_offset_type_id, h.type_id);
  put_le(out + header_offset_reserved, std::uint32_t{0});
}

// Reads and validates the header's own fields (not the schema): bad_header
// names the first wrong field. Everything here is inlined into the caller so
// the reader's cursor stays in registers: the header must cost next to nothing.
template <class R>
BIN_SERIALIZER_INLINE bool read_header(R& r, message_header& h) {
  const std::size_t at = r.position();
  unsigned char raw[message_header_size];
  if (!r.read_bytes(raw, sizeof raw)) return false;
  // One comparison for the fields that have a single valid value each.
  if (get_le<std::uint32_t>(raw) != message_magic) [[unlikely]]
    return r.fail(errc::bad_header, at);
  if (raw[4] != message_spec_version) [[unlikely]]
    return r.fail(errc::bad_header, at + 4);
  // The format byte names a known format; only one in the host's layout may
  // say its payload is big-endian.
  bool host_layout = false;
  if (!detail::all_formats::with(raw[header_offset_format], [&host_layout](auto f) {
        host_layout = decltype(f)::host_layout;
      })) [[unlikely]]
    return r.fail(errc::bad_header, at + header_offset_format);
  const auto flags = get_le<std::uint16_t>(raw + header_offset_flags);
  if ((flags & ~(message_flag_big_endian | message_flag_type_id)) != 0 ||
      (!host_layout && (flags & message_flag_big_endian) != 0)) [[unlikely]]
    return r.fail(errc::bad_header, at + header_offset_flags);
  std::uint32_t type_id = 0;
  if ((flags & message_flag_type_id) != 0) {
    unsigned char ext[message_header_size_with_id - message_header_size];
    if (!r.read_bytes(ext, sizeof ext)) return false;
    type_id = get_le<std::uint32_t>(ext);
    if (type_id == 0) [[unlikely]] // "no id" is spelled by a clear flag, never by 0
      return r.fail(errc::bad_header, at + header_offset_type_id);
    if (get_le<std::uint32_t>(ext + 4) != 0) [[unlikely]]
      return r.fail(errc::bad_header, at + header_offset_reserved);
  }
  h.spec_version = raw[4];
  h.format = static_cast<wire_format>(raw[header_offset_format]);
  h.flags = flags;
  h.schema_hash = get_le<std::uint64_t>(raw + header_offset_hash);
  h.payload_length = get_le<std::uint64_t>(raw + header_offset_length);
  h.type_id = type_id;
  return true;
}

// Fails unless payload_length bytes can follow. `header_at` is the header's offset.
template <class R>
BIN_SERIALIZER_INLINE bool check_payload_fits(R& r, const message_header& h,
                                              std::size_t header_at) {
  if (h.payload_length <= r.remaining()) [[likely]]
    return true;
  constexpr std::size_t budget = R::opts.max_total_bytes;
  const bool over_limit = budget != unlimited && h.payload_length > budget;
  return r.fail(over_limit ? errc::limit_exceeded : errc::truncated,
                header_at + header_offset_length);
}

template <class T, options Opts>
BIN_SERIALIZER_INLINE bool check_schema(auto& r, const message_header& h, std::size_t header_at) {
  const message_header mine = message_header_for<T, Opts>();
  if (h.format != mine.format) [[unlikely]]
    return r.fail(error::schema(header_at + header_offset_format, mismatch::format,
                                static_cast<std::uint8_t>(mine.format),
                                static_cast<std::uint8_t>(h.format)));
  // Byte order, or one side has a message type id and the other none.
  if (h.flags != mine.flags) [[unlikely]]
    return r.fail(
        error::schema(header_at + header_offset_flags, mismatch::flags, mine.flags, h.flags));
  if (h.type_id != mine.type_id) [[unlikely]]
    return r.fail(error::schema(header_at + header_offset_type_id, mismatch::type_id, mine.type_id,
                                h.type_id));
  if (h.schema_hash != mine.schema_hash) [[unlikely]]
    return r.fail(error::schema(header_at + header_offset_hash, mismatch::fingerprint,
                                mine.schema_hash, h.schema_hash));
  return true;
}

// Decodes the payload and insists it is exactly payload_length bytes.
template <class R, class T>
BIN_SERIALIZER_INLINE bool read_payload(R& r, const message_header& h, T& value) {
  const std::size_t start = r.position();
  if (!read_value(r, value)) return false;
  if (r.position() - start != h.payload_length) [[unlikely]]
    return r.fail(errc::invalid_value, start + static_cast<std::size_t>(h.payload_length));
  return true;
}

template <class R>
bool skip_payload(R& r, const message_header& h, std::size_t header_at) {
  return check_payload_fits(r, h, header_at) &&
         skip_bytes(r, static_cast<std::size_t>(h.payload_length));
}

} // namespace detail

namespace detail {

// The header bytes (24 or 32) of a T message with this payload length, at compile time.
template <class T, options Opts>
consteval std::array<unsigned char, message_header_size_v<T>> header_bytes(std::uint64_t length) {
  std::array<unsigned char, message_header_size_v<T>> h{};
  unsigned char raw[message_header_size_with_id]{};
  encode_header(raw, message_header_for<T, Opts>(length));
  for (std::size_t i = 0; i < h.size(); ++i) h[i] = raw[i];
  return h;
}

// A one-block payload (a trivially copyable struct, a scalar: the values
// serialize() inlines) has a fixed length, so its whole header is a constant:
// writing it is one 24-byte copy and checking it on input one comparison.
// These are the framed messages of hot paths (ticks, orders), inlined like
// serialize() is for them.
// (A one-block payload whose size varies, a compact varint scalar, is not:
// its header's length is the value's.)
template <class T, options Opts>
consteval bool fixed_size_one_block() {
  if constexpr (inline_top_level<Opts, T>)
    return min_serialized_size_v<T, Opts> == max_serialized_size_v<T, Opts>;
  else
    return false;
}
template <class T, options Opts>
inline constexpr bool fixed_message = fixed_size_one_block<T, Opts>();
template <class T, options Opts>
inline constexpr std::array<unsigned char, message_header_size_v<T>> fixed_header =
    header_bytes<T, Opts>(max_serialized_size_v<T, Opts>);

template <options Opts, class B, class T>
BIN_SERIALIZER_INLINE bool serialize_message_impl(B& buffer, const T& value) {
  if constexpr (ContiguousWritableBuffer<B> && fixed_message<T, Opts>) {
    constexpr std::size_t total = max_message_size_v<T, Opts>;
    writer_for<Opts, B> w(buffer);
    if (w.reserve(total) && w.write_bytes(fixed_header<T, Opts>.data(), message_header_size_v<T>) &&
        write_value(w, value)) [[likely]] {
      w.commit();
      return true;
    }
    w.rollback();
    return false;
  } else if constexpr (ContiguousWritableBuffer<B>) {
    // One pass through serialize()'s own writer: header with a placeholder
    // length, payload, then the length patched in. A failure rolls back both.
    static constexpr auto fixed = header_bytes<T, Opts>(0);
    const std::size_t start = buffer.size();
    writer_for<Opts, B> w(buffer);
    if (w.write_bytes(fixed.data(), fixed.size()) &&
        reserve_upfront<Opts, decltype(w), B>(w, value) && write_value(w, value)) [[likely]] {
      w.commit();
      const std::uint64_t length = buffer.size() - start - fixed.size();
      put_le(reinterpret_cast<unsigned char*>(buffer.data()) + start + header_offset_length,
             length);
      return true;
    }
    w.rollback();
    return false;
  } else {
    // Bytes handed to write() cannot be patched: measure first.
    unsigned char header[message_header_size_with_id];
    encode_header(header, message_header_for<T, Opts>(serialized_size<Opts>(value)));
    return buffer.write(header, message_header_size_v<T>) && serialize<Opts>(buffer, value);
  }
}

// Whether no byte at all is left to read (for a source that can tell; a
// block reader may wait for input to find out).
template <class B>
bool input_exhausted(B& buffer) {
  if constexpr (ContiguousReadableBuffer<B>)
    return buffer.read_position() == buffer.size();
  else if constexpr (requires { buffer.at_end(); })
    return buffer.at_end();
  else if constexpr (requires(const B& b) { b.remaining(); })
    return buffer.remaining() == 0;
  else
    return false;
}

// Called after a failed read that began at a message boundary: a failure to
// read the header's first byte, with no byte left in the input, is the clean
// end of the stream, not a torn message. Only the failure path pays for it.
template <class B>
BIN_SERIALIZER_NOINLINE void report_end_of_stream(B& buffer, std::size_t at) {
  if constexpr (requires(const B& b) {
                  { b.last_error() } -> std::convertible_to<error>;
                }) {
    if (buffer.last_error() == error{errc::truncated, at} && input_exhausted(buffer))
      record_error(buffer, {errc::end_of_stream, at});
  }
}

template <options Opts, class B, class T>
bool deserialize_message_checked(B& buffer, T& value) {
  reader_for<Opts, B> r(buffer);
  const std::size_t at = r.position();
  message_header h;
  if (read_header(r, h) && check_schema<T, Opts>(r, h, at) && check_payload_fits(r, h, at) &&
      read_payload(r, h, value)) [[likely]] {
    r.commit();
    return true;
  }
  r.rollback();
  report_end_of_stream(buffer, at);
  return false;
}

template <options Opts, class B, class T>
BIN_SERIALIZER_INLINE bool deserialize_message_impl(B& buffer, T& value) {
  if constexpr (ContiguousReadableBuffer<B> && fixed_message<T, Opts>) {
    constexpr std::size_t total = max_message_size_v<T, Opts>;
    constexpr std::size_t header_size = message_header_size_v<T>;
    // The expected header, compared whole; any difference (another schema, a
    // bad header, a short input) takes the checked path, which says which.
    // (A max_total_bytes below one message is left to that path too.)
    const std::size_t pos = buffer.read_position();
    if (total <= Opts.max_total_bytes && buffer.size() - pos >= total &&
        std::memcmp(buffer.data() + pos, fixed_header<T, Opts>.data(), header_size) == 0)
        [[likely]] {
      reader_for<Opts, B> r(buffer);
      (void)r.take(header_size);
      if (read_value(r, value)) [[likely]] {
        r.commit();
        return true;
      }
      r.rollback();
      return false;
    }
  }
  return deserialize_message_checked<Opts>(buffer, value);
}

} // namespace detail

// Appends header + payload. On failure returns false and, for buffers with
// direct access, leaves the buffer exactly as it was.
template <options Opts = native, WritableBuffer B, class T>
  requires detail::fixed_message<T, Opts>
BIN_SERIALIZER_INLINE bool serialize_message(B& buffer, const T& value) {
  return detail::serialize_message_impl<Opts>(buffer, value);
}
template <options Opts = native, WritableBuffer B, class T>
  requires(!detail::fixed_message<T, Opts>)
bool serialize_message(B& buffer, const T& value) {
  if constexpr (!detail::has_layout<Opts, T>)
    return detail::diagnose_layout<Opts, T>(), false; // the one message (classify.hpp)
  else
    return detail::serialize_message_impl<Opts>(buffer, value);
}

// Reads one framed message into value. Fails with schema_mismatch (value and
// read position untouched) unless the header matches message_header_for<T, Opts>;
// with bad_header if it is not a header; end_of_stream if the input holds no
// byte at all (the clean end of a stream of messages); truncated if it ends
// inside the message; truncated / limit_exceeded if the payload does not fit;
// invalid_value if the payload is not exactly payload_length bytes.
template <options Opts = native, ReadableBuffer B, class T>
  requires detail::fixed_message<T, Opts>
BIN_SERIALIZER_INLINE bool deserialize_message(B& buffer, T& value) {
  return detail::deserialize_message_impl<Opts>(buffer, value);
}
template <options Opts = native, ReadableBuffer B, class T>
  requires(!detail::fixed_message<T, Opts>)
bool deserialize_message(B& buffer, T& value) {
  if constexpr (!detail::decodable<Opts, B, T>())
    return detail::diagnose_decode<Opts, B, T>(), false; // the one message (decode.hpp)
  else
    return detail::deserialize_message_impl<Opts>(buffer, value);
}

// Reads (consumes) one header and checks its own fields, not the schema.
// On failure the read position stays (buffers with direct access or seek());
// end_of_stream when no byte is left, truncated when the header is cut short.
template <ReadableBuffer B>
bool read_message_header(B& buffer, message_header& header) {
  detail::reader_for<native, B> r(buffer);
  const std::size_t at = r.position();
  message_header h;
  if (detail::read_header(r, h)) {
    r.commit();
    header = h;
    return true;
  }
  r.rollback();
  detail::report_end_of_stream(buffer, at);
  return false;
}

// After read_message_header: decodes the payload that header announced.
// Same checks as deserialize_message; offsets of header fields are given
// relative to the header's presumed start (header.size() bytes before the payload).
template <options Opts, ReadableBuffer B, class T>
bool deserialize_message_payload(B& buffer, const message_header& header, T& value) {
  detail::reader_for<Opts, B> r(buffer);
  const std::size_t payload_at = r.position();
  const std::size_t at = payload_at >= header.size() ? payload_at - header.size() : 0;
  if (detail::check_schema<T, Opts>(r, header, at) && detail::check_payload_fits(r, header, at) &&
      detail::read_payload(r, header, value)) [[likely]] {
    r.commit();
    return true;
  }
  r.rollback();
  return false;
}

// The same in the format the header names (default options of that format;
// name Opts to set limits): the format is said once, by the writer.
template <ReadableBuffer B, class T>
bool deserialize_message_payload(B& buffer, const message_header& header, T& value) {
  bool ok = false;
  if (!detail::all_formats::with(static_cast<std::uint8_t>(header.format), [&](auto f) {
        ok = deserialize_message_payload<options{.format = decltype(f)::id}>(buffer, header, value);
      }))
    detail::record_error(buffer, {errc::bad_header, 0});
  return ok;
}

// After read_message_header: skips the payload (a message this reader does
// not understand). Fails (truncated) if the input holds fewer bytes.
template <ReadableBuffer B>
bool skip_message_payload(B& buffer, const message_header& header) {
  detail::reader_for<native, B> r(buffer);
  const std::size_t payload_at = r.position();
  const std::size_t at = payload_at >= header.size() ? payload_at - header.size() : 0;
  if (detail::skip_payload(r, header, at)) {
    r.commit();
    return true;
  }
  r.rollback();
  return false;
}

// Skips one whole message (header and payload) whatever its type
// (end_of_stream when no byte is left).
template <ReadableBuffer B>
bool skip_message(B& buffer) {
  detail::reader_for<native, B> r(buffer);
  const std::size_t at = r.position();
  message_header h;
  if (detail::read_header(r, h) && detail::skip_payload(r, h, at)) {
    r.commit();
    return true;
  }
  r.rollback();
  detail::report_end_of_stream(buffer, at);
  return false;
}

} // namespace bin_serializer
