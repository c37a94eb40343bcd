// The I/O adapters: istream_reader / ostream_writer and (Linux) fd_reader /
// fd_writer, with a 64-byte block so that values straddle block refills at
// every offset the fuzzer picks.
//
// Differential, like fuzz_stream: decoding from an adapter must accept exactly
// the inputs a BufferView accepts, stop at the same byte and give the same
// value; a failure is a decoding error, never io_error, and leaves a valid
// object. A second pass decodes the input as a sequence of strings (a log of
// messages) through the adapters and the view, which must agree value by
// value. Every decoded value is written back through the writers, whose
// bytes must equal serialize() into a Buffer.
//
// Memory: the readers cannot tell how much input is left, so counts grow in
// chunks of detail::stream_chunk_bytes as bytes arrive (as in fuzz_stream).
#include "fuzz_common.hpp"
#include "fuzz_types.hpp"

#include <bin_serializer/io.hpp>

#include <cstring>
#include <sstream>
#include <string>

#if defined(__linux__)
#include <sys/mman.h>
#include <unistd.h>
#define FUZZ_IO_HAVE_MEMFD 1
#else
#define FUZZ_IO_HAVE_MEMFD 0
#endif

using namespace fuzz_types;

namespace {

namespace bs = bin_serializer;

constexpr std::size_t block = 64;

using fuzz::same_value;

std::string as_string(fuzz::input in) {
  return std::string(reinterpret_cast<const char*>(in.data()), in.size());
}

#if FUZZ_IO_HAVE_MEMFD
// An anonymous file holding `in`, positioned at its start; -1 if the system
// refuses one (then the fd checks are skipped, they are not what is fuzzed).
int file_with(fuzz::input in) {
  const int fd = memfd_create("fuzz_io", 0);
  if (fd < 0) return -1;
  std::size_t done = 0;
  while (done < in.size()) {
    const ssize_t n = ::write(fd, in.data() + done, in.size() - done);
    if (n <= 0) {
      ::close(fd);
      return -1;
    }
    done += static_cast<std::size_t>(n);
  }
  if (::lseek(fd, 0, SEEK_SET) != 0) {
    ::close(fd);
    return -1;
  }
  return fd;
}

fuzz::bytes file_contents(int fd) {
  fuzz::bytes out;
  FUZZ_CHECK(::lseek(fd, 0, SEEK_SET) == 0);
  std::byte chunk[4096];
  for (;;) {
    const ssize_t n = ::read(fd, chunk, sizeof chunk);
    FUZZ_CHECK(n >= 0);
    if (n == 0) break;
    out.insert(out.end(), chunk, chunk + n);
  }
  return out;
}
#endif

// The writers reproduce serialize() into a Buffer byte for byte.
template <class T>
void check_writers(const T& value) {
  const fuzz::bytes expected = fuzz::encode<bs::native>(value);
  {
    std::ostringstream os;
    bs::basic_ostream_writer<block> out(os);
    FUZZ_CHECK(bs::serialize(out, value));
    FUZZ_CHECK(out.flush());
    FUZZ_CHECK(out.position() == expected.size());
    const std::string got = os.str();
    FUZZ_CHECK(got.size() == expected.size());
    FUZZ_CHECK(got.empty() || std::memcmp(got.data(), expected.data(), got.size()) == 0);
  }
#if FUZZ_IO_HAVE_MEMFD
  const int fd = file_with({});
  if (fd < 0) return;
  {
    bs::basic_fd_writer<block> out(fd);
    FUZZ_CHECK(bs::serialize(out, value));
    FUZZ_CHECK(out.flush());
  }
  FUZZ_CHECK(file_contents(fd) == expected);
  ::close(fd);
#endif
}

template <class Reader, class T>
void check_reader(Reader& reader, bool ok, std::size_t consumed, const T& expected) {
  T value{};
  const bool got = bs::deserialize(reader, value);
  FUZZ_CHECK(got == ok);
  if (ok) {
    FUZZ_CHECK(reader.read_position() == consumed);
    FUZZ_CHECK(same_value(value, expected));
  } else {
    FUZZ_CHECK(fuzz::is_decode_error(reader.last_error().code));
    (void)fuzz::encode<bs::native>(value); // still a valid object
  }
}

template <class T>
void check(fuzz::input in) {
  T expected{};
  bs::BufferView view(in);
  const bool ok = bs::deserialize(view, expected);
  const std::size_t consumed = view.read_position();

  {
    std::istringstream is(as_string(in));
    bs::basic_istream_reader<block> reader(is);
    check_reader(reader, ok, consumed, expected);
  }
#if FUZZ_IO_HAVE_MEMFD
  if (const int fd = file_with(in); fd >= 0) {
    {
      bs::basic_fd_reader<block> reader(fd);
      check_reader(reader, ok, consumed, expected);
    }
    ::close(fd);
  }
#endif
  if (ok) check_writers(expected);
}

// The input as a log of strings: both readers see the same records and end
// at the same place.
template <class Reader>
void check_sequence(fuzz::input in, Reader& reader) {
  bs::BufferView view(in);
  std::string a;
  std::string b;
  for (;;) {
    const bool ok = bs::deserialize(view, a);
    FUZZ_CHECK(bs::deserialize(reader, b) == ok);
    if (!ok) break;
    FUZZ_CHECK(a == b);
    FUZZ_CHECK(reader.read_position() == view.read_position());
    if (view.remaining() == 0) {
      FUZZ_CHECK(reader.at_end());
      break;
    }
  }
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const fuzz::input in = fuzz::as_input(data, size);
  fuzz::guard_scope guard(size, bs::detail::stream_chunk_bytes);

  check<std::string>(in);
  check<std::vector<std::int32_t>>(in);
  check<std::vector<std::string>>(in);
  check<std::map<std::string, std::vector<std::int32_t>>>(in);
  check<std::unordered_set<std::uint32_t>>(in);
  check<std::optional<std::variant<std::int32_t, std::string>>>(in);
  check<workloads::Person>(in);
  check<workloads::Tick>(in);

  {
    std::istringstream is(as_string(in));
    bs::basic_istream_reader<block> reader(is);
    check_sequence(in, reader);
  }
#if FUZZ_IO_HAVE_MEMFD
  if (const int fd = file_with(in); fd >= 0) {
    {
      bs::basic_fd_reader<block> reader(fd);
      check_sequence(in, reader);
    }
    ::close(fd);
  }
#endif
  return 0;
}
