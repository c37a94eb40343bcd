// log_writer<Schema, B>: appends records to a record log (docs/logs.md;
// format in docs/wire-format.md section 13) in a Buffer or a MappedFile
// (written in place), or through an fd_writer / ostream_writer (io/), a block
// at a time.
//
//   using market_log = bin_serializer::log_schema<bin_serializer::compact, Trade, Quote, Status>;
//   bin_serializer::MappedFile file;
//   file.open("market.bsl", bin_serializer::MappedFile::mode::create);
//   bin_serializer::log_writer<market_log, bin_serializer::MappedFile> log(file);
//   log.write(trade);  log.write(quote);  ...
//   log.close();       // seals the open block; then file.close()
//
// Records go into a block; a block is sealed (its CRCs written, then its
// magic) once its body reaches log_write_options::block_bytes, on flush(),
// and on close(). What survives a crash of the writing process is every
// sealed block that reached the output (docs/logs.md, "What survives"):
//   log_flush::record  every write() seals its block and flushes the output
//   log_flush::block   full blocks are sealed and the output flushed (default)
//   log_flush::manual  full blocks are sealed and handed over; flush() does the rest
// Durability against power loss is a further sync the caller chooses
// (MappedFile::sync(), fsync(fd)).
#pragma once

#include <cstddef>
#include <cstdint>
#include <array>
#include <atomic>
#include <cstring>
#include <string>
#include <type_traits>

#include "../buffer/buffer.hpp"
#include "../buffer/concepts.hpp"
#include "../core/encode.hpp"
#include "described.hpp"
#include "format.hpp"
#include "reader.hpp"

namespace bin_serializer {

enum class log_flush : std::uint8_t { record, block, manual };

struct log_write_options {
  // A block is sealed once its body holds at least this many bytes: the
  // record that reaches it is the block's last (at most 2^27).
  std::size_t block_bytes = 4096;
  log_flush flush = log_flush::block;
  // Embed each type's schema_json description in the header (a log any tool
  // can read with no code: `python -m bin_serializer cat`).
  bool descriptions = true;
  // Appending (log_append): also cut a corrupt tail, a complete last block
  // that fails its checks with nothing valid after it. Corruption followed by
  // valid blocks is never cut.
  bool cut_corrupt_tail = false;
};

// Tag: the output already holds a log of this Schema; write after its last
// valid block (a torn tail is cut off first).
struct log_append_t {
  explicit log_append_t() = default;
};
inline constexpr log_append_t log_append{};

namespace detail::log {

// An evolvable type has the fingerprint of its first version, so a newer
// version of it passes the type table's check; but the log's header then
// describes fewer fields than its records would hold, and a reader with no
// code (python -m bin_serializer cat) would not see the others. So a log
// that describes a type must list every version the writer's type has
// (its description's version_fingerprints, each a JSON string as schema_json
// writes it); else `why` names the first one missing (mismatch::fingerprint).
// An evolvable struct nested in the type (a field, an element) that gained a
// version changes no fingerprint: the writer's own description and the
// file's are compared node by node (described.hpp), and the first version
// the file lacks is mismatch::field_count, expected the field count the
// file describes, found the writer's. A log written without descriptions
// has nothing to contradict.
template <class T, options Opts>
bool describes_versions_of(std::string_view description, error& why) {
  if (description.empty()) return true;
  if constexpr (evolvable_type<T>) {
    constexpr auto versions = []<std::size_t... K>(std::index_sequence<K...>) {
      return std::array{schema_hash_upto<T, Opts, K + 1>...};
    }(std::make_index_sequence<evolution_counts<T>.size()>{});
    for (const std::uint64_t fp : versions) {
      if (description.find(describe::hex64(fp).text) == std::string_view::npos) {
        why = error::schema(log_header_size, mismatch::fingerprint, fp, schema_hash_v<T, Opts>);
        return false;
      }
    }
  }
  if constexpr (holds_evolvable<Opts, T>) { // else its description has no node to compare
    std::uint64_t described = 0, writes = 0;
    if (!describes_evolvable_nodes(description, schema_json<T, Opts>(), described, writes)) {
      why = error::schema(log_header_size, mismatch::field_count, described, writes);
      return false;
    }
  }
  return true;
}

template <class Types, options Opts, class... Ts>
bool describes_every_version(const Types& types, log_schema<Opts, Ts...>*, error& why) {
  std::size_t i = 0;
  return (describes_versions_of<Ts, Opts>(types[i++].description, why) && ...);
}

// A writer of `header` that dies before publishing it leaves a prefix of
// its bytes, the magic either written or still zero (writers that publish
// the header store the magic last), then zeros. If a file is that, no reader
// ever found a log in it, and an appending writer starts it anew, losing
// nothing. These two functions test it a piece at a time: how many of the n
// bytes at p, which sit at offset `at` of the file, match the header
// (zero_magic: the file's first bytes are zero), and whether bytes are zero.
inline bool starts_zero(const unsigned char* p, std::size_t n) {
  return n >= 1 && std::memcmp(p, "\0\0\0\0", n < 4 ? n : 4) == 0;
}
inline std::size_t header_prefix(const unsigned char* p, std::size_t n, std::string_view header,
                                 std::size_t at, bool zero_magic) {
  std::size_t i = 0;
  while (i < n && at + i < header.size() &&
         (p[i] == static_cast<unsigned char>(header[at + i]) ||
          (at + i < 4 && zero_magic && p[i] == 0)))
    ++i;
  return i;
}
inline bool all_zero(const unsigned char* p, std::size_t n) {
  for (std::size_t i = 0; i < n; ++i)
    if (p[i] != 0) return false;
  return true;
}

// Reads the log `in` to its end for an appending writer (log_append here,
// open_log_for_append in log/fd.hpp): true if a writer may go on at
// in.valid_end(), that is, the log holds the Schema's types in its order and
// ends cleanly, in a torn tail, or (cut_corrupt_tail) in a corrupt tail with
// nothing valid after it, and its descriptions describe every version of the
// Schema's evolvable types. Otherwise false and `why` says what stops it.
template <class Reader>
bool find_append_point(Reader& in, bool cut_corrupt_tail, error& why) {
  if (!in.ok()) {
    why = in.last_error();
    return false;
  }
  bool same = in.types().size() == Reader::schema::count;
  for (std::size_t i = 0; same && i < in.types().size(); ++i) same = in.schema_index(i) == i;
  if (!same) {
    why = error::schema(log_header_size, mismatch::fingerprint, 0, 0);
    return false;
  }
  if (!describes_every_version(in.types(), static_cast<typename Reader::schema*>(nullptr), why))
    return false;
  log_record rec;
  while (in.next(rec)) {
  }
  // The error where the reading stopped: resume() below clears it when it
  // finds a valid block after a corruption, which is then the reason.
  const error stopped = in.last_error();
  const bool ends_well = in.end() == log_end::clean || in.end() == log_end::torn ||
                         (in.end() == log_end::corrupt && cut_corrupt_tail && !in.resume());
  if (!ends_well) why = stopped;
  return ends_well;
}

} // namespace detail::log

template <class Schema, WritableBuffer B>
class log_writer {
  static_assert(is_log_schema<Schema>,
                "log_writer<Schema, B>: Schema is a bin_serializer::log_schema<Opts, Ts...>");
  static constexpr options Opts = Schema::opts;
  // Written in place (Buffer, MappedFile), or staged a block at a time.
  static constexpr bool in_place = ContiguousWritableBuffer<B> && !detail::fixed_capacity<B>;

public:
  static constexpr std::size_t max_record_payload = std::size_t{1} << 27;

  // Writes the file header. An fd_writer on a file is locked first (see
  // lock_output); a MappedFile locks itself when it is opened writable.
  explicit log_writer(B& out, log_write_options o = {}) : out_(out), o_(clamped(o)) {
    if (lock_output()) write_header(detail::log::header_bytes<Schema>(o_.descriptions));
  }

  // Appends to the log `out` holds (a Buffer or MappedFile with its bytes):
  // checks that its header is this Schema's, cuts a torn tail, and goes on
  // after the last valid block; an empty `out` gets the header of a new log.
  // For a file descriptor, open it with open_log_for_append (log/fd.hpp) and
  // pass an fd_writer at the end of it.
  log_writer(B& out, log_append_t, log_write_options o = {}) : out_(out), o_(clamped(o)) {
    if (!lock_output()) return;
    if constexpr (in_place) {
      if (out_.size() == 0)
        // nothing yet (a new file): a new log, as open_log_for_append makes
        write_header(detail::log::header_bytes<Schema>(o_.descriptions));
      else
        recover_in_place();
    }
  }

  log_writer(const log_writer&) = delete;
  log_writer& operator=(const log_writer&) = delete;
  // Seals and flushes; a destructor cannot report failure: call close().
  ~log_writer() { (void)close(); }

  // Appends one record. False (last_error() says why; the output is as
  // before the call) if the value cannot be written; an I/O failure of the
  // output is final (later calls fail too).
  template <class T>
  BIN_SERIALIZER_INLINE bool write(const T& value) {
    static_assert(Schema::template holds<T>,
                  "log_writer::write: T is not one of the types of this log_schema; add it "
                  "there (the log's header lists its types)");
    constexpr std::size_t index = Schema::template index_of<T>();
    constexpr std::size_t index_bytes = detail::log::varint_size(index);
    auto& t = target();
    if (block_at_ == npos) [[unlikely]] { // no open block (or a dead writer: never one)
      if (!open_block(t)) return false;
    }
    const std::size_t at = t.size();
    if (!t.reserve(at + index_bytes + 1)) [[unlikely]]
      return fail(t.last_error());
    auto* p = reinterpret_cast<unsigned char*>(t.data()) + at;
    if constexpr (index_bytes == 1)
      p[0] = static_cast<unsigned char>(index);
    else
      (void)detail::log::put_varint(p, static_cast<std::uint32_t>(index));
    t.commit_size(at + index_bytes + 1);
    if (!serialize<Opts>(t, value)) [[unlikely]] {
      const error e = t.last_error();
      t.set_size(at);
      return fail(e);
    }
    const std::size_t length = t.size() - at - index_bytes - 1;
    if (length < 0x80) [[likely]] {
      reinterpret_cast<unsigned char*>(t.data())[at + index_bytes] =
          static_cast<unsigned char>(length);
    } else if (!widen_length(t, at, at + index_bytes, length)) [[unlikely]] {
      return false;
    }
    ++records_;
    if (t.size() >= seal_at_) [[unlikely]] // the block is full (always, for log_flush::record)
      return block_full();
    return true;
  }

  // Seals the open block and flushes the output: every record written so
  // far survives a crash of this process once this returns true.
  bool flush() { return !dead_ && seal() && flush_output(); }

  // flush(), then no more writes. True if every record was handed over.
  bool close() {
    if (closed_) return !dead_;
    const bool ok = flush();
    closed_ = true;
    dead_ = true;
    return ok && !io_failed_;
  }

  [[nodiscard]] error last_error() const noexcept { return err_; }
  [[nodiscard]] std::uint64_t records() const noexcept { return records_; }
  // Bytes of records in the open (unsealed) block.
  [[nodiscard]] std::size_t pending() const noexcept {
    return block_at_ == npos ? 0 : target_size() - block_at_ - log_block_header_size;
  }
  // After log_append: what recovery cut off (0: the log ended cleanly).
  [[nodiscard]] std::uint64_t cut_bytes() const noexcept { return cut_; }

private:
  static constexpr std::size_t npos = static_cast<std::size_t>(-1);
  using target_type = std::conditional_t<in_place, B, Buffer>;

  static log_write_options clamped(log_write_options o) noexcept {
    if (o.block_bytes == 0) o.block_bytes = 1;
    if (o.block_bytes > max_record_payload) o.block_bytes = max_record_payload;
    return o;
  }

  target_type& target() noexcept {
    if constexpr (in_place)
      return out_;
    else
      return stage_;
  }
  [[nodiscard]] std::size_t target_size() const noexcept {
    if constexpr (in_place)
      return out_.size();
    else
      return stage_.size();
  }

  bool fail(error e) noexcept {
    err_ = e;
    return false;
  }
  bool fail_io(errc c) noexcept {
    std::size_t at = 0;
    if constexpr (in_place) at = out_.size();
    err_ = {c, at};
    io_failed_ = true;
    dead_ = true;
    block_at_ = npos;
    return false;
  }

  // open_block and block_full are out of line, so that write() inlines
  // into the caller's loop.
  BIN_SERIALIZER_NOINLINE bool open_block(target_type& t) {
    if (dead_) return false; // a dead writer never opens a block
    const std::size_t at = t.size();
    if (!t.reserve(at + log_block_header_size)) return fail(t.last_error());
    // A zero magic until the block is sealed: a reader (or a crash) sees an
    // unfinished block, never a half-written one.
    std::memset(reinterpret_cast<unsigned char*>(t.data()) + at, 0, log_block_header_size);
    t.commit_size(at + log_block_header_size);
    block_at_ = at;
    seal_at_ = o_.flush == log_flush::record ? 0 : at + log_block_header_size + o_.block_bytes;
    return true;
  }

  BIN_SERIALIZER_NOINLINE bool block_full() {
    return seal() && (o_.flush == log_flush::manual || flush_output());
  }

  // The payload is >= 128 bytes: its length takes more than the one byte kept.
  BIN_SERIALIZER_NOINLINE bool widen_length(target_type& t, std::size_t at, std::size_t len_at,
                                            std::size_t length) {
    if (length > max_record_payload) {
      t.set_size(at);
      return fail({errc::limit_exceeded, at});
    }
    const std::size_t extra = detail::log::varint_size(length) - 1;
    const std::size_t end = t.size();
    if (!t.reserve(end + extra)) {
      const error e = t.last_error();
      t.set_size(at);
      return fail(e);
    }
    auto* base = reinterpret_cast<unsigned char*>(t.data());
    std::memmove(base + len_at + 1 + extra, base + len_at + 1, length);
    (void)detail::log::put_varint(base + len_at, static_cast<std::uint32_t>(length));
    t.commit_size(end + extra);
    return true;
  }

  bool seal() {
    if (block_at_ == npos) return true;
    auto& t = target();
    const std::size_t len = t.size() - block_at_ - log_block_header_size;
    if (len == 0) {
      t.set_size(block_at_);
    } else {
      detail::log::seal_block(reinterpret_cast<unsigned char*>(t.data()) + block_at_,
                              static_cast<std::uint32_t>(len));
    }
    block_at_ = npos;
    if constexpr (!in_place) {
      const bool ok = stage_.size() == 0 || out_.write(stage_.data(), stage_.size());
      stage_.clear();
      if (!ok) return fail_io(errc::io_error);
    }
    return true;
  }

  bool flush_output() {
    if constexpr (requires(B& b) {
                    { b.flush() } -> std::convertible_to<bool>;
                  }) {
      if (!out_.flush()) return fail_io(errc::io_error);
    }
    return true;
  }

  // A header its writer died before publishing (its bytes, or a prefix of
  // them, the magic perhaps still zero, then zeros): nothing in the output
  // was ever readable, so it is zeroed and a new log begins (cut_bytes() says
  // how much was dropped). False, changing nothing, for any other bytes.
  bool restart_unpublished() {
    const std::string h = detail::log::header_bytes<Schema>(o_.descriptions);
    auto* p = reinterpret_cast<unsigned char*>(out_.data());
    const std::size_t n = out_.size();
    const std::size_t k = detail::log::header_prefix(p, n, h, 0, detail::log::starts_zero(p, n));
    if (!detail::log::all_zero(p + k, n - k)) return false;
    std::memset(p, 0, n);
    cut_ = n;
    out_.set_size(0);
    write_header(h);
    return true;
  }

  // One writer per file: an fd_writer on a regular file is locked (flock,
  // exclusive, not waiting) before the writer reads or writes a byte, and
  // stays locked until the descriptor is closed (a MappedFile took the same
  // lock in open()). If another writer holds it, this one is dead from the
  // start: last_error() is io_error at 0 (errno EWOULDBLOCK) and the output
  // is untouched.
  bool lock_output() {
    if constexpr (requires(B& b) {
                    { b.try_lock_exclusive() } -> std::convertible_to<bool>;
                  }) {
      if (!out_.try_lock_exclusive()) {
        err_ = {errc::io_error, 0};
        dead_ = true;
        return false;
      }
    }
    return true;
  }

  void write_header(std::string h) {
    if constexpr (in_place) {
      // Published like a block: the magic last, so a crash mid-header leaves
      // a log that reads as not yet written (truncated), not a bad header.
      const std::size_t at = out_.size();
      const std::string magic = h.substr(0, 4);
      h.replace(0, 4, 4, '\0');
      if (!out_.write(h.data(), h.size())) {
        (void)fail_io(errc::io_error);
        return;
      }
      std::atomic_thread_fence(std::memory_order_release); // as log::seal_block
      std::memcpy(reinterpret_cast<unsigned char*>(out_.data()) + at, magic.data(), 4);
    } else if (!out_.write(h.data(), h.size())) {
      (void)fail_io(errc::io_error);
    }
  }

  void recover_in_place() {
    log_reader<Schema> in(out_.bytes());
    if (!in.ok() && in.last_error().code == errc::truncated && restart_unpublished()) return;
    if (!detail::log::find_append_point(in, o_.cut_corrupt_tail, err_)) {
      dead_ = true;
      return;
    }
    const std::size_t end = static_cast<std::size_t>(in.valid_end());
    const std::size_t size = out_.size();
    // Zero what is cut, so that bytes of a torn block never reappear after a
    // later crash (a MappedFile's tail is kept until close()).
    if (size > end) std::memset(reinterpret_cast<unsigned char*>(out_.data()) + end, 0, size - end);
    cut_ = size - end;
    out_.set_size(end);
    records_ = 0;
  }

  B& out_;
  log_write_options o_;
  [[no_unique_address]] std::conditional_t<in_place, std::byte, Buffer> stage_{};
  std::size_t block_at_ = npos;
  std::size_t seal_at_ = 0; // seal once the target holds this many bytes
  std::uint64_t records_ = 0;
  std::uint64_t cut_ = 0;
  error err_{};
  bool dead_ = false;
  bool closed_ = false;
  bool io_failed_ = false;
};

} // namespace bin_serializer
