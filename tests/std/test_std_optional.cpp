// std::optional<T>: [uint8 presence 0/1][T if present].
#include "std_codec_test_support.hpp"

#include <bin_serializer/std/optional.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <type_traits>
#include <vector>

namespace {

using namespace bin_serializer;
using namespace std_codec_test;

struct Profile {
  std::optional<std::string> nickname;
  std::optional<std::uint16_t> age;
  std::vector<std::optional<int>> scores;
  template <class V> auto reflect(V&& v) { return v(nickname, age, scores); }
  template <class V> auto reflect(V&& v) const { return v(nickname, age, scores); }
  bool operator==(const Profile&) const = default;
};

// ---- compile-time properties ----------------------------------------------------

// Trivially copyable, yet it has a codec: the presence byte is a defined layout.
static_assert(std::is_trivially_copyable_v<std::optional<int>>);
static_assert(detail::category_of<native, std::optional<int>>() == detail::category::codec);
static_assert(max_serialized_size_v<std::optional<int>> == 5);
static_assert(max_serialized_size_v<std::optional<double>> == 9);
static_assert(max_serialized_size_v<std::optional<std::optional<std::uint8_t>>> == 3);
static_assert(max_serialized_size_v<std::optional<bool>> == 2);
static_assert(!BoundedSize<std::optional<std::string>>);
static_assert(!BoundedSize<std::optional<std::vector<int>>>);
static_assert(detail::std_codec::min_size_of<native, std::optional<std::string>>() == 1);

// ---- golden bytes ------------------------------------------------------------------

TEST(StdOptional, Golden) {
  SKIP_UNLESS_LITTLE_ENDIAN();
  EXPECT_EQ(hex_of(std::optional<std::int32_t>{}), "00");
  EXPECT_EQ(hex_of(std::optional<std::int32_t>{7}), "01" "07000000");
  EXPECT_EQ(hex_of(std::optional<std::string>{"hi"}), "01" "0200000000000000" "6869");
  EXPECT_EQ(hex_of(std::optional<std::optional<std::uint8_t>>{std::optional<std::uint8_t>{}}),
            "01" "00");
  EXPECT_EQ(hex_of(std::optional<bool>{false}), "0100");
}

TEST(StdOptional, GoldenStruct) {
  SKIP_UNLESS_LITTLE_ENDIAN();
  EXPECT_EQ(hex_of(Profile{std::nullopt, 30, {1, std::nullopt}}),
            "00"                 // nickname: absent
            "01" "1e00"          // age: 30
            "0200000000000000"   // 2 scores
            "01" "01000000"      // 1
            "00");               // absent
}

// ---- round trips -------------------------------------------------------------------

TEST(StdOptional, RoundTrip) {
  expect_round_trip(std::optional<int>{});
  expect_round_trip(std::optional<int>{-5});
  expect_round_trip(std::optional<std::string>{});
  expect_round_trip(std::optional<std::string>{""});
  expect_round_trip(std::optional<std::string>{std::string(1000, 'o')});
  expect_round_trip(std::optional<std::vector<int>>{std::vector<int>{1, 2, 3}});
  expect_round_trip(std::optional<std::optional<int>>{std::optional<int>{}});
  expect_round_trip(std::optional<std::optional<int>>{std::optional<int>{3}});
  expect_round_trip(std::vector<std::optional<std::string>>{"a", std::nullopt, ""});
  expect_round_trip(Profile{"zed", std::nullopt, {std::nullopt, 4}});
}

TEST(StdOptional, DecodingReplacesTarget) {
  Buffer empty_buf;
  ASSERT_TRUE(serialize(empty_buf, std::optional<std::string>{}));
  std::optional<std::string> out{"old"};
  ASSERT_TRUE(deserialize(empty_buf, out));
  EXPECT_FALSE(out.has_value());

  Buffer full_buf;
  ASSERT_TRUE(serialize(full_buf, std::optional<std::string>{"new"}));
  out = "previous value";
  ASSERT_TRUE(deserialize(full_buf, out));
  EXPECT_EQ(out, "new");
}

TEST(StdOptional, InFixedBuffer) {
  FixedBuffer<max_serialized_size_v<std::optional<std::int64_t>>> buf;
  ASSERT_TRUE(serialize(buf, std::optional<std::int64_t>{1234}));
  EXPECT_EQ(buf.size(), 9u);
  std::optional<std::int64_t> out;
  ASSERT_TRUE(deserialize(buf, out));
  EXPECT_EQ(out, 1234);
}

// ---- failures -------------------------------------------------------------------------

TEST(StdOptional, InvalidPresenceByte) {
  expect_decode_error<std::optional<int>>("02" "00000000", errc::invalid_value, 0);
  expect_decode_error<std::optional<int>>("ff", errc::invalid_value, 0);
  // Nested: the inner flag is at offset 1.
  expect_decode_error<std::optional<std::optional<int>>>("01" "05", errc::invalid_value, 1);
  // In a vector: third element's flag at 8 + 5 + 1.
  if constexpr (std::endian::native == std::endian::little) // little-endian native count and int
    expect_decode_error<std::vector<std::optional<int>>>(
        "0300000000000000" "0101000000" "00" "07", errc::invalid_value, 14);
  // The contained value is validated too.
  expect_decode_error<std::optional<bool>>("01" "02", errc::invalid_value, 1);
}

TEST(StdOptional, TrustedAcceptsAnyNonZeroFlag) {
  SKIP_UNLESS_LITTLE_ENDIAN(); // decodes hand-written little-endian native bytes
  const auto bytes = from_hex("02" "2a000000");
  BufferView view(bytes);
  std::optional<int> out;
  ASSERT_TRUE(deserialize<trusted>(view, out));
  EXPECT_EQ(out, 42);
}

TEST(StdOptional, Truncation) {
  expect_every_truncation_fails<std::optional<int>>(encode(std::optional<int>{9}));
  expect_every_truncation_fails<std::optional<std::string>>(
      encode(std::optional<std::string>{"abc"}));
  expect_every_truncation_fails<Profile>(encode(Profile{"n", 1, {2, std::nullopt, 3}}));
}

TEST(StdOptional, FailedDecodeLeavesValidTarget) {
  const auto bytes = from_hex("01" "0500000000000000" "6162");
  BufferView view(bytes);
  std::optional<std::string> out;
  EXPECT_FALSE(deserialize(view, out));
  EXPECT_EQ(view.last_error(), (error{errc::truncated, 1}));
  if (out.has_value()) out->append("usable");
}

TEST(StdOptional, SizeMatches) {
  EXPECT_EQ(serialized_size(std::optional<int>{}), 1u);
  EXPECT_EQ(serialized_size(std::optional<int>{1}), 5u);
  EXPECT_EQ(serialized_size(std::optional<std::string>{"abc"}), 1u + 8u + 3u);
}

} // namespace
