// std::basic_string of every character type (codec in the core's
// std/string.hpp) and std::basic_string_view as a serialization source
// (std/string_view.hpp): the same bytes as the matching string.
#include "std_codec_test_support.hpp"

#include <bin_serializer/std/string.hpp>
#include <bin_serializer/std/string_view.hpp>

#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

namespace {

using namespace bin_serializer;
using namespace std_codec_test;
using namespace std::string_view_literals;

struct NameView {
  std::uint32_t id;
  std::string_view name;
  std::u16string_view title;
  std::vector<std::string> tags; // not trivially copyable: fields are visited
  template <class V> auto reflect(V&& v) { return v(id, name, title, tags); }
  template <class V> auto reflect(V&& v) const { return v(id, name, title, tags); }
};

struct NameOwned {
  std::uint32_t id = 0;
  std::string name;
  std::u16string title;
  std::vector<std::string> tags;
  bool operator==(const NameOwned&) const = default;
};

static_assert(!BoundedSize<std::string_view>);
static_assert(!BoundedSize<std::u32string>);
static_assert(detail::category_of<native, std::string_view>() == detail::category::codec);
static_assert(detail::category_of<native, std::u16string_view>() == detail::category::codec);
static_assert(detail::std_codec::min_size_of<native, std::u16string>() == 8);

// ---- wide and UTF-8 strings ---------------------------------------------------------

TEST(StdString, GoldenCharacterTypes) {
  SKIP_UNLESS_LITTLE_ENDIAN();
  EXPECT_EQ(hex_of(std::string("ab")), "0200000000000000" "6162");
  // The length counts characters, not bytes.
  EXPECT_EQ(hex_of(std::u8string(u8"h\u00e9")), "0300000000000000" "68c3a9");
  EXPECT_EQ(hex_of(std::u16string(u"hi")), "0200000000000000" "68006900");
  EXPECT_EQ(hex_of(std::u32string(U"A\U0001F600")), "0200000000000000" "41000000" "00f60100");
  if constexpr (sizeof(wchar_t) == 4) {
    EXPECT_EQ(hex_of(std::wstring(L"A")), "0100000000000000" "41000000");
  } else {
    EXPECT_EQ(hex_of(std::wstring(L"A")), "0100000000000000" "4100");
  }
  EXPECT_EQ(hex_of(std::u16string()), "0000000000000000");
}

TEST(StdString, RoundTripCharacterTypes) {
  expect_round_trip(std::u8string(u8"gr\u00fc\u00df dich"));
  expect_round_trip(std::u16string(u"\u4f60\u597d"));
  expect_round_trip(std::u32string(U"\U0001F600\U0001F601"));
  expect_round_trip(std::wstring(L"wide"));
  expect_round_trip(std::u16string(100'000, u'x'));
  expect_round_trip(std::vector<std::u32string>{U"", U"a", U"bc"});
}

TEST(StdString, UnalignedWideCharacters) {
  // A 1-byte field first puts the characters at an odd offset in the buffer.
  const std::tuple<std::uint8_t, std::u16string, std::u32string> value{7, u"odd", U"offset"};
  const auto bytes = expect_round_trip(value);
  EXPECT_EQ(bytes.size(), 1u + 8u + 6u + 8u + 24u);
  expect_every_truncation_fails<std::remove_const_t<decltype(value)>>(bytes);
}

TEST(StdString, HostileLengths) {
  expect_decode_error<std::u16string>("ffffffffffffffff", errc::truncated, 0);
  expect_decode_error<std::u32string>("0200000000000000" "41000000", errc::truncated, 0);
  // Half a character.
  expect_decode_error<std::u16string>("0100000000000000" "41", errc::truncated, 0);
}

// ---- string_view ----------------------------------------------------------------------

// Decoding into a string that already holds something: the same length is
// copied in place, a shorter one is cut first, a longer one goes through
// grow_to (std/string.hpp). Every
// pair of lengths around the inline capacity (15) and past it, both formats
// that copy bytes: the result is exactly the decoded text, and the input is
// consumed to its end.
TEST(StdString, DecodesIntoAStringOfAnyPreviousLength) {
  const std::size_t lengths[] = {0, 1, 3, 8, 15, 16, 20, 31, 32, 100};
  auto text = [](std::size_t n, char first) {
    std::string t(n, ' ');
    for (std::size_t i = 0; i < n; ++i) t[i] = static_cast<char>(first + static_cast<char>(i % 26));
    return t;
  };
  auto check = [&]<options Opts>() {
    for (const std::size_t before : lengths)
      for (const std::size_t after : lengths) {
        SCOPED_TRACE(testing::Message() << before << " -> " << after);
        const std::string value = text(after, 'a');
        const std::vector<std::byte> bytes = encode<Opts>(value);
        std::string target = text(before, 'A');
        BufferView view(bytes);
        ASSERT_TRUE(deserialize<Opts>(view, target));
        EXPECT_EQ(target, value);
        EXPECT_EQ(target.size(), after);
        EXPECT_EQ(std::strlen(target.c_str()), after);
        EXPECT_EQ(view.read_position(), bytes.size());
      }
  };
  check.operator()<native>();
  check.operator()<compact>();
}

TEST(StdStringView, SameBytesAsString) {
  SKIP_UNLESS_LITTLE_ENDIAN();
  EXPECT_EQ(hex_of("abc"sv), "0300000000000000" "616263");
  EXPECT_EQ(hex_of("abc"sv), hex_of(std::string("abc")));
  EXPECT_EQ(hex_of(std::u16string_view(u"hi")), hex_of(std::u16string(u"hi")));
  EXPECT_EQ(hex_of(std::u32string_view(U"hi")), hex_of(std::u32string(U"hi")));
  EXPECT_EQ(hex_of(std::u8string_view(u8"hi")), hex_of(std::u8string(u8"hi")));
  EXPECT_EQ(hex_of(std::wstring_view(L"hi")), hex_of(std::wstring(L"hi")));
}

TEST(StdStringView, EmptyViewWithNullData) {
  const std::string_view empty;
  EXPECT_EQ(empty.data(), nullptr);
  EXPECT_EQ(hex_of(empty), "0000000000000000");
  EXPECT_EQ(serialized_size(empty), 8u);
  StreamSink sink;
  ASSERT_TRUE(serialize(sink, empty));
  EXPECT_EQ(sink.bytes.size(), 8u);
}

TEST(StdStringView, DecodesAsString) {
  const std::string backing = "a longer piece of text that is not null-terminated here";
  const std::string_view view = std::string_view(backing).substr(2, 6);
  Buffer buf;
  ASSERT_TRUE(serialize(buf, view));
  EXPECT_EQ(serialized_size(view), buf.size());
  std::string out;
  ASSERT_TRUE(deserialize(buf, out));
  EXPECT_EQ(out, "longer");
}

TEST(StdStringView, ViewStructDecodesAsOwningStruct) {
  const NameView view{42, "ada", u"countess", {"x"}};
  Buffer buf;
  ASSERT_TRUE(serialize(buf, view));
  EXPECT_EQ(serialized_size(view), buf.size());
  NameOwned out;
  ASSERT_TRUE(deserialize(buf, out));
  EXPECT_EQ(out, (NameOwned{42, "ada", u"countess", {"x"}}));
  EXPECT_EQ(to_hex(buf.bytes()), hex_of(out));
}

TEST(StdStringView, ContainersOfViews) {
  const std::vector<std::string_view> views{"one", "", "three"};
  Buffer buf;
  ASSERT_TRUE(serialize(buf, views));
  std::vector<std::string> out;
  ASSERT_TRUE(deserialize(buf, out));
  EXPECT_EQ(out, (std::vector<std::string>{"one", "", "three"}));
}

} // namespace
