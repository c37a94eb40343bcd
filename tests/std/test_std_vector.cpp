// std::vector<T> and std::vector<bool>: layout, round trips, the single-block
// path for plain elements, and hostile input.
#define BIN_SERIALIZER_STD_TEST_TRACK_ALLOCATIONS
#include "std_codec_test_support.hpp"

#include <bin_serializer/std/vector.hpp>

#include <array>
#include <cstdint>
#include <numeric>
#include <string>
#include <vector>

namespace {

using namespace bin_serializer;
using namespace std_codec_test;

struct Pair32 {
  std::int32_t a;
  std::int32_t b;
  bool operator==(const Pair32&) const = default;
};

struct Item {
  std::string name;
  std::vector<int> values;
  template <class V> auto reflect(V&& v) { return v(name, values); }
  template <class V> auto reflect(V&& v) const { return v(name, values); }
  bool operator==(const Item&) const = default;
};

struct Node {
  int value = 0;
  std::vector<Node> children;
  template <class V> auto reflect(V&& v) { return v(value, children); }
  template <class V> auto reflect(V&& v) const { return v(value, children); }
  bool operator==(const Node&) const = default;
};

struct Big {
  std::byte payload[4096]{};
  bool operator==(const Big&) const = default;
};

enum class Level : std::uint8_t { low, mid, high };
enum class Unranged : std::uint8_t { a, b };

struct Flagged {
  bool flag;
  std::int32_t value;
};

} // namespace

template <>
struct bin_serializer::enum_range<Level> {
  static constexpr Level min = Level::low;
  static constexpr Level max = Level::high;
};

namespace {

// ---- compile-time properties ----------------------------------------------------

static_assert(Serializable<std::vector<int>>);
static_assert(Serializable<std::vector<std::vector<std::string>>>);
static_assert(!BoundedSize<std::vector<int>>);
static_assert(!BoundedSize<std::vector<bool>>);
static_assert(!BoundedSize<std::vector<std::array<int, 2>>>);
static_assert(detail::category_of<native, std::vector<int>>() == detail::category::codec);
// The count check before allocating uses the smallest encoding of an element.
static_assert(detail::std_codec::min_size_of<native, std::vector<int>>() == 8);
static_assert(detail::std_codec::min_size_of<native, Item>() == 16);
static_assert(detail::std_codec::is_object_bytes<native, float>());
static_assert(detail::std_codec::is_object_bytes<native, Pair32>());
static_assert(detail::std_codec::is_object_bytes<native, std::array<std::uint16_t, 2>>());
static_assert(!detail::std_codec::is_object_bytes<native, bool>());
static_assert(!detail::std_codec::is_object_bytes<native, std::array<bool, 2>>());
static_assert(!detail::std_codec::is_object_bytes<native, std::string>());

// ---- golden bytes -----------------------------------------------------------------

TEST(StdVector, GoldenInts) {
  SKIP_UNLESS_LITTLE_ENDIAN();
  EXPECT_EQ(hex_of(std::vector<std::int32_t>{1, 2, 3}),
            "0300000000000000"
            "01000000"
            "02000000"
            "03000000");
  EXPECT_EQ(hex_of(std::vector<std::uint16_t>{0x0102}), "0100000000000000" "0201");
}

TEST(StdVector, GoldenEmpty) {
  EXPECT_EQ(hex_of(std::vector<int>{}), "0000000000000000");
  EXPECT_EQ(hex_of(std::vector<std::string>{}), "0000000000000000");
  EXPECT_EQ(hex_of(std::vector<bool>{}), "0000000000000000");
}

TEST(StdVector, GoldenBool) {
  SKIP_UNLESS_LITTLE_ENDIAN();
  EXPECT_EQ(hex_of(std::vector<bool>{true, false, true}), "0300000000000000" "010001");
}

TEST(StdVector, GoldenStrings) {
  SKIP_UNLESS_LITTLE_ENDIAN();
  EXPECT_EQ(hex_of(std::vector<std::string>{"ab", ""}),
            "0200000000000000"
            "0200000000000000"
            "6162"
            "0000000000000000");
}

TEST(StdVector, GoldenStructsAndArrays) {
  SKIP_UNLESS_LITTLE_ENDIAN();
  EXPECT_EQ(hex_of(std::vector<Pair32>{{1, -1}}), "0100000000000000" "01000000" "ffffffff");
  EXPECT_EQ(hex_of(std::vector<std::array<std::uint16_t, 2>>{{1, 2}, {3, 4}}),
            "0200000000000000"
            "01000200"
            "03000400");
  EXPECT_EQ(hex_of(std::vector<Item>{{"x", {7}}}),
            "0100000000000000"
            "0100000000000000"
            "78"
            "0100000000000000"
            "07000000");
}

TEST(StdVector, GoldenNested) {
  SKIP_UNLESS_LITTLE_ENDIAN();
  EXPECT_EQ(hex_of(std::vector<std::vector<std::uint8_t>>{{1, 2}, {}}),
            "0200000000000000"
            "0200000000000000"
            "0102"
            "0000000000000000");
}

// ---- round trips ------------------------------------------------------------------

TEST(StdVector, RoundTripSmall) {
  expect_round_trip(std::vector<int>{});
  expect_round_trip(std::vector<int>{42});
  expect_round_trip(std::vector<double>{1.5, -2.25, 1e300});
  expect_round_trip(std::vector<std::string>{"", "a", std::string(300, 'z')});
  expect_round_trip(std::vector<Pair32>{{1, 2}, {3, 4}});
  expect_round_trip(std::vector<std::array<std::uint16_t, 3>>{{1, 2, 3}, {4, 5, 6}});
  expect_round_trip(std::vector<std::array<bool, 2>>{{true, false}, {false, true}});
  expect_round_trip(std::vector<Item>{{"a", {1, 2}}, {"", {}}, {"ccc", {3}}});
  expect_round_trip(std::vector<std::vector<std::vector<int>>>{{{1}, {}}, {}, {{2, 3}}});
  expect_round_trip(std::vector<std::byte>{std::byte{0}, std::byte{0xff}});
}

TEST(StdVector, RoundTripBool) {
  expect_round_trip(std::vector<bool>{});
  expect_round_trip(std::vector<bool>{true});
  std::vector<bool> many(70'000);
  for (std::size_t i = 0; i < many.size(); ++i) many[i] = (i * 7919) % 3 == 0;
  const auto bytes = expect_round_trip(many);
  EXPECT_EQ(bytes.size(), 8u + many.size());
  expect_round_trip(std::vector<std::vector<bool>>{{true, false}, {}, {false}});
}

TEST(StdVector, RoundTripLarge) {
  std::vector<float> floats(262'144); // 1 MiB of floats
  std::iota(floats.begin(), floats.end(), 0.5f);
  const auto bytes = expect_round_trip(floats);
  EXPECT_EQ(bytes.size(), 8u + floats.size() * sizeof(float));

  std::vector<std::string> strings(5'000);
  for (std::size_t i = 0; i < strings.size(); ++i) strings[i] = std::string(i % 37, 'q');
  expect_round_trip(strings);
}

TEST(StdVector, RecursiveType) {
  Node tree{1, {{2, {}}, {3, {{4, {}}, {5, {}}}}}};
  const auto bytes = expect_round_trip(tree);
  expect_every_truncation_fails<Node>(bytes);
}

// A vector of plain elements is one write_bytes (and so one memcpy) on the way
// out; on the way in, one copy from contiguous input and bounded chunks from a stream.
TEST(StdVector, PlainElementsAreOneBlock) {
  std::vector<float> floats(262'144, 1.25f);
  StreamSink sink;
  ASSERT_TRUE(serialize(sink, floats));
  EXPECT_EQ(sink.writes, 2u); // count, then all elements
  EXPECT_EQ(sink.bytes.size(), 8u + 1024u * 1024u);

  StreamSource source(sink.bytes);
  std::vector<float> out;
  ASSERT_TRUE(deserialize(source, out));
  EXPECT_EQ(out, floats);
  EXPECT_EQ(source.reads, 1u + (1024u * 1024u) / detail::stream_chunk_bytes);

  std::vector<std::array<std::uint16_t, 2>> arrays(1000, {1, 2});
  StreamSink sink2;
  ASSERT_TRUE(serialize(sink2, arrays));
  EXPECT_EQ(sink2.writes, 2u);
}

TEST(StdVector, DecodingReplacesContents) {
  Buffer buf;
  ASSERT_TRUE(serialize(buf, std::vector<int>{1, 2}));
  std::vector<int> out{9, 9, 9, 9, 9};
  ASSERT_TRUE(deserialize(buf, out));
  EXPECT_EQ(out, (std::vector<int>{1, 2}));
  // One block of elements into as many as before (copied in place), into
  // fewer (grown), and none into some.
  const std::vector<std::byte> two = encode(std::vector<int>{1, 2});
  std::vector<int> same{7, 7};
  BufferView view_same(two);
  ASSERT_TRUE(deserialize(view_same, same));
  EXPECT_EQ(same, (std::vector<int>{1, 2}));
  std::vector<int> shorter{5};
  BufferView view_shorter(two);
  ASSERT_TRUE(deserialize(view_shorter, shorter));
  EXPECT_EQ(shorter, (std::vector<int>{1, 2}));
  const std::vector<std::byte> none = encode(std::vector<int>{});
  BufferView view_none(none);
  ASSERT_TRUE(deserialize(view_none, same));
  EXPECT_TRUE(same.empty());

  Buffer buf2;
  ASSERT_TRUE(serialize(buf2, std::vector<std::string>{"x"}));
  std::vector<std::string> strings{"a", "b", "c"};
  ASSERT_TRUE(deserialize(buf2, strings));
  EXPECT_EQ(strings, (std::vector<std::string>{"x"}));
}

TEST(StdVector, SeveralValuesInOneBuffer) {
  Buffer buf;
  ASSERT_TRUE(serialize(buf, std::vector<int>{1, 2, 3}));
  ASSERT_TRUE(serialize(buf, std::vector<bool>{true}));
  ASSERT_TRUE(serialize(buf, std::vector<std::string>{"end"}));
  std::vector<int> a;
  std::vector<bool> b;
  std::vector<std::string> c;
  ASSERT_TRUE(deserialize(buf, a));
  ASSERT_TRUE(deserialize(buf, b));
  ASSERT_TRUE(deserialize(buf, c));
  EXPECT_EQ(a, (std::vector<int>{1, 2, 3}));
  EXPECT_EQ(b, (std::vector<bool>{true}));
  EXPECT_EQ(c, (std::vector<std::string>{"end"}));
  EXPECT_EQ(buf.remaining(), 0u);
}

// ---- failures -----------------------------------------------------------------------

TEST(StdVector, TruncationAtEveryOffset) {
  expect_every_truncation_fails<std::vector<int>>(encode(std::vector<int>{1, 2, 3}));
  expect_every_truncation_fails<std::vector<bool>>(encode(std::vector<bool>{true, false, true}));
  expect_every_truncation_fails<std::vector<std::vector<std::string>>>(
      encode(std::vector<std::vector<std::string>>{{"ab", ""}, {}, {"cde"}}));
  expect_every_truncation_fails<std::vector<Item>>(
      encode(std::vector<Item>{{"a", {1, 2}}, {"bc", {}}}));
}

// Contiguous input knows how much is left: the count is refused before any
// allocation happens.
template <class T>
void expect_refused_without_allocating(std::string_view hex) {
  const auto bytes = from_hex(hex);
  BufferView view(bytes);
  T out;
  allocation_stats::reset();
  EXPECT_FALSE(deserialize(view, out));
  EXPECT_EQ(allocation_stats::total, 0u);
  EXPECT_EQ(view.last_error(), (error{errc::truncated, 0}));
}

TEST(StdVector, HostileCountIsRefusedBeforeAllocating) {
  SKIP_UNLESS_LITTLE_ENDIAN(); // decodes hand-written little-endian native bytes
  expect_refused_without_allocating<std::vector<int>>("ffffffffffffffff");
  expect_refused_without_allocating<std::vector<bool>>("ffffffffffffffff");
  expect_refused_without_allocating<std::vector<std::string>>("ffffffffffffffff" "0000");
  expect_refused_without_allocating<std::vector<std::vector<int>>>("0000000100000000" "00");
  expect_refused_without_allocating<std::vector<std::byte>>("0900000000000000" "0102030405060708");

  expect_decode_error<std::vector<int>>("ffffffffffffffff", errc::truncated, 0);
  expect_decode_error<std::vector<std::string>>("ffffffffffffffff", errc::truncated, 0);
  expect_decode_error<std::vector<bool>>("ffffffffffffffff", errc::truncated, 0);
  expect_decode_error<std::vector<Item>>("ffffffffffffffff" "00", errc::truncated, 0);
  // 2 ints announced, one present.
  expect_decode_error<std::vector<int>>("0200000000000000" "01000000", errc::truncated, 0);
  // Inner count too big for what is left.
  expect_decode_error<std::vector<std::vector<int>>>(
      "0100000000000000" "0500000000000000" "01000000", errc::truncated, 8);
}

// A stream cannot say how much input is left, so a large count passes the
// prefix check; memory must still grow only with the bytes actually received.
TEST(StdVector, HostileCountFromStreamAllocatesBoundedMemory) {
  const auto plain = from_hex("0000000001000000" "0102030405060708"); // 2^40 elements
  const std::size_t bound = 2 * detail::stream_chunk_bytes + 4096;
  {
    allocation_stats::reset();
    StreamSource source(plain);
    std::vector<std::uint32_t> out;
    EXPECT_FALSE(deserialize(source, out));
    EXPECT_EQ(source.last_error().code, errc::truncated);
    EXPECT_LT(allocation_stats::largest, bound);
  }
  {
    allocation_stats::reset();
    StreamSource source(plain);
    std::vector<std::string> out;
    EXPECT_FALSE(deserialize(source, out));
    EXPECT_LT(allocation_stats::largest, bound);
  }
  {
    allocation_stats::reset();
    StreamSource source(plain);
    std::vector<bool> out;
    EXPECT_FALSE(deserialize(source, out));
    EXPECT_LT(allocation_stats::largest, bound);
  }
  {
    // 1-byte encodings of a 4 KiB object: the up-front reservation is capped too.
    allocation_stats::reset();
    StreamSource source(plain);
    std::vector<std::optional<Big>> out;
    EXPECT_FALSE(deserialize(source, out));
    EXPECT_LT(allocation_stats::largest, bound);
  }
}

TEST(StdVector, BoolBytesAreValidated) {
  SKIP_UNLESS_LITTLE_ENDIAN(); // decodes hand-written little-endian native bytes
  expect_decode_error<std::vector<bool>>("0300000000000000" "010200", errc::invalid_value, 9);
  expect_decode_error<std::vector<bool>>("0100000000000000" "ff", errc::invalid_value, 8);
  // bool elements reached through other codecs are validated by the core.
  expect_decode_error<std::vector<std::array<bool, 2>>>(
      "0100000000000000" "0103", errc::invalid_value, 9);
  // An invalid byte far into a long vector<bool> (past the stream path's block size).
  std::string hex = "2c01000000000000"; // 300
  for (int i = 0; i < 299; ++i) hex += "01";
  hex += "07";
  expect_decode_error<std::vector<bool>>(hex, errc::invalid_value, 8 + 299);
}

TEST(StdVector, CheckedElementsAreValidatedOneByOne) {
  SKIP_UNLESS_LITTLE_ENDIAN(); // decodes hand-written little-endian native bytes
  // Elements whose bytes the format checks (ranged enums, bool arrays) are not
  // block-copied: each is validated before it becomes a value.
  static_assert(!detail::std_codec::is_object_bytes<native, Level>());
  static_assert(detail::std_codec::is_object_bytes<trusted, Level>());
  static_assert(detail::std_codec::is_object_bytes<native, Unranged>());
  expect_round_trip(std::vector<Level>{Level::low, Level::high});
  expect_decode_error<std::vector<Level>>("0300000000000000" "00" "02" "07", errc::invalid_value,
                                          10);
  // Struct members are checked only when asked for (options::check_trivial_members).
  const auto bytes = from_hex("0100000000000000" "05" "000000" "01000000");
  BufferView lenient(bytes);
  std::vector<Flagged> out;
  EXPECT_TRUE(deserialize(lenient, out));
  BufferView strict(bytes);
  EXPECT_FALSE(deserialize<untrusted>(strict, out));
  EXPECT_EQ(strict.last_error(), (error{errc::invalid_value, 8}));
}

TEST(StdVector, TrustedBoolBytes) {
  SKIP_UNLESS_LITTLE_ENDIAN(); // decodes hand-written little-endian native bytes
  // validate_values off: any non-zero byte is true.
  const auto bytes = from_hex("0300000000000000" "000102");
  BufferView view(bytes);
  std::vector<bool> out;
  ASSERT_TRUE(deserialize<trusted>(view, out));
  EXPECT_EQ(out, (std::vector<bool>{false, true, true}));
}

TEST(StdVector, ElementCountLimit) {
  constexpr options limited{.max_element_count = 3};
  const auto four = encode(std::vector<int>{1, 2, 3, 4});
  BufferView view(four);
  std::vector<int> out;
  EXPECT_FALSE(deserialize<limited>(view, out));
  EXPECT_EQ(view.last_error(), (error{errc::limit_exceeded, 0}));
  const auto bools = encode(std::vector<bool>(4, true));
  BufferView bool_view(bools);
  std::vector<bool> bool_out;
  EXPECT_FALSE(deserialize<limited>(bool_view, bool_out));
  EXPECT_EQ(bool_view.last_error().code, errc::limit_exceeded);
  const auto three = encode(std::vector<int>{1, 2, 3});
  BufferView ok(three);
  EXPECT_TRUE(deserialize<limited>(ok, out));
}

TEST(StdVector, DepthLimit) {
  Node deep{0, {}};
  Node* leaf = &deep;
  for (int i = 1; i < 30; ++i) {
    leaf->children.push_back(Node{i, {}});
    leaf = &leaf->children.back();
  }
  const auto bytes = expect_round_trip(deep);
  constexpr options shallow{.max_depth = 10};
  BufferView view(bytes);
  Node out;
  EXPECT_FALSE(deserialize<shallow>(view, out));
  EXPECT_EQ(view.last_error().code, errc::limit_exceeded);
  EXPECT_EQ(view.read_position(), 0u);
}

TEST(StdVector, FailedDecodeLeavesValidTarget) {
  // The second string is truncated: the vector keeps what was decoded and
  // stays a valid object (the sanitizer builds check the rest).
  const auto bytes = encode(std::vector<std::string>{"first", "second"});
  BufferView view(std::span<const std::byte>(bytes).first(bytes.size() - 2));
  std::vector<std::string> out{"old"};
  EXPECT_FALSE(deserialize(view, out));
  ASSERT_LE(out.size(), 2u);
  ASSERT_GE(out.size(), 1u);
  EXPECT_EQ(out[0], "first");
  out.push_back("still usable");
  EXPECT_EQ(out.back(), "still usable");
}

TEST(StdVector, WriteFailureLeavesBufferUnchanged) {
  FixedBuffer<16> small;
  EXPECT_FALSE(serialize(small, std::vector<int>(10, 1)));
  EXPECT_EQ(small.size(), 0u);
  EXPECT_EQ(small.last_error().code, errc::buffer_full);

  FixedBuffer<64> fits;
  ASSERT_TRUE(serialize(fits, std::vector<int>{1}));
  const std::size_t before = fits.size();
  EXPECT_FALSE(serialize(fits, std::vector<std::string>{std::string(100, 'x')}));
  EXPECT_EQ(fits.size(), before);
}

TEST(StdVector, SizeMatchesBytesWritten) {
  const std::vector<Item> items{{"abc", {1, 2, 3}}, {"", {}}};
  Buffer buf;
  ASSERT_TRUE(serialize(buf, items));
  EXPECT_EQ(serialized_size(items), buf.size());
  EXPECT_EQ(serialized_size(std::vector<int>(5)), 8u + 20u);
  EXPECT_EQ(serialized_size(std::vector<bool>(5)), 8u + 5u);
}

} // namespace
