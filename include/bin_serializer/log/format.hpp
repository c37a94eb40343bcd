// The record log's framing (docs/wire-format.md section 13), shared by
// log/writer.hpp and log/reader.hpp:
//   header  "BSLG" | u8 version | u8 format | u16 flags | u32 table_length |
//           u32 crc32c(bytes 0-11, table) | table: varint count, then per type
//           u64 fingerprint, u32 message id, varint length + JSON description
//   block   "BSLB" | u32 body_length | u32 crc32c(body) | u32 crc32c(bytes 0-11) | body
//   record  varint type index | varint payload length | payload (serialize<Opts>)
//
// log_schema<Opts, Ts...> is the one place an application says which types a
// log holds and in which format; writers and readers take it whole, so the
// format is never repeated (and never silently wrong) at a call site.
#pragma once

#include <array>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>
#include <tuple>
#include <type_traits>

#include "../error.hpp"
#include "../format/endian.hpp"
#include "../frame/message.hpp"
#include "../frame/schema_hash.hpp"
#include "../frame/schema_json.hpp"
#include "../options.hpp"
#include "crc32c.hpp"

namespace bin_serializer {

inline constexpr std::uint32_t log_magic = 0x474C5342;       // bytes "BSLG"
inline constexpr std::uint32_t log_block_magic = 0x424C5342; // bytes "BSLB"
inline constexpr std::uint8_t log_version = 1;
inline constexpr std::size_t log_header_size = 16;       // then the type table
inline constexpr std::size_t log_block_header_size = 16; // then the body
inline constexpr std::size_t log_max_table_length = std::size_t{1} << 26;
inline constexpr std::size_t log_max_body_length = std::size_t{1} << 28;
inline constexpr std::size_t log_max_types = 16384; // a type index is at most 2 varint bytes
inline constexpr std::uint16_t log_flag_big_endian = 1;

// Which types a log holds, in type-index order, and in which format:
//   using market_log = bin_serializer::log_schema<bin_serializer::compact, Trade, Quote, Status>;
template <options Opts, class... Ts>
struct log_schema {
  static_assert(sizeof...(Ts) >= 1, "a log_schema names at least one type");
  static_assert(sizeof...(Ts) <= log_max_types, "a log holds at most 16384 types");
  static_assert((std::is_same_v<Ts, std::remove_cvref_t<Ts>> && ...),
                "log_schema<Opts, Ts...> takes plain types (no const, no references)");

  static constexpr options opts = Opts;
  static constexpr std::size_t count = sizeof...(Ts);
  static constexpr std::array<std::uint64_t, count> fingerprints{schema_hash_v<Ts, Opts>...};
  static constexpr std::array<std::uint32_t, count> message_ids{message_id_v<Ts>...};

  // The type index of T (its position in Ts...).
  template <class T>
  static consteval std::size_t index_of() {
    constexpr std::array<bool, count> same{std::is_same_v<std::remove_cvref_t<T>, Ts>...};
    std::size_t found = count;
    for (std::size_t i = 0; i < count; ++i)
      if (same[i] && found == count) found = i;
    return found;
  }
  template <class T>
  static constexpr bool holds = index_of<T>() != count;

  // Two types a reader could not tell apart (same fingerprint, same message
  // id: two structs of one shape) are refused here, with the fix.
  static consteval bool distinct() {
    for (std::size_t i = 0; i < count; ++i)
      for (std::size_t j = i + 1; j < count; ++j)
        if (fingerprints[i] == fingerprints[j] && message_ids[i] == message_ids[j]) return false;
    return true;
  }
  static_assert(distinct(),
                "two types of this log_schema have the same wire shape, so a reader could not "
                "tell their records apart: give each a message type id, e.g. "
                "static constexpr std::uint32_t bin_serializer_message_id = 2;");
};

template <class S>
inline constexpr bool is_log_schema = false;
template <options Opts, class... Ts>
inline constexpr bool is_log_schema<log_schema<Opts, Ts...>> = true;

// One entry of a log's type table, as a reader found it.
struct log_type_info {
  std::uint64_t fingerprint = 0;
  std::uint32_t message_id = 0;
  std::string_view description; // JSON (docs/schema.md); empty if the writer left it out
};

namespace detail::log {

template <class S>
struct values_of;
template <options Opts, class... Ts>
struct values_of<log_schema<Opts, Ts...>> {
  using type = std::tuple<Ts...>;
};

// Little-endian fields: frame/message.hpp's put_le and get_le.
using detail::get_le;
using detail::put_le;

// Shortest unsigned LEB128 of v; returns the bytes written (at most 5).
inline std::size_t put_varint(unsigned char* p, std::uint32_t v) noexcept {
  std::size_t n = 0;
  while (v >= 0x80) {
    p[n++] = static_cast<unsigned char>(v | 0x80);
    v >>= 7;
  }
  p[n++] = static_cast<unsigned char>(v);
  return n;
}
[[nodiscard]] constexpr std::size_t varint_size(std::uint64_t v) noexcept {
  std::size_t n = 1;
  while (v >= 0x80) {
    v >>= 7;
    ++n;
  }
  return n;
}

// Reads a shortest-form varint of at most max_bytes bytes from [p, end).
// Returns the bytes it took, 0 if it is cut short, too long or not shortest.
inline std::size_t get_varint(const unsigned char* p, const unsigned char* end, std::uint32_t& v,
                              std::size_t max_bytes) noexcept {
  if (p != end && *p < 0x80) [[likely]] {
    v = *p;
    return 1;
  }
  std::uint32_t out = 0;
  for (std::size_t i = 0; i < max_bytes; ++i) {
    if (p + i == end) return 0;
    const unsigned char b = p[i];
    out |= std::uint32_t{b & 0x7Fu} << (7 * i);
    if (b < 0x80) {
      if (b == 0 && i != 0) return 0; // not the shortest form
      v = out;
      return i + 1;
    }
  }
  return 0;
}

inline constexpr std::size_t type_index_max_bytes = 2;
inline constexpr std::size_t length_max_bytes = 4; // payloads below 2^28 bytes

template <class S>
struct header_writer;
template <options Opts, class... Ts>
struct header_writer<log_schema<Opts, Ts...>> {
  static std::string bytes(bool descriptions) {
    std::string table;
    auto put_var = [&table](std::size_t v) {
      unsigned char tmp[5];
      table.append(reinterpret_cast<const char*>(tmp),
                   put_varint(tmp, static_cast<std::uint32_t>(v)));
    };
    put_var(sizeof...(Ts));
    auto entry = [&]<class T>() {
      unsigned char fixed[12];
      put_le(fixed, schema_hash_v<T, Opts>);
      put_le(fixed + 8, message_id_v<T>);
      table.append(reinterpret_cast<const char*>(fixed), sizeof fixed);
      if (descriptions) {
        const std::string d = schema_json<T, Opts>();
        put_var(d.size());
        table += d;
      } else {
        put_var(0);
      }
    };
    (entry.template operator()<Ts>(), ...);

    unsigned char head[log_header_size];
    put_le(head, log_magic);
    head[4] = log_version;
    head[5] = static_cast<unsigned char>(Opts.format);
    const bool big = detail::format_of<Opts>::host_layout && !detail::little_endian_host;
    put_le(head + 6, static_cast<std::uint16_t>(big ? log_flag_big_endian : 0));
    put_le(head + 8, static_cast<std::uint32_t>(table.size()));
    put_le(head + 12, crc32c::extend(crc32c::compute(head, 12), table.data(), table.size()));
    std::string out(reinterpret_cast<const char*>(head), sizeof head);
    out += table;
    return out;
  }
};

// The file header of a log of schema S: 16 bytes, then the type table.
template <class S>
std::string header_bytes(bool descriptions) {
  return header_writer<S>::bytes(descriptions);
}

// The parsed fixed part of a file header.
struct file_header {
  wire_format format = wire_format::native;
  std::uint16_t flags = 0;
  std::uint32_t table_length = 0;
  std::uint32_t crc = 0;
};

// Checks the 16 fixed bytes (not the CRC, which covers the table too). On
// failure `bad_at` is the offset of the first wrong field.
inline bool parse_fixed_header(const unsigned char* p, file_header& h,
                               std::size_t& bad_at) noexcept {
  if (get_le<std::uint32_t>(p) != log_magic) return bad_at = 0, false;
  if (p[4] != log_version) return bad_at = 4, false;
  bool host_layout = false;
  if (!detail::all_formats::with(
          p[5], [&host_layout](auto f) { host_layout = decltype(f)::host_layout; }))
    return bad_at = 5, false;
  h.format = static_cast<wire_format>(p[5]);
  h.flags = get_le<std::uint16_t>(p + 6);
  if ((h.flags & ~log_flag_big_endian) != 0 || (!host_layout && h.flags != 0))
    return bad_at = 6, false;
  h.table_length = get_le<std::uint32_t>(p + 8);
  if (h.table_length == 0 || h.table_length > log_max_table_length) return bad_at = 8, false;
  h.crc = get_le<std::uint32_t>(p + 12);
  return true;
}

// Parses a type table whose CRC has been checked. Calls entry(info) per type.
// False (bad_at = offset within the table) if it is not one.
template <class F>
bool parse_table(const unsigned char* p, std::size_t n, std::size_t& count, std::size_t& bad_at,
                 F&& entry) {
  const unsigned char* const begin = p;
  const unsigned char* const end = p + n;
  std::uint32_t c = 0;
  std::size_t k = get_varint(p, end, c, 3);
  if (k == 0 || c == 0 || c > log_max_types) return bad_at = 0, false;
  p += k;
  for (std::uint32_t i = 0; i < c; ++i) {
    if (end - p < 12) return bad_at = static_cast<std::size_t>(p - begin), false;
    log_type_info info;
    info.fingerprint = get_le<std::uint64_t>(p);
    info.message_id = get_le<std::uint32_t>(p + 8);
    p += 12;
    std::uint32_t len = 0;
    k = get_varint(p, end, len, 4);
    if (k == 0 || len > static_cast<std::size_t>(end - p) - k)
      return bad_at = static_cast<std::size_t>(p - begin), false;
    info.description = std::string_view(reinterpret_cast<const char*>(p + k), len);
    p += k + len;
    entry(info);
  }
  if (p != end) return bad_at = static_cast<std::size_t>(p - begin), false;
  count = c;
  return true;
}

// What is at a block boundary (rules 1-6 of section 13 need the difference).
enum class block_state : std::uint8_t {
  valid,
  short_header, // fewer than 16 bytes left
  zero_magic,   // magic still 0: a block never published
  bad_magic,
  bad_head_crc,
  too_long,   // body_length 0 or over the limit
  body_short, // header valid, body runs past the input
  bad_body_crc,
  bad_record, // checksums pass, records do not (a writer bug or a forgery)
};

// Checks the block at p (avail bytes from p on). On valid, body_length is set.
// bad_at: offset from p of what is wrong.
inline block_state check_block(const unsigned char* p, std::size_t avail, std::size_t type_count,
                               std::size_t max_body, std::uint32_t& body_length,
                               std::size_t& bad_at, bool walk_records = true) noexcept {
  bad_at = 0;
  if (avail < log_block_header_size) return block_state::short_header;
  const auto magic = get_le<std::uint32_t>(p);
  if (magic != log_block_magic)
    return magic == 0 ? block_state::zero_magic : block_state::bad_magic;
  // Pairs with seal_block's release: a log mapped by its writer in another
  // process is read after its magic (code only on weakly ordered CPUs).
  std::atomic_thread_fence(std::memory_order_acquire);
  if (crc32c::compute(p, 12) != get_le<std::uint32_t>(p + 12))
    return bad_at = 12, block_state::bad_head_crc;
  const auto len = get_le<std::uint32_t>(p + 4);
  if (len == 0 || len > log_max_body_length || len > max_body)
    return bad_at = 4, block_state::too_long;
  if (len > avail - log_block_header_size) return bad_at = 4, block_state::body_short;
  const unsigned char* body = p + log_block_header_size;
  if (crc32c::compute(body, len) != get_le<std::uint32_t>(p + 8))
    return bad_at = 8, block_state::bad_body_crc;
  body_length = len;
  if (!walk_records) return block_state::valid;
  // The records tile the body exactly.
  const unsigned char* q = body;
  const unsigned char* const end = body + len;
  while (q != end) {
    std::uint32_t index = 0, length = 0;
    const std::size_t a = get_varint(q, end, index, type_index_max_bytes);
    if (a == 0 || index >= type_count)
      return bad_at = static_cast<std::size_t>(q - p), block_state::bad_record;
    const std::size_t b = get_varint(q + a, end, length, length_max_bytes);
    if (b == 0 || length > static_cast<std::size_t>(end - q) - a - b)
      return bad_at = static_cast<std::size_t>(q - p), block_state::bad_record;
    q += a + b + length;
  }
  body_length = len;
  return block_state::valid;
}

// Seals a block whose body (len bytes) follows its 16-byte header at p: the
// length and both CRCs, then the magic, last, so that a reader (or a crash)
// never sees a published block without its checksums. A thread fence, not
// only a compiler one: a reader in another process may map the same file
// while it is written (check_block's acquire).
inline void seal_block(unsigned char* p, std::uint32_t len) noexcept {
  unsigned char head[log_block_header_size];
  put_le(head, log_block_magic);
  put_le(head + 4, len);
  put_le(head + 8, crc32c::compute(p + log_block_header_size, len));
  put_le(head + 12, crc32c::compute(head, 12));
  std::memcpy(p + 4, head + 4, 12);
  std::atomic_thread_fence(std::memory_order_release); // the magic is stored last
  std::memcpy(p, head, 4);
}

} // namespace detail::log

} // namespace bin_serializer
