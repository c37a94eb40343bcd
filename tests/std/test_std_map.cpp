// std::map / multimap / unordered_map / unordered_multimap:
// [uint64 count][key, value]... in iteration order.
#define BIN_SERIALIZER_STD_TEST_TRACK_ALLOCATIONS
#include "std_codec_test_support.hpp"

#include <bin_serializer/std/map.hpp>

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <unordered_map>
#include <variant>
#include <vector>

namespace {

using namespace bin_serializer;
using namespace std_codec_test;

struct Employee {
  std::string name;
  std::uint32_t id = 0;
  std::vector<std::string> roles;
  template <class V> auto reflect(V&& v) { return v(name, id, roles); }
  template <class V> auto reflect(V&& v) const { return v(name, id, roles); }
  bool operator==(const Employee&) const = default;
};

// ---- compile-time properties ----------------------------------------------------

static_assert(!BoundedSize<std::map<int, int>>);
static_assert(!BoundedSize<std::unordered_multimap<int, int>>);
static_assert(detail::category_of<native, std::map<int, int>>() == detail::category::codec);
static_assert(detail::category_of<native, std::unordered_map<int, int>>() ==
              detail::category::codec);
static_assert(detail::std_codec::min_size_of<native, std::map<int, int>>() == 8);

// ---- golden bytes ------------------------------------------------------------------

TEST(StdMap, GoldenSortedOrder) {
  SKIP_UNLESS_LITTLE_ENDIAN();
  EXPECT_EQ(hex_of(std::map<std::int32_t, std::int32_t>{{2, 20}, {1, 10}}),
            "0200000000000000"
            "01000000" "0a000000"
            "02000000" "14000000");
  EXPECT_EQ(hex_of(std::map<std::uint8_t, std::string>{{1, "a"}, {2, ""}}),
            "0200000000000000"
            "01" "0100000000000000" "61"
            "02" "0000000000000000");
  EXPECT_EQ(hex_of(std::map<int, int>{}), "0000000000000000");
}

TEST(StdMap, GoldenMultiAndUnordered) {
  SKIP_UNLESS_LITTLE_ENDIAN();
  EXPECT_EQ(hex_of(std::multimap<std::uint8_t, std::uint8_t>{{1, 7}, {1, 8}, {0, 9}}),
            "0300000000000000"
            "00" "09"
            "01" "07"
            "01" "08");
  EXPECT_EQ(hex_of(std::unordered_map<std::uint16_t, bool>{{0x0102, true}}),
            "0100000000000000"
            "0201" "01");
  EXPECT_EQ(hex_of(std::map<int, int, std::greater<>>{{1, 1}, {2, 2}}),
            "0200000000000000"
            "02000000" "02000000"
            "01000000" "01000000");
}

// ---- round trips -------------------------------------------------------------------

TEST(StdMap, RoundTrip) {
  expect_round_trip(std::map<int, int>{});
  expect_round_trip(std::map<int, std::string>{{1, "one"}, {2, ""}, {-3, "minus three"}});
  expect_round_trip(std::multimap<std::string, int>{{"a", 1}, {"a", 2}, {"b", 3}, {"a", 0}});
  expect_round_trip(std::unordered_map<std::string, std::vector<int>>{{"x", {1}}, {"y", {}}});
  expect_round_trip(std::unordered_multimap<int, int>{{1, 1}, {1, 2}, {2, 2}});
  expect_round_trip(std::map<int, int, std::greater<>>{{1, 10}, {5, 50}, {3, 30}});
  expect_round_trip(std::map<std::string, std::vector<Employee>>{
      {"eng", {{"ada", 1, {"lead"}}, {"bob", 2, {}}}}, {"ops", {}}});
  expect_round_trip(std::unordered_map<std::string, std::map<int, std::set<std::string>>>{
      {"k", {{1, {"a", "b"}}, {2, {}}}}});
  expect_round_trip(std::map<std::pair<int, int>, std::optional<std::variant<int, std::string>>>{
      {{1, 2}, std::nullopt}, {{1, 3}, std::variant<int, std::string>{"v"}}});

  std::map<int, std::string> large;
  for (int i = 0; i < 10'000; ++i) large.emplace(i * 3, std::to_string(i));
  expect_round_trip(large);
  std::unordered_map<std::uint64_t, std::uint64_t> large_unordered;
  for (std::uint64_t i = 0; i < 10'000; ++i) large_unordered.emplace(i * 7919, i);
  expect_round_trip(large_unordered);
}

TEST(StdMap, MultimapKeepsOrderOfEqualKeys) {
  const std::multimap<int, std::string> m{{1, "first"}, {1, "second"}, {1, "third"}};
  Buffer buf;
  ASSERT_TRUE(serialize(buf, m));
  std::multimap<int, std::string> out;
  ASSERT_TRUE(deserialize(buf, out));
  std::vector<std::string> values;
  for (const auto& [k, v] : out) values.push_back(v);
  EXPECT_EQ(values, (std::vector<std::string>{"first", "second", "third"}));
}

TEST(StdMap, UnsortedInputIsAccepted) {
  SKIP_UNLESS_LITTLE_ENDIAN(); // decodes hand-written little-endian native bytes
  // Bytes need not come from a std::map: keys in any order decode fine.
  std::map<std::int32_t, std::int32_t> out{{9, 9}};
  const auto bytes = from_hex("0300000000000000"
                              "03000000" "1e000000"
                              "01000000" "0a000000"
                              "02000000" "14000000");
  BufferView view(bytes);
  ASSERT_TRUE(deserialize(view, out));
  EXPECT_EQ(out, (std::map<std::int32_t, std::int32_t>{{1, 10}, {2, 20}, {3, 30}}));
}

TEST(StdMap, DecodingReplacesContents) {
  Buffer buf;
  ASSERT_TRUE(serialize(buf, std::unordered_map<int, int>{{1, 1}}));
  std::unordered_map<int, int> out{{5, 5}, {6, 6}};
  ASSERT_TRUE(deserialize(buf, out));
  EXPECT_EQ(out, (std::unordered_map<int, int>{{1, 1}}));
}

// ---- failures -------------------------------------------------------------------------

TEST(StdMap, DuplicateKeyIsInvalid) {
  SKIP_UNLESS_LITTLE_ENDIAN(); // decodes hand-written little-endian native bytes
  const char* dup = "0200000000000000" "01000000" "0a000000" "01000000" "0b000000";
  expect_decode_error<std::map<std::int32_t, std::int32_t>>(dup, errc::invalid_value, 16);
  expect_decode_error<std::unordered_map<std::int32_t, std::int32_t>>(dup, errc::invalid_value, 16);
  // The multi containers take both entries.
  const auto bytes = from_hex(dup);
  BufferView view(bytes);
  std::multimap<std::int32_t, std::int32_t> multi;
  ASSERT_TRUE(deserialize(view, multi));
  EXPECT_EQ(multi.size(), 2u);
  BufferView view2(bytes);
  std::unordered_multimap<std::int32_t, std::int32_t> umulti;
  ASSERT_TRUE(deserialize(view2, umulti));
  EXPECT_EQ(umulti.count(1), 2u);
  // Duplicate string keys, offset of the second entry.
  expect_decode_error<std::map<std::string, std::uint8_t>>("0200000000000000"
                                                           "0100000000000000" "6b" "01"
                                                           "0100000000000000" "6b" "02",
                                                           errc::invalid_value, 18);
}

TEST(StdMap, EntriesAreValidated) {
  SKIP_UNLESS_LITTLE_ENDIAN(); // decodes hand-written little-endian native bytes
  expect_decode_error<std::map<int, bool>>("0100000000000000" "01000000" "07",
                                           errc::invalid_value, 12);
  expect_decode_error<std::map<bool, int>>("0100000000000000" "03" "01000000",
                                           errc::invalid_value, 8);
}

TEST(StdMap, Truncation) {
  expect_every_truncation_fails<std::map<int, std::string>>(
      encode(std::map<int, std::string>{{1, "a"}, {2, "bc"}}));
  expect_every_truncation_fails<std::unordered_map<std::string, std::vector<int>>>(
      encode(std::unordered_map<std::string, std::vector<int>>{{"k", {1, 2}}}));
  expect_every_truncation_fails<std::map<std::string, std::vector<Employee>>>(
      encode(std::map<std::string, std::vector<Employee>>{{"t", {{"n", 3, {"r"}}}}}));
}

TEST(StdMap, HostileCount) {
  expect_decode_error<std::map<int, int>>("ffffffffffffffff", errc::truncated, 0);
  expect_decode_error<std::unordered_map<int, int>>("ffffffffffffffff", errc::truncated, 0);
  // Two 8-byte entries announced, one present.
  expect_decode_error<std::map<int, int>>(
      "0200000000000000" "0100000002000000", errc::truncated, 0);
  // From a stream the count cannot be checked: the bucket reservation is bounded.
  const auto bytes = from_hex("0000000001000000" "01000000");
  allocation_stats::reset();
  StreamSource source(bytes);
  std::unordered_map<std::uint8_t, std::uint8_t> out;
  EXPECT_FALSE(deserialize(source, out));
  EXPECT_LT(allocation_stats::largest, 2 * detail::stream_chunk_bytes);
}

TEST(StdMap, ElementCountLimit) {
  constexpr options limited{.max_element_count = 2};
  const auto bytes = encode(std::map<int, int>{{1, 1}, {2, 2}, {3, 3}});
  BufferView view(bytes);
  std::map<int, int> out;
  EXPECT_FALSE(deserialize<limited>(view, out));
  EXPECT_EQ(view.last_error(), (error{errc::limit_exceeded, 0}));
  const auto ok_bytes = encode(std::map<int, int>{{1, 1}, {2, 2}});
  BufferView ok_view(ok_bytes);
  EXPECT_TRUE(deserialize<limited>(ok_view, out));
}

TEST(StdMap, FailedDecodeLeavesValidTarget) {
  const auto bytes = encode(std::map<std::string, std::string>{{"a", "alpha"}, {"b", "beta"}});
  BufferView view(std::span<const std::byte>(bytes).first(bytes.size() - 1));
  std::map<std::string, std::string> out{{"old", "entry"}};
  EXPECT_FALSE(deserialize(view, out));
  EXPECT_EQ(out.count("old"), 0u);
  EXPECT_LE(out.size(), 2u);
  if (out.count("a") != 0) {
    EXPECT_EQ(out["a"], "alpha");
  }
  out["usable"] = "yes";
}

TEST(StdMap, SizeMatches) {
  EXPECT_EQ(serialized_size(std::map<int, int>{{1, 1}, {2, 2}}), 8u + 2u * 8u);
  EXPECT_EQ(serialized_size(std::map<int, std::string>{{1, "abc"}}), 8u + 4u + 8u + 3u);
  EXPECT_EQ(serialized_size(std::map<int, std::optional<int>>{{1, 1}, {2, std::nullopt}}),
            8u + (4u + 5u) + (4u + 1u));
}

} // namespace
