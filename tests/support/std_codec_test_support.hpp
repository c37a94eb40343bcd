// Helpers shared by the std type-family codec tests (tests/test_std_*.cpp).
//
// Self-contained on purpose (does not need tests/support/test_util.hpp): the hex
// helper is called to_hex so it cannot clash with test_util.hpp's hex().
//
// Define BIN_SERIALIZER_STD_TEST_TRACK_ALLOCATIONS before including this in
// exactly one translation unit of a test executable to replace the global
// operator new with one that records the largest single request.
#pragma once

#include <gtest/gtest.h>

#include <bin_serializer/bin_serializer.hpp>
#include <bin_serializer/std/all.hpp>

#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <new>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#define SKIP_UNLESS_LITTLE_ENDIAN()                                                 \
  do {                                                                              \
    if constexpr (std::endian::native != std::endian::little)                       \
      GTEST_SKIP() << "golden bytes are written for a little-endian host (x86-64)"; \
  } while (false)

namespace std_codec_test {

inline std::string to_hex(std::span<const std::byte> bytes) {
  static constexpr char digits[] = "0123456789abcdef";
  std::string out;
  out.reserve(bytes.size() * 2);
  for (const std::byte b : bytes) {
    const auto v = static_cast<unsigned>(b);
    out.push_back(digits[v >> 4]);
    out.push_back(digits[v & 0xFu]);
  }
  return out;
}

inline std::vector<std::byte> from_hex(std::string_view hex) {
  std::vector<std::byte> out;
  auto nibble = [](char c) -> unsigned {
    if (c >= '0' && c <= '9') return static_cast<unsigned>(c - '0');
    if (c >= 'a' && c <= 'f') return static_cast<unsigned>(c - 'a' + 10);
    if (c >= 'A' && c <= 'F') return static_cast<unsigned>(c - 'A' + 10);
    ADD_FAILURE() << "bad hex digit " << c;
    return 0;
  };
  for (std::size_t i = 0; i + 1 < hex.size(); i += 2)
    out.push_back(static_cast<std::byte>((nibble(hex[i]) << 4) | nibble(hex[i + 1])));
  return out;
}

inline std::vector<std::byte> to_vector(std::span<const std::byte> bytes) {
  return {bytes.begin(), bytes.end()};
}

// A source with only read(): the library uses its stream reader (no take(),
// remaining() unknown, so count prefixes cannot be checked against the input).
class StreamSource {
public:
  explicit StreamSource(std::span<const std::byte> bytes) : bytes_(bytes) {}

  bool read(void* dst, std::size_t n) noexcept {
    ++reads;
    if (n > bytes_.size() - pos_) {
      err_ = {bin_serializer::errc::truncated, pos_};
      return false;
    }
    if (n != 0) std::memcpy(dst, bytes_.data() + pos_, n);
    pos_ += n;
    return true;
  }

  [[nodiscard]] bin_serializer::error last_error() const noexcept { return err_; }
  void set_error(bin_serializer::error e) noexcept { err_ = e; }
  [[nodiscard]] std::size_t consumed() const noexcept { return pos_; }

  std::size_t reads = 0;

private:
  std::span<const std::byte> bytes_;
  std::size_t pos_ = 0;
  bin_serializer::error err_{};
};

// A sink with only write(): the library uses its stream writer, one write()
// per write_bytes call, so `writes` counts the codec's write_bytes calls.
class StreamSink {
public:
  bool write(const void* src, std::size_t n) {
    ++writes;
    const auto* p = static_cast<const std::byte*>(src);
    bytes.insert(bytes.end(), p, p + n);
    return true;
  }

  std::vector<std::byte> bytes;
  std::size_t writes = 0;
};

// Serializes value into a fresh Buffer and checks the size protocol on the way.
template <bin_serializer::options Opts = bin_serializer::native, class T>
std::vector<std::byte> encode(const T& value) {
  bin_serializer::Buffer buf;
  EXPECT_TRUE(bin_serializer::serialize<Opts>(buf, value));
  EXPECT_EQ(bin_serializer::serialized_size<Opts>(value), buf.size());
  if constexpr (bin_serializer::BoundedSize<T, Opts>) {
    EXPECT_LE(buf.size(), (bin_serializer::max_serialized_size_v<T, Opts>));
  }
  return to_vector(buf.bytes());
}

template <bin_serializer::options Opts = bin_serializer::native, class T>
std::string hex_of(const T& value) {
  return to_hex(encode<Opts>(value));
}

// Encodes through Buffer and through the stream writer (same bytes), decodes
// through BufferView and the stream reader, and checks every result equals the
// original. Returns the bytes.
template <bin_serializer::options Opts = bin_serializer::native, class T>
std::vector<std::byte> expect_round_trip(const T& value) {
  const std::vector<std::byte> bytes = encode<Opts>(value);

  StreamSink sink;
  EXPECT_TRUE(bin_serializer::serialize<Opts>(sink, value));
  EXPECT_EQ(to_hex(sink.bytes), to_hex(bytes)) << "stream writer bytes differ";

  {
    bin_serializer::BufferView view(bytes);
    T out{};
    EXPECT_TRUE(bin_serializer::deserialize<Opts>(view, out)) << view.last_error().message();
    EXPECT_EQ(view.read_position(), bytes.size());
    EXPECT_TRUE(out == value) << "contiguous decode differs";
  }
  {
    StreamSource source(bytes);
    T out{};
    EXPECT_TRUE(bin_serializer::deserialize<Opts>(source, out)) << source.last_error().message();
    EXPECT_EQ(source.consumed(), bytes.size());
    EXPECT_TRUE(out == value) << "stream decode differs";
  }
  {
    // Decoding over a target that already holds something replaces it.
    bin_serializer::Buffer buf;
    EXPECT_TRUE(buf.assign(bytes));
    T out = value;
    EXPECT_TRUE(bin_serializer::deserialize<Opts>(buf, out));
    EXPECT_TRUE(out == value) << "decode over a non-empty target differs";
  }
  return bytes;
}

// Every proper prefix of a valid encoding must fail with errc::truncated and
// leave the read position where it was, through BufferView, Buffer and the
// stream reader.
template <class T, bin_serializer::options Opts = bin_serializer::native>
void expect_every_truncation_fails(std::span<const std::byte> bytes) {
  for (std::size_t len = 0; len < bytes.size(); ++len) {
    SCOPED_TRACE("prefix length " + std::to_string(len) + " of " + std::to_string(bytes.size()));
    const auto prefix = bytes.first(len);
    {
      bin_serializer::BufferView view(prefix);
      T out{};
      EXPECT_FALSE(bin_serializer::deserialize<Opts>(view, out));
      EXPECT_EQ(view.read_position(), 0u);
      EXPECT_EQ(view.last_error().code, bin_serializer::errc::truncated);
      EXPECT_LE(view.last_error().offset, len);
    }
    {
      bin_serializer::Buffer buf;
      ASSERT_TRUE(buf.assign(prefix));
      T out{};
      EXPECT_FALSE(bin_serializer::deserialize<Opts>(buf, out));
      EXPECT_EQ(buf.read_position(), 0u);
      EXPECT_EQ(buf.last_error().code, bin_serializer::errc::truncated);
    }
    {
      StreamSource source(prefix);
      T out{};
      EXPECT_FALSE(bin_serializer::deserialize<Opts>(source, out));
      EXPECT_EQ(source.last_error().code, bin_serializer::errc::truncated);
    }
  }
}

// Decoding `hex` as T must fail with `code` at byte `offset`, through a
// BufferView (read position unchanged) and through the stream reader.
template <class T, bin_serializer::options Opts = bin_serializer::native>
void expect_decode_error(std::string_view hex, bin_serializer::errc code, std::size_t offset) {
  const std::vector<std::byte> bytes = from_hex(hex);
  {
    bin_serializer::BufferView view(bytes);
    T out{};
    EXPECT_FALSE(bin_serializer::deserialize<Opts>(view, out));
    EXPECT_EQ(view.read_position(), 0u);
    EXPECT_EQ(view.last_error().code, code) << view.last_error().message();
    EXPECT_EQ(view.last_error().offset, offset);
  }
  {
    StreamSource source(bytes);
    T out{};
    EXPECT_FALSE(bin_serializer::deserialize<Opts>(source, out));
    EXPECT_EQ(source.last_error().code, code) << source.last_error().message();
    if (code != bin_serializer::errc::truncated) {
      EXPECT_EQ(source.last_error().offset, offset);
    }
  }
}

// ---- optional allocation tracking -------------------------------------------

struct allocation_stats {
  static inline std::size_t largest = 0;
  static inline std::size_t total = 0;
  static void reset() noexcept {
    largest = 0;
    total = 0;
  }
  static void note(std::size_t n) noexcept {
    if (n > largest) largest = n;
    total += n;
  }
};

} // namespace std_codec_test

#ifdef BIN_SERIALIZER_STD_TEST_TRACK_ALLOCATIONS
// Replacements of the global allocation functions (one translation unit only).
// The array forms' defaults forward to these. noinline: once inlined, GCC sees
// malloc/free paired with new/delete expressions and warns
// (-Wmismatched-new-delete), not knowing these are the replacements.
[[gnu::noinline]] void* operator new(std::size_t n) {
  std_codec_test::allocation_stats::note(n);
  if (void* p = std::malloc(n == 0 ? 1 : n)) return p;
  std::abort(); // tests never run out of memory on purpose; keep -fno-exceptions builds simple
}
[[gnu::noinline]] void* operator new(std::size_t n, const std::nothrow_t&) noexcept {
  std_codec_test::allocation_stats::note(n);
  return std::malloc(n == 0 ? 1 : n);
}
[[gnu::noinline]] void operator delete(void* p) noexcept { std::free(p); }
[[gnu::noinline]] void operator delete(void* p, std::size_t) noexcept { std::free(p); }
[[gnu::noinline]] void operator delete(void* p, const std::nothrow_t&) noexcept { std::free(p); }
#endif
