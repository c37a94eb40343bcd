// serialize() into a std::ostream, deserialize() from a std::istream.
//
//   std::ofstream file("people.bin", std::ios::binary);
//   bin_serializer::ostream_writer out(file);
//   bool ok = serialize(out, person) && out.flush();
//
//   std::ifstream in_file("people.bin", std::ios::binary);
//   bin_serializer::istream_reader in(in_file);
//   bool ok = deserialize(in, person);
//
// Both adapters buffer through an inline block (basic_*<N>: N bytes, 8 KiB by
// default), so a field is a memcpy and the stream sees one call per block.
// This is the only library header that includes <istream>/<ostream>.
//
// Errors: a stream that goes bad (badbit/failbit on write, badbit on read) is
// errc::io_error; input that ends inside a value is errc::truncated. Offsets
// count bytes from where the adapter started. Stream exceptions must stay
// disabled (the default): the adapters test the state flags.
//
// After a failure:
//   - writer: bytes of the failed value may already be in the stream (a
//     stream cannot be rolled back). For all-or-nothing output serialize into
//     a Buffer first and write its bytes() in one call. After an io_error the
//     writer stays failed.
//   - reader: a failed deserialize() leaves the read position at the value's
//     first byte whenever the bytes the stream delivered from there fit in
//     the block (N bytes), whatever length a prefix claims. Only a value
//     whose delivered bytes really exceed N cannot be rewound: the position
//     is then inside it and in_sync() returns false (until a successful
//     seek()). Either way the input is bad at that point: only framing lets
//     a reader resynchronise.
#pragma once

#include <cstddef>
#include <cstdint>
#include <istream>
#include <ostream>

#include "block_io.hpp"

namespace bin_serializer {

namespace detail {

struct ostream_sink {
  std::ostream* os;
  explicit ostream_sink(std::ostream& s) noexcept : os(&s) {}

  bool put(const std::byte* p, std::size_t n) noexcept {
    if (!*os) return false;
    os->write(reinterpret_cast<const char*>(p), static_cast<std::streamsize>(n));
    return !os->fail();
  }
  bool flush() noexcept {
    if (!*os) return false;
    os->flush();
    return !os->fail();
  }
};

struct istream_source {
  std::istream* is;
  explicit istream_source(std::istream& s) noexcept : is(&s) {}

  std::size_t get(std::byte* p, std::size_t min, std::size_t max, bool& failed) noexcept {
    // Ask for what is needed plus what the stream says it holds already, so a
    // refill never waits on an interactive stream for bytes nobody needs yet.
    std::size_t want = min;
    const std::streamsize ready = is->rdbuf() != nullptr ? is->rdbuf()->in_avail() : 0;
    if (ready > 0 && static_cast<std::size_t>(ready) > want)
      want = static_cast<std::size_t>(ready) < max ? static_cast<std::size_t>(ready) : max;
    if (!is->good()) {
      failed = is->bad();
      return 0;
    }
    is->read(reinterpret_cast<char*>(p), static_cast<std::streamsize>(want));
    const auto got = static_cast<std::size_t>(is->gcount());
    failed = is->bad();
    return got;
  }

  // Seeks up to n bytes on, never past the stream's end now, where the
  // stream can seek (files, string streams); no_skip where it cannot.
  std::uint64_t skip(std::uint64_t n, bool& failed) noexcept {
    std::streambuf* b = is->rdbuf();
    if (b == nullptr || !is->good()) return no_skip;
    constexpr auto in = std::ios_base::in;
    const std::streamoff here = b->pubseekoff(0, std::ios_base::cur, in);
    if (here < 0) return no_skip;
    const std::streamoff end = b->pubseekoff(0, std::ios_base::end, in);
    std::uint64_t step = 0;
    if (end > here) {
      const auto left = static_cast<std::uint64_t>(end - here);
      step = n < left ? n : left;
    }
    // Back to here (plus the step): the end was sought to learn the size.
    if (b->pubseekoff(here + static_cast<std::streamoff>(step), std::ios_base::beg, in) < 0) {
      is->setstate(std::ios_base::badbit);
      failed = true;
      return 0;
    }
    return end < 0 ? no_skip : step;
  }
};

} // namespace detail

// Buffered output to a std::ostream. Call flush() before destroying it and
// check the result: the destructor flushes too but cannot report failure.
// The stream must outlive the writer.
template <std::size_t N = 8192>
class basic_ostream_writer : public detail::block_writer<detail::ostream_sink, N> {
public:
  explicit basic_ostream_writer(std::ostream& os) noexcept
      : detail::block_writer<detail::ostream_sink, N>(os) {}
  [[nodiscard]] std::ostream& stream() noexcept { return *this->sink().os; }
};

// Buffered input from a std::istream. It reads ahead: bytes past the last
// value read may sit in its block, so the istream's own position is not the
// reader's. The stream must outlive the reader.
template <std::size_t N = 8192>
class basic_istream_reader : public detail::block_reader<detail::istream_source, N> {
public:
  explicit basic_istream_reader(std::istream& is) noexcept
      : detail::block_reader<detail::istream_source, N>(is) {}
  [[nodiscard]] std::istream& stream() noexcept { return *this->source().is; }
};

using ostream_writer = basic_ostream_writer<>;
using istream_reader = basic_istream_reader<>;

} // namespace bin_serializer
