// Buffer (heap-backed, growable) and BufferView (read-only cursor), including
// allocation failure: the global operator new is replaced in this executable by
// a counting version that can be told to fail nothrow allocations.
#define BIN_SERIALIZER_TEST_COUNT_ALLOCATIONS
#include "test_util.hpp"

#include <array>
#include <bit>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <utility>
#include <vector>

namespace bs = bin_serializer;
using bs::Buffer;
using bs::BufferView;
using bs::errc;
using bs::error;
using test_util::AllocationProbe;
using test_util::fail_next_nothrow_allocations;
using test_util::hex;
using test_util::to_vector;

namespace {

struct Player {
  float pos[3];
  std::string name;
  std::string bio;
  std::uint32_t score;
  template <class V> auto reflect(V&& v) { return v(pos, name, bio, score); }
  template <class V> auto reflect(V&& v) const { return v(pos, name, bio, score); }
};

Player sample_player() {
  return {{1.5f, -2.0f, 3.25f}, std::string(40, 'n'), std::string(300, 'b'), 77};
}

// Disarms the failure injection even when an assertion returns early.
struct FailureInjection {
  explicit FailureInjection(std::size_t n) { fail_next_nothrow_allocations(n); }
  ~FailureInjection() { fail_next_nothrow_allocations(0); }
  FailureInjection(const FailureInjection&) = delete;
  FailureInjection& operator=(const FailureInjection&) = delete;
};

std::vector<std::byte> pattern(std::size_t n, unsigned seed) {
  std::vector<std::byte> out(n);
  for (std::size_t i = 0; i < n; ++i) out[i] = static_cast<std::byte>((i * 31 + seed) & 0xFFU);
  return out;
}

} // namespace

// ---------------------------------------------------------------- Buffer basics

TEST(Buffer, DefaultIsEmptyAndDoesNotAllocate) {
  const AllocationProbe probe;
  Buffer buf;
  EXPECT_EQ(probe.count(), 0u);
  EXPECT_EQ(buf.size(), 0u);
  EXPECT_EQ(buf.capacity(), 0u);
  EXPECT_TRUE(buf.empty());
  EXPECT_NE(buf.data(), nullptr);
  EXPECT_TRUE(buf.bytes().empty());
  EXPECT_EQ(buf.last_error(), error{});
}

TEST(Buffer, GrowthIsGeometricAndPreservesContents) {
  std::mt19937_64 rng(0x5EEDB0F);
  std::uniform_int_distribution<std::size_t> len(1, 37);
  const auto source = pattern(64, 7);
  std::vector<std::byte> mirror;
  mirror.reserve(200100);
  Buffer buf;
  std::size_t reallocations = 0;
  std::size_t capacity = buf.capacity();
  const AllocationProbe probe;
  while (mirror.size() < 200000) {
    const std::size_t n = len(rng);
    ASSERT_TRUE(buf.write(source.data(), n));
    mirror.insert(mirror.end(), source.begin(), source.begin() + static_cast<std::ptrdiff_t>(n));
    if (buf.capacity() != capacity) {
      ++reallocations;
      if (capacity != 0) {
        EXPECT_GE(buf.capacity(), 2 * capacity) << "growth must be geometric";
      }
      capacity = buf.capacity();
    }
    ASSERT_GE(buf.capacity(), buf.size());
  }
  EXPECT_EQ(probe.count(), reallocations);
  EXPECT_LE(reallocations, 20u) << "200 KB in small writes: about log2(200000 / 64) growths";
  EXPECT_EQ(to_vector(buf.bytes()), mirror);
}

TEST(Buffer, LargeFirstWriteAllocatesEnough) {
  const auto big = pattern(5000, 1);
  Buffer buf;
  ASSERT_TRUE(buf.write(big.data(), big.size()));
  EXPECT_GE(buf.capacity(), 5000u);
  EXPECT_EQ(to_vector(buf.bytes()), big);
}

TEST(Buffer, ReserveKeepsContentsAndAvoidsLaterAllocations) {
  const auto bytes = pattern(100, 3);
  Buffer buf;
  ASSERT_TRUE(buf.write(bytes.data(), 10));
  ASSERT_TRUE(buf.reserve(1000));
  EXPECT_GE(buf.capacity(), 1000u);
  EXPECT_EQ(buf.size(), 10u);
  EXPECT_EQ(hex(buf), hex(std::span(bytes).first(10)));

  const std::size_t cap = buf.capacity();
  const AllocationProbe probe;
  EXPECT_TRUE(buf.reserve(10)); // smaller: nothing to do
  for (std::size_t written = 10; written + 100 <= cap; written += 100)
    ASSERT_TRUE(buf.write(bytes.data(), 100));
  EXPECT_EQ(probe.count(), 0u);
  EXPECT_EQ(buf.capacity(), cap);
}

// clear() resets only the error's code; the offset of an errc::ok reads as 0,
// and the next failure reports its own offset, not the stale one.
TEST(Buffer, ClearedErrorHasNoStaleOffset) {
  Buffer buf;
  ASSERT_TRUE(buf.write("abcdef", 6));
  std::array<std::byte, 8> out{};
  ASSERT_TRUE(buf.seek(4));
  EXPECT_FALSE(buf.read(out.data(), 3));
  EXPECT_EQ(buf.last_error(), (error{errc::truncated, 4}));
  buf.clear();
  EXPECT_EQ(buf.last_error().code, errc::ok);
  EXPECT_EQ(buf.last_error().offset, 0u);
  EXPECT_FALSE(static_cast<bool>(buf.last_error()));
  ASSERT_TRUE(buf.write("ab", 2));
  EXPECT_FALSE(buf.read(out.data(), 3));
  EXPECT_EQ(buf.last_error(), (error{errc::truncated, 0}));
  buf.set_error(error::schema(7, bs::mismatch::fingerprint, 1, 2));
  buf.clear();
  EXPECT_EQ(buf.last_error(), error{});
  EXPECT_EQ(buf.last_error().what(), bs::mismatch::none);
}

TEST(Buffer, ClearKeepsCapacityAndResetsState) {
  const auto bytes = pattern(300, 9);
  Buffer buf;
  ASSERT_TRUE(buf.write(bytes.data(), bytes.size()));
  std::array<std::byte, 8> out{};
  ASSERT_TRUE(buf.read(out.data(), out.size()));
  buf.set_error({errc::truncated, 5});
  const std::size_t cap = buf.capacity();
  buf.clear();
  EXPECT_EQ(buf.size(), 0u);
  EXPECT_EQ(buf.read_position(), 0u);
  EXPECT_EQ(buf.last_error(), error{});
  EXPECT_EQ(buf.capacity(), cap);
  const AllocationProbe probe;
  ASSERT_TRUE(buf.write(bytes.data(), bytes.size()));
  EXPECT_EQ(probe.count(), 0u);
}

TEST(Buffer, MoveConstructionTransfersStorage) {
  const auto bytes = pattern(100, 4);
  Buffer src;
  ASSERT_TRUE(src.write(bytes.data(), bytes.size()));
  ASSERT_TRUE(src.seek(30));
  src.set_error({errc::truncated, 3});
  const std::byte* storage = src.data();
  const std::size_t cap = src.capacity();

  const AllocationProbe probe;
  Buffer dst(std::move(src));
  EXPECT_EQ(probe.count(), 0u);
  EXPECT_EQ(dst.data(), storage) << "moved, not copied";
  EXPECT_EQ(dst.capacity(), cap);
  EXPECT_EQ(to_vector(dst.bytes()), bytes);
  EXPECT_EQ(dst.read_position(), 30u);
  EXPECT_EQ(dst.last_error(), (error{errc::truncated, 3}));

  EXPECT_TRUE(src.empty()); // NOLINT(bugprone-use-after-move): moved-from is empty and reusable
  ASSERT_TRUE(src.write(bytes.data(), 5));
  EXPECT_EQ(hex(src), hex(std::span(bytes).first(5)));
}

TEST(Buffer, MoveAssignmentReleasesOldStorage) {
  const auto a = pattern(70, 1);
  const auto b = pattern(90, 2);
  Buffer first;
  Buffer second;
  ASSERT_TRUE(first.write(a.data(), a.size()));
  ASSERT_TRUE(second.write(b.data(), b.size()));
  const std::byte* storage = second.data();
  first = std::move(second); // first's old block must be freed (LeakSanitizer checks)
  EXPECT_EQ(first.data(), storage);
  EXPECT_EQ(to_vector(first.bytes()), b);
  second.clear(); // NOLINT(bugprone-use-after-move)
  ASSERT_TRUE(second.write(a.data(), a.size()));
  EXPECT_EQ(to_vector(second.bytes()), a);
}

TEST(Buffer, AssignCopiesAndResetsReadPosition) {
  const auto bytes = pattern(200, 5);
  Buffer buf;
  ASSERT_TRUE(buf.write(bytes.data(), 20));
  ASSERT_TRUE(buf.seek(15));
  ASSERT_TRUE(buf.assign(bytes));
  EXPECT_EQ(to_vector(buf.bytes()), bytes);
  EXPECT_EQ(buf.read_position(), 0u);
  EXPECT_NE(buf.data(), bytes.data());

  ASSERT_TRUE(buf.assign({}));
  EXPECT_EQ(buf.size(), 0u);
}

TEST(Buffer, AssignFromItsOwnBytes) {
  const auto bytes = pattern(50, 6);
  Buffer buf;
  ASSERT_TRUE(buf.assign(bytes));
  ASSERT_TRUE(buf.assign(buf.bytes())); // the whole buffer onto itself
  EXPECT_EQ(to_vector(buf.bytes()), bytes);

  ASSERT_TRUE(buf.assign(buf.bytes().subspan(10, 30))); // overlapping tail onto the head
  EXPECT_EQ(to_vector(buf.bytes()), std::vector<std::byte>(bytes.begin() + 10, bytes.begin() + 40));

  Buffer copy;
  ASSERT_TRUE(copy.assign(buf.bytes())); // the documented way to copy a Buffer
  EXPECT_EQ(to_vector(copy.bytes()), to_vector(buf.bytes()));
}

// write(p, 0) / read(p, 0) with p == nullptr (an empty std::vector's data(),
// a default std::span) must be a no-op, not undefined behaviour: run under
// UBSan, a memcpy from or to a null pointer is reported even for 0 bytes.
TEST(Buffer, ZeroLengthWriteAndReadWithNullPointer) {
  const std::vector<std::byte> none;
  Buffer buf;
  EXPECT_TRUE(buf.write(none.data(), none.size()));
  EXPECT_TRUE(buf.read(nullptr, 0));
  const std::byte one{1};
  ASSERT_TRUE(buf.write(&one, 1));
  EXPECT_TRUE(buf.write(nullptr, 0));
  EXPECT_EQ(hex(buf), "01");
  BufferView view(buf.bytes());
  EXPECT_TRUE(view.read(nullptr, 0));
  EXPECT_EQ(view.read_position(), 0u);
}

TEST(Buffer, SeekBounds) {
  const auto bytes = pattern(10, 0);
  Buffer buf;
  ASSERT_TRUE(buf.write(bytes.data(), bytes.size()));
  EXPECT_TRUE(buf.seek(0));
  EXPECT_TRUE(buf.seek(10));
  EXPECT_EQ(buf.remaining(), 0u);
  ASSERT_TRUE(buf.seek(4));
  EXPECT_FALSE(buf.seek(11));
  EXPECT_FALSE(buf.seek(buf.capacity() + 1));
  EXPECT_EQ(buf.read_position(), 4u);
  EXPECT_EQ(buf.remaining(), 6u);
}

TEST(Buffer, ReadPastEndFailsAndKeepsPosition) {
  const auto bytes = pattern(10, 11);
  Buffer buf;
  ASSERT_TRUE(buf.write(bytes.data(), bytes.size()));
  std::array<std::byte, 16> out{};
  out.fill(std::byte{0xEE});
  ASSERT_TRUE(buf.read(out.data(), 7));
  EXPECT_FALSE(buf.read(out.data(), 4));
  EXPECT_EQ(buf.read_position(), 7u);
  EXPECT_EQ(buf.last_error(), (error{errc::truncated, 7}));
  EXPECT_EQ(hex(std::span<const std::byte>(out).subspan(7)), "eeeeeeeeeeeeeeeeee");
  EXPECT_TRUE(buf.read(out.data() + 7, 3));
  EXPECT_EQ(to_vector(std::span(out).first(10)), bytes);
}

TEST(Buffer, SetSizeTruncatesAndClampsReadPosition) {
  const auto bytes = pattern(10, 12);
  Buffer buf;
  ASSERT_TRUE(buf.write(bytes.data(), bytes.size()));
  ASSERT_TRUE(buf.seek(8));
  buf.set_size(5);
  EXPECT_EQ(buf.size(), 5u);
  EXPECT_EQ(buf.read_position(), 5u);
  EXPECT_EQ(hex(buf), hex(std::span(bytes).first(5)));
}

// ------------------------------------------------------------------ BufferView

TEST(BufferView, FromSpanReadsInPlace) {
  const auto bytes = pattern(12, 13);
  BufferView view(bytes);
  EXPECT_EQ(view.data(), bytes.data());
  EXPECT_EQ(view.size(), 12u);
  EXPECT_EQ(view.remaining(), 12u);
  std::array<std::byte, 5> out{};
  ASSERT_TRUE(view.read(out.data(), 5));
  EXPECT_EQ(view.read_position(), 5u);
  EXPECT_EQ(view.remaining(), 7u);
  EXPECT_EQ(to_vector(out), to_vector(std::span(bytes).first(5)));
  EXPECT_EQ(hex(view), hex(bytes)) << "bytes() is the whole view, not the unread part";
}

TEST(BufferView, FromPointerAndSize) {
  const std::uint32_t word = 0xA0B0C0D0u;
  BufferView view(&word, sizeof word);
  std::uint32_t out = 0;
  ASSERT_TRUE(bs::deserialize(view, out));
  EXPECT_EQ(out, word);
  EXPECT_EQ(view.remaining(), 0u);
  EXPECT_FALSE(bs::deserialize(view, out));
  EXPECT_EQ(view.last_error(), (error{errc::truncated, 4}));
  EXPECT_EQ(view.read_position(), 4u);
}

TEST(BufferView, EmptyViews) {
  const std::vector<std::byte> none;
  for (BufferView view : {BufferView{}, BufferView{std::span<const std::byte>{}}, BufferView{none},
                          BufferView{nullptr, 0}}) {
    EXPECT_EQ(view.size(), 0u);
    EXPECT_EQ(view.remaining(), 0u);
    EXPECT_NE(view.data(), nullptr);
    EXPECT_TRUE(view.bytes().empty());
    std::byte b{0x42};
    EXPECT_TRUE(view.read(&b, 0));
    EXPECT_FALSE(view.read(&b, 1));
    EXPECT_EQ(b, std::byte{0x42});
    EXPECT_EQ(view.last_error(), (error{errc::truncated, 0}));
    EXPECT_TRUE(view.seek(0));
    EXPECT_FALSE(view.seek(1));
  }
}

TEST(BufferView, SeekAndReadPastEnd) {
  const auto bytes = pattern(6, 14);
  BufferView view(bytes);
  ASSERT_TRUE(view.seek(6));
  EXPECT_FALSE(view.seek(7));
  ASSERT_TRUE(view.seek(2));
  std::array<std::byte, 8> out{};
  EXPECT_FALSE(view.read(out.data(), 5));
  EXPECT_EQ(view.read_position(), 2u);
  EXPECT_EQ(view.last_error(), (error{errc::truncated, 2}));
  ASSERT_TRUE(view.read(out.data(), 4));
  EXPECT_EQ(to_vector(std::span(out).first(4)), to_vector(std::span(bytes).subspan(2)));
}

TEST(BufferView, OverBufferBytesDecodesWhatBufferHolds) {
  Buffer buf;
  ASSERT_TRUE(bs::serialize(buf, sample_player()));
  BufferView view(buf.bytes());
  Player p{};
  ASSERT_TRUE(bs::deserialize(view, p));
  EXPECT_EQ(view.remaining(), 0u);
  EXPECT_EQ(p.bio, sample_player().bio);
  EXPECT_EQ(buf.read_position(), 0u) << "the view has its own cursor";
}

// A value that is one copy of its object bytes takes BufferView::read
// directly (core/decode.hpp, read_object_directly); a Buffer goes through the
// reader. Both must decode, fail and report alike, at every cut of the input
// and from a read position past the start.
struct Vec3 {
  float x, y, z;
  bool operator==(const Vec3&) const = default;
};
struct Flagged {
  std::uint32_t id;
  bool on;
  bool operator==(const Flagged&) const = default;
};

template <bs::options Opts, class T>
void expect_view_decodes_as_buffer(const T& sample, const T& sentinel) {
  Buffer enc;
  ASSERT_TRUE(bs::serialize<Opts>(enc, sample));
  const std::vector<std::byte> full = to_vector(enc.bytes());
  for (const std::size_t start : {std::size_t{0}, std::size_t{3}}) {
    for (std::size_t cut = 0; cut <= full.size(); ++cut) {
      std::vector<std::byte> input(start, std::byte{0x5A});
      input.insert(input.end(), full.begin(), full.begin() + static_cast<std::ptrdiff_t>(cut));
      BufferView view(input);
      ASSERT_TRUE(view.seek(start));
      Buffer buf;
      ASSERT_TRUE(buf.write(input.data(), input.size()));
      ASSERT_TRUE(buf.seek(start));
      T from_view = sentinel;
      T from_buffer = sentinel;
      const bool ok = bs::deserialize<Opts>(view, from_view);
      EXPECT_EQ(ok, cut == full.size()) << "start " << start << " cut " << cut;
      EXPECT_EQ(ok, bs::deserialize<Opts>(buf, from_buffer));
      EXPECT_TRUE(from_view == from_buffer);
      EXPECT_EQ(view.read_position(), buf.read_position());
      if (ok) {
        EXPECT_TRUE(from_view == sample);
        EXPECT_EQ(view.read_position(), start + full.size());
      } else {
        EXPECT_EQ(view.read_position(), start);
        EXPECT_EQ(view.last_error(), buf.last_error());
        // One copy of the object bytes: nothing written, the failure where
        // the value starts. (Field by field, as portable is on a big-endian
        // host, the fields before the cut are kept and the failure is at the
        // one cut short, as from the Buffer.)
        if constexpr (bs::detail::read_object_directly<Opts, BufferView, T>()) {
          EXPECT_TRUE(from_view == sentinel) << "a failed decode left the value as it was";
          EXPECT_EQ(view.last_error(), (error{errc::truncated, start}));
        }
      }
    }
  }
}

TEST(BufferView, ObjectBytesReadDirectlyFailLikeTheReader) {
  static_assert(bs::detail::read_object_directly<bs::native, BufferView, Vec3>());
  static_assert(bs::detail::read_object_directly<bs::portable, BufferView, Vec3>() ==
                (std::endian::native == std::endian::little));
  static_assert(!bs::detail::read_object_directly<bs::native, Buffer, Vec3>());
  expect_view_decodes_as_buffer<bs::native>(Vec3{1.5f, -2.0f, 3.25f}, Vec3{9.0f, 9.0f, 9.0f});
  expect_view_decodes_as_buffer<bs::portable>(Vec3{1.5f, -2.0f, 3.25f}, Vec3{9.0f, 9.0f, 9.0f});
  expect_view_decodes_as_buffer<bs::native>(std::array<Vec3, 4>{{{1, 2, 3}, {4, 5, 6}}},
                                            std::array<Vec3, 4>{});
  expect_view_decodes_as_buffer<bs::native>(Flagged{7, true}, Flagged{1, false});
  expect_view_decodes_as_buffer<bs::untrusted>(Flagged{7, true}, Flagged{1, false});
}

TEST(BufferView, CodecsOfObjectBytesReadDirectlyFailLikeTheReader) {
  // A codec whose facts say its encoding is its object bytes (std::array of
  // scalars, a chrono duration) is one read() too; one with values to check
  // (std::array<bool, N> when bools are checked) or no bytes (N == 0) is not.
  using Words = std::array<std::uint32_t, 64>;
  static_assert(bs::detail::category_of<bs::native, Words>() == bs::detail::category::codec);
  static_assert(bs::detail::read_object_directly<bs::native, BufferView, Words>());
  static_assert(
      bs::detail::read_object_directly<bs::native, BufferView, std::chrono::milliseconds>());
  static_assert(
      !bs::detail::read_object_directly<bs::untrusted, BufferView, std::array<bool, 4>>());
  static_assert(!bs::detail::read_object_directly<bs::native, BufferView, std::array<int, 0>>());
  static_assert(!bs::detail::read_object_directly<bs::compact, BufferView, Words>());
  Words words{};
  for (std::uint32_t i = 0; i < 64; ++i) words[i] = i * 0x01010101u;
  expect_view_decodes_as_buffer<bs::native>(words, Words{});
  expect_view_decodes_as_buffer<bs::portable>(words, Words{});
  expect_view_decodes_as_buffer<bs::native>(std::chrono::milliseconds{-1234567},
                                            std::chrono::milliseconds{7});
  expect_view_decodes_as_buffer<bs::untrusted>(std::array<bool, 4>{true, false, true, true},
                                               std::array<bool, 4>{});
  // A bool to check in the array: the reader's path, invalid_value at its
  // byte, the elements before it decoded, as from a Buffer.
  const std::array<std::byte, 4> bad{std::byte{1}, std::byte{0}, std::byte{2}, std::byte{1}};
  BufferView view(bad);
  Buffer buf;
  ASSERT_TRUE(buf.write(bad.data(), bad.size()));
  std::array<bool, 4> from_view{false, true, false, false};
  std::array<bool, 4> from_buffer = from_view;
  EXPECT_FALSE(bs::deserialize<bs::untrusted>(view, from_view));
  EXPECT_FALSE(bs::deserialize<bs::untrusted>(buf, from_buffer));
  EXPECT_EQ(view.last_error(), (error{errc::invalid_value, 2}));
  EXPECT_EQ(buf.last_error(), view.last_error());
  EXPECT_EQ(view.read_position(), 0u);
  EXPECT_TRUE(from_view == from_buffer);
  EXPECT_TRUE(from_view[0] && !from_view[1]);
}

TEST(BufferView, ObjectBytesToCheckOrPastTheLimitGoThroughTheReader) {
  // A bool to check (untrusted): the reader's scratch copy, invalid_value at
  // the bad byte, the value untouched.
  static_assert(!bs::detail::read_object_directly<bs::untrusted, BufferView, Flagged>());
  Flagged bad_in{5, true};
  std::array<std::byte, sizeof(Flagged)> bytes{};
  std::memcpy(bytes.data(), &bad_in, sizeof bad_in);
  bytes[offsetof(Flagged, on)] = std::byte{2};
  BufferView view(bytes);
  Flagged out{1, false};
  EXPECT_FALSE(bs::deserialize<bs::untrusted>(view, out));
  EXPECT_EQ(view.last_error(), (error{errc::invalid_value, offsetof(Flagged, on)}));
  EXPECT_EQ(view.read_position(), 0u);
  EXPECT_TRUE(out == (Flagged{1, false}));
  ASSERT_TRUE(bs::deserialize(view, out)) << "unchecked (native), the same bytes are one copy";
  EXPECT_EQ(out.id, 5u);

  // More than max_total_bytes: limit_exceeded, as from any buffer.
  constexpr bs::options small{.max_total_bytes = sizeof(Vec3) - 1};
  static_assert(!bs::detail::read_object_directly<small, BufferView, Vec3>());
  const Vec3 v{1, 2, 3};
  BufferView whole(&v, sizeof v);
  Vec3 got{};
  EXPECT_FALSE(bs::deserialize<small>(whole, got));
  EXPECT_EQ(whole.last_error(), (error{errc::limit_exceeded, 0}));
  constexpr bs::options exact{.max_total_bytes = sizeof(Vec3)};
  static_assert(bs::detail::read_object_directly<exact, BufferView, Vec3>());
  EXPECT_TRUE(bs::deserialize<exact>(whole, got));
  EXPECT_TRUE(got == v);
}

// ----------------------------------------------------------- allocation failure

TEST(BufferAllocationFailure, WriteFallsBackToExactSizeWhenDoublingFails) {
  const auto bytes = pattern(100, 15);
  Buffer buf;
  ASSERT_TRUE(buf.write(bytes.data(), 64));
  ASSERT_EQ(buf.capacity(), 64u);
  {
    const FailureInjection fail(1); // the doubled request fails, the exact one succeeds
    ASSERT_TRUE(buf.write(bytes.data(), 10));
  }
  EXPECT_EQ(buf.capacity(), 74u);
  EXPECT_EQ(hex(buf), hex(std::span(bytes).first(64)) + hex(std::span(bytes).first(10)));
}

TEST(BufferAllocationFailure, WriteReturnsFalseAndLeavesBufferUnchanged) {
  const auto bytes = pattern(100, 16);
  Buffer buf;
  ASSERT_TRUE(buf.write(bytes.data(), 64));
  ASSERT_TRUE(buf.seek(3));
  const std::byte* storage = buf.data();
  {
    const FailureInjection fail(1000);
    EXPECT_FALSE(buf.write(bytes.data(), 1));
    EXPECT_FALSE(buf.write(bytes.data(), 100));
  }
  EXPECT_EQ(buf.last_error(), (error{errc::out_of_memory, 64}));
  EXPECT_EQ(buf.size(), 64u);
  EXPECT_EQ(buf.capacity(), 64u);
  EXPECT_EQ(buf.data(), storage);
  EXPECT_EQ(buf.read_position(), 3u);
  EXPECT_EQ(to_vector(buf.bytes()), to_vector(std::span(bytes).first(64)));

  ASSERT_TRUE(buf.write(bytes.data(), 100)); // allocation works again
  EXPECT_EQ(buf.size(), 164u);
  EXPECT_EQ(hex(std::span(buf.bytes()).subspan(64)), hex(bytes));
}

TEST(BufferAllocationFailure, FirstWriteIntoEmptyBuffer) {
  const auto bytes = pattern(8, 17);
  Buffer buf;
  {
    const FailureInjection fail(1000);
    EXPECT_FALSE(buf.write(bytes.data(), bytes.size()));
  }
  EXPECT_EQ(buf.last_error(), (error{errc::out_of_memory, 0}));
  EXPECT_EQ(buf.size(), 0u);
  EXPECT_EQ(buf.capacity(), 0u);
  ASSERT_TRUE(buf.write(bytes.data(), bytes.size()));
  EXPECT_EQ(to_vector(buf.bytes()), bytes);
}

TEST(BufferAllocationFailure, ReserveReturnsFalseAndLeavesBufferUnchanged) {
  const auto bytes = pattern(20, 18);
  Buffer buf;
  ASSERT_TRUE(buf.write(bytes.data(), bytes.size()));
  const std::size_t cap = buf.capacity();
  {
    const FailureInjection fail(1);
    EXPECT_FALSE(buf.reserve(4096));
  }
  EXPECT_EQ(buf.last_error(), (error{errc::out_of_memory, 20}));
  EXPECT_EQ(buf.capacity(), cap);
  EXPECT_EQ(to_vector(buf.bytes()), bytes);
  ASSERT_TRUE(buf.reserve(4096));
  EXPECT_GE(buf.capacity(), 4096u);
  EXPECT_EQ(to_vector(buf.bytes()), bytes);
}

TEST(BufferAllocationFailure, AssignReturnsFalseAndLeavesBufferUnchanged) {
  const auto small = pattern(10, 19);
  const auto big = pattern(1000, 20);
  Buffer buf;
  ASSERT_TRUE(buf.assign(small));
  {
    const FailureInjection fail(1);
    EXPECT_FALSE(buf.assign(big));
  }
  EXPECT_EQ(buf.last_error().code, errc::out_of_memory);
  EXPECT_EQ(to_vector(buf.bytes()), small);
  ASSERT_TRUE(buf.assign(big));
  EXPECT_EQ(to_vector(buf.bytes()), big);
}

TEST(BufferAllocationFailure, SerializeReturnsFalseAndLeavesBufferUnchanged) {
  Buffer buf;
  ASSERT_TRUE(bs::serialize(buf, std::uint64_t{0x0102030405060708u}));
  ASSERT_TRUE(bs::serialize(buf, std::string("head")));
  const auto before = to_vector(buf.bytes());
  const std::size_t cap = buf.capacity();

  Player big = sample_player();
  big.bio.assign(100000, 'x'); // far beyond the current capacity
  {
    const FailureInjection fail(1000);
    EXPECT_FALSE(bs::serialize(buf, big));
  }
  EXPECT_EQ(buf.last_error().code, errc::out_of_memory);
  EXPECT_EQ(buf.last_error().offset, before.size());
  EXPECT_EQ(buf.size(), before.size());
  EXPECT_EQ(buf.capacity(), cap);
  EXPECT_EQ(to_vector(buf.bytes()), before);

  ASSERT_TRUE(bs::serialize(buf, big));
  std::uint64_t u = 0;
  std::string s;
  Player back{};
  ASSERT_TRUE(bs::deserialize(buf, u) && bs::deserialize(buf, s) && bs::deserialize(buf, back));
  EXPECT_EQ(s, "head");
  EXPECT_EQ(back.bio, big.bio);
  EXPECT_EQ(buf.remaining(), 0u);
}

TEST(BufferAllocationFailure, SerializeOfLargeStringFailsCleanly) {
  Buffer buf;
  ASSERT_TRUE(bs::serialize(buf, std::uint32_t{7}));
  const auto before = to_vector(buf.bytes());
  const std::string huge(1 << 20, 'h');
  {
    const FailureInjection fail(2);
    EXPECT_FALSE(bs::serialize(buf, huge));
  }
  EXPECT_EQ(buf.last_error(), (error{errc::out_of_memory, 4}));
  EXPECT_EQ(to_vector(buf.bytes()), before);
  ASSERT_TRUE(bs::serialize(buf, huge));
  EXPECT_EQ(buf.size(), 4u + 8u + huge.size());
}

// ------------------------------------------------------------- warm buffers

TEST(Buffer, FirstSerializeOfAMessageAllocatesOnce) {
  const Player p = sample_player();
  Buffer buf;
  const AllocationProbe probe;
  ASSERT_TRUE(bs::serialize(buf, p));
  EXPECT_EQ(probe.count(), 1u) << "the message's size is reserved once, not per field";
}

TEST(Buffer, WarmBufferSerializesWithoutAllocating) {
  const Player p = sample_player();
  Player smaller = p;
  smaller.bio.resize(10);
  Buffer buf;
  ASSERT_TRUE(bs::serialize(buf, p));
  const auto first = to_vector(buf.bytes());

  buf.clear();
  const AllocationProbe probe;
  const bool again = bs::serialize(buf, p);
  buf.clear();
  const bool other = bs::serialize(buf, smaller);
  buf.clear();
  const bool third = bs::serialize(buf, p);
  const std::size_t allocations = probe.count();

  EXPECT_TRUE(again && other && third);
  EXPECT_EQ(allocations, 0u);
  EXPECT_EQ(to_vector(buf.bytes()), first);
}
