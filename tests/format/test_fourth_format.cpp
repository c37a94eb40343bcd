// The test-only fourth format (tests/format/big_endian_format.hpp: big-endian,
// fixed width) against the library's three, in one typed suite: every format
// round-trips the seed workloads (Person, Car, Monster, Tick) and every std
// family, and evolvable structs across versions, through a contiguous buffer
// and a stream, with serialized_size equal to the bytes written; refuses
// every truncation cleanly; refuses huge counts before allocating. Then the fourth format's own golden bytes (in hex), its
// characters and packed bits, its shape (same sizes as portable), and framed
// messages naming it.
//
// std::u16string_view in the fourth format: encoding goes through the format
// (big-endian characters, the bytes of the std::u16string); decoding compiles
// only where the characters are this host's object bytes (a big-endian host),
// tests/compile_fail/string_view_foreign_byte_order.cpp.
#define BIN_SERIALIZER_TEST_COUNT_ALLOCATIONS
#include "tests/format/big_endian_format.hpp" // first: registered before any use

#include "test_util.hpp"

#include <bin_serializer/std/all.hpp>

#include "workloads/evolving.hpp"
#include "workloads/workloads.hpp"

#include <array>
#include <bit>
#include <bitset>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <forward_list>
#include <list>
#include <map>
#include <optional>
#include <random>
#include <set>
#include <span>
#include <string>
#include <string_view>
#include <tuple>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <variant>
#include <vector>

namespace {

namespace bs = bin_serializer;
using bs::errc;
using test_util::hex;
using test_util::unhex;
using bytes = std::vector<std::byte>;

constexpr bs::options big = bs::test_formats::big_endian;

// A stream: read() only.
using SpanSource = test_util::ReadOnlySource;

template <bs::options O, class T>
bytes encode(const T& v) {
  bs::Buffer buf;
  EXPECT_TRUE(bs::serialize<O>(buf, v));
  EXPECT_EQ(bs::serialized_size<O>(v), buf.size()) << "serialized_size disagrees with the bytes";
  return bytes(buf.bytes().begin(), buf.bytes().end());
}

// Round trip through a BufferView and a stream; then every truncation refused
// cleanly (false, read position unchanged, a reason at an offset within the
// cut input).
template <bs::options O, class T>
void round_trip(const T& value) {
  const bytes enc = encode<O>(value);
  {
    T back{};
    bs::BufferView view(enc);
    ASSERT_TRUE(bs::deserialize<O>(view, back)) << hex(enc);
    EXPECT_EQ(view.remaining(), 0u);
    EXPECT_TRUE(back == value) << hex(enc);
  }
  {
    T back{};
    SpanSource src(enc);
    ASSERT_TRUE(bs::deserialize<O>(src, back)) << hex(enc);
    EXPECT_EQ(src.consumed(), enc.size());
    EXPECT_TRUE(back == value);
  }
  int reported = 0;
  for (std::size_t cut = 0; cut < enc.size(); ++cut) {
    const bytes part(enc.begin(), enc.begin() + static_cast<std::ptrdiff_t>(cut));
    T target{};
    bs::BufferView view(part);
    const bool ok = bs::deserialize<O>(view, target);
    const bs::error e = view.last_error();
    const bool clean = !ok && view.read_position() == 0 &&
                       (e.code == errc::truncated || e.code == errc::limit_exceeded ||
                        e.code == errc::invalid_value) &&
                       e.offset <= cut;
    if (!clean && ++reported <= 3)
      ADD_FAILURE() << "cut at " << cut << " of " << enc.size() << ": ok=" << ok
                    << " code=" << static_cast<int>(e.code) << " offset=" << e.offset;
    T from_stream{};
    SpanSource src(part);
    if (bs::deserialize<O>(src, from_stream) && ++reported <= 3)
      ADD_FAILURE() << "stream cut at " << cut << " accepted";
  }
}

// The length prefix `n` as format O writes it (for hostile counts).
template <bs::options O>
bytes length_prefix(std::uint64_t n) {
  using F = bs::detail::format_of<O>;
  std::byte tmp[F::length_max];
  const std::byte* end = F::store_length(tmp, n);
  return bytes(static_cast<const std::byte*>(tmp), end);
}

template <bs::options O, class T>
void refuses_huge_count() {
  for (const std::uint64_t n : {std::uint64_t{1} << 40, std::uint64_t{1} << 62}) {
    bytes input = length_prefix<O>(n);
    input.resize(input.size() + 16, std::byte{0x41});
    {
      T target{};
      bs::BufferView view(input);
      test_util::AllocationProbe probe;
      EXPECT_FALSE(bs::deserialize<O>(view, target));
      EXPECT_LE(probe.largest(), 64u) << "count " << n;
    }
    {
      T target{};
      SpanSource src(input);
      test_util::AllocationProbe probe;
      EXPECT_FALSE(bs::deserialize<O>(src, target));
      // From a stream, memory grows with the bytes received (in 64 KiB steps).
      EXPECT_LE(probe.largest(), std::size_t{256} * 1024) << "count " << n;
    }
  }
}

template <bs::options O>
struct Format {
  static constexpr bs::options opts = O;
};
struct FormatNames {
  template <class F>
  static std::string GetName(int) {
    return std::string(bs::detail::format_of<F::opts>::name);
  }
};

template <class F>
class AllFormats : public ::testing::Test {};
using Formats =
    ::testing::Types<Format<bs::native>, Format<bs::portable>, Format<bs::compact>, Format<big>>;
TYPED_TEST_SUITE(AllFormats, Formats, FormatNames);

struct Node {
  std::int32_t v{};
  std::vector<Node> children;
  bool operator==(const Node&) const = default;
};

enum class Level : std::int16_t { low = -3, high = 300 };

} // namespace

TYPED_TEST(AllFormats, SeedWorkloads) {
  constexpr bs::options O = TypeParam::opts;
  round_trip<O>(workloads::make_person());
  round_trip<O>(workloads::make_car_sequential(7));
  std::mt19937_64 rng(42);
  round_trip<O>(workloads::make_car_random(rng));
  round_trip<O>(workloads::make_monsters(3));
  round_trip<O>(workloads::make_tick(5));
  round_trip<O>(Node{1, {{2, {}}, {3, {{4, {}}}}}});
}

TYPED_TEST(AllFormats, EvolvableStructs) {
  constexpr bs::options O = TypeParam::opts;
  round_trip<O>(workloads::make_profile_v1());
  round_trip<O>(workloads::make_profile_v3());
  // An older reader skips the fields it does not know; a newer one keeps
  // the defaults of fields the message does not have.
  const bytes v3 = encode<O>(workloads::make_profile_v3());
  workloads::ProfileV2 older;
  bs::BufferView view3(v3);
  ASSERT_TRUE(bs::deserialize<O>(view3, older));
  EXPECT_EQ(older.email, "b@x.org");
  EXPECT_EQ(older.scores, std::vector<float>{1.0f});
  const bytes v1 = encode<O>(workloads::make_profile_v1());
  workloads::ProfileV3 newer;
  bs::BufferView view1(v1);
  ASSERT_TRUE(bs::deserialize<O>(view1, newer));
  EXPECT_EQ(newer.name, "Ann");
  EXPECT_EQ(newer.id, 1);
  EXPECT_EQ(newer.limits, workloads::Limits{});
}

TYPED_TEST(AllFormats, Scalars) {
  constexpr bs::options O = TypeParam::opts;
  round_trip<O>(std::int8_t{-5});
  round_trip<O>(std::uint16_t{0xBEEF});
  round_trip<O>(std::int32_t{-1});
  round_trip<O>(std::int64_t{-0x123456789});
  round_trip<O>(std::uint64_t{~std::uint64_t{0}});
  round_trip<O>(1.5f);
  round_trip<O>(-2.25);
  round_trip<O>(true);
  round_trip<O>(Level::high);
  round_trip<O>(char16_t{0x263A});
  round_trip<O>(char32_t{0x1F600});
}

TYPED_TEST(AllFormats, Strings) {
  constexpr bs::options O = TypeParam::opts;
  round_trip<O>(std::string("hello"));
  round_trip<O>(std::string());
  round_trip<O>(std::u8string(u8"h\u00e9"));
  round_trip<O>(std::u16string(u"h\u00e9\u263a"));
  round_trip<O>(std::u32string(U"h\U0001F600"));
  round_trip<O>(std::vector<std::u16string>{u"ab", u"", u"\u263a"});
  // A view encodes as its string does, in every format.
  const std::u16string s = u"\u263aAB";
  EXPECT_EQ(encode<O>(std::u16string_view(s)), encode<O>(s));
  EXPECT_EQ(encode<O>(std::u32string_view(U"xy")), encode<O>(std::u32string(U"xy")));
  EXPECT_EQ(encode<O>(std::string_view("xy")), encode<O>(std::string("xy")));
  // One-byte characters decode in place in every format.
  const bytes enc = encode<O>(std::string("view"));
  bs::BufferView view(enc);
  std::string_view back;
  ASSERT_TRUE(bs::deserialize<O>(view, back));
  EXPECT_EQ(back, "view");
}

TYPED_TEST(AllFormats, Sequences) {
  constexpr bs::options O = TypeParam::opts;
  round_trip<O>(std::vector<std::int32_t>{1, -2, 300000, -70000});
  round_trip<O>(std::vector<bool>{true, false, true, true, false});
  round_trip<O>(std::vector<std::string>{"a", "bc", ""});
  round_trip<O>(std::list<std::int16_t>{1, -1, 0x7FFF});
  round_trip<O>(std::deque<double>{1.0, -0.5});
  round_trip<O>(std::forward_list<std::uint32_t>{7, 8, 9});
  round_trip<O>(std::array<std::int32_t, 4>{-1, -1, -1, -1});
  round_trip<O>(std::array<std::int32_t, 5>{1, 2, 3, 4, 0x7FFFFFFF});
  round_trip<O>(std::array<std::uint16_t, 7>{1, 2, 3, 0x8000, 5, 6, 7});
  round_trip<O>(std::array<std::uint8_t, 3>{1, 2, 3});
}

TYPED_TEST(AllFormats, Associative) {
  constexpr bs::options O = TypeParam::opts;
  round_trip<O>(std::map<std::string, std::vector<std::int64_t>>{{"a", {1, -2}}, {"b", {}}});
  round_trip<O>(std::multimap<std::int32_t, std::string>{{1, "x"}, {1, "y"}});
  round_trip<O>(std::unordered_map<std::uint16_t, bool>{{1, true}, {0x0203, false}});
  round_trip<O>(std::set<std::string>{"apple", "banana"});
  round_trip<O>(std::multiset<std::int64_t>{5, 5, -5});
  round_trip<O>(std::unordered_set<std::int32_t>{3, -4});
}

TYPED_TEST(AllFormats, SumsAndProducts) {
  constexpr bs::options O = TypeParam::opts;
  round_trip<O>(std::optional<std::int32_t>{7});
  round_trip<O>(std::optional<std::int32_t>{});
  round_trip<O>(std::variant<std::int32_t, double, std::u16string>{u"v"});
  round_trip<O>(std::variant<std::monostate, std::int64_t>{std::int64_t{-9}});
  round_trip<O>(std::tuple<std::int16_t, std::string, float>{-3, "t", 0.5f});
  round_trip<O>(std::pair<std::uint32_t, bool>{0xA0B0C0D0, true});
  round_trip<O>(std::chrono::milliseconds{-1234});
  round_trip<O>(std::chrono::sys_time<std::chrono::seconds>{std::chrono::seconds{1700000000}});
}

TYPED_TEST(AllFormats, Bitsets) {
  constexpr bs::options O = TypeParam::opts;
  round_trip<O>(std::bitset<1>{1});
  round_trip<O>(std::bitset<12>{0x801});
  round_trip<O>(std::bitset<64>{0x8000000000000001ULL});
  std::bitset<100> wide;
  wide[0] = wide[9] = wide[63] = wide[64] = wide[99] = true;
  round_trip<O>(wide);
}

TYPED_TEST(AllFormats, HugeCountsRefusedBeforeAllocating) {
  constexpr bs::options O = TypeParam::opts;
  refuses_huge_count<O, std::string>();
  refuses_huge_count<O, std::u16string>();
  refuses_huge_count<O, std::u32string>();
  refuses_huge_count<O, std::vector<std::int32_t>>();
  refuses_huge_count<O, std::vector<std::string>>();
  refuses_huge_count<O, std::map<std::int32_t, std::int32_t>>();
  refuses_huge_count<O, std::list<std::int64_t>>();
}

TYPED_TEST(AllFormats, FramedMessages) {
  constexpr bs::options O = TypeParam::opts;
  bs::Buffer buf;
  ASSERT_TRUE(bs::serialize_message<O>(buf, workloads::make_person()));
  EXPECT_EQ(static_cast<unsigned>(buf.bytes()[5]), static_cast<unsigned>(O.format));
  workloads::Person back;
  ASSERT_TRUE(bs::deserialize_message<O>(buf, back));
  EXPECT_EQ(back, workloads::make_person());
}

// ---- the fourth format's own bytes ----------------------------------------------------

TEST(FourthFormat, PolicyIsComplete) {
  static_assert(bs::wire_format_policy<bs::detail::format_of<big>>);
  static_assert(bs::registered_format<bs::test_formats::big_endian_id>);
  static_assert(!bs::registered_format<static_cast<bs::wire_format>(0x7D)>);
}

TEST(FourthFormat, GoldenScalarsAndContainers) {
  EXPECT_EQ(hex(encode<big>(std::int32_t{0x01020304})), "01020304");
  EXPECT_EQ(hex(encode<big>(std::int16_t{-2})), "fffe");
  EXPECT_EQ(hex(encode<big>(1.0)), "3ff0000000000000");
  EXPECT_EQ(hex(encode<big>(std::string("ab"))), "0000000000000002" "6162");
  EXPECT_EQ(hex(encode<big>(std::vector<std::uint16_t>{1, 0x0203})),
            "0000000000000002" "0001" "0203");
  EXPECT_EQ(hex(encode<big>(std::array<std::int32_t, 2>{-1, 2})), "ffffffff" "00000002");
  EXPECT_EQ(hex(encode<big>(std::optional<std::int16_t>{5})), "01" "0005");
  EXPECT_EQ(hex(encode<big>(std::map<std::uint16_t, bool>{{0x0102, true}})),
            "0000000000000001" "0102" "01");
  EXPECT_EQ(hex(encode<big>(std::variant<std::int32_t, double>{1.0})),
            "00000001" "3ff0000000000000");
}

TEST(FourthFormat, GoldenPerson) {
  EXPECT_EQ(hex(encode<big>(workloads::make_person())),
            "0000000000000008" "4a6f686e20446f65"                         // name
            "00000019"                                                 // id
            "0000000000000014" "6a6f686e2e646f65406578616d706c652e636f6d" // email
            "0000000000000003" "40066666" "404ccccd" "40900000");        // scores
}

TEST(FourthFormat, GoldenCharacters) {
  const std::u16string s = u"AB\u263a";
  const char* golden = "0000000000000003" "0041" "0042" "263a";
  EXPECT_EQ(hex(encode<big>(s)), golden);
  EXPECT_EQ(hex(encode<big>(std::u16string_view(s))), golden);
  EXPECT_EQ(hex(encode<big>(std::u32string(U"\U0001F600"))), "0000000000000001" "0001f600");
  std::u16string back;
  const bytes in = unhex(golden);
  bs::BufferView view(in);
  ASSERT_TRUE(bs::deserialize<big>(view, back));
  EXPECT_EQ(back, s);
}

TEST(FourthFormat, GoldenBitsets) {
  // The integer the bits spell, big-endian: bit 0 is the last byte's bit 0.
  EXPECT_EQ(hex(encode<big>(std::bitset<12>{0x801})), "0801");
  EXPECT_EQ(hex(encode<big>(std::bitset<16>{0x0102})), "0102");
  EXPECT_EQ(hex(encode<big>(std::bitset<1>{1})), "01");
  std::bitset<72> wide;
  wide[0] = wide[71] = true;
  EXPECT_EQ(hex(encode<big>(wide)), "800000000000000001");
  // The library's formats keep their bytes: byte i / 8 holds bit i.
  EXPECT_EQ(hex(encode<bs::portable>(std::bitset<12>{0x801})), "0108");
  EXPECT_EQ(hex(encode<bs::compact>(wide)), "010000000000000080");
  // A stray bit beyond N, in the byte holding the last bits: the first one.
  std::bitset<12> b;
  const bytes stray = unhex("1801");
  bs::BufferView view(stray);
  EXPECT_FALSE(bs::deserialize<big>(view, b));
  EXPECT_EQ(view.last_error().code, errc::invalid_value);
  EXPECT_EQ(view.last_error().offset, 0u);
}

TEST(FourthFormat, SameShapeAsPortable) {
  // Fixed width in another byte order: every message is as long as portable's.
  std::mt19937_64 rng(3);
  const workloads::Car car = workloads::make_car_random(rng);
  EXPECT_EQ(encode<big>(car).size(), encode<bs::portable>(car).size());
  EXPECT_EQ(encode<big>(workloads::make_monsters(4)).size(),
            encode<bs::portable>(workloads::make_monsters(4)).size());
  constexpr std::size_t tick_big = bs::max_serialized_size_v<workloads::Tick, big>;
  constexpr std::size_t tick_portable = bs::max_serialized_size_v<workloads::Tick, bs::portable>;
  EXPECT_EQ(tick_big, tick_portable);
}

TEST(FourthFormat, FramedMessageNamesTheFormat) {
  bs::Buffer buf;
  ASSERT_TRUE(bs::serialize_message<big>(buf, std::u16string(u"hi")));
  bs::message_header h;
  bs::BufferView view(buf.bytes());
  ASSERT_TRUE(bs::read_message_header(view, h));
  EXPECT_EQ(h.format, bs::test_formats::big_endian_id);
  EXPECT_EQ(h.flags, 0u);
  // An id no format is registered under is refused.
  bytes other(buf.bytes().begin(), buf.bytes().end());
  other[5] = std::byte{0x7D};
  bs::BufferView bad(other);
  EXPECT_FALSE(bs::read_message_header(bad, h));
  EXPECT_EQ(bad.last_error().code, errc::bad_header);
  EXPECT_EQ(bad.last_error().offset, 5u);
}
