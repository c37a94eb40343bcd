// Helpers shared by the unit tests.
//
//   hex(bytes) / hex(buffer)   lowercase hex dump, no separators
//   unhex("0a0b")              the bytes back
//   bytes_of(value)            a trivially copyable value's object representation
//   cat(a, b, ...)             byte vectors concatenated
//
// A test executable that needs to observe heap allocations defines
// BIN_SERIALIZER_TEST_COUNT_ALLOCATIONS before including this header (it must
// be included by exactly one translation unit, which every test_*.cpp is). The
// global operator new/delete are then replaced, for that executable only, by
// malloc/free-based versions that count allocations and can be told to make
// the next nothrow allocations fail (Buffer allocates with nothrow new).
#pragma once

#include <bin_serializer/bin_serializer.hpp>
#include <gtest/gtest.h>

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <initializer_list>
#include <ostream>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

// GCC 12 at -O2 reports -Warray-bounds / -Wstringop-overflow inside the
// library's contiguous_writer::write_bytes when a value is serialized into a
// FixedBuffer that statically cannot hold it: it does not see that the
// (noinline) grow step always fails for a fixed capacity, and warns about the
// memcpy after it, which is unreachable. The tests overflow FixedBuffers on
// purpose, so these two warnings are off in the test executables.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Warray-bounds"
#pragma GCC diagnostic ignored "-Wstringop-overflow"
#endif

// Readable gtest output for bin_serializer::error (found by ADL).
namespace bin_serializer {
inline void PrintTo(const error& e, std::ostream* os) {
  *os << "{" << to_string(e.code) << ", offset " << e.offset << "}";
}
} // namespace bin_serializer

namespace test_util {

#ifdef BIN_SERIALIZER_SPEC_DIR
// A framed-message golden file: spec/vectors/framed/<format>/<name>.bin.
inline std::vector<std::byte> read_framed_vector(const std::string& format,
                                                 const std::string& name) {
  const std::filesystem::path p = std::filesystem::path(BIN_SERIALIZER_SPEC_DIR) / "vectors" /
                                  "framed" / format / (name + ".bin");
  std::ifstream in(p, std::ios::binary);
  EXPECT_TRUE(in.good()) << p;
  const std::string s((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::vector<std::byte> out(s.size());
  if (!s.empty()) std::memcpy(out.data(), s.data(), s.size());
  return out;
}
#endif

// An output with write() only (no direct access): the library encodes into it
// field by field, through write() calls.
struct WriteOnlySink {
  std::vector<std::byte> bytes;
  bool write(const void* p, std::size_t n) {
    const auto* b = static_cast<const std::byte*>(p);
    bytes.insert(bytes.end(), b, b + n);
    return true;
  }
};

// An input with read() only (no size, no position, no data()): decoding goes
// through the stream reader, which cannot check a count against the input.
class ReadOnlySource {
public:
  explicit ReadOnlySource(std::span<const std::byte> b) noexcept : b_(b) {}
  bool read(void* dst, std::size_t n) noexcept {
    if (n > b_.size() - pos_) return false;
    if (n != 0) std::memcpy(dst, b_.data() + pos_, n);
    pos_ += n;
    return true;
  }
  [[nodiscard]] std::size_t consumed() const noexcept { return pos_; }

private:
  std::span<const std::byte> b_;
  std::size_t pos_ = 0;
};

// FNV-1a 64 over a byte string, written independently of the library (for
// the schema fingerprint tests, which spell out the token stream).
constexpr std::uint64_t fnv(std::initializer_list<unsigned> bytes) {
  std::uint64_t h = 0xcbf29ce484222325ULL;
  for (unsigned b : bytes) {
    h ^= b;
    h *= 0x100000001b3ULL;
  }
  return h;
}

// n bytes that differ from their neighbours (skip tests check where they land).
inline std::string byte_pattern(std::size_t n) {
  std::string s(n, '\0');
  for (std::size_t i = 0; i < n; ++i) s[i] = static_cast<char>((i * 131 + i / 256) & 0xFF);
  return s;
}

inline std::string hex(std::span<const std::byte> bytes) {
  static constexpr char digits[] = "0123456789abcdef";
  std::string out;
  out.reserve(bytes.size() * 2);
  for (const std::byte b : bytes) {
    const auto v = std::to_integer<unsigned>(b);
    out.push_back(digits[v >> 4U]);
    out.push_back(digits[v & 0xFU]);
  }
  return out;
}

// Buffer, FixedBuffer<N>, BufferView: anything with bytes().
template <class B>
  requires requires(const B& b) { std::span<const std::byte>(b.bytes()); }
std::string hex(const B& buffer) {
  return hex(std::span<const std::byte>(buffer.bytes()));
}

inline std::vector<std::byte> unhex(std::string_view text) {
  const auto nibble = [](char c) -> int {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
  };
  std::vector<std::byte> out;
  if (text.size() % 2 != 0) {
    ADD_FAILURE() << "unhex: odd number of digits in \"" << text << '"';
    return out;
  }
  for (std::size_t i = 0; i < text.size(); i += 2) {
    const int hi = nibble(text[i]);
    const int lo = nibble(text[i + 1]);
    if (hi < 0 || lo < 0) {
      ADD_FAILURE() << "unhex: not a hex digit at " << i << " in \"" << text << '"';
      return {};
    }
    out.push_back(static_cast<std::byte>(hi * 16 + lo));
  }
  return out;
}

template <class T>
  requires std::is_trivially_copyable_v<T>
std::vector<std::byte> bytes_of(const T& value) {
  std::vector<std::byte> out(sizeof(T));
  std::memcpy(out.data(), &value, sizeof(T));
  return out;
}

inline std::vector<std::byte> cat(std::initializer_list<std::span<const std::byte>> parts) {
  std::vector<std::byte> out;
  for (const auto part : parts) out.insert(out.end(), part.begin(), part.end());
  return out;
}

inline std::span<const std::byte> as_bytes(std::string_view s) {
  return std::as_bytes(std::span<const char>(s.data(), s.size()));
}

// The wire form of a std::string as the design document defines it,
// built without the library: [uint64 length][bytes].
inline std::vector<std::byte> string_wire(std::string_view s) {
  return cat({bytes_of(static_cast<std::uint64_t>(s.size())), as_bytes(s)});
}

// Element-wise std::byte vector from integers, for readable expectations.
inline std::vector<std::byte> byte_vec(std::initializer_list<unsigned> values) {
  std::vector<std::byte> out;
  for (const unsigned v : values) out.push_back(static_cast<std::byte>(v));
  return out;
}

inline std::vector<std::byte> to_vector(std::span<const std::byte> bytes) {
  return {bytes.begin(), bytes.end()};
}

} // namespace test_util

#ifdef BIN_SERIALIZER_TEST_COUNT_ALLOCATIONS

#include <atomic>
#include <cstdlib>
#include <new>

namespace test_util {

struct allocation_state {
  std::atomic<std::size_t> count{0};        // every operator new call
  std::atomic<std::size_t> largest{0};      // largest size requested
  std::atomic<std::size_t> fail_nothrow{0}; // nothrow allocations still to fail
};

inline allocation_state& allocations() {
  static allocation_state state;
  return state;
}

inline std::size_t allocation_count() { return allocations().count.load(); }

// The next n nothrow allocations return nullptr (0 turns this off).
inline void fail_next_nothrow_allocations(std::size_t n) { allocations().fail_nothrow.store(n); }

// Counts allocations made between its construction and count().
class AllocationProbe {
public:
  AllocationProbe() noexcept : start_(allocation_count()) { allocations().largest.store(0); }
  [[nodiscard]] std::size_t count() const noexcept { return allocation_count() - start_; }
  [[nodiscard]] std::size_t largest() const noexcept { return allocations().largest.load(); }

private:
  std::size_t start_;
};

inline void note_allocation(std::size_t n) noexcept {
  auto& s = allocations();
  s.count.fetch_add(1);
  std::size_t prev = s.largest.load();
  while (n > prev && !s.largest.compare_exchange_weak(prev, n)) {
  }
}

inline void* allocate(std::size_t n) noexcept {
  note_allocation(n);
  return std::malloc(n == 0 ? 1 : n);
}

inline void* allocate_nothrow(std::size_t n) noexcept {
  auto& s = allocations();
  std::size_t pending = s.fail_nothrow.load();
  while (pending != 0 && !s.fail_nothrow.compare_exchange_weak(pending, pending - 1)) {
  }
  if (pending != 0) {
    note_allocation(n);
    return nullptr;
  }
  return allocate(n);
}

[[noreturn]] inline void out_of_memory() {
#if defined(__cpp_exceptions)
  throw std::bad_alloc();
#else
  std::abort();
#endif
}

} // namespace test_util

// Every non-aligned form is replaced, so each new is paired with the matching
// delete (required for AddressSanitizer's alloc/dealloc matching). noinline:
// GCC would otherwise see free() applied to operator new's result and warn.
[[gnu::noinline]] void* operator new(std::size_t n) {
  if (void* p = test_util::allocate(n)) return p;
  test_util::out_of_memory();
}
[[gnu::noinline]] void* operator new[](std::size_t n) {
  if (void* p = test_util::allocate(n)) return p;
  test_util::out_of_memory();
}
[[gnu::noinline]] void* operator new(std::size_t n, const std::nothrow_t&) noexcept {
  return test_util::allocate_nothrow(n);
}
[[gnu::noinline]] void* operator new[](std::size_t n, const std::nothrow_t&) noexcept {
  return test_util::allocate_nothrow(n);
}
[[gnu::noinline]] void operator delete(void* p) noexcept { std::free(p); }
[[gnu::noinline]] void operator delete[](void* p) noexcept { std::free(p); }
[[gnu::noinline]] void operator delete(void* p, std::size_t) noexcept { std::free(p); }
[[gnu::noinline]] void operator delete[](void* p, std::size_t) noexcept { std::free(p); }
[[gnu::noinline]] void operator delete(void* p, const std::nothrow_t&) noexcept { std::free(p); }
[[gnu::noinline]] void operator delete[](void* p, const std::nothrow_t&) noexcept { std::free(p); }

#endif // BIN_SERIALIZER_TEST_COUNT_ALLOCATIONS
