// Golden bytes: every row of the design document's wire table as an
// executable spec, on a little-endian host (x86-64, AArch64).
#include "test_util.hpp"

#include <gtest/gtest-spi.h>

#include <bit>
#include <cstdint>
#include <string>

namespace bs = bin_serializer;
using test_util::hex;
using test_util::unhex;

#define SKIP_UNLESS_LITTLE_ENDIAN()                                      \
  if constexpr (std::endian::native != std::endian::little) {            \
    GTEST_SKIP() << "golden bytes are written for a little-endian host"; \
  }

namespace {

template <class T>
std::string encode(const T& value) {
  bs::Buffer buf;
  EXPECT_TRUE(bs::serialize(buf, value));
  EXPECT_EQ(bs::serialized_size(value), buf.size());
  return hex(buf);
}

// Decodes the golden hex into `out`, requiring every byte to be consumed.
template <class T>
void decode(std::string_view golden, T& out) {
  const auto bytes = unhex(golden);
  bs::BufferView view(bytes);
  ASSERT_TRUE(bs::deserialize(view, out)) << golden;
  EXPECT_EQ(view.remaining(), 0u) << golden;
}

template <class T>
T decoded(std::string_view golden) {
  T out{};
  decode(golden, out);
  return out;
}

struct Padded { // 1 + 3 padding + 4 + 2 + 2 padding = 12 bytes
  std::uint8_t a;
  std::uint32_t b;
  std::uint16_t c;
};

struct Vec {
  float x, y, z;
};

struct Player {
  Vec pos;
  std::string name;
  template <class V> auto reflect(V&& v) { return v(pos, name); }
  template <class V> auto reflect(V&& v) const { return v(pos, name); }
};

struct Badge {
  std::string tag;
  bool active = false;
  template <class V> auto reflect(V&& v) { return v(tag, active); }
  template <class V> auto reflect(V&& v) const { return v(tag, active); }
};

struct Profile {
  std::uint16_t id = 0;
  Badge badge;
  float weights[2] = {};
  std::string aliases[2];
  template <class V> auto reflect(V&& v) { return v(id, badge, weights, aliases); }
  template <class V> auto reflect(V&& v) const { return v(id, badge, weights, aliases); }
};

} // namespace

TEST(Golden, Bool) {
  SKIP_UNLESS_LITTLE_ENDIAN();
  EXPECT_EQ(encode(true), "01");
  EXPECT_EQ(encode(false), "00");
  EXPECT_TRUE(decoded<bool>("01"));
  EXPECT_FALSE(decoded<bool>("00"));
}

TEST(Golden, OneByteIntegers) {
  SKIP_UNLESS_LITTLE_ENDIAN();
  EXPECT_EQ(encode(std::uint8_t{0xAB}), "ab");
  EXPECT_EQ(encode(std::int8_t{-2}), "fe");
  EXPECT_EQ(encode(std::int8_t{127}), "7f");
  EXPECT_EQ(decoded<std::uint8_t>("ab"), 0xAB);
  EXPECT_EQ(decoded<std::int8_t>("fe"), -2);
}

TEST(Golden, FourByteValues) {
  SKIP_UNLESS_LITTLE_ENDIAN();
  EXPECT_EQ(encode(std::uint32_t{0x01020304}), "04030201");
  EXPECT_EQ(encode(std::int32_t{-2}), "feffffff");
  EXPECT_EQ(encode(1.0f), "0000803f");
  EXPECT_EQ(encode(-2.5f), "000020c0");
  EXPECT_EQ(decoded<std::uint32_t>("04030201"), 0x01020304u);
  EXPECT_EQ(decoded<std::int32_t>("feffffff"), -2);
  EXPECT_EQ(decoded<float>("0000803f"), 1.0f);
  EXPECT_EQ(decoded<float>("000020c0"), -2.5f);
}

TEST(Golden, EightByteValues) {
  SKIP_UNLESS_LITTLE_ENDIAN();
  EXPECT_EQ(encode(std::uint64_t{0x0102030405060708}), "0807060504030201");
  EXPECT_EQ(encode(std::int64_t{-2}), "feffffffffffffff");
  EXPECT_EQ(encode(1.0), "000000000000f03f");
  EXPECT_EQ(encode(-0.5), "000000000000e0bf");
  EXPECT_EQ(decoded<std::uint64_t>("0807060504030201"), 0x0102030405060708u);
  EXPECT_EQ(decoded<std::int64_t>("feffffffffffffff"), -2);
  EXPECT_EQ(decoded<double>("000000000000f03f"), 1.0);
  EXPECT_EQ(decoded<double>("000000000000e0bf"), -0.5);
}

TEST(Golden, TriviallyCopyableStructIncludesPadding) {
  SKIP_UNLESS_LITTLE_ENDIAN();
  static_assert(sizeof(Padded) == 12 && alignof(Padded) == 4);
  alignas(Padded) unsigned char storage[sizeof(Padded)];
  std::memset(storage, 0xEE, sizeof storage);
  auto* p = ::new (storage) Padded; // default-initialised: padding keeps 0xEE
  p->a = 0x01;
  p->b = 0x02030405;
  p->c = 0x0607;
  EXPECT_EQ(encode(*p), "01eeeeee" "05040302" "0706eeee");

  Padded back{};
  decode("01eeeeee" "05040302" "0706eeee", back);
  EXPECT_EQ(back.a, 0x01);
  EXPECT_EQ(back.b, 0x02030405u);
  EXPECT_EQ(back.c, 0x0607);
  unsigned char raw[sizeof(Padded)];
  std::memcpy(raw, &back, sizeof raw);
  EXPECT_EQ(raw[1], 0xEE) << "padding bytes are copied in as well";
  EXPECT_EQ(raw[11], 0xEE);
}

TEST(Golden, FloatArrayIsBulk) {
  SKIP_UNLESS_LITTLE_ENDIAN();
  const float arr[3] = {1.0f, -2.0f, 0.5f};
  EXPECT_EQ(encode(arr), "0000803f" "000000c0" "0000003f");
  float back[3] = {};
  decode("0000803f" "000000c0" "0000003f", back);
  EXPECT_EQ(back[0], 1.0f);
  EXPECT_EQ(back[1], -2.0f);
  EXPECT_EQ(back[2], 0.5f);
}

TEST(Golden, String) {
  SKIP_UNLESS_LITTLE_ENDIAN();
  EXPECT_EQ(encode(std::string("abc")), "03000000" "00000000" "616263");
  EXPECT_EQ(encode(std::string()), "0000000000000000");
  EXPECT_EQ(encode(std::string("a\0b", 3)), "0300000000000000" "610062");
  EXPECT_EQ(decoded<std::string>("03000000" "00000000" "616263"), "abc");
  EXPECT_EQ(decoded<std::string>("0000000000000000"), "");
  EXPECT_EQ(decoded<std::string>("0300000000000000" "610062"), std::string("a\0b", 3));
}

TEST(Golden, WideStringLengthCountsCharacters) {
  SKIP_UNLESS_LITTLE_ENDIAN();
  EXPECT_EQ(encode(std::u16string(u"ab")), "0200000000000000" "61006200");
  EXPECT_EQ(encode(std::u32string(U"\U0001F600")), "0100000000000000" "00f60100");
  EXPECT_EQ(decoded<std::u16string>("0200000000000000" "61006200"), u"ab");
  EXPECT_EQ(decoded<std::u32string>("0100000000000000" "00f60100"), U"\U0001F600");
}

TEST(Golden, ArrayOfStringsHasNoCount) {
  SKIP_UNLESS_LITTLE_ENDIAN();
  const std::string arr[2] = {"a", ""};
  EXPECT_EQ(encode(arr), "0100000000000000" "61" "0000000000000000");
  std::string back[2] = {"x", "y"};
  decode("0100000000000000" "61" "0000000000000000", back);
  EXPECT_EQ(back[0], "a");
  EXPECT_EQ(back[1], "");
}

TEST(Golden, NestedReflectable) {
  SKIP_UNLESS_LITTLE_ENDIAN();
  // Player: Vec (trivially copyable, 12 bytes) then the name.
  const Player player{{1.0f, 2.0f, 3.0f}, "Ada"};
  const char* player_hex = "0000803f" "00000040" "00004040" "0300000000000000" "416461";
  EXPECT_EQ(encode(player), player_hex);
  const auto p = decoded<Player>(player_hex);
  EXPECT_EQ(p.pos.z, 3.0f);
  EXPECT_EQ(p.name, "Ada");

  // Profile: id, Badge{tag, active}, float[2], string[2], in reflect() order.
  Profile profile;
  profile.id = 0x0102;
  profile.badge = {"ok", true};
  profile.weights[0] = 1.0f;
  profile.weights[1] = 0.5f;
  profile.aliases[0] = "x";
  profile.aliases[1] = "yz";
  const char* profile_hex = "0201"                           // id
                            "0200000000000000" "6f6b" "01"   // badge
                            "0000803f" "0000003f"           // weights
                            "0100000000000000" "78"         // aliases[0]
                            "0200000000000000" "797a";      // aliases[1]
  EXPECT_EQ(encode(profile), profile_hex);
  Profile back;
  decode(profile_hex, back);
  EXPECT_EQ(back.id, 0x0102);
  EXPECT_EQ(back.badge.tag, "ok");
  EXPECT_TRUE(back.badge.active);
  EXPECT_EQ(back.weights[1], 0.5f);
  EXPECT_EQ(back.aliases[0], "x");
  EXPECT_EQ(back.aliases[1], "yz");
}

TEST(Golden, HexHelpers) {
  EXPECT_EQ(hex(unhex("00ff7f80AbCd")), "00ff7f80abcd");
  EXPECT_EQ(unhex("0a10"), test_util::byte_vec({0x0a, 0x10}));
  EXPECT_TRUE(unhex("").empty());
  EXPECT_NONFATAL_FAILURE((void)unhex("abc"), "odd number of digits");
  EXPECT_NONFATAL_FAILURE((void)unhex("zz"), "not a hex digit");
}
