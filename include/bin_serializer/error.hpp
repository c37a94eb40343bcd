// Why a serialize/deserialize call returned false, and where.
//
// Errors are reported without exceptions and at no cost on the success path:
// nothing is written unless a call fails. Every buffer shipped with the library
// keeps the most recent failure, readable through last_error().
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

namespace bin_serializer {

enum class errc : std::uint8_t {
  ok = 0,
  buffer_full,     // a bounded output (FixedBuffer) has no room for the value
  out_of_memory,   // a growable output failed to allocate
  truncated,       // the input ends before the value (or a declared length) does
  invalid_value,   // bytes no value of the type can have, e.g. a bool byte of 2
  limit_exceeded,  // a length, count or depth is over a configured limit
  schema_mismatch, // a framed message or evolvable struct was written with another schema
  bad_header,      // a framed message's header is not one (magic, version, reserved bits)
  io_error,        // the stream, file descriptor or mapped file beneath the buffer failed
  end_of_stream,   // a framed-message read found no byte at all: the input ended cleanly
                   // between messages (a message cut short is truncated)
};

[[nodiscard]] constexpr std::string_view to_string(errc code) noexcept {
  switch (code) {
  case errc::ok: return "no error";
  case errc::buffer_full: return "output buffer is full";
  case errc::out_of_memory: return "memory allocation failed";
  case errc::truncated: return "input ends before the value is complete";
  case errc::invalid_value: return "input holds a value the type cannot have";
  case errc::limit_exceeded: return "a length, count or depth exceeds its limit";
  case errc::schema_mismatch: return "schema mismatch";
  case errc::bad_header: return "not a valid message header";
  case errc::io_error: return "the underlying stream, file or descriptor reported an error";
  case errc::end_of_stream: return "end of input at a message boundary";
  }
  return "unknown error";
}

// The enumerator's own name ("buffer_full", "truncated", ...): for logs and
// metrics labels. to_string() gives a sentence for people.
[[nodiscard]] constexpr std::string_view error_name(errc code) noexcept {
  switch (code) {
  case errc::ok: return "ok";
  case errc::buffer_full: return "buffer_full";
  case errc::out_of_memory: return "out_of_memory";
  case errc::truncated: return "truncated";
  case errc::invalid_value: return "invalid_value";
  case errc::limit_exceeded: return "limit_exceeded";
  case errc::schema_mismatch: return "schema_mismatch";
  case errc::bad_header: return "bad_header";
  case errc::io_error: return "io_error";
  case errc::end_of_stream: return "end_of_stream";
  }
  return "unknown";
}

// A failure and the byte offset, counted from the start of the buffer's bytes,
// at which it was detected: the write position for output, the position of the
// offending item (a length prefix, a bool byte, ...) for input.
struct error {
  errc code = errc::ok;
  std::size_t offset = 0;

  [[nodiscard]] constexpr explicit operator bool() const noexcept { return code != errc::ok; }
  [[nodiscard]] constexpr std::string_view message() const noexcept { return to_string(code); }
  friend constexpr bool operator==(const error&, const error&) = default;
};

} // namespace bin_serializer
