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
  corrupt,         // a record log's block fails its checksum or its structure
  unknown_type,    // a record log's record is of a type the reader was not given
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
  case errc::corrupt: return "a log block fails its checksum or structure";
  case errc::unknown_type: return "a log record of a type the reader does not know";
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
  case errc::corrupt: return "corrupt";
  case errc::unknown_type: return "unknown_type";
  }
  return "unknown";
}

// What a schema_mismatch compared: a framed message header's field (format
// byte, flags, message type id, schema fingerprint), or an evolvable struct's
// field count (fewer fields than the reader's type, not a version boundary).
enum class mismatch : std::uint8_t { none = 0, format, flags, type_id, fingerprint, field_count };

[[nodiscard]] constexpr std::string_view mismatch_name(mismatch what) noexcept {
  switch (what) {
  case mismatch::none: return "none";
  case mismatch::format: return "format";
  case mismatch::flags: return "flags";
  case mismatch::type_id: return "type_id";
  case mismatch::fingerprint: return "fingerprint";
  case mismatch::field_count: return "field_count";
  }
  return "unknown";
}

// A failure and the byte offset, counted from the start of the buffer's bytes,
// at which it was detected: the write position for output, the position of the
// offending item (a length prefix, a bool byte, ...) for input.
//
// A schema_mismatch also says what differed and both values: expected() is
// the reader's (its type's format byte, flags, message type id, fingerprint or
// field count), found() the input's. They are written only when a call fails
// with schema_mismatch, and what() is mismatch::none and both values 0 for
// every other error. Until then they are left unset, so the error every buffer
// keeps costs the success path what it did before they existed: a clear() or
// a new BufferView stores the code and the offset, nothing more.
struct error {
  errc code = errc::ok;

private:
  mismatch what_; // set, with the values, only when code == schema_mismatch

public:
  std::size_t offset = 0;

  // NOLINTNEXTLINE(cppcoreguidelines-pro-type-member-init): see above
  constexpr error() noexcept {}
  // NOLINTNEXTLINE(cppcoreguidelines-pro-type-member-init): see above
  constexpr error(errc c, std::size_t at) noexcept : code(c), offset(at) {
    if (c == errc::schema_mismatch) { // without its values (a constant test wherever c is)
      what_ = mismatch::none;
      expected_ = 0;
      found_ = 0;
    }
  }

  // A schema_mismatch at `at`: the reader expected `exp` and the input holds `got`.
  [[nodiscard]] static constexpr error schema(std::size_t at, mismatch w, std::uint64_t exp,
                                              std::uint64_t got) noexcept {
    error e(errc::schema_mismatch, at);
    e.what_ = w;
    e.expected_ = exp;
    e.found_ = got;
    return e;
  }

  [[nodiscard]] constexpr mismatch what() const noexcept {
    return code == errc::schema_mismatch ? what_ : mismatch::none;
  }
  [[nodiscard]] constexpr std::uint64_t expected() const noexcept {
    return code == errc::schema_mismatch ? expected_ : 0;
  }
  [[nodiscard]] constexpr std::uint64_t found() const noexcept {
    return code == errc::schema_mismatch ? found_ : 0;
  }

  [[nodiscard]] constexpr explicit operator bool() const noexcept { return code != errc::ok; }
  [[nodiscard]] constexpr std::string_view message() const noexcept { return to_string(code); }
  friend constexpr bool operator==(const error& a, const error& b) noexcept {
    return a.code == b.code && a.offset == b.offset && a.what() == b.what() &&
           a.expected() == b.expected() && a.found() == b.found();
  }

private:
  std::uint64_t expected_;
  std::uint64_t found_;
};

namespace detail {

// What a reading or writing cursor keeps while a call runs (16 bytes, so it
// stays in registers): the code and offset. A schema_mismatch's values go to
// the buffer when it is found (cursor/reader.hpp).
struct fault {
  errc code = errc::ok;
  bool recorded = false; // a schema_mismatch, already handed to the buffer with its values
  std::size_t offset = 0;
  [[nodiscard]] constexpr explicit operator bool() const noexcept { return code != errc::ok; }
  constexpr operator error() const noexcept { return {code, offset}; } // NOLINT: by design
};

} // namespace detail

} // namespace bin_serializer
