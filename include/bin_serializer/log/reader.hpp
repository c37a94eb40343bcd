// log_reader<Schema>: the records of a record log (docs/logs.md, format in
// docs/wire-format.md section 13), from bytes in memory (a Buffer, a
// MappedFile, any span); log_stream_reader<Schema> from a file descriptor or
// an istream (io/fd.hpp, io/stream.hpp readers), one block in memory at a time.
//
//   using market_log = bin_serializer::log_schema<bin_serializer::compact, Trade, Quote, Status>;
//   bin_serializer::log_reader<market_log> in(file.bytes());
//   while (in.visit(overloaded{[](const Trade& t) {...}, [](const Quote& q) {...},
//                              [](const Status& s) {...}})) {}
//   switch (in.end()) {
//   case log_end::clean: ...                 // every record was read
//   case log_end::torn: ...                  // a writer died mid-block at in.end_offset()
//   case log_end::corrupt: in.resume(); ...  // bad bytes at in.last_error().offset
//   ...
//
// A record is handed out only from a block whose two CRCs and structure were
// checked, so a crash or a flipped bit never yields a changed record. A record
// of a type the Schema does not hold is errc::unknown_type, never skipped in
// silence (next() hands out any record, with its type index, for readers that
// pick); the log's format is the Schema's, checked once against the header.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "../buffer/buffer.hpp"
#include "../buffer/buffer_view.hpp"
#include "../core/decode.hpp"
#include "format.hpp"

namespace bin_serializer {

struct log_read_options {
  // A block (or type table) longer than this is corruption (errc::corrupt
  // with limit in mind): bounds what a stream reader holds in memory.
  std::size_t max_block_bytes = std::size_t{64} << 20;
  // Where reading starts: 0 for the first block, else a block boundary a
  // reader of the same log reported, valid_end() (a checkpoint, or where to
  // go on reading a log that is still being written). The header is read and
  // checked as always. Before the first block: failed, errc::invalid_value;
  // past the input's end: failed, errc::truncated at its end; between two
  // block boundaries: corruption there, as any bad bytes.
  std::uint64_t start = 0;
  // A block whose magic is still zero (its writer's open block) ends the
  // reading at once as a torn tail, without the search of the rest of the
  // input for a valid block after it (section 13, rule 4) that tells a torn
  // tail from corruption. For a reader of a log its writer still writes in
  // place: a MappedFile grows by doubling, so up to half of the file can be
  // zeros ahead of the writer, read at every poll without this. A zeroed
  // block followed by valid ones (damage) then reads as a torn tail, not as
  // corruption, until a reader without this option reads the file.
  bool open_block_ends = false;
};

// Where reading stopped. none: more records may follow (also after a record
// that failed to decode or was of an unknown type: the next call reads on).
enum class log_end : std::uint8_t {
  none,
  clean,   // no byte left after the last block, or only zero bytes
  torn,    // an unfinished block at end_offset(): every record before it was read
  corrupt, // bad bytes at end_offset(); resume() goes on at the next valid block, if any
  failed,  // no log (bad header, another format), or the source failed (io_error)
};

// One record as found: which type (the file's index and the Schema's, npos
// if the Schema does not hold it), where, and its payload bytes (valid until
// the next call for a stream reader; as long as the input for a span).
struct log_record {
  static constexpr std::size_t npos = static_cast<std::size_t>(-1);
  std::size_t file_type = 0;
  std::size_t type = npos;
  std::uint64_t offset = 0;         // of the record's first byte
  std::uint64_t payload_offset = 0; // of its payload
  std::span<const std::byte> payload;
  // Bytes that may be read from the payload's start (to the end of its block):
  // the decoder's bounds, so that it runs its unchecked fast path; a value
  // that does not end exactly at the payload's end is refused all the same.
  std::size_t readable = 0;
};

namespace detail::log {

// The bytes a reader walks, addressed by their offset in the log: all of a
// caller's span, or a window over a source that is refilled on demand.
class window {
public:
  void view(std::span<const std::byte> bytes) noexcept {
    data_ = reinterpret_cast<const unsigned char*>(bytes.data());
    size_ = bytes.size();
  }
  template <class Src>
  void attach(Src& src) noexcept {
    ctx_ = &src;
    get_ = [](void* c, std::byte* p, std::size_t n) noexcept -> std::size_t {
      return static_cast<Src*>(c)->read_some(p, n);
    };
    failed_ = [](void* c) noexcept -> bool {
      if constexpr (requires(Src& s) { s.failed(); })
        return static_cast<Src*>(c)->failed();
      else
        return false;
    };
    if constexpr (requires(Src& s, std::uint64_t n) {
                    { s.skip(n) } -> std::convertible_to<std::uint64_t>;
                  })
      skip_ = [](void* c, std::uint64_t n) noexcept -> std::uint64_t {
        return static_cast<Src*>(c)->skip(n);
      };
    data_ = reinterpret_cast<const unsigned char*>(own_.data());
  }

  [[nodiscard]] const unsigned char* at(std::uint64_t off) const noexcept {
    return data_ + (off - base_);
  }
  [[nodiscard]] std::size_t avail(std::uint64_t off) const noexcept {
    return off - base_ >= size_ ? 0 : static_cast<std::size_t>(size_ - (off - base_));
  }
  // Makes [off, off + n) available; false if the input ends (or fails) first.
  bool ensure(std::uint64_t off, std::size_t n) noexcept {
    if (avail(off) >= n) [[likely]]
      return true;
    if (get_ == nullptr || ended_) return false;
    return fill(off, n);
  }
  // Bytes before off are not needed any more (a stream reader may drop them).
  // off is never past what was read (skip_to goes further).
  void release(std::uint64_t off) noexcept {
    if (get_ != nullptr && off > keep_) keep_ = off;
  }
  // The offset just past the bytes read so far (a span's size).
  [[nodiscard]] std::uint64_t end() const noexcept { return base_ + size_; }
  // Makes off the next offset to read (off >= every offset released): a
  // span checks that off is within it; a stream skips the bytes before off
  // (a source with skip(n), such as an fd_reader on a file, seeks past them),
  // else reads and drops them. False if the input ends (or fails) before off.
  bool skip_to(std::uint64_t off) noexcept {
    if (get_ == nullptr) return off <= size_;
    if (skip_ != nullptr && end() < off && !ended_) {
      base_ = keep_ = end(); // what was read is dropped
      size_ = 0;
      own_.set_size(0);
      base_ += skip_(ctx_, off - base_);
      keep_ = base_;
    }
    while (end() < off) {
      if (ended_) return false;
      keep_ = end(); // what was read is dropped, then up to 64 KiB more read
      const std::uint64_t left = off - end();
      if (!fill(end(), left < 65536 ? static_cast<std::size_t>(left) : 65536)) return false;
    }
    keep_ = off;
    return true;
  }
  [[nodiscard]] bool source_failed() const noexcept { return failed_ != nullptr && failed_(ctx_); }

private:
  BIN_SERIALIZER_NOINLINE bool fill(std::uint64_t off, std::size_t n) noexcept {
    // Drop what is released, then read until n bytes from off are here.
    const std::size_t drop = keep_ > base_ ? static_cast<std::size_t>(keep_ - base_) : 0;
    if (drop != 0) {
      const std::size_t kept = drop < size_ ? size_ - drop : 0;
      if (kept != 0) std::memmove(own_.data(), own_.data() + drop, kept);
      base_ += drop;
      size_ = kept;
      own_.set_size(kept);
    }
    const std::size_t need = static_cast<std::size_t>(off - base_) + n;
    // Grown as bytes arrive (at most twice what is here, plus 4 KiB), never
    // to a length the input only claims: a lying header costs nothing.
    while (size_ < need) {
      if (own_.capacity() == size_) {
        std::size_t grow = size_ < 4096 ? 4096 : size_;
        if (grow > 1 << 20) grow = 1 << 20;
        const std::size_t want = size_ + grow < need ? size_ + grow : need;
        if (!own_.reserve(want > size_ + 64 ? want : size_ + 64)) return false;
        data_ = reinterpret_cast<const unsigned char*>(own_.data());
      }
      const std::size_t got = get_(ctx_, own_.data() + size_, own_.capacity() - size_);
      if (got == 0) {
        ended_ = true;
        return false;
      }
      size_ += got;
      own_.commit_size(size_); // a later reserve() keeps these bytes
    }
    return true;
  }

  const unsigned char* data_ = nullptr;
  std::size_t size_ = 0;
  std::uint64_t base_ = 0; // log offset of data_[0]
  std::uint64_t keep_ = 0;
  void* ctx_ = nullptr;
  std::size_t (*get_)(void*, std::byte*, std::size_t) noexcept = nullptr;
  bool (*failed_)(void*) noexcept = nullptr;
  std::uint64_t (*skip_)(void*, std::uint64_t) noexcept = nullptr;
  bool ended_ = false;
  Buffer own_;
};

// A record's bytes as the decoder reads them: where it starts, how far it
// may read (rec.readable), its position, and the failure, nothing else. A
// BufferView would do, but makes every record pay for what a view given by a
// caller needs: a pointer that is never null (a payload's always points into
// its block) and a position checked by seek() (the decoder's never passes
// the end).
class payload_source {
public:
  static constexpr bool inline_reader = true; // cursor/reader.hpp
  payload_source(const std::byte* data, std::size_t size) noexcept : data_(data), size_(size) {}

  bool read(void* dst, std::size_t n) noexcept {
    if (n > size_ - pos_) [[unlikely]] {
      err_ = {errc::truncated, pos_};
      return false;
    }
    if (n != 0) std::memcpy(dst, data_ + pos_, n);
    pos_ += n;
    return true;
  }
  [[nodiscard]] const std::byte* data() const noexcept { return data_; }
  [[nodiscard]] std::size_t size() const noexcept { return size_; }
  [[nodiscard]] std::size_t read_position() const noexcept { return pos_; }
  bool seek(std::size_t pos) noexcept {
    pos_ = pos;
    return true;
  }
  void set_error(error e) noexcept { err_ = e; }
  [[nodiscard]] error last_error() const noexcept { return err_; }

private:
  const std::byte* data_;
  std::size_t size_;
  std::size_t pos_ = 0;
  error err_{};
};

} // namespace detail::log

template <class Schema, bool Streamed>
class basic_log_reader {
  static_assert(is_log_schema<Schema>,
                "log_reader<Schema>: Schema is a bin_serializer::log_schema<Opts, Ts...>");
  static constexpr options Opts = Schema::opts;

public:
  using schema = Schema;
  static constexpr std::size_t npos = log_record::npos;

  // From bytes that outlive the reader (log_reader).
  explicit basic_log_reader(std::span<const std::byte> bytes, const log_read_options& o = {})
    requires(!Streamed)
      : max_block_bytes_(o.max_block_bytes), open_block_ends_(o.open_block_ends) {
    win_.view(bytes);
    open(o.start);
  }
  // From a source with std::size_t read_some(void*, std::size_t) (0 at the
  // end): fd_reader, istream_reader (log_stream_reader). The source is borrowed.
  template <class Src>
    requires(Streamed &&
             requires(Src& s, std::byte* p, std::size_t n) {
               { s.read_some(p, n) } -> std::convertible_to<std::size_t>;
             })
  explicit basic_log_reader(Src& source, const log_read_options& o = {})
      : max_block_bytes_(o.max_block_bytes), open_block_ends_(o.open_block_ends) {
    win_.attach(source);
    open(o.start);
  }
  basic_log_reader(const basic_log_reader&) = delete;
  basic_log_reader& operator=(const basic_log_reader&) = delete;

  // The header was read and matches the Schema's format.
  [[nodiscard]] bool ok() const noexcept { return end_ != log_end::failed; }
  [[nodiscard]] error last_error() const noexcept { return err_; }
  [[nodiscard]] log_end end() const noexcept { return end_; }
  // The offset of the torn tail or of the corruption (and of the clean end).
  [[nodiscard]] std::uint64_t end_offset() const noexcept { return end_at_; }
  // The end of the last block read whole: where an appending writer goes on.
  [[nodiscard]] std::uint64_t valid_end() const noexcept { return valid_end_; }

  // The log's type table (the file's type indices), with the descriptions.
  [[nodiscard]] std::span<const log_type_info> types() const noexcept { return types_; }
  // The Schema's index of a file type, npos if the Schema does not hold it.
  [[nodiscard]] std::size_t schema_index(std::size_t file_type) const noexcept {
    return file_type < map_.size() ? map_[file_type] : npos;
  }

  // The next record, whatever its type. False at the end (see end()).
  BIN_SERIALIZER_INLINE bool next(log_record& rec) {
    raw_record r;
    if (!next_raw(r)) return false;
    rec.file_type = r.file_type;
    rec.type = r.type;
    rec.offset = offset_of(r.at);
    rec.payload_offset = rec.offset + r.head;
    rec.payload = {r.payload, r.length};
    rec.readable = r.readable;
    return true;
  }

  // Decodes a record of T (a record of another type: schema_mismatch, or
  // unknown_type if the Schema does not hold its type).
  template <class T>
  BIN_SERIALIZER_INLINE bool decode(const log_record& rec, T& value) {
    static_assert(Schema::template holds<T>,
                  "log_reader::decode<T>: T is not one of the types of this log_schema");
    return decode_payload(
        rec.type, rec.payload.data(), rec.payload.size(), rec.readable,
        [&rec] { return rec.offset; }, rec.payload_offset - rec.offset, value);
  }

  // The next record, which must be a T.
  template <class T>
  BIN_SERIALIZER_INLINE bool read(T& value) {
    log_record rec;
    return next(rec) && decode(rec, value);
  }

  // The next record, decoded into its type and handed to f (f must take
  // every type of the Schema, as const T&). The values are the reader's own
  // and reused record after record: copy what must outlive the call.
  template <class F>
  BIN_SERIALIZER_INLINE bool visit(F&& f) {
    raw_record r;
    if (!next_raw(r)) return false;
    return dispatch(r, f, std::make_index_sequence<Schema::count>{});
  }

  // After log_end::corrupt: goes on at the next valid block. False if none.
  bool resume() noexcept {
    if (end_ != log_end::corrupt || resume_at_ == npos64) return false;
    block_end_ = resume_at_;
    cur_ = block_stop_ = nullptr; // the next call enters the block at resume_at_
    resume_at_ = npos64;
    end_ = log_end::none;
    err_ = {};
    return true;
  }

  // Records handed out so far.
  [[nodiscard]] std::uint64_t records() const noexcept { return records_; }

private:
  static constexpr std::uint64_t npos64 = static_cast<std::uint64_t>(-1);
  static constexpr std::uint64_t gave_up64 = npos64 - 1;
  using values = typename detail::log::values_of<Schema>::type;

  // A record as next_raw finds it: where it starts (its offset is computed
  // only when something is reported), its payload and the Schema's index of
  // its type (npos: a type of the file's table the Schema does not hold).
  struct raw_record {
    const unsigned char* at = nullptr;
    const std::byte* payload = nullptr;
    std::size_t length = 0;
    std::size_t readable = 0; // bytes from the payload to the block's end
    std::size_t type = npos;
    std::size_t file_type = 0;
    // Bytes before the payload. Kept, though payload - at gives it: derived,
    // it costs each record read 1 or 2 instructions (scripts/instructions.sh).
    std::size_t head = 0;
  };

  // The record at p (its header `head` bytes, its payload `length`, `room`
  // bytes from the payload to the block's end), the cursor moved past it.
  BIN_SERIALIZER_INLINE raw_record take_record(const unsigned char* p, std::size_t head,
                                               std::size_t length, std::size_t room,
                                               std::size_t type, std::size_t file_type) noexcept {
    cur_ = p + head + length;
    ++records_;
    return {p, reinterpret_cast<const std::byte*>(p + head), length, room, type, file_type, head};
  }

  // A record header's first byte: a file type index below 128 (a one-byte
  // varint) mapped to the Schema's index of its type, or to short_unknown
  // (in the file's table, not in the Schema); short_absent if not in the
  // table, or the first of a longer varint (0x80 on). One load, no bounds
  // check or continuation test, for a header of two one-byte varints.
  using short_index = std::conditional_t<(Schema::count < 0xFE), std::uint8_t, std::uint16_t>;
  static constexpr short_index short_absent = static_cast<short_index>(~short_index{0});
  static constexpr short_index short_unknown = static_cast<short_index>(short_absent - 1);

  BIN_SERIALIZER_INLINE bool next_raw(raw_record& r) {
    if (cur_ == block_stop_) [[unlikely]] {
      if (!enter_block()) return false;
    }
    const unsigned char* const p = cur_;
    const auto left = static_cast<std::size_t>(block_stop_ - p);
    // A record's structure is checked as it is read (the block's CRCs passed,
    // so a bad one comes from a faulty writer, not from the medium).
    if (left >= 2 && p[1] < 0x80) [[likely]] {
      const std::size_t type = short_map_[p[0]]; // short_absent from 0x80 on
      const std::size_t length = p[1];
      if (type < short_unknown && length <= left - 2) [[likely]] {
        r = take_record(p, 2, length, left - 2, type, p[0]);
        return true;
      }
    }
    // Returned, not written through a reference: r stays in registers.
    r = next_slow();
    return r.at != nullptr;
  }

  // Any other header: longer varints, a type the Schema does not hold, or a
  // record that does not fit its block (or names no type of the table: at
  // is then null).
  BIN_SERIALIZER_NOINLINE raw_record next_slow() {
    const unsigned char* const p = cur_;
    const unsigned char* const end = block_stop_;
    std::uint32_t index = 0, length = 0;
    const std::size_t a = detail::log::get_varint(p, end, index, detail::log::type_index_max_bytes);
    const std::size_t b =
        a == 0 ? 0 : detail::log::get_varint(p + a, end, length, detail::log::length_max_bytes);
    if (b == 0) [[unlikely]] {
      (void)bad_record();
      return {};
    }
    const auto room = static_cast<std::size_t>(end - p) - a - b;
    if (index >= map_.size() || length > room) [[unlikely]] {
      (void)bad_record();
      return {};
    }
    return take_record(p, a + b, length, room, map_[index], index);
  }

  // Decodes a payload of the Schema's type `type` into value, a T;
  // offset() gives the record's offset in the log, `head` its header's
  // length (the payload follows), both only to report a failure.
  template <class T, class Offset>
  BIN_SERIALIZER_INLINE bool decode_payload(std::size_t type, const std::byte* payload,
                                            std::size_t length, std::size_t readable,
                                            const Offset& offset, std::size_t head, T& value) {
    static_assert(!Streamed || !borrows_input_v<T, Opts>,
                  "a log_stream_reader reuses its memory block by block, so a decoded view "
                  "(string_view, span) would dangle: decode into an owning type (std::string, "
                  "std::vector), or read the log from memory with log_reader (a MappedFile)");
    constexpr std::size_t want = Schema::template index_of<T>();
    if (type != want) [[unlikely]] {
      if (type == npos) return fail_record(errc::unknown_type, offset());
      return fail_record(
          error::schema(static_cast<std::size_t>(offset()), mismatch::type_id, want, type));
    }
    detail::log::payload_source in(payload, readable > length ? readable : length);
    if (!deserialize<Opts>(in, value)) [[unlikely]] {
      error e = in.last_error();
      e.offset += static_cast<std::size_t>(offset() + head);
      return fail_record(e);
    }
    if (in.read_position() != length) [[unlikely]]
      return fail_record(errc::invalid_value,
                         static_cast<std::size_t>(offset() + head) + in.read_position());
    return true;
  }

  template <class F, std::size_t... I>
  BIN_SERIALIZER_INLINE bool dispatch(const raw_record& r, F& f, std::index_sequence<I...>) {
    bool ok = false;
    // One comparison per type until the record's: decode into the reader's
    // own value of that type, then hand it over. A type the Schema does not
    // hold matches none.
    const auto one = [&]<std::size_t K>() BIN_SERIALIZER_LAMBDA_INLINE {
      if (r.type != K) return false;
      auto& value = std::get<K>(scratch_);
      ok = decode_payload(
          r.type, r.payload, r.length, r.readable, [this, &r] { return offset_of(r.at); }, r.head,
          value);
      if (ok) f(std::as_const(value));
      return true;
    };
    if (!(one.template operator()<I>() || ...)) [[unlikely]]
      return fail_record(errc::unknown_type, offset_of(r.at));
    return ok;
  }

  // The log offset of a byte of the current block.
  [[nodiscard]] std::uint64_t offset_of(const unsigned char* p) const noexcept {
    return block_end_ - static_cast<std::uint64_t>(block_stop_ - p);
  }

  // A record that does not fit its block (or names no type of the table):
  // corruption there; resume() goes on at the next valid block.
  BIN_SERIALIZER_NOINLINE bool bad_record() {
    const std::uint64_t x = offset_of(cur_);
    cur_ = block_stop_ = nullptr;
    const std::uint64_t found = find_valid_after(block_end_);
    resume_at_ = found == gave_up64 ? npos64 : found;
    return stop(log_end::corrupt, errc::corrupt, static_cast<std::size_t>(x), x);
  }

  bool fail_record(error e) noexcept {
    err_ = e;
    return false;
  }
  bool fail_record(errc c, std::uint64_t at) noexcept {
    err_.code = c;
    err_.offset = static_cast<std::size_t>(at);
    return false;
  }
  bool stop(log_end how, error e, std::uint64_t at) noexcept {
    end_ = how;
    end_at_ = at;
    err_ = e;
    return false;
  }
  bool stop(log_end how, errc c, std::size_t error_at, std::uint64_t at) noexcept {
    end_ = how;
    end_at_ = at;
    err_.code = c;
    err_.offset = error_at;
    return false;
  }

  void open(std::uint64_t start) {
    if (!win_.ensure(0, log_header_size)) {
      (void)stop(log_end::failed, win_.source_failed() ? errc::io_error : errc::truncated, 0, 0);
      return;
    }
    detail::log::file_header h;
    std::size_t bad = 0;
    if (!detail::log::parse_fixed_header(win_.at(0), h, bad)) {
      // A magic of zero bytes: a writer that publishes the header's magic
      // last (MappedFile, Buffer) has not finished it. Not a log yet.
      const bool unwritten = bad == 0 && detail::log::get_le<std::uint32_t>(win_.at(0)) == 0;
      (void)stop(log_end::failed, unwritten ? errc::truncated : errc::bad_header, bad, 0);
      return;
    }
    std::atomic_thread_fence(std::memory_order_acquire); // as log::check_block
    if (h.table_length > max_block_bytes_) {
      (void)stop(log_end::failed, errc::limit_exceeded, 8, 0);
      return;
    }
    if (!win_.ensure(0, log_header_size + h.table_length)) {
      // A declared length longer than the input: truncated at the length.
      (void)stop(log_end::failed, win_.source_failed() ? errc::io_error : errc::truncated, 8, 0);
      return;
    }
    const unsigned char* table = win_.at(log_header_size);
    if (crc32c::extend(crc32c::compute(win_.at(0), 12), table, h.table_length) != h.crc) {
      (void)stop(log_end::failed, errc::bad_header, 12, 0);
      return;
    }
    table_.assign(reinterpret_cast<const char*>(table), h.table_length);
    std::size_t count = 0;
    types_.clear();
    if (!detail::log::parse_table(reinterpret_cast<const unsigned char*>(table_.data()),
                                  table_.size(), count, bad,
                                  [this](const log_type_info& t) { types_.push_back(t); })) {
      (void)stop(log_end::failed, errc::bad_header, log_header_size + bad, 0);
      return;
    }
    map_.assign(count, npos);
    for (std::size_t i = 0; i < count; ++i) {
      for (std::size_t j = 0; j < i; ++j)
        if (types_[j].fingerprint == types_[i].fingerprint &&
            types_[j].message_id == types_[i].message_id) {
          (void)stop(log_end::failed, errc::bad_header, log_header_size, 0);
          return;
        }
      for (std::size_t k = 0; k < Schema::count; ++k)
        if (Schema::fingerprints[k] == types_[i].fingerprint &&
            Schema::message_ids[k] == types_[i].message_id)
          map_[i] = k;
    }
    const detail::log::file_header mine = expected_header();
    if (h.format != mine.format) {
      (void)stop(log_end::failed,
                 error::schema(5, mismatch::format, static_cast<std::uint8_t>(mine.format),
                               static_cast<std::uint8_t>(h.format)),
                 0);
      return;
    }
    if (h.flags != mine.flags) {
      (void)stop(log_end::failed, error::schema(6, mismatch::flags, mine.flags, h.flags), 0);
      return;
    }
    for (std::size_t i = 0; i < short_types; ++i)
      short_map_[i] = i >= count || i >= 0x80 ? short_absent
                      : map_[i] == npos       ? short_unknown
                                              : static_cast<short_index>(map_[i]);
    const std::uint64_t first = log_header_size + h.table_length;
    block_end_ = valid_end_ = first;
    if (start != 0 && start != first) start_at(start, first);
  }

  // log_read_options::start: the window moved to it (a stream reader reads
  // and drops the bytes before it), or the reader failed.
  BIN_SERIALIZER_NOINLINE void start_at(std::uint64_t x, std::uint64_t first) {
    if (x < first) {
      (void)stop(log_end::failed, errc::invalid_value, static_cast<std::size_t>(x), x);
      return;
    }
    if (!win_.skip_to(x)) {
      const std::uint64_t end = win_.end();
      (void)stop(log_end::failed, win_.source_failed() ? errc::io_error : errc::truncated,
                 static_cast<std::size_t>(end), end);
      return;
    }
    block_end_ = valid_end_ = x;
  }

  static detail::log::file_header expected_header() noexcept {
    detail::log::file_header h;
    h.format = Opts.format;
    const bool big = detail::format_of<Opts>::host_layout && !detail::little_endian_host;
    h.flags = big ? log_flag_big_endian : 0;
    return h;
  }

  // Whether a valid block starts at x; sets its body length.
  detail::log::block_state check_at(std::uint64_t x, std::uint32_t& len, std::size_t& bad,
                                    bool walk_records = true) {
    (void)win_.ensure(x, log_block_header_size);
    std::size_t avail = win_.avail(x);
    if (avail >= log_block_header_size) {
      const unsigned char* p = win_.at(x);
      const auto want = detail::log::get_le<std::uint32_t>(p + 4);
      if (detail::log::get_le<std::uint32_t>(p) == log_block_magic && want != 0 &&
          want <= max_block_bytes_ && want <= log_max_body_length &&
          crc32c::compute(p, 12) == detail::log::get_le<std::uint32_t>(p + 12)) {
        (void)win_.ensure(x, log_block_header_size + want);
        avail = win_.avail(x);
      }
    }
    return detail::log::check_block(win_.at(x), avail, types_.size(), max_block_bytes_, len, bad,
                                    walk_records);
  }

  BIN_SERIALIZER_NOINLINE bool enter_block() {
    if (end_ != log_end::none) return false;
    const std::uint64_t x = block_end_;
    win_.release(x);
    std::uint32_t len = 0;
    std::size_t bad = 0;
    const auto st = check_at(x, len, bad, false); // records are checked as read
    if (st == detail::log::block_state::valid) [[likely]] {
      block_end_ = valid_end_ = x + log_block_header_size + len;
      cur_ = win_.at(x + log_block_header_size); // the window holds the whole block until the next
      block_stop_ = cur_ + len;
      return true;
    }
    if (win_.source_failed())
      return stop(log_end::failed, errc::io_error, static_cast<std::size_t>(x), x);
    if (win_.avail(x) == 0)
      return stop(log_end::clean, errc::end_of_stream, static_cast<std::size_t>(x), x);
    return classify(x, st, bad);
  }

  // Rules 2, 4, 5, 6 of section 13 at a boundary x where no valid block is.
  BIN_SERIALIZER_NOINLINE bool classify(std::uint64_t x, detail::log::block_state st,
                                        std::size_t bad) {
    using detail::log::block_state;
    if (open_block_ends_ && st == block_state::zero_magic) // log_read_options::open_block_ends
      return stop(log_end::torn, errc::truncated, static_cast<std::size_t>(x), x);
    // Rule 2: only zero bytes follow.
    std::uint64_t q = x;
    for (;;) {
      if (!win_.ensure(q, 1)) break;
      const std::size_t n = win_.avail(q);
      const unsigned char* p = win_.at(q);
      std::size_t i = 0;
      while (i < n && p[i] == 0) ++i;
      if (i < n) {
        q += i;
        break;
      }
      q += n;
      if (q - x > log_block_header_size) win_.release(q - log_block_header_size);
    }
    if (win_.source_failed())
      return stop(log_end::failed, errc::io_error, static_cast<std::size_t>(q), x);
    if (win_.avail(q) == 0)
      return stop(log_end::clean, errc::end_of_stream, static_cast<std::size_t>(x), x);
    // Rule 4: a valid block further on.
    const std::uint64_t found = find_valid_after(x + 1 > q ? x + 1 : q);
    const auto at = static_cast<std::size_t>(x + bad);
    if (found != npos64) {
      // A log still being written in place (a MappedFile another process
      // maps): the block at x was unpublished when checked, and its writer
      // has sealed it and more since. Blocks are sealed in order, so x is
      // checked again before it is called corrupt (read from memory only:
      // a stream reader's window holds the bytes as they were read).
      if (!Streamed && st == block_state::zero_magic && found != gave_up64) {
        std::uint32_t len = 0;
        std::size_t again = 0;
        if (check_at(x, len, again, false) == block_state::valid) return enter_block();
      }
      resume_at_ = found == gave_up64 ? npos64 : found;
      return stop(log_end::corrupt, errc::corrupt, at, x);
    }
    // Rule 5: unfinished; rule 6: complete and bad.
    if (st == block_state::short_header || st == block_state::zero_magic ||
        st == block_state::body_short)
      return stop(log_end::torn, errc::truncated, static_cast<std::size_t>(x), x);
    return stop(log_end::corrupt, errc::corrupt, at, x);
  }

  static const unsigned char* find_magic(const unsigned char* p, std::size_t n,
                                         const unsigned char (&m)[4]) noexcept {
    const unsigned char* const end = p + n;
    while (end - p >= 4) {
      const auto* c = static_cast<const unsigned char*>(
          std::memchr(p, m[0], static_cast<std::size_t>(end - p) - 3));
      if (c == nullptr) return nullptr;
      if (std::memcmp(c, m, 4) == 0) return c;
      p = c + 1;
    }
    return nullptr;
  }

  // The first valid block at or after `from`, npos64 if there is none, or
  // gave_up64 when the search has checksummed more than its budget of bodies:
  // a forged input can hold a candidate header (magic and head CRC are easy
  // to make) every few bytes, each claiming a body up to max_block_bytes, and
  // checking them all would take time quadratic in the input. The budget is
  // linear in the bytes searched; beyond it the damage is reported as
  // corruption with nowhere to resume, never as a torn tail.
  std::uint64_t find_valid_after(std::uint64_t from) {
    static constexpr unsigned char magic[4] = {0x42, 0x53, 0x4C, 0x42};
    std::uint64_t q = from;
    std::uint64_t checked = 0; // body bytes checksummed so far
    while (win_.ensure(q, 4)) {
      const std::size_t n = win_.avail(q);
      const unsigned char* hit = find_magic(win_.at(q), n, magic);
      if (hit == nullptr) {
        q += n - 3;
        win_.release(q);
        continue;
      }
      q += static_cast<std::size_t>(hit - win_.at(q));
      win_.release(q);
      std::uint32_t len = 0;
      std::size_t bad = 0;
      const auto st = check_at(q, len, bad);
      if (st == detail::log::block_state::valid) return q;
      if (st == detail::log::block_state::bad_body_crc ||
          st == detail::log::block_state::bad_record) {
        checked += detail::log::get_le<std::uint32_t>(win_.at(q) + 4);
        if (checked > 4 * (q - from) + 2 * std::uint64_t{max_block_bytes_}) return gave_up64;
      }
      ++q;
    }
    return npos64;
  }

  // The options kept after open() (open_block_ends_ is declared last). (The
  // options are taken by reference: by value, clang 19 spent 3 more
  // instructions a record in the visit loop of a reader made with the
  // defaults, bench/instructions/log_ops.cpp.)
  std::size_t max_block_bytes_;
  detail::log::window win_;
  std::string table_;
  std::vector<log_type_info> types_;
  std::vector<std::size_t> map_;
  // Within the current block: the next record and the block's end. The
  // window does not move while a block is read (it refills only between).
  const unsigned char* cur_ = nullptr;
  const unsigned char* block_stop_ = nullptr;
  std::uint64_t block_end_ = 0;
  std::uint64_t valid_end_ = 0;
  std::uint64_t end_at_ = 0;
  std::uint64_t resume_at_ = npos64;
  std::uint64_t records_ = 0;
  log_end end_ = log_end::none;
  error err_{};
  values scratch_{};
  static constexpr std::size_t short_types = 256; // 128 one-byte varints, then absent
  short_index short_map_[short_types];            // set by open() before any record is read
  bool open_block_ends_; // last: the members the loops use keep their offsets
};

template <class Schema>
using log_reader = basic_log_reader<Schema, false>;
template <class Schema>
using log_stream_reader = basic_log_reader<Schema, true>;

} // namespace bin_serializer
