// Record logs: arbitrary bytes read as a log of two types (a fixed-size one
// and one with strings), from memory and through an istream. Mode byte 0:
// the bytes as they are (CRCs almost never pass: the header and block checks
// are what is fuzzed). Mode byte 1: the header's and every block's CRCs are
// recomputed first, so the records, lengths and payloads behind them are
// fuzzed too. Checks: the readers end in a defined state with a reason, the
// memory and stream readers return the same records and the same end, every
// record's bytes lie inside the input, the records read re-encode through
// a log_writer into a log that reads back to the same values, and appending
// a record to the bytes (mode bit 1: with cut_corrupt_tail) is refused with
// the bytes unchanged or gives a log of the records read plus the new one.
// Reading from a block boundary (log_read_options::start): see check_start;
// a writer's open block ending each reading (open_block_ends): see
// check_open_block_ends.
// The same bytes, as text, go through the type-description reader an
// appending writer uses (check_description).
#include "fuzz_common.hpp"

#include <bin_serializer/io/stream.hpp>
#include <bin_serializer/log/reader.hpp>
#include <bin_serializer/log/writer.hpp>

#include <algorithm>
#include <sstream>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "workloads/evolving.hpp"
#include "workloads/market.hpp"

namespace {

namespace bs = bin_serializer;

// Two of the market mix's types: a fixed-size one and one with strings.
using Fix = workloads::Trade;
using Text = workloads::Status;
using S = bs::log_schema<bs::compact, Fix, Text>;
using record = std::variant<Fix, Text>;

std::uint32_t le32(const unsigned char* p) {
  return std::uint32_t{p[0]} | std::uint32_t{p[1]} << 8 | std::uint32_t{p[2]} << 16 |
         std::uint32_t{p[3]} << 24;
}
void put32(unsigned char* p, std::uint32_t v) {
  for (int i = 0; i < 4; ++i) p[i] = static_cast<unsigned char>(v >> (8 * i));
}

// Recomputes the header CRC and the CRCs of every block the lengths walk to.
void fix_crcs(std::vector<unsigned char>& b) {
  if (b.size() < 16) return;
  const std::size_t table = le32(b.data() + 8);
  if (table > b.size() - 16) return;
  put32(b.data() + 12, bs::crc32c::extend(bs::crc32c::compute(b.data(), 12), b.data() + 16, table));
  std::size_t at = 16 + table;
  while (b.size() - at >= 16) {
    const std::size_t len = le32(b.data() + at + 4);
    if (len > b.size() - at - 16) break;
    put32(b.data() + at + 8, bs::crc32c::compute(b.data() + at + 16, len));
    put32(b.data() + at + 12, bs::crc32c::compute(b.data() + at, 12));
    at += 16 + len;
  }
}

struct outcome {
  std::vector<record> records;
  std::vector<std::uint64_t> offsets;
  bs::log_end end = bs::log_end::none;
  bs::error error;
};

template <class R>
outcome drain(R& r, std::size_t size) {
  outcome out;
  for (int guard = 0; guard < 1'000'000; ++guard) {
    bs::log_record rec;
    if (r.next(rec)) {
      FUZZ_CHECK(rec.offset < size && rec.payload_offset <= size &&
                 rec.payload.size() <= size - rec.payload_offset);
      out.offsets.push_back(rec.offset);
      if (rec.type == 0) {
        Fix v;
        if (r.decode(rec, v)) out.records.emplace_back(v);
      } else if (rec.type == 1) {
        Text v;
        if (r.decode(rec, v)) out.records.emplace_back(v);
      }
      continue;
    }
    if (r.end() == bs::log_end::corrupt && r.resume()) continue;
    break;
  }
  out.end = r.end();
  out.error = r.last_error();
  FUZZ_CHECK(out.end != bs::log_end::none);
  switch (out.end) {
  case bs::log_end::clean: FUZZ_CHECK(out.error.code == bs::errc::end_of_stream); break;
  case bs::log_end::torn: FUZZ_CHECK(out.error.code == bs::errc::truncated); break;
  case bs::log_end::corrupt: FUZZ_CHECK(out.error.code == bs::errc::corrupt); break;
  case bs::log_end::failed:
    FUZZ_CHECK(out.error.code == bs::errc::bad_header || out.error.code == bs::errc::truncated ||
               out.error.code == bs::errc::schema_mismatch ||
               out.error.code == bs::errc::limit_exceeded ||
               out.error.code == bs::errc::invalid_value); // a start inside the header

    break;
  case bs::log_end::none: break;
  }
  return out;
}

// Appending one record to the bytes (log_append): refused with the bytes as
// they were, or the log then reads as the records read before, then the new
// one, and ends cleanly.
void check_append(std::span<const std::byte> bytes, const outcome& before, bool cut_corrupt_tail) {
  bs::Buffer buf;
  FUZZ_CHECK(buf.assign(bytes));
  const Fix extra{42, -7, 3, 'S'};
  {
    bs::log_writer<S, bs::Buffer> w(buf, bs::log_append,
                                    {.block_bytes = 64, .cut_corrupt_tail = cut_corrupt_tail});
    if (!w.write(extra)) {
      FUZZ_CHECK(buf.size() == bytes.size() &&
                 (bytes.empty() || std::memcmp(buf.data(), bytes.data(), bytes.size()) == 0));
      const bs::errc e = w.last_error().code;
      FUZZ_CHECK(e == bs::errc::bad_header || e == bs::errc::truncated ||
                 e == bs::errc::schema_mismatch || e == bs::errc::limit_exceeded ||
                 e == bs::errc::corrupt);
      return;
    }
    FUZZ_CHECK(w.close());
  }
  bs::log_reader<S> after(buf.bytes(), {.max_block_bytes = 1 << 20});
  const outcome c = drain(after, buf.size());
  FUZZ_CHECK(c.end == bs::log_end::clean);
  std::vector<record> want = before.records;
  want.emplace_back(extra);
  FUZZ_CHECK(c.records == want);
}

// An istream_reader without its skip(): the log reader reads and drops.
struct reading_source {
  bs::istream_reader& in;
  std::size_t read_some(void* p, std::size_t n) { return in.read_some(p, n); }
};

// log_read_options::start. From where a whole read ended (valid_end()), a
// reader reads no record and ends the same way. From any offset, the memory
// and stream readers agree (a stream reader seeks past the bytes before it,
// or reads and drops them where its source cannot seek), and an offset
// inside the header or past the end fails.
void check_start(std::span<const std::byte> span, const outcome& whole, std::uint64_t valid_end,
                 std::uint64_t first) {
  const auto from = [&](std::uint64_t start) {
    bs::log_reader<S> mem(span, {.max_block_bytes = 1 << 20, .start = start});
    outcome m = drain(mem, span.size());
    std::istringstream is(std::string(reinterpret_cast<const char*>(span.data()), span.size()));
    bs::istream_reader in(is);
    bs::log_stream_reader<S> stream(in, {.max_block_bytes = 1 << 20, .start = start});
    const outcome t = drain(stream, span.size());
    FUZZ_CHECK(m.records == t.records && m.offsets == t.offsets && m.end == t.end);
    FUZZ_CHECK(m.error.code == t.error.code && m.error.offset == t.error.offset);
    std::istringstream is2(std::string(reinterpret_cast<const char*>(span.data()), span.size()));
    bs::istream_reader in2(is2);
    reading_source src{in2};
    bs::log_stream_reader<S> dropping(src, {.max_block_bytes = 1 << 20, .start = start});
    const outcome d = drain(dropping, span.size());
    FUZZ_CHECK(m.records == d.records && m.offsets == d.offsets && m.end == d.end);
    FUZZ_CHECK(m.error.code == d.error.code && m.error.offset == d.error.offset);
    for (const std::uint64_t o : m.offsets) FUZZ_CHECK(o >= start);
    return m;
  };
  if (whole.end == bs::log_end::clean || whole.end == bs::log_end::torn) {
    const outcome rest = from(valid_end);
    FUZZ_CHECK(rest.records.empty() && rest.end == whole.end);
    FUZZ_CHECK(rest.error.code == whole.error.code && rest.error.offset == whole.error.offset);
  }
  const std::uint64_t span_end = span.size();
  const std::uint64_t x =
      first + (static_cast<std::uint64_t>(span.back()) * 131 + span_end) % (span_end - first + 2);
  const outcome any = from(x);
  if (x > span_end) FUZZ_CHECK(any.end == bs::log_end::failed && any.error.offset == span_end);
  if (first > 1) {
    const outcome inside = from(first - 1);
    FUZZ_CHECK(inside.end == bs::log_end::failed && inside.error.code == bs::errc::invalid_value);
  }
}

// log_read_options::open_block_ends (what a follower sets while a writer
// holds the file): reading is the same as without it up to the first block
// whose magic is zero, and ends there as a torn tail. So it gives the whole
// reading's records before that block, and if it ends in any other way, the
// whole reading itself; the memory and stream readers agree.
void check_open_block_ends(std::span<const std::byte> span, const outcome& whole) {
  bs::log_reader<S> mem(span, {.max_block_bytes = 1 << 20, .open_block_ends = true});
  const outcome o = drain(mem, span.size());
  std::istringstream is(std::string(reinterpret_cast<const char*>(span.data()), span.size()));
  bs::istream_reader in(is);
  bs::log_stream_reader<S> stream(in, {.max_block_bytes = 1 << 20, .open_block_ends = true});
  const outcome t = drain(stream, span.size());
  FUZZ_CHECK(o.records == t.records && o.offsets == t.offsets && o.end == t.end);
  FUZZ_CHECK(o.error.code == t.error.code && o.error.offset == t.error.offset);
  if (o.end != bs::log_end::torn) {
    FUZZ_CHECK(o.records == whole.records && o.offsets == whole.offsets && o.end == whole.end);
    FUZZ_CHECK(o.error.code == whole.error.code && o.error.offset == whole.error.offset);
    return;
  }
  const std::uint64_t x = o.error.offset; // the block where it ended
  const auto before = static_cast<std::size_t>(
      std::lower_bound(whole.offsets.begin(), whole.offsets.end(), x) - whole.offsets.begin());
  FUZZ_CHECK(o.offsets.size() == before &&
             std::equal(o.offsets.begin(), o.offsets.end(), whole.offsets.begin()));
  FUZZ_CHECK(o.records.size() <= whole.records.size() &&
             std::equal(o.records.begin(), o.records.end(), whole.records.begin()));
  if (whole.end == bs::log_end::torn) FUZZ_CHECK(whole.error.offset >= x);
}

void check(const std::vector<unsigned char>& bytes, bool cut_corrupt_tail) {
  const std::span<const std::byte> span(reinterpret_cast<const std::byte*>(bytes.data()),
                                        bytes.size());
  bs::log_reader<S> mem(span, {.max_block_bytes = 1 << 20});
  const std::uint64_t first = mem.valid_end(); // before any record: where the blocks start
  const outcome a = drain(mem, bytes.size());
  if (a.end != bs::log_end::failed) check_start(span, a, mem.valid_end(), first);
  check_open_block_ends(span, a);

  std::istringstream is(std::string(reinterpret_cast<const char*>(bytes.data()), bytes.size()));
  bs::istream_reader in(is);
  bs::log_stream_reader<S> stream(in, {.max_block_bytes = 1 << 20});
  const outcome b = drain(stream, bytes.size());
  FUZZ_CHECK(a.records == b.records);
  FUZZ_CHECK(a.offsets == b.offsets);
  FUZZ_CHECK(a.end == b.end);
  FUZZ_CHECK(a.error.code == b.error.code && a.error.offset == b.error.offset);

  check_append(span, a, cut_corrupt_tail);

  if (a.records.empty()) return;
  bs::Buffer again;
  {
    bs::log_writer<S, bs::Buffer> w(again, {.block_bytes = 64, .descriptions = false});
    for (const record& r : a.records)
      FUZZ_CHECK(std::visit([&w](const auto& v) { return w.write(v); }, r));
    FUZZ_CHECK(w.close());
  }
  bs::log_reader<S> back(again.bytes());
  const outcome c = drain(back, again.size());
  FUZZ_CHECK(c.end == bs::log_end::clean);
  FUZZ_CHECK(c.records == a.records);
}

} // namespace

// The description reader an appending writer runs over a file's type
// descriptions (log/described.hpp), over the same bytes as text: it ends,
// true or false, within its budget; and a description whose nodes have
// distinct paths describes itself (a key given twice may not: the last of
// two equal paths counts).
void check_description(std::string_view text) {
  namespace dl = bs::detail::log;
  std::vector<dl::evolvable_node> nodes;
  const bool ok = dl::evolvable_scan(text).run(nodes);
  std::size_t kept = 0;
  for (const auto& n : nodes) kept += n.path.size() + n.versions.size() * sizeof(std::uint64_t);
  FUZZ_CHECK(kept <= dl::evolvable_scan::max_stored);
  // As a writer of a type holding evolvable structs compares (any answer).
  static const std::string mine = bs::schema_json<workloads::ProfileV3, bs::compact>();
  std::uint64_t described = 0, writes = 0;
  (void)dl::describes_evolvable_nodes(text, mine, described, writes);
  if (!ok || nodes.empty()) return;
  std::vector<std::string> paths;
  for (const auto& n : nodes) paths.push_back(n.path);
  std::sort(paths.begin(), paths.end());
  if (std::adjacent_find(paths.begin(), paths.end()) == paths.end())
    FUZZ_CHECK(dl::describes_evolvable_nodes(text, text, described, writes));
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const fuzz::input in = fuzz::as_input(data, size);
  fuzz::guard_scope guard(size);
  if (in.empty()) return 0;
  check_description(std::string_view(reinterpret_cast<const char*>(data) + 1, size - 1));
  std::vector<unsigned char> bytes(data + 1, data + size);
  if ((data[0] & 1) != 0) fix_crcs(bytes);
  check(bytes, (data[0] & 2) != 0);
  return 0;
}
