// FixedBuffer<N>: inline storage, bounds-checked write/read, never allocates.
#define BIN_SERIALIZER_TEST_COUNT_ALLOCATIONS
#include "test_util.hpp"

#include <array>
#include <cstdint>
#include <string>

namespace bs = bin_serializer;
using bs::errc;
using bs::error;
using bs::FixedBuffer;
using test_util::byte_vec;
using test_util::hex;
using test_util::to_vector;

namespace {

constexpr std::array<std::byte, 8> eight{std::byte{1}, std::byte{2}, std::byte{3}, std::byte{4},
                                         std::byte{5}, std::byte{6}, std::byte{7}, std::byte{8}};

struct Pair { // constexpr reflect() of every member in order: still one copy
  std::uint32_t a;
  std::uint16_t b;
  template <class V> constexpr auto reflect(V&& v) { return v(a, b); }
  template <class V> constexpr auto reflect(V&& v) const { return v(a, b); }
};

struct Tagged { // not trivially copyable: goes field by field
  std::uint8_t tag = 0;
  Pair pair{};
  std::uint64_t stamps[2]{};
  Tagged() = default;
  Tagged(std::uint8_t t, Pair p, std::uint64_t s0, std::uint64_t s1)
      : tag(t), pair(p), stamps{s0, s1} {}
  Tagged(const Tagged& o) : tag(o.tag), pair(o.pair), stamps{o.stamps[0], o.stamps[1]} {}
  Tagged& operator=(const Tagged&) = default;
  template <class V> auto reflect(V&& v) { return v(tag, pair, stamps); }
  template <class V> auto reflect(V&& v) const { return v(tag, pair, stamps); }
};
static_assert(!std::is_trivially_copyable_v<Tagged>);

} // namespace

TEST(FixedBuffer, StartsEmpty) {
  static_assert(FixedBuffer<32>::capacity() == 32);
  FixedBuffer<32> buf;
  EXPECT_EQ(buf.size(), 0u);
  EXPECT_TRUE(buf.empty());
  EXPECT_EQ(buf.capacity(), 32u);
  EXPECT_EQ(buf.read_position(), 0u);
  EXPECT_EQ(buf.remaining(), 0u);
  EXPECT_TRUE(buf.bytes().empty());
  EXPECT_EQ(buf.last_error(), error{});
  EXPECT_FALSE(static_cast<bool>(buf.last_error()));
}

TEST(FixedBuffer, WriteThenReadBack) {
  FixedBuffer<16> buf;
  ASSERT_TRUE(buf.write(eight.data(), 3));
  ASSERT_TRUE(buf.write(eight.data() + 3, 5));
  EXPECT_EQ(buf.size(), 8u);
  EXPECT_FALSE(buf.empty());
  EXPECT_EQ(hex(buf), "0102030405060708");
  EXPECT_EQ(buf.data(), buf.bytes().data());
  EXPECT_EQ(buf.remaining(), 8u);

  std::array<std::byte, 8> out{};
  ASSERT_TRUE(buf.read(out.data(), 2));
  EXPECT_EQ(buf.read_position(), 2u);
  EXPECT_EQ(buf.remaining(), 6u);
  ASSERT_TRUE(buf.read(out.data() + 2, 6));
  EXPECT_EQ(out, eight);
  EXPECT_EQ(buf.remaining(), 0u);
  EXPECT_EQ(buf.size(), 8u) << "reading does not consume the written bytes";
  EXPECT_EQ(buf.last_error(), error{});
}

TEST(FixedBuffer, ExactFitInOneWrite) {
  FixedBuffer<8> buf;
  ASSERT_TRUE(buf.write(eight.data(), 8));
  EXPECT_EQ(buf.size(), 8u);
  EXPECT_EQ(hex(buf), "0102030405060708");
  const std::byte one{0xEE};
  EXPECT_FALSE(buf.write(&one, 1));
  EXPECT_EQ(buf.last_error(), (error{errc::buffer_full, 8}));
  EXPECT_EQ(hex(buf), "0102030405060708");
}

TEST(FixedBuffer, ExactFitByteByByte) {
  FixedBuffer<8> buf;
  for (std::size_t i = 0; i < 8; ++i) ASSERT_TRUE(buf.write(&eight[i], 1)) << i;
  EXPECT_EQ(hex(buf), "0102030405060708");
  EXPECT_EQ(buf.last_error(), error{});
}

TEST(FixedBuffer, OverflowReturnsFalseAndLeavesBufferUnchanged) {
  FixedBuffer<8> buf;
  ASSERT_TRUE(buf.write(eight.data(), 5));
  ASSERT_TRUE(buf.read(std::array<std::byte, 2>{}.data(), 2));
  EXPECT_FALSE(buf.write(eight.data(), 4)); // one byte too many
  EXPECT_EQ(buf.size(), 5u);
  EXPECT_EQ(hex(buf), "0102030405");
  EXPECT_EQ(buf.read_position(), 2u);
  EXPECT_EQ(buf.last_error(), (error{errc::buffer_full, 5}));
  EXPECT_EQ(buf.last_error().message(), bs::to_string(errc::buffer_full));

  // The failure consumed nothing: what fits still fits.
  EXPECT_TRUE(buf.write(eight.data() + 5, 3));
  EXPECT_EQ(hex(buf), "0102030405060708");
}

TEST(FixedBuffer, ZeroLengthWrites) {
  FixedBuffer<4> buf;
  EXPECT_TRUE(buf.write(eight.data(), 0)); // empty
  EXPECT_EQ(buf.size(), 0u);
  ASSERT_TRUE(buf.write(eight.data(), 2));
  EXPECT_TRUE(buf.write(eight.data(), 0)); // partly filled
  ASSERT_TRUE(buf.write(eight.data(), 2));
  EXPECT_TRUE(buf.write(eight.data(), 0)); // full
  EXPECT_EQ(hex(buf), "01020102");
  EXPECT_EQ(buf.last_error(), error{});

  std::byte sink{0x55};
  EXPECT_TRUE(buf.read(&sink, 0));
  EXPECT_EQ(buf.read_position(), 0u);
  ASSERT_TRUE(buf.seek(4));
  EXPECT_TRUE(buf.read(&sink, 0)) << "a zero-byte read at the end succeeds";
  EXPECT_EQ(sink, std::byte{0x55});
}

// write(p, 0) with p == nullptr is what an empty std::vector's data() or a
// default std::span gives: it must be a no-op, not undefined behaviour (run
// under UBSan: memcpy's source must not be null even for zero bytes).
TEST(FixedBuffer, ZeroLengthWriteAndReadWithNullPointer) {
  FixedBuffer<4> buf;
  const std::span<const std::byte> none;
  EXPECT_TRUE(buf.write(none.data(), none.size()));
  EXPECT_EQ(buf.size(), 0u);
  EXPECT_TRUE(buf.read(nullptr, 0));
  EXPECT_EQ(buf.last_error(), error{});
}

TEST(FixedBuffer, ReadPastEndFailsWithoutMoving) {
  FixedBuffer<8> buf;
  ASSERT_TRUE(buf.write(eight.data(), 6));
  std::array<std::byte, 8> out{};
  out.fill(std::byte{0xCC});
  ASSERT_TRUE(buf.read(out.data(), 4));
  EXPECT_FALSE(buf.read(out.data(), 3));
  EXPECT_EQ(buf.read_position(), 4u);
  EXPECT_EQ(buf.last_error(), (error{errc::truncated, 4}));
  EXPECT_EQ(hex(std::span<const std::byte>(out).subspan(4)), "cccccccc") << "nothing copied";
  EXPECT_TRUE(buf.read(out.data(), 2));
  EXPECT_EQ(buf.remaining(), 0u);
}

TEST(FixedBuffer, ClearResetsSizePositionAndError) {
  FixedBuffer<4> buf;
  ASSERT_TRUE(buf.write(eight.data(), 4));
  ASSERT_TRUE(buf.seek(2));
  EXPECT_FALSE(buf.write(eight.data(), 1));
  ASSERT_TRUE(static_cast<bool>(buf.last_error()));
  buf.clear();
  EXPECT_EQ(buf.size(), 0u);
  EXPECT_EQ(buf.read_position(), 0u);
  EXPECT_EQ(buf.last_error(), error{});
  EXPECT_EQ(buf.capacity(), 4u);
  ASSERT_TRUE(buf.write(eight.data() + 4, 4));
  EXPECT_EQ(hex(buf), "05060708");
}

// clear() resets only the error's code; the offset of an errc::ok reads as 0,
// and the next failure reports its own offset, not the stale one.
TEST(FixedBuffer, ClearedErrorHasNoStaleOffset) {
  FixedBuffer<8> buf;
  ASSERT_TRUE(buf.write(eight.data(), 6));
  EXPECT_FALSE(buf.write(eight.data(), 3));
  EXPECT_EQ(buf.last_error(), (error{errc::buffer_full, 6}));
  buf.clear();
  EXPECT_EQ(buf.last_error().code, errc::ok);
  EXPECT_EQ(buf.last_error().offset, 0u);
  ASSERT_TRUE(buf.write(eight.data(), 2));
  std::array<std::byte, 4> out{};
  EXPECT_FALSE(buf.read(out.data(), 3));
  EXPECT_EQ(buf.last_error(), (error{errc::truncated, 0}));
  buf.clear();
  EXPECT_EQ(buf.last_error(), error{});
  // The code is kept apart from the rest of the error (see clear()); a
  // schema mismatch keeps its values.
  const error mismatch = error::schema(7, bs::mismatch::fingerprint, 1, 2);
  buf.set_error(mismatch);
  EXPECT_EQ(buf.last_error(), mismatch);
  EXPECT_EQ(buf.last_error().what(), bs::mismatch::fingerprint);
  EXPECT_EQ(buf.last_error().found(), 2u);
  buf.clear();
  EXPECT_EQ(buf.last_error(), error{});
  EXPECT_EQ(buf.last_error().what(), bs::mismatch::none);
}

TEST(FixedBuffer, SeekWithinWrittenBytesOnly) {
  FixedBuffer<8> buf;
  ASSERT_TRUE(buf.write(eight.data(), 5));
  for (std::size_t pos = 0; pos <= 5; ++pos) {
    ASSERT_TRUE(buf.seek(pos)) << pos;
    EXPECT_EQ(buf.read_position(), pos);
    EXPECT_EQ(buf.remaining(), 5 - pos);
  }
  ASSERT_TRUE(buf.seek(3));
  EXPECT_FALSE(buf.seek(6)) << "past size() even though within capacity()";
  EXPECT_FALSE(buf.seek(1000));
  EXPECT_EQ(buf.read_position(), 3u);
  std::byte b{};
  ASSERT_TRUE(buf.read(&b, 1));
  EXPECT_EQ(b, std::byte{4});
}

TEST(FixedBuffer, ReserveChecksCapacityOnly) {
  FixedBuffer<8> buf;
  ASSERT_TRUE(buf.write(eight.data(), 3));
  EXPECT_TRUE(buf.reserve(0));
  EXPECT_TRUE(buf.reserve(8));
  EXPECT_EQ(buf.last_error(), error{});
  EXPECT_FALSE(buf.reserve(9));
  EXPECT_EQ(buf.last_error(), (error{errc::buffer_full, 3}));
  EXPECT_EQ(buf.size(), 3u);
  EXPECT_EQ(hex(buf), "010203");
}

TEST(FixedBuffer, SetSizeCommitsDirectWritesAndClampsReadPosition) {
  FixedBuffer<8> buf;
  std::memcpy(buf.data(), eight.data(), 6);
  buf.set_size(6);
  EXPECT_EQ(hex(buf), "010203040506");
  ASSERT_TRUE(buf.seek(5));
  buf.set_size(2);
  EXPECT_EQ(buf.size(), 2u);
  EXPECT_EQ(buf.read_position(), 2u);
  EXPECT_EQ(hex(buf), "0102");
}

TEST(FixedBuffer, SetErrorIsWhatLastErrorReturns) {
  FixedBuffer<8> buf;
  buf.set_error({errc::limit_exceeded, 17});
  EXPECT_EQ(buf.last_error(), (error{errc::limit_exceeded, 17}));
}

TEST(FixedBuffer, SerializeExactFitAndReadBack) {
  const Pair p{0xA1A2A3A4u, 0xB1B2u};
  FixedBuffer<sizeof(Pair)> buf; // trivially copyable: sizeof(Pair) bytes, padding included
  ASSERT_TRUE(bs::serialize(buf, p));
  EXPECT_EQ(buf.size(), sizeof(Pair));
  Pair q{};
  ASSERT_TRUE(bs::deserialize(buf, q));
  EXPECT_EQ(q.a, p.a);
  EXPECT_EQ(q.b, p.b);
  EXPECT_EQ(buf.read_position(), sizeof(Pair));

  const Tagged t{7, {1, 2}, 3, 4};
  FixedBuffer<1 + sizeof(Pair) + 16> fbuf; // field by field; Pair itself is one bulk copy
  ASSERT_TRUE(bs::serialize(fbuf, t));
  EXPECT_EQ(fbuf.size(), fbuf.capacity());
  Tagged u;
  ASSERT_TRUE(bs::deserialize(fbuf, u));
  EXPECT_EQ(u.tag, 7);
  EXPECT_EQ(u.pair.b, 2);
  EXPECT_EQ(u.stamps[1], 4u);
}

TEST(FixedBuffer, SerializeIntoFullBufferLeavesItUnchanged) {
  FixedBuffer<12> buf;
  const std::uint32_t words[3] = {0x11111111u, 0x22222222u, 0x33333333u};
  ASSERT_TRUE(bs::serialize(buf, words[0]));
  ASSERT_TRUE(bs::serialize(buf, words[1]));
  ASSERT_TRUE(bs::serialize(buf, words[2]));
  const auto before = to_vector(buf.bytes());

  EXPECT_FALSE(bs::serialize(buf, std::uint8_t{1}));
  EXPECT_EQ(buf.last_error(), (error{errc::buffer_full, 12}));
  EXPECT_EQ(hex(buf), hex(before));

  buf.set_size(6); // room for 6 more bytes: a Tagged (25 bytes) and a string do not fit
  const auto prefix = to_vector(buf.bytes());
  EXPECT_FALSE(bs::serialize(buf, Tagged{1, {2, 3}, 4, 5}));
  EXPECT_EQ(buf.size(), 6u);
  EXPECT_EQ(hex(buf), hex(prefix));
  EXPECT_EQ(buf.last_error().code, errc::buffer_full);
  EXPECT_GE(buf.last_error().offset, 6u);
  EXPECT_LE(buf.last_error().offset, 12u);

  EXPECT_FALSE(bs::serialize(buf, std::string("abc")));
  EXPECT_EQ(buf.size(), 6u);
  EXPECT_EQ(hex(buf), hex(prefix));
  EXPECT_EQ(buf.last_error().code, errc::buffer_full);
}

TEST(FixedBuffer, NeverAllocates) {
  bool ok = true;
  const test_util::AllocationProbe probe;
  {
    FixedBuffer<256> buf;
    for (int i = 0; i < 8; ++i) ok = ok && bs::serialize(buf, Tagged{1, {2, 3}, 4, 5});
    ok = ok && bs::serialize(buf, Pair{9, 9});
    const std::byte big[256]{};
    ok = ok && !bs::serialize(buf, big); // overflow path
    Tagged t;
    for (int i = 0; i < 8; ++i) ok = ok && bs::deserialize(buf, t);
    Pair p{};
    ok = ok && bs::deserialize(buf, p) && !bs::deserialize(buf, p); // truncation path
    ok = ok && buf.write(big, 8) && !buf.write(big, 256) && buf.reserve(256) && !buf.reserve(257);
    buf.clear();
    ok = ok && buf.empty();
    FixedBuffer<256> copy = buf;
    ok = ok && copy.empty();
  }
  const std::size_t allocations = probe.count();
  EXPECT_TRUE(ok);
  EXPECT_EQ(allocations, 0u);
}
