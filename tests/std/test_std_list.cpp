// std::list, std::forward_list and std::deque: [uint64 count][elements], the
// bytes of the std::vector with the same elements.
#include "std_codec_test_support.hpp"

#include <bin_serializer/std/deque.hpp>
#include <bin_serializer/std/list.hpp>
#include <bin_serializer/std/vector.hpp>

#include <cstdint>
#include <deque>
#include <forward_list>
#include <list>
#include <optional>
#include <string>
#include <vector>

namespace {

using namespace bin_serializer;
using namespace std_codec_test;

static_assert(!BoundedSize<std::list<int>>);
static_assert(!BoundedSize<std::deque<int>>);
static_assert(!BoundedSize<std::forward_list<int>>);

TEST(StdList, GoldenSameAsVector) {
  SKIP_UNLESS_LITTLE_ENDIAN();
  const char* expected = "0300000000000000" "01000000" "02000000" "03000000";
  EXPECT_EQ(hex_of(std::list<std::int32_t>{1, 2, 3}), expected);
  EXPECT_EQ(hex_of(std::forward_list<std::int32_t>{1, 2, 3}), expected);
  EXPECT_EQ(hex_of(std::deque<std::int32_t>{1, 2, 3}), expected);
  EXPECT_EQ(hex_of(std::vector<std::int32_t>{1, 2, 3}), expected);
  EXPECT_EQ(hex_of(std::list<bool>{true, false}), "0200000000000000" "0100");
  EXPECT_EQ(hex_of(std::forward_list<int>{}), "0000000000000000");
}

TEST(StdList, RoundTrip) {
  expect_round_trip(std::list<int>{});
  expect_round_trip(std::list<std::string>{"a", "", "c"});
  expect_round_trip(std::forward_list<int>{});
  expect_round_trip(std::forward_list<std::string>{"first", "second"});
  expect_round_trip(std::deque<int>{});
  expect_round_trip(std::deque<std::optional<std::string>>{"x", std::nullopt});
  expect_round_trip(std::list<std::deque<std::forward_list<int>>>{{{1, 2}, {}}, {}});
  std::deque<std::uint32_t> big;
  for (std::uint32_t i = 0; i < 100'000; ++i) big.push_back(i);
  expect_round_trip(big);
}

TEST(StdList, InterchangeableWithVector) {
  Buffer buf;
  ASSERT_TRUE(serialize(buf, std::vector<std::string>{"v", "w"}));
  ASSERT_TRUE(serialize(buf, std::list<std::string>{"l"}));
  std::deque<std::string> d;
  std::vector<std::string> v;
  ASSERT_TRUE(deserialize(buf, d));
  ASSERT_TRUE(deserialize(buf, v));
  EXPECT_EQ(d, (std::deque<std::string>{"v", "w"}));
  EXPECT_EQ(v, (std::vector<std::string>{"l"}));
}

TEST(StdList, DecodingReplacesContents) {
  Buffer buf;
  ASSERT_TRUE(serialize(buf, std::forward_list<int>{4, 5}));
  std::forward_list<int> out{1, 2, 3};
  ASSERT_TRUE(deserialize(buf, out));
  EXPECT_EQ(out, (std::forward_list<int>{4, 5}));
}

TEST(StdList, Failures) {
  SKIP_UNLESS_LITTLE_ENDIAN(); // decodes hand-written little-endian native bytes
  expect_decode_error<std::list<int>>("ffffffffffffffff", errc::truncated, 0);
  expect_decode_error<std::forward_list<int>>("ffffffffffffffff", errc::truncated, 0);
  expect_decode_error<std::deque<int>>("ffffffffffffffff", errc::truncated, 0);
  expect_decode_error<std::list<bool>>("0200000000000000" "0003", errc::invalid_value, 9);
  expect_decode_error<std::forward_list<bool>>("0100000000000000" "09", errc::invalid_value, 8);
  expect_decode_error<std::deque<std::optional<int>>>(
      "0100000000000000" "04", errc::invalid_value, 8);
  expect_every_truncation_fails<std::list<std::string>>(encode(std::list<std::string>{"a", "b"}));
  expect_every_truncation_fails<std::forward_list<std::string>>(
      encode(std::forward_list<std::string>{"ab", "c"}));
  expect_every_truncation_fails<std::deque<int>>(encode(std::deque<int>{1, 2}));
}

TEST(StdList, FailedDecodeKeepsDecodedPrefix) {
  const auto bytes = encode(std::list<std::string>{"one", "two", "three"});
  BufferView view(std::span<const std::byte>(bytes).first(bytes.size() - 1));
  std::list<std::string> out{"old"};
  EXPECT_FALSE(deserialize(view, out));
  ASSERT_GE(out.size(), 2u);
  EXPECT_EQ(out.front(), "one");
  out.push_back("usable");
}

TEST(StdList, SizeMatches) {
  EXPECT_EQ(serialized_size(std::forward_list<int>{1, 2}), 16u);
  EXPECT_EQ(serialized_size(std::list<std::string>{"ab"}), 18u);
  EXPECT_EQ(serialized_size(std::deque<std::optional<int>>{1, std::nullopt}), 8u + 5u + 1u);
}

} // namespace
