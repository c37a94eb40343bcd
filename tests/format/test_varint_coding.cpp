// A varint format without zigzag, composed from format/varint.hpp's leaves
// with the two_complement integer coding (issue 29): every path of it (a lone
// scalar, a std::array's four-at-a-time groups, sizes, decoding) uses that
// coding. Deriving it from compact's policy and replacing store_scalar wrote
// {-1, -1, -1, -1} as zigzag (01 01 01 01) while serialized_size said 20.
#include <bin_serializer/format/all.hpp>
#include <bin_serializer/format/varint.hpp>
#include <bin_serializer/options.hpp>

#include <bit>
#include <string_view>

namespace bin_serializer {
namespace test_formats {
inline constexpr wire_format plain_varint_id = static_cast<wire_format>(0x7E);
} // namespace test_formats

template <>
struct format_policy<test_formats::plain_varint_id>
    : detail::varint_leaves<detail::leb128::two_complement> {
  static constexpr wire_format id = test_formats::plain_varint_id;
  static constexpr std::string_view name = "plain_varint";
  static constexpr bool host_layout = false;
  template <class T>
  static constexpr bool refuses = detail::platform_dependent<T>;
};
template <>
inline constexpr bool registered_format<test_formats::plain_varint_id> =
    detail::checked_policy<format_policy<test_formats::plain_varint_id>>();
} // namespace bin_serializer

#include "test_util.hpp"

#include <bin_serializer/std/all.hpp>

#include <array>
#include <cstdint>
#include <string>
#include <vector>

namespace {

namespace bs = bin_serializer;
using test_util::hex;
using bytes = std::vector<std::byte>;

constexpr bs::options plain{.format = bs::test_formats::plain_varint_id};

struct S {
  std::int32_t a;
  std::vector<std::int32_t> v;
  bool operator==(const S&) const = default;
};

template <bs::options O, class T>
std::string encoded(const T& v) {
  bs::Buffer buf;
  EXPECT_TRUE(bs::serialize<O>(buf, v));
  EXPECT_EQ(bs::serialized_size<O>(v), buf.size()) << hex(buf);
  T back{};
  bs::BufferView view(buf.bytes());
  EXPECT_TRUE(bs::deserialize<O>(view, back)) << hex(buf);
  EXPECT_EQ(view.remaining(), 0u);
  EXPECT_TRUE(back == v) << hex(buf);
  return hex(buf);
}

} // namespace

TEST(VarintCoding, LoneScalar) {
  EXPECT_EQ(encoded<plain>(std::int32_t{-1}), "ffffffff0f");
  EXPECT_EQ(encoded<bs::compact>(std::int32_t{-1}), "01");
  EXPECT_EQ(encoded<plain>(std::int16_t{-1}), "ffff03");
  EXPECT_EQ(encoded<plain>(std::int64_t{-1}), "ffffffffffffffffff01");
  EXPECT_EQ(encoded<plain>(std::uint32_t{300}), "ac02");
}

TEST(VarintCoding, GroupsOfFourUseTheSameCoding) {
  // Four five-byte values: the group path.
  EXPECT_EQ(encoded<plain>(std::array<std::int32_t, 4>{-1, -1, -1, -1}),
            "ffffffff0f" "ffffffff0f" "ffffffff0f" "ffffffff0f");
  EXPECT_EQ(encoded<bs::compact>(std::array<std::int32_t, 4>{-1, -1, -1, -1}), "01010101");
  // Four one-byte values, and a group of mixed lengths.
  EXPECT_EQ(encoded<plain>(std::array<std::int32_t, 4>{1, 2, 3, 4}), "01020304");
  EXPECT_EQ(encoded<bs::compact>(std::array<std::int32_t, 4>{1, 2, 3, 4}), "02040608");
  EXPECT_EQ(encoded<plain>(std::array<std::int16_t, 5>{-1, 1, -1, 1, -1}),
            "ffff03" "01" "ffff03" "01" "ffff03");
  EXPECT_EQ(encoded<plain>(std::array<std::int64_t, 4>{0, 1, 2, -1}),
            "000102" "ffffffffffffffffff01");
}

TEST(VarintCoding, BlocksOfSixteenUseTheSameCoding) {
  // Sixteen values of one length (format/leb128_blocks.hpp on x86-64): the
  // one-, two- and five-byte blocks with two_complement, against zigzag.
  std::vector<std::int32_t> small(16, 5), pairs(16, 300), minus(16, -1), wide(4, 1 << 30);
  std::string small_hex = "10", pairs_hex = "10", minus_hex = "10", zz_minus_hex = "10";
  for (int i = 0; i < 16; ++i) {
    small_hex += "05";
    pairs_hex += "ac02";
    minus_hex += "ffffffff0f";
    zz_minus_hex += "01";
  }
  EXPECT_EQ(encoded<plain>(small), small_hex);
  EXPECT_EQ(encoded<plain>(pairs), pairs_hex);
  EXPECT_EQ(encoded<plain>(minus), minus_hex);
  EXPECT_EQ(encoded<bs::compact>(minus), zz_minus_hex);
  EXPECT_EQ(encoded<plain>(wide), "04" "8080808004" "8080808004" "8080808004" "8080808004");
  EXPECT_EQ(encoded<bs::compact>(wide), "04" "8080808008" "8080808008" "8080808008" "8080808008");
  // 16- and 64-bit: -1 is three and ten bytes; 64 is one byte (not zigzag).
  std::string s16 = "10", w16 = "10", w64 = "10";
  for (int i = 0; i < 16; ++i) {
    s16 += "40";
    w16 += "ffff03";
    w64 += "ffffffffffffffffff01";
  }
  EXPECT_EQ(encoded<plain>(std::vector<std::int16_t>(16, 64)), s16);
  EXPECT_EQ(encoded<plain>(std::vector<std::int16_t>(16, -1)), w16);
  EXPECT_EQ(encoded<plain>(std::vector<std::int64_t>(16, -1)), w64);
}

TEST(VarintCoding, ContainersAndStructs) {
  EXPECT_EQ(encoded<plain>(S{-2, {-1, 5}}), "feffffff0f" "02" "ffffffff0f" "05");
  EXPECT_EQ(encoded<bs::compact>(S{-2, {-1, 5}}), "03" "02" "01" "0a");
}

TEST(VarintCoding, RefusesWhatCompactRefuses) {
  // Not the shortest form, and a fifth byte with bits beyond 32.
  for (const char* in : {"8000", "ffffffff1f"}) {
    const bytes b = test_util::unhex(in);
    std::int32_t v = 0;
    bs::BufferView view(b);
    EXPECT_FALSE(bs::deserialize<plain>(view, v)) << in;
    EXPECT_EQ(view.last_error().code, bs::errc::invalid_value) << in;
  }
}

TEST(VarintCoding, FramedMessages) {
  bs::Buffer buf;
  ASSERT_TRUE(bs::serialize_message<plain>(buf, std::array<std::int32_t, 4>{-1, 2, -3, 4}));
  EXPECT_EQ(static_cast<unsigned>(buf.bytes()[5]), 0x7Eu);
  std::array<std::int32_t, 4> back{};
  ASSERT_TRUE(bs::deserialize_message<plain>(buf, back));
  EXPECT_EQ(back, (std::array<std::int32_t, 4>{-1, 2, -3, 4}));
}
