// std::variant<Ts...>: [uint32 index][active alternative]; std::monostate: 0 bytes.
#include "std_codec_test_support.hpp"

#include <bin_serializer/std/variant.hpp>

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <type_traits>
#include <variant>
#include <vector>

namespace {

using namespace bin_serializer;
using namespace std_codec_test;

using Shape = std::variant<std::monostate, std::int32_t, double, std::string>;

struct Circle {
  double r = 0;
  bool operator==(const Circle&) const = default;
};
struct Label {
  std::string text;
  std::vector<int> marks;
  bool operator==(const Label&) const = default;
};
using Item = std::variant<Circle, Label, std::vector<std::optional<int>>>;

// ---- compile-time properties ----------------------------------------------------

static_assert(std::is_trivially_copyable_v<std::variant<int, double>>);
static_assert(detail::category_of<native, std::variant<int, double>>() == detail::category::codec);
static_assert(max_serialized_size_v<std::variant<int, double>> == 12);
static_assert(max_serialized_size_v<std::variant<std::monostate, std::uint8_t>> == 5);
static_assert(max_serialized_size_v<std::variant<std::monostate>> == 4);
static_assert(max_serialized_size_v<std::monostate> == 0);
static_assert(max_serialized_size_v<std::variant<std::optional<int>, std::variant<char, int>>> ==
              4 + (4 + 4));
static_assert(!BoundedSize<Shape>);
static_assert(!BoundedSize<Item>);
static_assert(detail::std_codec::min_size_of<native, Shape>() == 4);
static_assert(detail::std_codec::min_size_of<native, std::variant<int, double>>() == 8);

// ---- golden bytes ------------------------------------------------------------------

TEST(StdVariant, Golden) {
  SKIP_UNLESS_LITTLE_ENDIAN();
  EXPECT_EQ(hex_of(Shape{}), "00000000");
  EXPECT_EQ(hex_of(Shape{std::int32_t{5}}), "01000000" "05000000");
  EXPECT_EQ(hex_of(Shape{1.0}), "02000000" "000000000000f03f");
  EXPECT_EQ(hex_of(Shape{std::string("ok")}), "03000000" "0200000000000000" "6f6b");
  // Same type twice: the index tells them apart.
  EXPECT_EQ(hex_of(std::variant<std::uint8_t, std::uint8_t>{std::in_place_index<1>, 9}),
            "01000000" "09");
  EXPECT_EQ(hex_of(std::monostate{}), "");
}

// ---- round trips -------------------------------------------------------------------

TEST(StdVariant, RoundTrip) {
  expect_round_trip(Shape{});
  expect_round_trip(Shape{std::int32_t{-1}});
  expect_round_trip(Shape{2.5});
  expect_round_trip(Shape{std::string(500, 's')});
  expect_round_trip(Item{Circle{1.5}});
  expect_round_trip(Item{Label{"l", {1, 2}}});
  expect_round_trip(Item{std::vector<std::optional<int>>{1, std::nullopt}});
  expect_round_trip(std::vector<Shape>{Shape{}, Shape{std::int32_t{1}}, Shape{std::string("x")}});
  expect_round_trip(std::variant<std::uint8_t, std::uint8_t>{std::in_place_index<1>, 9});
  expect_round_trip(std::monostate{});
  expect_round_trip(std::map<int, Shape>{{1, Shape{}}, {2, Shape{3.0}}});
}

TEST(StdVariant, DecodingSwitchesAlternative) {
  Buffer buf;
  ASSERT_TRUE(serialize(buf, Shape{std::string("new")}));
  ASSERT_TRUE(serialize(buf, Shape{std::int32_t{8}}));
  ASSERT_TRUE(serialize(buf, Shape{std::string("again")}));
  Shape out{2.0};
  ASSERT_TRUE(deserialize(buf, out));
  EXPECT_EQ(out, Shape{std::string("new")});
  ASSERT_TRUE(deserialize(buf, out));
  EXPECT_EQ(out, Shape{std::int32_t{8}});
  ASSERT_TRUE(deserialize(buf, out));
  EXPECT_EQ(out, Shape{std::string("again")});
}

TEST(StdVariant, ManyAlternatives) {
  SKIP_UNLESS_LITTLE_ENDIAN(); // decodes hand-written little-endian native bytes
  // A flat fold, no recursion per alternative: 40 alternatives compile and work.
  using Wide =
      std::variant<char, short, int, long, long long, unsigned char, unsigned short, unsigned,
                   unsigned long, unsigned long long, float, double, std::string, std::monostate,
                   bool, std::int8_t, char16_t, char32_t, wchar_t, std::vector<int>,
                   std::optional<int>, std::u16string, std::vector<std::string>, std::vector<bool>,
                   std::uint64_t, std::vector<double>, std::optional<std::string>, std::u32string,
                   std::vector<char>, std::vector<short>, std::vector<long>, std::vector<float>,
                   std::optional<double>, std::optional<bool>, std::optional<char>,
                   std::optional<short>, std::optional<long>, std::optional<float>,
                   std::vector<std::u16string>, long double>;
  static_assert(std::variant_size_v<Wide> == 40);
  Wide w{std::in_place_index<38>, std::vector<std::u16string>{u"x"}};
  const auto bytes = expect_round_trip(w);
  EXPECT_EQ(bytes[0], std::byte{38});
  expect_decode_error<Wide>("28000000", errc::invalid_value, 0);
}

// ---- failures -------------------------------------------------------------------------

TEST(StdVariant, IndexOutOfRange) {
  SKIP_UNLESS_LITTLE_ENDIAN(); // decodes hand-written little-endian native bytes
  expect_decode_error<Shape>("04000000", errc::invalid_value, 0);
  expect_decode_error<Shape>("ffffffff" "00000000", errc::invalid_value, 0);
  expect_decode_error<std::variant<int, double>>("02000000" "00000000", errc::invalid_value, 0);
  // Inside a vector: second element's index at 8 + 4 + 4.
  expect_decode_error<std::vector<std::variant<int, double>>>(
      "0200000000000000" "00000000" "01000000" "07000000" "00000000", errc::invalid_value, 16);
  // Not switched off by the trusted preset: there is nothing to decode into.
  const auto bytes = from_hex("09000000");
  BufferView view(bytes);
  Shape out;
  EXPECT_FALSE(deserialize<trusted>(view, out));
  EXPECT_EQ(view.last_error(), (error{errc::invalid_value, 0}));
}

TEST(StdVariant, AlternativeIsValidated) {
  SKIP_UNLESS_LITTLE_ENDIAN(); // decodes hand-written little-endian native bytes
  expect_decode_error<std::variant<int, bool>>("01000000" "02", errc::invalid_value, 4);
}

TEST(StdVariant, Truncation) {
  expect_every_truncation_fails<Shape>(encode(Shape{std::string("abc")}));
  expect_every_truncation_fails<Item>(encode(Item{Label{"t", {1, 2}}}));
  expect_every_truncation_fails<std::vector<Shape>>(
      encode(std::vector<Shape>{Shape{}, Shape{1.0}, Shape{std::string("z")}}));
}

TEST(StdVariant, SizeMatches) {
  EXPECT_EQ(serialized_size(Shape{}), 4u);
  EXPECT_EQ(serialized_size(Shape{1.0}), 12u);
  EXPECT_EQ(serialized_size(Shape{std::string("abc")}), 4u + 8u + 3u);
}

#if defined(__cpp_exceptions)
// A variant whose move constructor can throw, to make a valueless one.
struct Throws {
  Throws() = default;
  Throws(const Throws&) = default;
  Throws(Throws&&) { fail(); }
  Throws& operator=(const Throws&) = default;
  Throws& operator=(Throws&&) = default;
  bool operator==(const Throws&) const = default;
  static void fail() {
#if defined(__cpp_exceptions)
    throw 1;
#endif
  }
  template <class V> auto reflect(V&& v) { return v(); }
  template <class V> auto reflect(V&& v) const { return v(); }
};

TEST(StdVariant, ValuelessCannotBeWritten) {
  std::variant<int, Throws> v{1};
  try {
    v.emplace<1>(Throws{}); // the move throws after the old value is gone
  } catch (int) {
  }
  ASSERT_TRUE(v.valueless_by_exception());
  Buffer buf;
  ASSERT_TRUE(serialize(buf, 7));
  EXPECT_FALSE(serialize(buf, v));
  EXPECT_EQ(buf.last_error().code, errc::invalid_value);
  EXPECT_EQ(buf.size(), 4u); // unchanged
}
#endif

} // namespace
