// std::array<T, N> (N elements, no count) and std::span<T, E> (a source only,
// encoded like std::vector<T>).
#include "std_codec_test_support.hpp"

#include <bin_serializer/std/array.hpp>

#include <array>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace {

using namespace bin_serializer;
using namespace std_codec_test;

struct Labelled {
  std::string label;
  std::array<std::int16_t, 2> xy{};
  template <class V> auto reflect(V&& v) { return v(label, xy); }
  template <class V> auto reflect(V&& v) const { return v(label, xy); }
  bool operator==(const Labelled&) const = default;
};

struct SpanView {
  std::string tag;
  std::span<const std::uint16_t> values;
  template <class V> auto reflect(V&& v) { return v(tag, values); }
  template <class V> auto reflect(V&& v) const { return v(tag, values); }
};

struct SpanOwned {
  std::string tag;
  std::vector<std::uint16_t> values;
};

struct SpanOnlyView {
  std::span<const std::uint16_t> values;
  template <class V> auto reflect(V&& v) { return v(values); }
  template <class V> auto reflect(V&& v) const { return v(values); }
};

// ---- compile-time properties ----------------------------------------------------

static_assert(Serializable<std::array<int, 3>>);
static_assert(detail::category_of<native, std::array<int, 3>>() == detail::category::codec);
static_assert(max_serialized_size_v<std::array<int, 4>> == 16);
static_assert(max_serialized_size_v<std::array<std::optional<int>, 2>> == 10);
static_assert(max_serialized_size_v<std::array<std::array<std::uint16_t, 2>, 3>> == 12);
static_assert(max_serialized_size_v<std::array<bool, 5>> == 5);
// std::array<T, 0> encodes to nothing, whatever T is (sizeof is 1, not 0).
static_assert(max_serialized_size_v<std::array<int, 0>> == 0);
static_assert(max_serialized_size_v<std::array<std::string, 0>> == 0);
static_assert(!BoundedSize<std::array<std::string, 2>>);
static_assert(!BoundedSize<std::span<const int>>);
static_assert(!BoundedSize<std::span<const int, 3>>);
static_assert(detail::std_codec::is_object_bytes<native, std::array<int, 3>>());
static_assert(!detail::std_codec::is_object_bytes<native, std::array<int, 0>>());
static_assert(!detail::std_codec::is_object_bytes<native, std::array<bool, 3>>());
static_assert(!detail::std_codec::is_object_bytes<native, std::array<std::optional<int>, 3>>());

// ---- std::array ----------------------------------------------------------------------

TEST(StdArray, Golden) {
  SKIP_UNLESS_LITTLE_ENDIAN();
  EXPECT_EQ(hex_of(std::array<std::int32_t, 3>{1, 2, 3}), "01000000" "02000000" "03000000");
  EXPECT_EQ(hex_of(std::array<std::int32_t, 0>{}), "");
  EXPECT_EQ(hex_of(std::array<bool, 3>{true, false, true}), "010001");
  EXPECT_EQ(hex_of(std::array<std::string, 2>{"a", ""}), "0100000000000000"
                                                         "61"
                                                         "0000000000000000");
  // Elements with their own codec are not memcpy'd, although the array is
  // trivially copyable: one presence byte each.
  EXPECT_EQ(hex_of(std::array<std::optional<std::uint8_t>, 2>{std::uint8_t{5}, std::nullopt}),
            "0105" "00");
  EXPECT_EQ(hex_of(std::array<std::array<std::uint8_t, 2>, 2>{{{1, 2}, {3, 4}}}), "01020304");
}

TEST(StdArray, RoundTrip) {
  expect_round_trip(std::array<int, 0>{});
  expect_round_trip(std::array<double, 3>{1.0, -0.5, 3e10});
  expect_round_trip(std::array<bool, 4>{true, false, false, true});
  expect_round_trip(std::array<std::string, 3>{"x", "", "yz"});
  expect_round_trip(std::array<std::optional<int>, 3>{1, std::nullopt, 3});
  expect_round_trip(std::array<std::vector<int>, 2>{std::vector<int>{1, 2}, std::vector<int>{}});
  expect_round_trip(Labelled{"p", {-1, 7}});
  std::array<std::uint64_t, 4096> big{};
  for (std::size_t i = 0; i < big.size(); ++i) big[i] = i * i;
  expect_round_trip(big);
}

TEST(StdArray, SizeIsExact) {
  EXPECT_EQ(serialized_size(std::array<int, 5>{}), 20u);
  EXPECT_EQ(serialized_size(std::array<std::string, 2>{"abc", ""}), 8u + 3u + 8u);
  EXPECT_EQ(serialized_size(std::array<std::optional<int>, 2>{1, std::nullopt}), 5u + 1u);
}

TEST(StdArray, Truncation) {
  expect_every_truncation_fails<std::array<int, 3>>(encode(std::array<int, 3>{1, 2, 3}));
  expect_every_truncation_fails<std::array<std::string, 2>>(
      encode(std::array<std::string, 2>{"ab", "c"}));
  expect_every_truncation_fails<Labelled>(encode(Labelled{"abc", {1, 2}}));
}

TEST(StdArray, InvalidElements) {
  expect_decode_error<std::array<bool, 3>>("010200", errc::invalid_value, 1);
  expect_decode_error<std::array<std::optional<int>, 2>>("00" "03", errc::invalid_value, 1);
}

// Elements that are object bytes but for their checks (a bool; a trivially
// copyable struct holding one, checked with check_trivial_members): an input
// too short for the whole array is truncated at the array's start, as an
// array copied whole is and as the Python package reports
// (python/tests/test_vectors.py compares every damaged vector); an element
// that is there but wrong is still found where it is.
struct Flagged {
  std::uint32_t id;
  bool on;
  bool operator==(const Flagged&) const = default;
};

TEST(StdArray, TruncatedAtItsStartWhenItsCheckedElementsDoNotAllFit) {
  expect_decode_error<std::array<bool, 3>>("", errc::truncated, 0);
  expect_decode_error<std::array<bool, 3>>("01", errc::truncated, 0);
  expect_decode_error<std::array<bool, 3>>("0100", errc::truncated, 0);
  expect_decode_error<std::array<bool, 3>, portable>("0100", errc::truncated, 0);
  expect_decode_error<std::array<bool, 3>, compact>("0100", errc::truncated, 0);
  expect_decode_error<std::array<bool, 3>>("000102", errc::invalid_value, 2);
  expect_decode_error<std::array<bool, 3>>("0001020304", errc::invalid_value, 2);

  constexpr options checked{.check_trivial_members = true};
  static_assert(sizeof(Flagged) == 8);
  // Native: {id, on, three bytes of padding} twice, ids whose bytes read the
  // same in either byte order (these are the native bytes of any host); the
  // second cut short.
  expect_decode_error<std::array<Flagged, 2>, checked>(
      "0100000101000000" "02000002", errc::truncated, 0);
  expect_decode_error<std::array<Flagged, 2>, checked>(
      "0100000101000000" "0200000207000000", errc::invalid_value, 12);
  // Without the member checks the array is one copy: truncated at its start too.
  expect_decode_error<std::array<Flagged, 2>>("0100000101000000" "02000002", errc::truncated, 0);
  {
    // Too short comes first from bytes in memory (a stream, which cannot
    // tell how much follows, reads element by element and finds the 2).
    const std::vector<std::byte> short_and_wrong = from_hex("0102");
    BufferView view(short_and_wrong);
    std::array<bool, 3> bools{};
    EXPECT_FALSE(deserialize(view, bools));
    EXPECT_EQ(view.last_error(), (error{errc::truncated, 0}));
  }
  const std::vector<std::byte> whole = from_hex("0100000101000000" "0200000200000000");
  BufferView view(whole);
  std::array<Flagged, 2> out{};
  ASSERT_TRUE(deserialize<checked>(view, out)) << view.last_error().message();
  EXPECT_EQ(out, (std::array<Flagged, 2>{{{0x01000001, true}, {0x02000002, false}}}));
  EXPECT_EQ(view.remaining(), 0u);
}

TEST(StdArray, InsideFixedBuffer) {
  // Bounded: the maximum size is a compile-time capacity.
  using T = std::array<std::optional<std::int32_t>, 3>;
  FixedBuffer<max_serialized_size_v<T>> buf;
  const T value{1, 2, 3};
  ASSERT_TRUE(serialize(buf, value));
  EXPECT_EQ(buf.size(), 15u);
  T out{};
  ASSERT_TRUE(deserialize(buf, out));
  EXPECT_EQ(out, value);
}

// ---- std::span -------------------------------------------------------------------------

TEST(StdSpan, SameBytesAsVector) {
  SKIP_UNLESS_LITTLE_ENDIAN();
  const std::vector<std::int32_t> v{1, 2, 3};
  const std::span<const std::int32_t> dynamic_span(v);
  const std::span<const std::int32_t, 3> fixed_span(v.data(), 3);
  const std::span<std::int32_t> mutable_span(const_cast<std::int32_t*>(v.data()), v.size());
  EXPECT_EQ(hex_of(dynamic_span), "0300000000000000" "01000000" "02000000" "03000000");
  EXPECT_EQ(hex_of(dynamic_span), hex_of(v));
  EXPECT_EQ(hex_of(fixed_span), hex_of(v));
  EXPECT_EQ(hex_of(mutable_span), hex_of(v));
}

TEST(StdSpan, EmptySpanHasNullData) {
  const std::span<const int> empty;
  EXPECT_EQ(empty.data(), nullptr);
  EXPECT_EQ(hex_of(empty), "0000000000000000");
  StreamSink sink;
  ASSERT_TRUE(serialize(sink, empty));
  EXPECT_EQ(sink.bytes.size(), 8u);
}

TEST(StdSpan, DecodesAsVector) {
  const std::string words[] = {"alpha", "", "gamma"};
  const std::span<const std::string> s(words);
  Buffer buf;
  ASSERT_TRUE(serialize(buf, s));
  EXPECT_EQ(serialized_size(s), buf.size());
  std::vector<std::string> out;
  ASSERT_TRUE(deserialize(buf, out));
  EXPECT_EQ(out, (std::vector<std::string>{"alpha", "", "gamma"}));

  const bool bits[] = {true, false, true};
  Buffer buf2;
  ASSERT_TRUE(serialize(buf2, std::span<const bool>(bits)));
  EXPECT_EQ(to_hex(buf2.bytes()), to_hex(encode(std::vector<bool>{true, false, true})));
  std::vector<bool> bits_out;
  ASSERT_TRUE(deserialize(buf2, bits_out));
  EXPECT_EQ(bits_out, (std::vector<bool>{true, false, true}));
}

TEST(StdSpan, AsAFieldOfASourceStruct) {
  // A "view" message type used only for sending: same bytes as the owning one.
  const std::vector<std::uint16_t> data{10, 20, 30};
  Buffer buf;
  ASSERT_TRUE(serialize(buf, SpanView{"v", data}));
  SpanOwned out;
  ASSERT_TRUE(deserialize(buf, out));
  EXPECT_EQ(out.values, data);
  EXPECT_EQ(out.tag, "v");
}

// A struct whose fields are all trivially copyable is itself trivially
// copyable, but a member with a codec of its own (here a span, which must not
// go out as a pointer and a length) keeps the struct off the memcpy path
// (core/classify.hpp: a codec with a layout of its own): the bytes of the owning struct.
TEST(StdSpan, TriviallyCopyableStructWithSpanField) {
  static_assert(std::is_trivially_copyable_v<SpanOnlyView>);
  const std::vector<std::uint16_t> data{10, 20, 30};
  EXPECT_EQ(hex_of(SpanOnlyView{data}), hex_of(data));
}

} // namespace
