// to_bytes / from_bytes, BufferView over any contiguous range of bytes or
// chars, SpanBuffer over caller-owned memory, and errc names as text.
#include "test_util.hpp"

#include <array>
#include <cstdint>
#include <cstring>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "workloads/person.hpp"
#include "workloads/tick.hpp"

namespace bs = bin_serializer;
using bs::errc;
using test_util::hex;

namespace {

// BufferView accepts lvalue containers and borrowed ranges of byte-like
// elements, and refuses temporaries (they would dangle) and wider elements.
static_assert(std::is_convertible_v<std::vector<char>&, bs::BufferView>);
static_assert(std::is_convertible_v<const std::string&, bs::BufferView>);
static_assert(std::is_convertible_v<std::vector<std::byte>&, bs::BufferView>);
static_assert(std::is_convertible_v<std::span<const unsigned char>, bs::BufferView>);
static_assert(std::is_convertible_v<std::string_view, bs::BufferView>);
static_assert(std::is_convertible_v<std::array<std::uint8_t, 4>&, bs::BufferView>);
static_assert(!std::is_constructible_v<bs::BufferView, std::string&&>);
static_assert(!std::is_constructible_v<bs::BufferView, std::vector<char>&&>);
// Not through the std::span<const std::byte> constructor either (it takes temporaries).
static_assert(!std::is_constructible_v<bs::BufferView, std::vector<std::byte>&&>);
static_assert(!std::is_constructible_v<bs::BufferView, std::array<std::byte, 4>&&>);
static_assert(!std::is_constructible_v<bs::BufferView, std::vector<int>&>);
static_assert(!std::is_constructible_v<bs::BufferView, std::u16string&>);

static_assert(bs::ContiguousWritableBuffer<bs::SpanBuffer>);
static_assert(bs::ContiguousReadableBuffer<bs::SpanBuffer>);
static_assert(bs::ErrorRecordingBuffer<bs::SpanBuffer>);

TEST(ToBytes, ValueFormRoundTrips) {
  const workloads::Person p = workloads::make_person();
  const std::optional<std::vector<std::byte>> bytes = bs::to_bytes(p);
  ASSERT_TRUE(bytes.has_value());
  bs::Buffer ref;
  ASSERT_TRUE(bs::serialize(ref, p));
  EXPECT_EQ(hex(*bytes), hex(ref));
  const std::optional<workloads::Person> back = bs::from_bytes<workloads::Person>(*bytes);
  ASSERT_TRUE(back.has_value());
  EXPECT_EQ(*back, p);
}

TEST(ToBytes, OutParameterFormReplacesContents) {
  std::vector<std::byte> out(100, std::byte{0xEE});
  ASSERT_TRUE(bs::to_bytes(std::uint32_t{0x01020304}, out));
  EXPECT_EQ(hex(out), hex(test_util::bytes_of(std::uint32_t{0x01020304}))); // native: host order
  ASSERT_TRUE(bs::to_bytes<bs::portable>(std::string("ab"), out));
  EXPECT_EQ(hex(out), "02000000000000006162");
}

TEST(FromBytes, AnyByteOrCharRange) {
  bs::Buffer ref;
  ASSERT_TRUE(bs::serialize(ref, std::uint16_t{0xBEEF}));
  const std::string as_string(reinterpret_cast<const char*>(ref.data()), ref.size());
  const std::vector<char> as_chars(as_string.begin(), as_string.end());
  const std::vector<unsigned char> as_uchars(as_string.begin(), as_string.end());
  const std::span<const unsigned char> as_span(as_uchars);
  EXPECT_EQ(bs::from_bytes<std::uint16_t>(as_string), 0xBEEF);
  EXPECT_EQ(bs::from_bytes<std::uint16_t>(as_chars), 0xBEEF);
  EXPECT_EQ(bs::from_bytes<std::uint16_t>(as_span), 0xBEEF);
  EXPECT_EQ(bs::from_bytes<std::uint16_t>(std::string(as_string)), 0xBEEF); // temporary: fine here
  EXPECT_EQ(bs::from_bytes<std::uint16_t>(bs::BufferView(ref.bytes())), 0xBEEF);
  std::uint16_t v = 0;
  ASSERT_TRUE(bs::from_bytes(as_chars, v));
  EXPECT_EQ(v, 0xBEEF);
}

TEST(FromBytes, FailuresGiveTheReason) {
  const std::vector<std::byte> three(3, std::byte{1});
  EXPECT_FALSE(bs::from_bytes<std::uint32_t>(three).has_value());
  std::uint32_t v = 0;
  bs::error why;
  EXPECT_FALSE(bs::from_bytes(three, v, &why));
  EXPECT_EQ(why, (bs::error{errc::truncated, 0}));
  // Trailing bytes: the input is not one value.
  const std::vector<std::byte> five(5, std::byte{1});
  EXPECT_FALSE(bs::from_bytes<std::uint32_t>(five).has_value());
  EXPECT_FALSE(bs::from_bytes(five, v, &why));
  EXPECT_EQ(why, (bs::error{errc::invalid_value, 4}));
  // A bool byte of 2.
  const std::vector<std::byte> bad{std::byte{2}};
  EXPECT_FALSE(bs::from_bytes<bool>(bad).has_value());
}

TEST(BufferView, FromContainersOfCharsAndBytes) {
  const std::string s("\x05\x00\x00\x00", 4);
  bs::BufferView from_string(s);
  std::uint32_t v = 0;
  ASSERT_TRUE(bs::deserialize<bs::portable>(from_string, v)); // little-endian on every host
  EXPECT_EQ(v, 5u);
  std::vector<std::byte> bytes{std::byte{7}, std::byte{0}};
  bs::BufferView from_bytes(bytes);
  EXPECT_EQ(from_bytes.data(), bytes.data());
  EXPECT_EQ(from_bytes.size(), 2u);
  std::uint16_t w = 0;
  ASSERT_TRUE(bs::deserialize<bs::portable>(from_bytes, w));
  EXPECT_EQ(w, 7);
  const std::vector<char> empty;
  bs::BufferView none(empty);
  EXPECT_EQ(none.size(), 0u);
  EXPECT_NE(none.data(), nullptr);
  EXPECT_FALSE(bs::deserialize(none, w));
}

TEST(SpanBuffer, SerializesIntoCallerMemory) {
  std::array<std::byte, 64> memory{};
  bs::SpanBuffer buf(memory);
  const workloads::Tick t = workloads::make_tick(3);
  ASSERT_TRUE(bs::serialize(buf, t));
  EXPECT_EQ(buf.size(), sizeof t);
  EXPECT_EQ(buf.data(), memory.data());
  workloads::Tick back{};
  ASSERT_TRUE(bs::deserialize(buf, back));
  EXPECT_EQ(back, t);
}

TEST(SpanBuffer, FullIsBufferFullAndNothingPastTheSpanIsTouched) {
  // 16 usable bytes inside a larger array whose tail is a canary.
  std::array<std::byte, 32> memory;
  memory.fill(std::byte{0xCC});
  bs::SpanBuffer buf(std::span<std::byte>(memory).first(16));
  ASSERT_TRUE(bs::serialize(buf, std::uint64_t{1}));
  EXPECT_FALSE(bs::serialize(buf, std::string(20, 'x')));
  EXPECT_EQ(buf.last_error(), (bs::error{errc::buffer_full, 8}));
  EXPECT_EQ(buf.size(), 8u);
  EXPECT_FALSE(bs::serialize(buf, std::array<std::uint32_t, 3>{1, 2, 3}));
  EXPECT_EQ(buf.last_error().code, errc::buffer_full);
  EXPECT_FALSE(buf.write("0123456789", 10));
  EXPECT_FALSE(buf.reserve(17));
  ASSERT_TRUE(bs::serialize(buf, std::uint64_t{2})); // exactly fits
  EXPECT_EQ(buf.size(), 16u);
  EXPECT_FALSE(bs::serialize(buf, std::uint8_t{3}));
  for (std::size_t i = 16; i < memory.size(); ++i) EXPECT_EQ(memory[i], std::byte{0xCC}) << i;
  buf.clear();
  EXPECT_EQ(buf.size(), 0u);
  bs::SpanBuffer nothing;
  EXPECT_FALSE(bs::serialize(nothing, std::uint8_t{1}));
  EXPECT_EQ(nothing.last_error().code, errc::buffer_full);
}

TEST(Errc, NamesAsText) {
  EXPECT_EQ(bs::error_name(errc::ok), "ok");
  EXPECT_EQ(bs::error_name(errc::buffer_full), "buffer_full");
  EXPECT_EQ(bs::error_name(errc::out_of_memory), "out_of_memory");
  EXPECT_EQ(bs::error_name(errc::truncated), "truncated");
  EXPECT_EQ(bs::error_name(errc::invalid_value), "invalid_value");
  EXPECT_EQ(bs::error_name(errc::limit_exceeded), "limit_exceeded");
  EXPECT_EQ(bs::error_name(errc::schema_mismatch), "schema_mismatch");
  EXPECT_EQ(bs::error_name(errc::bad_header), "bad_header");
  EXPECT_EQ(bs::error_name(errc::io_error), "io_error");
  EXPECT_EQ(bs::error_name(static_cast<errc>(200)), "unknown");
  EXPECT_EQ(bs::to_string(errc::truncated), "input ends before the value is complete");
  static_assert(bs::error_name(errc::io_error) == "io_error");
}

} // namespace
