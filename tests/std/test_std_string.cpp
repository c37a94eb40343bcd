// std::basic_string of every character type (codec in std/string.hpp) and
// std::basic_string_view as a serialization source (std/string_view.hpp): the
// same bytes as the matching string. Golden bytes, round trips through
// buffers and read()/write()-only streams, and hostile lengths (refused before
// anything is allocated, with an allocation probe).
#define BIN_SERIALIZER_TEST_COUNT_ALLOCATIONS
#include "test_util.hpp"
#include "std_codec_test_support.hpp"

#include <bin_serializer/std/string.hpp>
#include <bin_serializer/std/string_view.hpp>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <limits>
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
  const std::size_t lengths[] = {0, 1, 2, 3, 4, 5, 7, 8, 9, 15, 16, 17, 20, 31, 32, 100};
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

// ---- every character type through buffers and streams ---------------------------------

namespace string_streams {

namespace bs = bin_serializer;
using bs::errc;
using bs::error;
using test_util::AllocationProbe;
using test_util::bytes_of;
using test_util::cat;
using test_util::hex;
using test_util::to_vector;

namespace {

// A source with read() only (the stream path). It keeps its own failure
// reason like the library's buffers do. WithRemaining adds remaining(), which
// lets the decoder check a length before allocating; WithSeek adds
// read_position()/seek(), which lets a failed call rewind.
template <bool WithRemaining, bool WithSeek>
class StreamSource {
public:
  explicit StreamSource(std::span<const std::byte> bytes) : bytes_(bytes) {}

  bool read(void* dst, std::size_t n) {
    ++reads;
    largest_read = std::max(largest_read, n);
    if (n > bytes_.size() - pos_) {
      err_ = {errc::truncated, pos_};
      return false;
    }
    if (n != 0) std::memcpy(dst, bytes_.data() + pos_, n);
    pos_ += n;
    return true;
  }
  [[nodiscard]] std::size_t remaining() const
    requires WithRemaining
  {
    return bytes_.size() - pos_;
  }
  [[nodiscard]] std::size_t read_position() const
    requires WithSeek
  {
    return pos_;
  }
  bool seek(std::size_t p)
    requires WithSeek
  {
    if (p > bytes_.size()) return false;
    pos_ = p;
    return true;
  }
  [[nodiscard]] error last_error() const { return err_; }
  void set_error(error e) { err_ = e; }
  [[nodiscard]] std::size_t consumed() const { return pos_; }

  std::size_t reads = 0;
  std::size_t largest_read = 0;

private:
  std::span<const std::byte> bytes_;
  std::size_t pos_ = 0;
  error err_{};
};

// A sink with write() only.
struct StreamSink {
  std::vector<std::byte> bytes;
  bool write(const void* src, std::size_t n) {
    const auto* p = static_cast<const std::byte*>(src);
    bytes.insert(bytes.end(), p, p + n);
    return true;
  }
};

template <class S>
S make(std::initializer_list<std::uint32_t> units) {
  S s;
  for (const auto u : units) s.push_back(static_cast<typename S::value_type>(u));
  return s;
}

// The wire form, built by hand: the length is in characters, the payload is
// the characters' bytes as they are in memory.
template <class S>
std::vector<std::byte> expected_wire(const S& s) {
  return cat({bytes_of(static_cast<std::uint64_t>(s.size())),
              std::as_bytes(std::span(s.data(), s.size()))});
}

template <class S>
void expect_roundtrip(const S& s) {
  bs::Buffer buf;
  ASSERT_TRUE(bs::serialize(buf, s));
  EXPECT_EQ(buf.size(), 8 + s.size() * sizeof(typename S::value_type));
  EXPECT_EQ(bs::serialized_size(s), buf.size());
  EXPECT_TRUE(to_vector(buf.bytes()) == expected_wire(s)) << "wire bytes differ";

  S back = make<S>({'o', 'l', 'd', ' ', 'c', 'o', 'n', 't', 'e', 'n', 't', ' ',
                    'i', 's', ' ', 'r', 'e', 'p', 'l', 'a', 'c', 'e', 'd'});
  ASSERT_TRUE(bs::deserialize(buf, back));
  EXPECT_TRUE(back == s);
  EXPECT_EQ(buf.remaining(), 0u);

  bs::BufferView view(buf.bytes());
  S from_view;
  ASSERT_TRUE(bs::deserialize(view, from_view));
  EXPECT_TRUE(from_view == s);
}

template <class S>
class StdStringCodec : public ::testing::Test {};

using StringTypes =
    ::testing::Types<std::string, std::u8string, std::u16string, std::u32string, std::wstring>;
TYPED_TEST_SUITE(StdStringCodec, StringTypes);

} // namespace

TEST(StdStringStreams, GoldenAbc) {
  bs::Buffer buf;
  ASSERT_TRUE(bs::serialize(buf, std::string("abc")));
  if constexpr (std::endian::native == std::endian::little) {
    EXPECT_EQ(hex(buf), "0300000000000000" "616263");
  }
  EXPECT_EQ(to_vector(buf.bytes()), cat({bytes_of(std::uint64_t{3}), test_util::as_bytes("abc")}));
}

TYPED_TEST(StdStringCodec, Empty) { expect_roundtrip(TypeParam{}); }

TYPED_TEST(StdStringCodec, OneCharacter) { expect_roundtrip(make<TypeParam>({'x'})); }

TYPED_TEST(StdStringCodec, EmbeddedNuls) {
  const auto s = make<TypeParam>({0, 'a', 0, 0, 'b', 0});
  ASSERT_EQ(s.size(), 6u);
  expect_roundtrip(s);
}

TYPED_TEST(StdStringCodec, EveryCodeUnitValueOfAByteAndHighValues) {
  using C = typename TypeParam::value_type;
  TypeParam s;
  for (std::uint32_t v = 0; v < 256; ++v) s.push_back(static_cast<C>(v)); // 0x80..0xFF: non-ASCII
  s.push_back(static_cast<C>(std::numeric_limits<std::make_unsigned_t<C>>::max()));
  s.push_back(static_cast<C>(0xD800)); // a lone surrogate is just a code unit here
  expect_roundtrip(s);
}

TYPED_TEST(StdStringCodec, OneMebibyte) {
  using C = typename TypeParam::value_type;
  TypeParam s((std::size_t{1} << 20) / sizeof(C), C{});
  for (std::size_t i = 0; i < s.size(); ++i) s[i] = static_cast<C>((i * 2654435761U) >> 7);
  expect_roundtrip(s);
}

TYPED_TEST(StdStringCodec, BackToBackStrings) {
  const TypeParam a = make<TypeParam>({'a'});
  const TypeParam b{};
  const TypeParam c = make<TypeParam>({'c', 0, 'c'});
  bs::Buffer buf;
  ASSERT_TRUE(bs::serialize(buf, a) && bs::serialize(buf, b) && bs::serialize(buf, c));
  EXPECT_EQ(to_vector(buf.bytes()), cat({expected_wire(a), expected_wire(b), expected_wire(c)}));
  TypeParam x, y, z;
  ASSERT_TRUE(bs::deserialize(buf, x) && bs::deserialize(buf, y) && bs::deserialize(buf, z));
  EXPECT_TRUE(x == a && y == b && z == c);
}

TYPED_TEST(StdStringCodec, StreamSinkGetsTheSameBytes) {
  const auto s = make<TypeParam>({'s', 't', 0, 'r'});
  StreamSink sink;
  ASSERT_TRUE(bs::serialize(sink, s));
  EXPECT_EQ(sink.bytes, expected_wire(s));
}

TYPED_TEST(StdStringCodec, LargeStringFromStreamOnlySourceInChunks) {
  using C = typename TypeParam::value_type;
  TypeParam s(200 * 1024 / sizeof(C), C{});
  for (std::size_t i = 0; i < s.size(); ++i) s[i] = static_cast<C>(i * 7 + 1);
  const auto wire = expected_wire(s);
  StreamSource<false, false> src(wire);
  TypeParam back;
  ASSERT_TRUE(bs::deserialize(src, back));
  EXPECT_TRUE(back == s);
  EXPECT_EQ(src.consumed(), wire.size());
  EXPECT_GE(src.reads, 3u) << "payload read in several chunks";
  EXPECT_LT(src.largest_read, 200u * 1024u);
}

// ------------------------------------------------------ hostile length prefixes

namespace {

// [uint32 header][uint64 length = claimed][payload bytes]; the string decode
// starts at offset 4.
std::vector<std::byte> hostile_message(std::uint64_t claimed, std::size_t payload) {
  return cat({bytes_of(std::uint32_t{0xC0FFEE}), bytes_of(claimed),
              std::vector<std::byte>(payload, std::byte{'p'})});
}

template <class S, class Source>
void expect_rejected_without_allocating(Source& src, const char* what) {
  SCOPED_TRACE(what);
  std::uint32_t header = 0;
  ASSERT_TRUE(bs::deserialize(src, header));
  ASSERT_EQ(header, 0xC0FFEEu);
  S target;
  const AllocationProbe probe;
  const bool ok = bs::deserialize(src, target);
  const std::size_t allocations = probe.count();
  EXPECT_FALSE(ok);
  EXPECT_EQ(allocations, 0u) << "a length the input cannot hold must be rejected before allocating";
  EXPECT_EQ(src.last_error(), (error{errc::truncated, 4}));
  EXPECT_EQ(src.read_position(), 4u);
}

template <class S>
void check_hostile(std::uint64_t claimed, std::size_t payload) {
  SCOPED_TRACE(::testing::Message() << "claimed length " << claimed << ", payload " << payload);
  const auto wire = hostile_message(claimed, payload);
  {
    bs::Buffer buf;
    ASSERT_TRUE(buf.assign(wire));
    expect_rejected_without_allocating<S>(buf, "Buffer");
  }
  {
    bs::FixedBuffer<256> buf;
    ASSERT_TRUE(buf.write(wire.data(), wire.size()));
    expect_rejected_without_allocating<S>(buf, "FixedBuffer");
  }
  {
    bs::BufferView view(wire);
    expect_rejected_without_allocating<S>(view, "BufferView");
  }
  {
    StreamSource<true, true> src(wire);
    expect_rejected_without_allocating<S>(src, "stream source with remaining()");
  }
}

} // namespace

TYPED_TEST(StdStringCodec, HostileLengthPrefixIsRejectedBeforeAllocating) {
  using C = typename TypeParam::value_type;
  constexpr std::size_t payload = 10 * sizeof(C); // room for exactly 10 characters
  check_hostile<TypeParam>(std::numeric_limits<std::uint64_t>::max(), payload);
  check_hostile<TypeParam>(std::uint64_t{1} << 63, payload);
  check_hostile<TypeParam>(std::uint64_t{1} << 32, payload);
  check_hostile<TypeParam>(11, payload); // remaining + 1 character
  if constexpr (sizeof(C) > 1) {
    // length * sizeof(C) wraps around to a small number of bytes
    check_hostile<TypeParam>((std::numeric_limits<std::uint64_t>::max() / sizeof(C)) + 2, payload);
    check_hostile<TypeParam>(10, payload - 1); // one byte short of the last character
  }
}

TYPED_TEST(StdStringCodec, LengthEqualToRemainingIsAccepted) {
  using C = typename TypeParam::value_type;
  const auto wire = hostile_message(10, 10 * sizeof(C));
  bs::BufferView view(wire);
  std::uint32_t header = 0;
  TypeParam s;
  ASSERT_TRUE(bs::deserialize(view, header) && bs::deserialize(view, s));
  EXPECT_EQ(s.size(), 10u);
  EXPECT_EQ(view.remaining(), 0u);
}

TEST(StdStringStreams, TruncatedLengthPrefix) {
  const auto wire = cat({bytes_of(std::uint16_t{9}), bytes_of(std::uint64_t{3})});
  bs::BufferView view{std::span(wire).first(2 + 5)}; // 5 of the prefix's 8 bytes
  std::uint16_t head = 0;
  ASSERT_TRUE(bs::deserialize(view, head));
  std::string s = "keep";
  EXPECT_FALSE(bs::deserialize(view, s));
  EXPECT_EQ(view.last_error(), (error{errc::truncated, 2}));
  EXPECT_EQ(view.read_position(), 2u);
}

// Without remaining() the decoder cannot check a length up front; it must
// then let memory grow only with the bytes that actually arrive.
TEST(StdStringStreams, HostileLengthFromStreamWithoutRemainingAllocatesBoundedMemory) {
  const auto wire = cat({bytes_of(std::numeric_limits<std::uint64_t>::max()),
                         std::vector<std::byte>(10, std::byte{'z'})});
  StreamSource<false, false> src(wire);
  std::string s;
  const AllocationProbe probe;
  const bool ok = bs::deserialize(src, s);
  const std::size_t largest = probe.largest();
  EXPECT_FALSE(ok);
  EXPECT_EQ(src.last_error().code, errc::truncated);
  EXPECT_LT(largest, std::size_t{1} << 20);
}

TEST(StdStringStreams, FailedDecodeFromSeekableStreamRewinds) {
  const auto wire = cat(
      {bytes_of(std::uint64_t{300 * 1024}), std::vector<std::byte>(100 * 1024, std::byte{'q'})});
  StreamSource<false, true> src(wire);
  std::string s;
  EXPECT_FALSE(bs::deserialize(src, s));
  EXPECT_EQ(src.read_position(), 0u);
  EXPECT_EQ(src.last_error().code, errc::truncated);
  const auto good = expected_wire(std::string("fine"));
  StreamSource<false, true> again(good);
  ASSERT_TRUE(bs::deserialize(again, s)) << "the target is still a valid string";
  EXPECT_EQ(s, "fine");
}

} // namespace string_streams
