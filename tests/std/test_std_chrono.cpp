// Layouts of std types whose native bytes are the object's own bytes:
//
//   std::chrono::duration<Rep, P>     the Rep count (sizeof(Rep) bytes)
//   std::chrono::time_point<C, D>     its duration since the epoch (D's bytes)
//   enums                             the underlying integer
//   std::byte, char8_t                one byte
//   std::bitset<N>                    native: the object's bytes; sizeof varies by
//                                     platform (libstdc++ x86-64: whole 8-byte words)
//
// Enums, std::byte and char8_t are plain trivially copyable types (the core's
// memcpy path). chrono and bitset have codecs in the core (std/chrono.hpp,
// std/bitset.hpp, included by std/all.hpp); these tests pin that the chrono
// codec gives exactly the Rep bytes, so it changes nothing on the wire compared
// with a memcpy, and that containers of durations are still copied as one block.
#include "std_codec_test_support.hpp"

#include <bin_serializer/std/bitset.hpp>
#include <bin_serializer/std/chrono.hpp>
#include <bin_serializer/std/optional.hpp>
#include <bin_serializer/std/string.hpp>
#include <bin_serializer/std/variant.hpp>
#include <bin_serializer/std/vector.hpp>

#include <array>
#include <bitset>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <variant>
#include <vector>

namespace {

using namespace bin_serializer;
using namespace std_codec_test;
using namespace std::chrono_literals;

enum class Color : std::uint8_t { red = 1, green = 2 };
enum Level : std::int16_t { low = -1, high = 300 };
enum Plain { plain_a, plain_b = 0x01020304 };

struct Event {
  std::chrono::system_clock::time_point at;
  std::chrono::milliseconds duration;
  Color color;
  std::vector<std::chrono::seconds> retries;
  bool operator==(const Event&) const = default;
};

template <class T>
constexpr bool is_bulk = detail::category_of<native, T>() == detail::category::bulk;
template <class T>
constexpr bool is_codec = detail::category_of<native, T>() == detail::category::codec;

static_assert(std::is_trivially_copyable_v<std::chrono::milliseconds>);
static_assert(is_codec<std::chrono::milliseconds>);
static_assert(is_codec<std::chrono::system_clock::time_point>);
static_assert(is_codec<std::bitset<100>>);
static_assert(is_bulk<Color>);
static_assert(is_bulk<std::byte>);
static_assert(is_bulk<char8_t>);
// The chrono encodings are the objects' bytes: containers copy them as one block.
static_assert(detail::std_codec::is_object_bytes<native, std::chrono::milliseconds>());
static_assert(detail::std_codec::is_object_bytes<native, std::chrono::sys_seconds>());
static_assert(detail::std_codec::is_object_bytes<native, std::array<std::chrono::seconds, 2>>());
static_assert(detail::std_codec::min_size_of<native, std::chrono::milliseconds>() == 8);
// A native bitset is checked for stray bits past N: not a blind copy.
static_assert(!detail::std_codec::is_object_bytes<native, std::bitset<16>>());
static_assert(max_serialized_size_v<std::chrono::milliseconds> == sizeof(std::int64_t));
static_assert(max_serialized_size_v<std::chrono::duration<std::int32_t>> == 4);
static_assert(max_serialized_size_v<std::chrono::sys_seconds> == sizeof(std::chrono::seconds::rep));
static_assert(max_serialized_size_v<Color> == 1);
static_assert(max_serialized_size_v<Level> == 2);
static_assert(max_serialized_size_v<std::bitset<8>> == sizeof(std::bitset<8>));
static_assert(!BoundedSize<std::vector<std::chrono::seconds>>);

TEST(StdChrono, DurationIsItsCount) {
  SKIP_UNLESS_LITTLE_ENDIAN();
  EXPECT_EQ(hex_of(std::chrono::milliseconds{1500}), "dc05000000000000");
  EXPECT_EQ(hex_of(std::chrono::duration<std::int32_t>{-1}), "ffffffff");
  EXPECT_EQ(hex_of(std::chrono::duration<std::uint16_t, std::ratio<60>>{2}), "0200");
  EXPECT_EQ(hex_of(std::chrono::duration<double>{1.5}), "000000000000f83f");
  // Same bytes as the bare count.
  EXPECT_EQ(hex_of(std::chrono::nanoseconds{123456789}), hex_of(std::int64_t{123456789}));
}

TEST(StdChrono, SameBytesAsTheObject) {
  const std::chrono::microseconds d{-987654321};
  std::vector<std::byte> object(sizeof d);
  std::memcpy(object.data(), &d, sizeof d);
  EXPECT_EQ(hex_of(d), to_hex(object));
  const auto t = std::chrono::system_clock::now();
  std::vector<std::byte> tobject(sizeof t);
  std::memcpy(tobject.data(), &t, sizeof t);
  EXPECT_EQ(hex_of(t), to_hex(tobject));
}

TEST(StdChrono, VectorOfDurationsIsOneBlock) {
  const std::vector<std::chrono::nanoseconds> v(1000, std::chrono::nanoseconds{7});
  StreamSink sink;
  ASSERT_TRUE(serialize(sink, v));
  EXPECT_EQ(sink.writes, 2u);
  EXPECT_EQ(sink.bytes.size(), 8u + 8000u);
  expect_round_trip(v);
}

TEST(StdChrono, TimePointIsItsDurationSinceEpoch) {
  SKIP_UNLESS_LITTLE_ENDIAN();
  const std::chrono::sys_seconds t{std::chrono::seconds{1}};
  EXPECT_EQ(hex_of(t), "0100000000000000");
  const std::chrono::time_point<std::chrono::steady_clock, std::chrono::duration<std::int32_t>> s{
      std::chrono::duration<std::int32_t>{258}};
  EXPECT_EQ(hex_of(s), "02010000");
}

TEST(StdChrono, RoundTrip) {
  expect_round_trip(std::chrono::milliseconds{-42});
  expect_round_trip(std::chrono::duration<double, std::micro>{0.25});
  expect_round_trip(std::chrono::system_clock::now());
  expect_round_trip(std::chrono::steady_clock::now());
  expect_round_trip(std::vector<std::chrono::microseconds>{1us, 2us, 3us});
  expect_round_trip(
      Event{std::chrono::system_clock::time_point{5s}, 250ms, Color::green, {1s, 2s}});
  expect_every_truncation_fails<Event>(
      encode(Event{std::chrono::system_clock::time_point{5s}, 250ms, Color::green, {1s, 2s}}));
}

TEST(StdEnum, UnderlyingInteger) {
  SKIP_UNLESS_LITTLE_ENDIAN();
  EXPECT_EQ(hex_of(Color::green), "02");
  EXPECT_EQ(hex_of(Level::low), "ffff");
  EXPECT_EQ(hex_of(Level::high), "2c01");
  EXPECT_EQ(hex_of(plain_b), "04030201");
  EXPECT_EQ(hex_of(plain_b), hex_of(static_cast<std::underlying_type_t<Plain>>(plain_b)));
  expect_round_trip(std::vector<Color>{Color::red, Color::green});
}

TEST(StdByte, OneByteEach) {
  EXPECT_EQ(hex_of(std::byte{0xab}), "ab");
  EXPECT_EQ(hex_of(char8_t{0x7f}), "7f");
  EXPECT_EQ(hex_of(std::vector<std::byte>{std::byte{1}, std::byte{2}}),
            hex_of(std::vector<std::uint8_t>{1, 2}));
  expect_round_trip(std::vector<char8_t>{u8'a', u8'b'});
}

TEST(StdBitset, ObjectBytes) {
  SKIP_UNLESS_LITTLE_ENDIAN();
  std::bitset<16> b;
  b.set(0);
  b.set(9);
  const auto bytes = encode(b);
  EXPECT_EQ(bytes.size(), sizeof(std::bitset<16>));
  EXPECT_EQ(to_hex(bytes).substr(0, 4), "0102"); // low word first on a little-endian host
  if constexpr (sizeof(std::bitset<16>) == 8) {
    EXPECT_EQ(to_hex(bytes), "0102000000000000"); // libstdc++ on x86-64
  }
  std::bitset<200> wide;
  wide.set(3).set(150).set(199);
  expect_round_trip(wide);
}

// Native bitsets are the object's bytes, but a set storage bit past N is no
// bitset<N> value: rejected, at the bitset's offset. Checked for sizes on both
// sides of the 64-bit word (different code paths) and on a full bitset<64>.
template <std::size_t N>
void expect_stray_bit_rejected() {
  std::bitset<N> b;
  b.set(0);
  b.set(N - 1);
  expect_round_trip(b);
  auto bytes = encode(b);
  // Little-endian words: the last byte's top bit is storage bit sizeof * 8 - 1,
  // past N for every N tested here.
  static_assert(sizeof(std::bitset<N>) * 8 > N);
  bytes.back() |= std::byte{0x80};
  bin_serializer::BufferView view(bytes.data(), bytes.size());
  std::bitset<N> out;
  EXPECT_FALSE(bin_serializer::deserialize(view, out)) << N;
  EXPECT_EQ(view.last_error(), (bin_serializer::error{bin_serializer::errc::invalid_value, 0}))
      << N;
  EXPECT_EQ(view.read_position(), 0u);
}

TEST(StdBitset, StrayStorageBitsAreRejected) {
  SKIP_UNLESS_LITTLE_ENDIAN();
  expect_stray_bit_rejected<1>();
  expect_stray_bit_rejected<8>();
  expect_stray_bit_rejected<12>();
  expect_stray_bit_rejected<63>();
  expect_stray_bit_rejected<65>();
  expect_stray_bit_rejected<100>();
  std::bitset<64> full;
  full.set();
  expect_round_trip(full);
}

// bitset<0> has storage but no bits: the native encoding is all zeros (not
// the uninitialised storage), and a non-zero byte is rejected when checked.
TEST(StdBitset, ZeroBitsIsZeroBytes) {
  const std::bitset<0> none;
  const auto bytes = encode(none);
  ASSERT_EQ(bytes.size(), sizeof(std::bitset<0>));
  EXPECT_EQ(to_hex(bytes), std::string(2 * sizeof(std::bitset<0>), '0'));
  expect_round_trip(none);

  auto dirty = bytes;
  dirty.back() = std::byte{1};
  bin_serializer::BufferView view(dirty.data(), dirty.size());
  std::bitset<0> out;
  EXPECT_FALSE(bin_serializer::deserialize<bin_serializer::untrusted>(view, out));
  EXPECT_EQ(view.last_error().code, bin_serializer::errc::invalid_value);
  EXPECT_EQ(view.read_position(), 0u);

  bin_serializer::Buffer portable;
  ASSERT_TRUE(bin_serializer::serialize<bin_serializer::portable>(portable, none));
  EXPECT_EQ(portable.size(), 0u);
}

// Plain aggregates (no reflect()) whose members the field-counting probes once
// could not initialise: a std::string_view member (GCC), and std::optional /
// std::variant next to chrono and bitset members (docs/api.md, "Plain
// aggregates", and docs/design.md state that they work). Every format.
struct PlainWithView {
  std::string_view name;
  std::uint32_t id;
};

struct PlainMixed {
  std::optional<std::int32_t> level;
  std::chrono::milliseconds timeout;
  std::variant<std::int32_t, float> value;
  std::bitset<10> flags;
  std::chrono::system_clock::time_point at;
  bool operator==(const PlainMixed&) const = default;
};

template <bin_serializer::options Opts>
void expect_plain_aggregates_round_trip() {
  const PlainWithView view_in{"abc", 7};
  const std::vector<std::byte> bytes = encode<Opts>(view_in);
  // The same bytes as the owning type.
  EXPECT_EQ(to_hex(bytes),
            to_hex(encode<Opts>(std::string("abc"))) + to_hex(encode<Opts>(std::uint32_t{7})));
  bin_serializer::BufferView in(bytes);
  PlainWithView view_out{};
  ASSERT_TRUE(bin_serializer::deserialize<Opts>(in, view_out)) << in.last_error().message();
  EXPECT_EQ(view_out.name, "abc");
  EXPECT_EQ(view_out.id, 7u);

  expect_round_trip<Opts>(PlainMixed{5, 1500ms, 2.5f, std::bitset<10>{0x203},
                                     std::chrono::system_clock::time_point{3s}});
  expect_round_trip<Opts>(PlainMixed{std::nullopt, 0ms, std::int32_t{-2}, {}, {}});
}

TEST(PlainAggregates, StringViewAndOptionalVariantWithChronoBitset) {
  expect_plain_aggregates_round_trip<bin_serializer::native>();
  expect_plain_aggregates_round_trip<bin_serializer::portable>();
  expect_plain_aggregates_round_trip<bin_serializer::compact>();
}

} // namespace
