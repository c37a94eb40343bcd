// std::set / multiset / unordered_set / unordered_multiset:
// [uint64 count][keys]... in iteration order.
#include "std_codec_test_support.hpp"

#include <bin_serializer/std/set.hpp>

#include <cstdint>
#include <functional>
#include <set>
#include <string>
#include <unordered_set>
#include <vector>

namespace {

using namespace bin_serializer;
using namespace std_codec_test;

static_assert(!BoundedSize<std::set<int>>);
static_assert(detail::category_of<native, std::unordered_set<int>>() == detail::category::codec);
static_assert(detail::std_codec::min_size_of<native, std::multiset<int>>() == 8);

TEST(StdSet, Golden) {
  SKIP_UNLESS_LITTLE_ENDIAN();
  EXPECT_EQ(hex_of(std::set<std::int32_t>{3, 1, 2}), "0300000000000000"
                                                     "01000000"
                                                     "02000000"
                                                     "03000000");
  EXPECT_EQ(hex_of(std::set<int>{}), "0000000000000000");
  EXPECT_EQ(hex_of(std::multiset<std::uint8_t>{2, 1, 2}), "0300000000000000" "010202");
  EXPECT_EQ(hex_of(std::set<std::string, std::greater<>>{"a", "b"}), "0200000000000000"
                                                                     "0100000000000000" "62"
                                                                     "0100000000000000" "61");
  EXPECT_EQ(hex_of(std::unordered_set<std::uint16_t>{0x0a0b}), "0100000000000000" "0b0a");
}

TEST(StdSet, RoundTrip) {
  expect_round_trip(std::set<int>{});
  expect_round_trip(std::set<std::string>{"pear", "apple", ""});
  expect_round_trip(std::multiset<int>{1, 1, 2, 3, 3, 3});
  expect_round_trip(std::unordered_set<std::string>{"x", "y", "z"});
  expect_round_trip(std::unordered_multiset<int>{4, 4, 5});
  expect_round_trip(std::set<std::vector<int>>{{1, 2}, {}, {0}});
  expect_round_trip(std::vector<std::set<bool>>{{true, false}, {}, {false}});
  std::set<std::uint64_t> large;
  for (std::uint64_t i = 0; i < 20'000; ++i) large.insert(i * i);
  expect_round_trip(large);
}

TEST(StdSet, DecodingReplacesContents) {
  Buffer buf;
  ASSERT_TRUE(serialize(buf, std::set<int>{7}));
  std::set<int> out{1, 2, 3};
  ASSERT_TRUE(deserialize(buf, out));
  EXPECT_EQ(out, (std::set<int>{7}));
}

TEST(StdSet, DuplicateKeyIsInvalid) {
  SKIP_UNLESS_LITTLE_ENDIAN(); // decodes hand-written little-endian native bytes
  const char* dup = "0300000000000000" "01000000" "02000000" "01000000";
  expect_decode_error<std::set<std::int32_t>>(dup, errc::invalid_value, 16);
  expect_decode_error<std::unordered_set<std::int32_t>>(dup, errc::invalid_value, 16);
  expect_decode_error<std::set<std::string>>("0200000000000000"
                                             "0100000000000000" "61"
                                             "0100000000000000" "61",
                                             errc::invalid_value, 17);
  const auto bytes = from_hex(dup);
  BufferView view(bytes);
  std::multiset<std::int32_t> multi;
  ASSERT_TRUE(deserialize(view, multi));
  EXPECT_EQ(multi.count(1), 2u);
  BufferView view2(bytes);
  std::unordered_multiset<std::int32_t> umulti;
  ASSERT_TRUE(deserialize(view2, umulti));
  EXPECT_EQ(umulti.count(1), 2u);
}

TEST(StdSet, KeysAreValidated) {
  SKIP_UNLESS_LITTLE_ENDIAN(); // decodes hand-written little-endian native bytes
  expect_decode_error<std::set<bool>>("0200000000000000" "00" "05", errc::invalid_value, 9);
}

TEST(StdSet, HostileCountAndTruncation) {
  expect_decode_error<std::set<int>>("ffffffffffffffff", errc::truncated, 0);
  expect_decode_error<std::unordered_set<std::string>>(
      "0300000000000000" "0000000000000000", errc::truncated, 0);
  expect_every_truncation_fails<std::set<std::string>>(encode(std::set<std::string>{"a", "bc"}));
  expect_every_truncation_fails<std::unordered_multiset<int>>(
      encode(std::unordered_multiset<int>{1, 1}));
}

TEST(StdSet, SizeMatches) {
  EXPECT_EQ(serialized_size(std::set<int>{1, 2, 3}), 8u + 12u);
  EXPECT_EQ(serialized_size(std::set<std::string>{"ab"}), 8u + 8u + 2u);
}

} // namespace
