// std::pair<A, B> and std::tuple<Ts...>: members in order, no prefix, no padding.
#include "std_codec_test_support.hpp"

#include <bin_serializer/std/tuple.hpp>

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

namespace {

using namespace bin_serializer;
using namespace std_codec_test;

// ---- compile-time properties ----------------------------------------------------

static_assert(detail::category_of<native, std::pair<int, int>>() == detail::category::codec);
static_assert(max_serialized_size_v<std::pair<std::int32_t, double>> == 12);
static_assert(max_serialized_size_v<std::pair<std::uint8_t, std::uint16_t>> == 3);
static_assert(max_serialized_size_v<std::tuple<char, std::int32_t, double>> == 13);
static_assert(max_serialized_size_v<std::tuple<>> == 0);
static_assert(max_serialized_size_v<std::tuple<std::optional<int>, std::pair<char, char>>> == 7);
static_assert(!BoundedSize<std::pair<int, std::string>>);
static_assert(!BoundedSize<std::tuple<int, std::vector<int>>>);
static_assert(detail::std_codec::min_size_of<native, std::tuple<int, std::string>>() == 12);

// ---- golden bytes ------------------------------------------------------------------

TEST(StdTuple, GoldenPair) {
  SKIP_UNLESS_LITTLE_ENDIAN();
  // No padding between members, unlike the object's 4 bytes.
  EXPECT_EQ(hex_of(std::pair<std::uint8_t, std::uint16_t>{1, 0x0203}), "01" "0302");
  EXPECT_EQ(hex_of(std::pair<std::int32_t, std::string>{-2, "p"}), "feffffff"
                                                                   "0100000000000000"
                                                                   "70");
}

TEST(StdTuple, GoldenTuple) {
  SKIP_UNLESS_LITTLE_ENDIAN();
  EXPECT_EQ(hex_of(std::tuple<>{}), "");
  EXPECT_EQ(hex_of(std::tuple<char, std::int32_t, double>{'a', 1, 2.0}),
            "61"
            "01000000"
            "0000000000000040");
  EXPECT_EQ(hex_of(std::tuple<std::optional<std::uint8_t>, bool, std::vector<std::uint8_t>>{
                std::nullopt, true, {9}}),
            "00"
            "01"
            "0100000000000000"
            "09");
}

// ---- round trips -------------------------------------------------------------------

TEST(StdTuple, RoundTrip) {
  expect_round_trip(std::pair<int, double>{1, 2.5});
  expect_round_trip(std::pair<std::string, std::vector<std::string>>{"k", {"v1", "v2"}});
  expect_round_trip(std::tuple<>{});
  expect_round_trip(std::tuple<int>{7});
  expect_round_trip(
      std::tuple<std::string, std::optional<int>, std::pair<bool, char>>{"s", 3, {true, 'c'}});
  expect_round_trip(std::vector<std::pair<std::string, int>>{{"a", 1}, {"b", 2}});
  expect_round_trip(std::tuple<std::tuple<std::tuple<int>>, std::pair<std::pair<int, int>, int>>{
      {{1}}, {{2, 3}, 4}});
}

TEST(StdTuple, TieAsSourceAndTarget) {
  int a = 5;
  std::string b = "five";
  std::vector<int> c{5, 5};
  Buffer buf;
  ASSERT_TRUE(serialize(buf, std::tie(a, b, c)));
  EXPECT_EQ(to_hex(buf.bytes()), hex_of(std::tuple<int, std::string, std::vector<int>>{a, b, c}));
  EXPECT_EQ(serialized_size(std::tie(a, b, c)), buf.size());

  int a2 = 0;
  std::string b2;
  std::vector<int> c2;
  auto target = std::tie(a2, b2, c2);
  ASSERT_TRUE(deserialize(buf, target));
  EXPECT_EQ(a2, 5);
  EXPECT_EQ(b2, "five");
  EXPECT_EQ(c2, (std::vector<int>{5, 5}));
  static_assert(max_serialized_size_v<std::tuple<int&, double&>> == 12);
}

TEST(StdTuple, InFixedBuffer) {
  using T = std::tuple<std::uint8_t, std::uint32_t, std::optional<std::uint16_t>>;
  FixedBuffer<max_serialized_size_v<T>> buf;
  ASSERT_TRUE(serialize(buf, T{1, 2, 3}));
  EXPECT_EQ(buf.size(), 8u);
  T out{};
  ASSERT_TRUE(deserialize(buf, out));
  EXPECT_EQ(out, (T{1, 2, 3}));
}

// ---- failures -------------------------------------------------------------------------

TEST(StdTuple, MembersAreValidated) {
  expect_decode_error<std::pair<int, bool>>("01000000" "05", errc::invalid_value, 4);
  expect_decode_error<std::tuple<std::uint8_t, std::optional<int>>>(
      "00" "03", errc::invalid_value, 1);
}

TEST(StdTuple, Truncation) {
  expect_every_truncation_fails<std::pair<int, std::string>>(
      encode(std::pair<int, std::string>{1, "two"}));
  expect_every_truncation_fails<std::tuple<std::string, std::optional<int>, std::vector<short>>>(
      encode(std::tuple<std::string, std::optional<int>, std::vector<short>>{"a", 2, {3, 4}}));
}

TEST(StdTuple, SizeMatches) {
  EXPECT_EQ(serialized_size(std::pair<std::uint8_t, std::uint16_t>{}), 3u);
  EXPECT_EQ(serialized_size(std::tuple<>{}), 0u);
  EXPECT_EQ(serialized_size(std::tuple<int, std::string>{1, "ab"}), 4u + 8u + 2u);
}

} // namespace
