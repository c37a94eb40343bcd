// log_verdicts: what the C++ log readers make of a damaged market log. The
// Python package reads the same damage in python/tests/test_log.py
// (test_damage_read_alike_by_cpp_and_python) and must find the same records
// and the same ends: three implementations of one format, held to one
// answer.
//
// Usage: log_verdicts FILE FROM
//   FILE holds a compact log of workloads/market.hpp's three types. For
//   every offset k from FROM to the file's size, four damages: byte k
//   inverted ("x k"), its bit k % 8 flipped ("b k"), the file cut to k bytes
//   ("c k"), and every byte from k on zeroed ("z k": a memory-mapped writer
//   that died with its file grown ahead of its records). Each is read by
//   log_reader (over the bytes) and log_stream_reader (over an istream, 7
//   bytes at a time through its window), going on after every corruption
//   with resume(). One line per damage and reader:
//
//     x 1234 span 0 1 2 3 | corrupt@1200 | 9 10 | clean@1500
//
//   the records as their index in the mix (market(i), found from the
//   timestamp), then how each stretch ended: clean, torn or corrupt at an
//   offset, "failed" (no log: the header), or "error@offset" for a record
//   that did not decode (the reader goes on after it). Then two lines for a
//   writer that appends to the damaged log ("append", and "append-cut" with
//   cut_corrupt_tail): the log it leaves ("kept SIZE CRC32C") or its refusal
//   ("refused corrupt@1200"), the same in memory (a Buffer) and through a
//   file (open_log_for_append).
#include <bin_serializer/bin_serializer.hpp>
#include <bin_serializer/io/stream.hpp>
#include <bin_serializer/log/fd.hpp>
#include <bin_serializer/log/reader.hpp>
#include <bin_serializer/log/writer.hpp>

#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <span>
#include <sstream>
#include <string>
#include <type_traits>
#include <vector>

#include "workloads/market.hpp"

namespace bs = bin_serializer;

namespace {

using market_log =
    bs::log_schema<bs::compact, workloads::Trade, workloads::Quote, workloads::Status>;

constexpr std::uint64_t first_ts = 1'700'000'000'000'000'000ULL; // market(0).ts

template <class Reader>
std::string verdict(Reader& r) {
  if (!r.ok()) return "failed";
  std::string out;
  for (;;) {
    while (r.visit([&out](const auto& v) {
      out += std::to_string((v.ts - first_ts) / 1000);
      out += ' ';
    })) {
    }
    const auto at = std::to_string(r.end_offset());
    switch (r.end()) {
    case bs::log_end::none: // a record that did not decode: the reader goes on
      out += "| error@" + std::to_string(r.last_error().offset) + " | ";
      continue;
    case bs::log_end::clean: return out + "| clean@" + at;
    case bs::log_end::torn: return out + "| torn@" + at;
    case bs::log_end::corrupt:
      out += "| corrupt@" + at;
      if (!r.resume()) return out;
      out += " | ";
      continue;
    case bs::log_end::failed: return out + "| failed";
    }
  }
}

// A source that hands out at most 7 bytes a call: the stream reader's window
// is refilled at every kind of boundary.
struct trickle {
  std::span<const std::byte> bytes;
  std::size_t at = 0;
  std::size_t read_some(void* dst, std::size_t n) {
    if (n > 7) n = 7;
    if (n > bytes.size() - at) n = bytes.size() - at;
    std::memcpy(dst, bytes.data() + at, n);
    at += n;
    return n;
  }
};

std::string kept(const std::byte* p, std::size_t n) {
  char crc[9];
  std::snprintf(crc, sizeof crc, "%08x", static_cast<unsigned>(bs::crc32c::compute(p, n)));
  return "kept " + std::to_string(n) + " " + crc;
}

std::string refused(const bs::error& e) {
  return "refused " + std::string(bs::error_name(e.code)) + "@" + std::to_string(e.offset);
}

// What a writer appending to the bytes makes of them (log_append over a
// Buffer holding them, with cut_corrupt_tail as given, and no descriptions,
// so that a header it writes anew is the same as Python's), opened and closed
// without a record: "kept SIZE CRC" (the log it leaves: its size and its
// CRC32C) or "refused ERRC@OFFSET". The same bytes in a file given to
// open_log_for_append (which reads them with log_stream_reader) must give
// the same; where they do not, both are printed.
std::string append_verdict(std::span<const std::byte> bytes, bool cut_corrupt_tail) {
  std::string in_memory;
  {
    bs::Buffer buf;
    if (!buf.assign(bytes)) return "no memory";
    bs::log_writer<market_log, bs::Buffer> w(
        buf, bs::log_append, {.descriptions = false, .cut_corrupt_tail = cut_corrupt_tail});
    in_memory = w.close() ? kept(buf.data(), buf.size()) : refused(w.last_error());
  }
  std::string through_fd;
  {
    const std::string path = std::filesystem::temp_directory_path() /
                             ("log_verdicts_" + std::to_string(::getpid()) + ".bsl");
    {
      std::ofstream out(path, std::ios::binary | std::ios::trunc);
      out.write(reinterpret_cast<const char*>(bytes.data()),
                static_cast<std::streamsize>(bytes.size()));
    }
    bs::error e;
    const int fd = bs::open_log_for_append<market_log>(
        path.c_str(), e, {.descriptions = false, .cut_corrupt_tail = cut_corrupt_tail});
    if (fd < 0) {
      through_fd = refused(e);
    } else {
      ::close(fd);
      std::ifstream in(path, std::ios::binary);
      const std::string file((std::istreambuf_iterator<char>(in)),
                             std::istreambuf_iterator<char>());
      through_fd = kept(reinterpret_cast<const std::byte*>(file.data()), file.size());
    }
    std::filesystem::remove(path);
  }
  return through_fd == in_memory ? in_memory : in_memory + " | fd: " + through_fd;
}

void report(const char* what, std::size_t k, std::span<const std::byte> bytes) {
  bs::log_reader<market_log> span_reader(bytes);
  std::printf("%s %zu span %s\n", what, k, verdict(span_reader).c_str());
  trickle source{bytes};
  bs::log_stream_reader<market_log> stream_reader(source);
  std::printf("%s %zu stream %s\n", what, k, verdict(stream_reader).c_str());
  std::printf("%s %zu append %s\n", what, k, append_verdict(bytes, false).c_str());
  std::printf("%s %zu append-cut %s\n", what, k, append_verdict(bytes, true).c_str());
}

} // namespace

int main(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: log_verdicts FILE FROM\n");
    return 2;
  }
  std::ifstream in(argv[1], std::ios::binary);
  const std::string file((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (!in && !in.eof()) {
    std::fprintf(stderr, "cannot read %s\n", argv[1]);
    return 2;
  }
  const std::size_t from = std::strtoull(argv[2], nullptr, 10);
  std::vector<std::byte> bytes(file.size());
  std::memcpy(bytes.data(), file.data(), file.size());
  std::vector<std::byte> zeroed(bytes.size());
  for (std::size_t k = from; k < bytes.size(); ++k) {
    const std::byte was = bytes[k];
    bytes[k] = ~was;
    report("x", k, bytes);
    bytes[k] = was ^ static_cast<std::byte>(1U << (k % 8));
    report("b", k, bytes);
    bytes[k] = was;
    report("c", k, std::span<const std::byte>(bytes).first(k));
    std::memcpy(zeroed.data(), bytes.data(), k); // the rest stays zero
    report("z", k, zeroed);
  }
  return 0;
}
