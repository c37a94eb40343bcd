// The compact format (format/compact.hpp, docs/wire-format.md section 12):
// golden bytes for every leaf it changes, the refusals of its varints, the
// size protocol, and round trips of the workloads through every reader and
// writer. What compact shares with portable (floats, bools, 8-bit integers,
// containers, optional, bitset) is checked here only where a varint meets it.
#include "std_codec_test_support.hpp"

#include <bin_serializer/bin_serializer.hpp>
#include <bin_serializer/frame/message.hpp>
#include <bin_serializer/frame/schema_hash.hpp>

#include <workloads/car.hpp>
#include <workloads/evolving.hpp>
#include <workloads/monster.hpp>
#include <workloads/person.hpp>
#include <workloads/tick.hpp>

#include <algorithm>
#include <array>
#include <bitset>
#include <chrono>
#include <cstdint>
#include <deque>
#include <list>
#include <limits>
#include <map>
#include <memory>
#include <optional>
#include <random>
#include <string>
#include <tuple>
#include <variant>
#include <vector>

namespace compact_test {

enum class Wide : std::int32_t { minus_two = -2, one = 1, big = 300 };
enum class Narrow : std::uint8_t { a = 1, b = 200 };
enum class Ranged : std::uint16_t { low = 1, high = 3 };

struct Mixed {
  std::uint8_t small = 0;
  std::int16_t delta = 0;
  std::uint64_t big = 0;
  float ratio = 0;
  bool flag = false;
  Wide wide = Wide::one;
  bool operator==(const Mixed&) const = default;
};

// Only 1-byte leaves and floats: still one block in compact.
struct Packed {
  std::uint8_t a = 0;
  std::int8_t b = 0;
  char c = 0;
  bool d = false;
  float e = 0;
  bool operator==(const Packed&) const = default;
};

// A user codec: written by the checked writer (no presizing), so its varints
// go through contiguous_writer::store_at.
struct Money {
  std::int64_t cents = 0;
  bool operator==(const Money&) const = default;
};

// The same varints as separate fields: the byte-by-byte reference for a
// std::array of four (five) elements, which compact encodes four at a time.
template <class T>
struct Four {
  T a{}, b{}, c{}, d{};
  bool operator==(const Four&) const = default;
};
template <class T>
struct Five {
  T a{}, b{}, c{}, d{}, e{};
  bool operator==(const Five&) const = default;
};
// The same elements as a C array (the core's array shape, not std::array's
// codec): grouped the same way.
template <class T, std::size_t N>
struct CArray {
  T v[N]{};
  bool operator==(const CArray&) const = default;
};

// Read in short form first (cursor/run_reader.hpp): a run of a varint and a
// float before a string, as Car's fuel figures...
struct Reading {
  std::uint16_t speed = 0;
  float mpg = 0;
  std::string note;
  bool operator==(const Reading&) const = default;
};
// ...bounded elements, as Car's accelerations...
struct Step {
  std::uint16_t mph = 0;
  float seconds = 0;
  bool operator==(const Step&) const = default;
};
// ...elements whose varint comes after a fixed-size field...
struct Mark {
  float at = 0;
  std::int32_t code = 0;
  bool operator==(const Mark&) const = default;
};
// ...a run whose one varint is a ranged enum, between value checks...
struct Flagged {
  bool on = false;
  Ranged level = Ranged::low;
  bool after = false;
  float ratio = 0;
  std::string note;
  bool operator==(const Flagged&) const = default;
};
// ...a run whose one varint comes after a fixed-size field, before a check...
struct Counted {
  double x = 0;
  std::uint32_t id = 0;
  bool after = false;
  std::string note;
  bool operator==(const Counted&) const = default;
};
// ...and containers of bounded elements (reused or appended) after a run of
// many varints, a group of four and a nested struct, which is read once.
struct Logged {
  std::uint32_t id = 0;
  bool on = false;
  Ranged level = Ranged::low;
  std::array<std::uint32_t, 4> four{};
  Step first;
  std::int64_t when = 0;
  std::vector<Step> steps;
  std::vector<Mark> marks;
  std::deque<Mark> queued;
  std::list<Reading> readings;
  std::string tail;
  bool operator==(const Logged&) const = default;
};

// The same bytes read without runs or short form: a field behind a user codec
// that states no largest size joins no run, so it is read on its own, the
// ordinary way (min_size keeps the count checks of the original).
template <class T>
struct Plain {
  T v{};
};
struct PlainStep {
  Plain<std::uint16_t> mph;
  Plain<float> seconds;
};
struct PlainMark {
  Plain<float> at;
  Plain<std::int32_t> code;
};
struct PlainReading {
  Plain<std::uint16_t> speed;
  Plain<float> mpg;
  std::string note;
};
struct PlainFlagged {
  Plain<bool> on;
  Plain<Ranged> level;
  Plain<bool> after;
  Plain<float> ratio;
  std::string note;
};
struct PlainCounted {
  Plain<double> x;
  Plain<std::uint32_t> id;
  Plain<bool> after;
  std::string note;
};
struct PlainLogged {
  Plain<std::uint32_t> id;
  Plain<bool> on;
  Plain<Ranged> level;
  Plain<std::array<std::uint32_t, 4>> four;
  PlainStep first;
  Plain<std::int64_t> when;
  std::vector<PlainStep> steps;
  std::vector<PlainMark> marks;
  std::deque<PlainMark> queued;
  std::list<PlainReading> readings;
  std::string tail;
};

inline PlainStep plain(const Step& s) { return {{s.mph}, {s.seconds}}; }
inline Step unplain(const PlainStep& s) { return {s.mph.v, s.seconds.v}; }
inline PlainMark plain(const Mark& m) { return {{m.at}, {m.code}}; }
inline Mark unplain(const PlainMark& m) { return {m.at.v, m.code.v}; }
inline PlainFlagged plain(const Flagged& f) {
  return {{f.on}, {f.level}, {f.after}, {f.ratio}, f.note};
}
inline Flagged unplain(const PlainFlagged& f) {
  return {f.on.v, f.level.v, f.after.v, f.ratio.v, f.note};
}
inline PlainCounted plain(const Counted& c) { return {{c.x}, {c.id}, {c.after}, c.note}; }
inline Counted unplain(const PlainCounted& c) { return {c.x.v, c.id.v, c.after.v, c.note}; }
inline PlainReading plain(const Reading& r) { return {{r.speed}, {r.mpg}, r.note}; }
inline Reading unplain(const PlainReading& r) { return {r.speed.v, r.mpg.v, r.note}; }
// A container of them (vector, deque, list), element by element.
template <template <class...> class C, class E, class A>
auto plain(const C<E, A>& in) {
  C<decltype(plain(in.front()))> out;
  for (const E& e : in) out.push_back(plain(e));
  return out;
}
template <template <class...> class C, class E, class A>
auto unplain(const C<E, A>& in) {
  C<decltype(unplain(in.front()))> out;
  for (const E& e : in) out.push_back(unplain(e));
  return out;
}
inline PlainLogged plain(const Logged& l) {
  return {{l.id},   {l.on},         {l.level},      {l.four},        plain(l.first),
          {l.when}, plain(l.steps), plain(l.marks), plain(l.queued), plain(l.readings),
          l.tail};
}
inline Logged unplain(const PlainLogged& l) {
  return {l.id.v,   l.on.v,           l.level.v,        l.four.v,          unplain(l.first),
          l.when.v, unplain(l.steps), unplain(l.marks), unplain(l.queued), unplain(l.readings),
          l.tail};
}

} // namespace compact_test

template <class T>
struct bin_serializer::codec<compact_test::Plain<T>> {
  static constexpr std::uint64_t schema_id = 0x706c61696e;
  template <options Opts>
  static constexpr std::size_t min_size = detail::shape<Opts, T>::min_size();
  template <class W> static bool write(W& w, const compact_test::Plain<T>& p) {
    return serialize_field(w, p.v);
  }
  template <class R> static bool read(R& r, compact_test::Plain<T>& p) {
    return deserialize_field(r, p.v);
  }
};

template <>
struct bin_serializer::codec<compact_test::Money> {
  static constexpr std::uint64_t schema_id = 0x6d6f6e6579;
  template <class W> static bool write(W& w, const compact_test::Money& m) {
    return serialize_field(w, m.cents);
  }
  template <class R> static bool read(R& r, compact_test::Money& m) {
    return deserialize_field(r, m.cents);
  }
};

template <>
struct bin_serializer::enum_range<compact_test::Ranged> {
  static constexpr auto min = compact_test::Ranged::low;
  static constexpr auto max = compact_test::Ranged::high;
};

namespace {

using namespace bin_serializer;
using namespace std_codec_test;
using compact_test::Mixed;
using compact_test::Narrow;
using compact_test::Packed;
using compact_test::Ranged;
using compact_test::Wide;

// ---- classification: which leaves are varints ------------------------------

using F = detail::format_of<compact>;
static_assert(F::scalar_max<std::uint16_t> == 3 && F::scalar_max<std::int16_t> == 3);
static_assert(F::scalar_max<std::uint32_t> == 5 && F::scalar_max<std::int32_t> == 5);
static_assert(F::scalar_max<std::uint64_t> == 10 && F::scalar_max<std::int64_t> == 10);
static_assert(F::scalar_max<std::uint8_t> == 1 && F::scalar_max<bool> == 1);
static_assert(F::scalar_max<char16_t> == 2 &&
              F::scalar_max<char32_t> == 4); // characters stay fixed
static_assert(F::scalar_max<float> == 4 && F::scalar_max<double> == 8);
static_assert(F::scalar_max<Wide> == 5 && F::scalar_max<Narrow> == 1);
static_assert(F::length_min == 1 && F::length_max == 10);

static_assert(max_serialized_size_v<Mixed, compact> == 1 + 3 + 10 + 4 + 1 + 5);
static_assert(max_serialized_size_v<std::uint32_t, compact> == 5);
static_assert(max_serialized_size_v<Packed, compact> == sizeof(Packed));
static_assert(max_serialized_size_v<std::variant<std::uint8_t, std::int64_t>, compact> == 5 + 10);
static_assert(!Serializable<wchar_t, compact> && !Serializable<long double, compact>);
static_assert(Serializable<workloads::Car, compact>);
// On a little-endian host 1-byte leaves and floats are their own encoding.
static_assert(!detail::little_endian_host ||
              detail::category_of<compact, Packed>() == detail::category::bulk);
static_assert(detail::category_of<compact, std::uint32_t>() == detail::category::scalar);

// ---- golden bytes ----------------------------------------------------------

TEST(CompactGolden, UnsignedVarints) {
  EXPECT_EQ(hex_of<compact>(std::uint16_t{0}), "00");
  EXPECT_EQ(hex_of<compact>(std::uint16_t{127}), "7f");
  EXPECT_EQ(hex_of<compact>(std::uint16_t{128}), "8001");
  EXPECT_EQ(hex_of<compact>(std::uint16_t{16383}), "ff7f");
  EXPECT_EQ(hex_of<compact>(std::uint16_t{16384}), "808001");
  EXPECT_EQ(hex_of<compact>(std::uint16_t{65535}), "ffff03");
  EXPECT_EQ(hex_of<compact>(std::uint32_t{300}), "ac02");
  EXPECT_EQ(hex_of<compact>(std::numeric_limits<std::uint32_t>::max()), "ffffffff0f");
  EXPECT_EQ(hex_of<compact>(std::numeric_limits<std::uint64_t>::max()), "ffffffffffffffffff01");
  EXPECT_EQ(hex_of<compact>(std::uint64_t{1} << 63), "80808080808080808001");
}

TEST(CompactGolden, SignedVarintsAreZigzag) {
  EXPECT_EQ(hex_of<compact>(std::int32_t{0}), "00");
  EXPECT_EQ(hex_of<compact>(std::int32_t{-1}), "01");
  EXPECT_EQ(hex_of<compact>(std::int32_t{1}), "02");
  EXPECT_EQ(hex_of<compact>(std::int32_t{-2}), "03");
  EXPECT_EQ(hex_of<compact>(std::int32_t{-64}), "7f");
  EXPECT_EQ(hex_of<compact>(std::int32_t{64}), "8001");
  EXPECT_EQ(hex_of<compact>(std::numeric_limits<std::int16_t>::min()), "ffff03");
  EXPECT_EQ(hex_of<compact>(std::numeric_limits<std::int16_t>::max()), "feff03");
  EXPECT_EQ(hex_of<compact>(std::numeric_limits<std::int32_t>::min()), "ffffffff0f");
  EXPECT_EQ(hex_of<compact>(std::numeric_limits<std::int64_t>::min()), "ffffffffffffffffff01");
  EXPECT_EQ(hex_of<compact>(std::numeric_limits<std::int64_t>::max()), "feffffffffffffffff01");
}

TEST(CompactGolden, LeavesKeptFromPortable) {
  EXPECT_EQ(hex_of<compact>(std::uint8_t{200}), "c8");
  EXPECT_EQ(hex_of<compact>(std::int8_t{-1}), "ff");
  EXPECT_EQ(hex_of<compact>(true), "01");
  EXPECT_EQ(hex_of<compact>(1.0f), "0000803f");
  EXPECT_EQ(hex_of<compact>(0.1), "9a9999999999b93f");
  EXPECT_EQ(hex_of<compact>(char16_t{0x20ac}), "ac20");
  EXPECT_EQ(hex_of<compact>(std::bitset<10>{0x201}), "0102");
}

TEST(CompactGolden, EnumsFollowTheirUnderlyingType) {
  EXPECT_EQ(hex_of<compact>(Wide::minus_two), "03");
  EXPECT_EQ(hex_of<compact>(Wide::big), "d804");
  EXPECT_EQ(hex_of<compact>(Narrow::b), "c8");
  EXPECT_EQ(hex_of<compact>(Ranged::high), "03");
}

TEST(CompactGolden, LengthsAndCountsAreVarints) {
  EXPECT_EQ(hex_of<compact>(std::string{}), "00");
  EXPECT_EQ(hex_of<compact>(std::string{"hi"}), "026869");
  EXPECT_EQ(hex_of<compact>(std::string(200, 'x')).substr(0, 6), "c80178");
  EXPECT_EQ(hex_of<compact>(std::u16string{u"\u20ac"}), "01ac20");
  EXPECT_EQ(hex_of<compact>(std::vector<std::uint32_t>{1, 300}), "0201ac02");
  EXPECT_EQ(hex_of<compact>(std::vector<std::uint8_t>{1, 2}), "020102");
  EXPECT_EQ(hex_of<compact>(std::vector<bool>{true, false}), "020100");
  EXPECT_EQ(hex_of<compact>(std::map<std::uint16_t, std::string>{{1, "a"}, {500, ""}}),
            "02" "01" "0161" "f403" "00");
}

TEST(CompactGolden, StdFamilies) {
  EXPECT_EQ(hex_of<compact>(std::optional<std::int32_t>{5}), "010a");
  EXPECT_EQ(hex_of<compact>(std::optional<std::int32_t>{}), "00");
  EXPECT_EQ(hex_of<compact>(std::variant<std::monostate, std::int32_t>{std::int32_t{-2}}), "0103");
  EXPECT_EQ(hex_of<compact>(std::pair<std::uint8_t, std::uint16_t>{7, 1000}), "07e807");
  EXPECT_EQ(hex_of<compact>(std::array<std::uint32_t, 3>{0, 127, 128}), "007f8001");
  EXPECT_EQ(hex_of<compact>(std::chrono::milliseconds{-1500}), "b717");
  EXPECT_EQ(hex_of<compact>(std::chrono::duration<double>{1.0}), "000000000000f03f");
}

TEST(CompactGolden, StructsFieldByField) {
  const Mixed m{
      .small = 1, .delta = -3, .big = 1'000'000, .ratio = 1.0f, .flag = true, .wide = Wide::big};
  EXPECT_EQ(hex_of<compact>(m), "01" "05" "c0843d" "0000803f" "01" "d804");
  EXPECT_EQ(hex_of<compact>(Packed{.a = 1, .b = -1, .c = 'x', .d = true, .e = 1.0f}),
            "01ff" "7801" "0000803f");
}

TEST(CompactGolden, Person) {
  // name, id 25 (zigzag 50), email, three floats: 44 bytes where MessagePack
  // needs 48 and the portable format 68.
  const std::string hex = hex_of<compact>(workloads::make_person());
  EXPECT_EQ(hex,
            "08" "4a6f686e20446f65"
            "32"
            "14" "6a6f686e2e646f65406578616d706c652e636f6d"
            "03" "66660640cdcc4c4000009040");
  EXPECT_EQ(hex.size() / 2, 44u);
  EXPECT_EQ(serialized_size<portable>(workloads::make_person()), 68u);
}

TEST(CompactGolden, TickIsSmallerThanPortable) {
  const workloads::Tick t = workloads::make_tick(3);
  // timestamp (9 bytes), symbol 3, quantity 103, price, side.
  EXPECT_EQ(hex_of<compact>(t), "b897a8b1e39fe7cb17" "03" "67" "52b81e85eb015940" "01");
  EXPECT_LT(serialized_size<compact>(t), serialized_size<portable>(t));
}

TEST(CompactGolden, EvolvablePrefixStaysFixed) {
  // [u32 body length][u32 field count] little-endian, then compact fields.
  const workloads::ProfileV1 p = workloads::make_profile_v1();
  const std::vector<std::byte> bytes = expect_round_trip<compact>(p);
  const std::string hex = to_hex(bytes);
  EXPECT_EQ(hex.substr(0, 16), "0500000002000000");
  EXPECT_EQ(hex.substr(16), "03416e6e" "02");
}

// ---- refusals ----------------------------------------------------------------

TEST(CompactRefuses, VarintLongerThanItsType) {
  expect_decode_error<std::uint16_t, compact>("ffff80", errc::invalid_value, 0);
  expect_decode_error<std::uint32_t, compact>("ffffffff80", errc::invalid_value, 0);
  expect_decode_error<std::uint64_t, compact>("ffffffffffffffffff81", errc::invalid_value, 0);
  expect_decode_error<std::string, compact>("ffffffffffffffffff81", errc::invalid_value, 0);
}

TEST(CompactRefuses, ValueOutOfItsFieldsRange) {
  expect_decode_error<std::uint16_t, compact>("808004", errc::invalid_value, 0);
  expect_decode_error<std::int16_t, compact>("ffff07", errc::invalid_value, 0);
  expect_decode_error<std::uint32_t, compact>("ffffffff1f", errc::invalid_value, 0);
  expect_decode_error<std::uint64_t, compact>("ffffffffffffffffff02", errc::invalid_value, 0);
  // The offset is the varint's first byte, after what decoded before it.
  expect_decode_error<Mixed, compact>("01" "ffff07", errc::invalid_value, 1);
}

TEST(CompactRefuses, NonShortestEncoding) {
  expect_decode_error<std::uint32_t, compact>("8000", errc::invalid_value, 0);
  expect_decode_error<std::int64_t, compact>("818000", errc::invalid_value, 0);
  expect_decode_error<std::vector<std::uint8_t>, compact>("8000", errc::invalid_value, 0);
}

// With room for its longest encoding a varint is read without a bounds check
// per byte: one or two bytes on straight paths, a 64-bit one of more as one
// word. Without that room, and from a stream, byte by byte. Every width must
// agree on every length and refusal.
template <class U>
void expect_word_and_byte_reads_agree() {
  constexpr unsigned max_bytes = (sizeof(U) * 8 + 6) / 7;
  // What follows the varint in the wide buffer: a byte that would end a
  // longer varint, so a reader that skips a refusal and reads on is caught.
  std::vector<std::byte> padding(12, std::byte{0xAA});
  padding[0] = std::byte{0x01};
  auto decode_both = [&](std::vector<std::byte> bytes, U& value, error& failure) {
    const std::size_t n = bytes.size();
    bytes.insert(bytes.end(), padding.begin(), padding.end());
    BufferView wide(bytes);
    U a = 0;
    const bool ok_a = deserialize<compact>(wide, a);
    StreamSource narrow(std::span<const std::byte>(bytes).first(n));
    U b = 0;
    const bool ok_b = deserialize<compact>(narrow, b);
    BufferView exact(std::span<const std::byte>(bytes).first(n)); // no room beyond
    U c = 0;
    const bool ok_c = deserialize<compact>(exact, c);
    EXPECT_EQ(ok_a, ok_b);
    EXPECT_EQ(ok_a, ok_c);
    if (ok_a && ok_b && ok_c) {
      EXPECT_EQ(a, b);
      EXPECT_EQ(a, c);
      EXPECT_EQ(wide.read_position(), n);
      EXPECT_EQ(narrow.consumed(), n);
      EXPECT_EQ(exact.read_position(), n);
    } else {
      EXPECT_EQ(wide.last_error(), narrow.last_error());
      EXPECT_EQ(wide.last_error(), exact.last_error());
      EXPECT_EQ(wide.read_position(), 0u);
    }
    value = a;
    failure = wide.last_error();
    return ok_a;
  };
  for (unsigned n = 1; n <= max_bytes; ++n) {
    SCOPED_TRACE(n);
    const std::uint64_t smallest = n == 1 ? 0 : std::uint64_t{1} << (7 * (n - 1));
    const std::uint64_t largest = n == max_bytes ? std::uint64_t{std::numeric_limits<U>::max()}
                                                 : (std::uint64_t{1} << (7 * n)) - 1;
    for (const std::uint64_t v : {smallest, largest, smallest | 1, largest ^ 0x55}) {
      const auto bytes = encode<compact>(static_cast<U>(v));
      ASSERT_EQ(bytes.size(), n);
      U out = 0;
      error e{};
      EXPECT_TRUE(decode_both(bytes, out, e));
      EXPECT_EQ(out, static_cast<U>(v));
    }
    if (n >= 2) {
      // n bytes whose last is 0: the value fits in fewer.
      std::vector<std::byte> longer(n - 1, std::byte{0x81});
      longer.push_back(std::byte{0});
      U out = 0;
      error e{};
      EXPECT_FALSE(decode_both(longer, out, e));
      EXPECT_EQ(e, (error{errc::invalid_value, 0}));
    }
  }
  // The last byte a U allows: bits beyond its width, or a further byte.
  constexpr unsigned spare = sizeof(U) * 8 - 7 * (max_bytes - 1);
  U out = 0;
  error e{};
  std::vector<std::byte> full(max_bytes - 1, std::byte{0xFF});
  full.push_back(static_cast<std::byte>(1U << spare));
  EXPECT_FALSE(decode_both(full, out, e));
  EXPECT_EQ(e, (error{errc::invalid_value, 0}));
  full.back() = std::byte{0x81};
  EXPECT_FALSE(decode_both(full, out, e));
  EXPECT_EQ(e, (error{errc::invalid_value, 0}));
  full.back() = static_cast<std::byte>((1U << spare) - 1);
  EXPECT_TRUE(decode_both(full, out, e));
  EXPECT_EQ(out, std::numeric_limits<U>::max());
}

TEST(CompactRefuses, WordAndByteReadsAgree) {
  expect_word_and_byte_reads_agree<std::uint16_t>();
  expect_word_and_byte_reads_agree<std::uint32_t>();
  expect_word_and_byte_reads_agree<std::uint64_t>();
}

// Lengths and counts take the same straight paths.
TEST(CompactRefuses, TwoByteCountsAndLengths) {
  const std::vector<std::uint8_t> v(300, 7);
  const auto bytes = encode<compact>(v);
  EXPECT_EQ(to_hex(std::span<const std::byte>(bytes).first(2)), "ac02");
  std::vector<std::uint8_t> back;
  BufferView in(bytes);
  ASSERT_TRUE(deserialize<compact>(in, back));
  EXPECT_EQ(back, v);
  expect_decode_error<std::string, compact>("ac00", errc::invalid_value, 0); // not the shortest
  expect_decode_error<std::string, compact>("ac02" "6161", errc::truncated, 0);
}

TEST(CompactRefuses, InputEndingInsideAVarint) {
  expect_decode_error<std::uint32_t, compact>("80", errc::truncated, 0);
  expect_decode_error<std::uint64_t, compact>("ffffff", errc::truncated, 0);
  expect_decode_error<std::string, compact>("", errc::truncated, 0);
  expect_every_truncation_fails<workloads::Person, compact>(
      encode<compact>(workloads::make_person()));
  expect_every_truncation_fails<Mixed, compact>(encode<compact>(Mixed{.big = ~0ULL}));
}

TEST(CompactRefuses, CountsAreCheckedBeforeAllocating) {
  // 2^40 elements of at least one byte each: far more than the input holds.
  expect_decode_error<std::vector<std::uint32_t>, compact>("8080808080200102", errc::truncated, 0);
  constexpr options small{.format = wire_format::compact, .max_element_count = 2};
  expect_decode_error<std::vector<std::uint32_t>, small>("03010203", errc::limit_exceeded, 0);
  constexpr options short_strings{.format = wire_format::compact, .max_string_length = 1};
  expect_decode_error<std::string, short_strings>("026869", errc::limit_exceeded, 0);
}

// A one-byte count or length is checked against the bytes after it in one
// comparison (cursor/reader.hpp, read_length): exactly enough bytes decode,
// one byte fewer is truncated at the count, and the limits hold at their
// boundary. The count follows a field, so its offset is 1.
template <class E>
struct AfterTag {
  std::uint8_t tag = 0;
  std::vector<E> items;
  bool operator==(const AfterTag&) const = default;
};
struct SmallestFive { // a varint and a float: 5 bytes at the least
  std::uint16_t mph = 0;
  float seconds = 0;
  bool operator==(const SmallestFive&) const = default;
};

template <class T, std::size_t Min>
void expect_one_byte_count_boundaries() {
  constexpr std::size_t n = 5;
  constexpr options at_most_4{.format = wire_format::compact, .max_element_count = n - 1};
  constexpr options at_most_5{.format = wire_format::compact, .max_element_count = n};
  constexpr options clamped{.format = wire_format::compact, .max_total_bytes = 2 + n * Min - 1};
  for (const std::size_t count : {std::size_t{0}, std::size_t{1}, n, std::size_t{127}}) {
    SCOPED_TRACE(count);
    // The tag, the count, then every item at its smallest (zero bytes).
    std::vector<std::byte> bytes{std::byte{0x2A}, static_cast<std::byte>(count)};
    bytes.resize(2 + count * Min, std::byte{0});
    {
      BufferView in(bytes);
      T out{};
      ASSERT_TRUE(deserialize<compact>(in, out));
      EXPECT_EQ(in.read_position(), bytes.size());
      EXPECT_EQ(out.tag, 0x2A);
    }
    if (count == 0) continue;
    const auto all = to_hex(std::span<const std::byte>(bytes));
    expect_decode_error<T, compact>(all.substr(0, all.size() - 2), errc::truncated, 1);
    if (count != n) continue;
    if constexpr (requires(T t) { t.items; }) // a string's limit is max_string_length
      expect_decode_error<T, at_most_4>(all, errc::limit_exceeded, 1);
    expect_decode_error<T, clamped>(all, errc::limit_exceeded, 1);
    BufferView in(bytes);
    T out{};
    EXPECT_TRUE(deserialize<at_most_5>(in, out));
  }
}

struct TaggedText {
  std::uint8_t tag = 0;
  std::string text;
  bool operator==(const TaggedText&) const = default;
};

TEST(CompactRefuses, OneByteCountsAtTheBoundary) {
  expect_one_byte_count_boundaries<AfterTag<std::uint8_t>, 1>();
  expect_one_byte_count_boundaries<AfterTag<std::uint32_t>, 1>();
  expect_one_byte_count_boundaries<AfterTag<float>, 4>();
  expect_one_byte_count_boundaries<AfterTag<double>, 8>();
  expect_one_byte_count_boundaries<AfterTag<SmallestFive>, 5>();
  expect_one_byte_count_boundaries<AfterTag<std::string>, 1>();
  expect_one_byte_count_boundaries<TaggedText, 1>();
  // A string's limit at its boundary.
  constexpr options at_most_2{.format = wire_format::compact, .max_string_length = 2};
  expect_decode_error<TaggedText, at_most_2>("2a03616263", errc::limit_exceeded, 1);
  TaggedText out;
  const auto two = from_hex("2a026162");
  BufferView in(two);
  ASSERT_TRUE(deserialize<at_most_2>(in, out));
  EXPECT_EQ(out.text, "ab");
}

TEST(CompactRefuses, ValueChecksStillApply) {
  expect_decode_error<bool, compact>("02", errc::invalid_value, 0);
  expect_decode_error<Ranged, compact>("04", errc::invalid_value, 0);
  expect_decode_error<Ranged, compact>("00", errc::invalid_value, 0);
  expect_decode_error<std::variant<std::uint8_t, std::uint16_t>, compact>("0200",
                                                                          errc::invalid_value, 0);
  expect_decode_error<std::optional<std::uint16_t>, compact>("0200", errc::invalid_value, 0);
}

TEST(CompactRefuses, FailedDecodeLeavesTheTargetUsable) {
  // A varint rejected in the second field: the read position does not move.
  const std::vector<std::byte> bytes = from_hex("01" "8000");
  BufferView view(bytes);
  std::pair<std::uint8_t, std::uint32_t> out{9, 9};
  EXPECT_FALSE(deserialize<compact>(view, out));
  EXPECT_EQ(view.read_position(), 0u);
  EXPECT_EQ(view.last_error().offset, 1u);
}

// ---- round trips and sizes ---------------------------------------------------

TEST(CompactRoundTrip, Boundaries) {
  for (const std::uint64_t v :
       {0ULL, 1ULL, 127ULL, 128ULL, 16383ULL, 16384ULL, 0xFFFFFFFFULL, 0x100000000ULL, ~0ULL}) {
    SCOPED_TRACE(v);
    expect_round_trip<compact>(v);
    expect_round_trip<compact>(static_cast<std::uint32_t>(v));
    expect_round_trip<compact>(static_cast<std::uint16_t>(v));
    expect_round_trip<compact>(static_cast<std::int64_t>(v));
    expect_round_trip<compact>(static_cast<std::int32_t>(v));
    expect_round_trip<compact>(static_cast<std::int16_t>(v));
  }
}

TEST(CompactRoundTrip, Workloads) {
  expect_round_trip<compact>(workloads::make_person());
  expect_round_trip<compact>(workloads::make_car_sequential(7));
  expect_round_trip<compact>(workloads::make_tick(12345));
  expect_round_trip<compact>(workloads::make_monsters(5));
  expect_round_trip<compact>(workloads::make_profile_v3());
  expect_round_trip<compact>(Mixed{.small = 255,
                                   .delta = -32768,
                                   .big = ~0ULL,
                                   .ratio = -0.0f,
                                   .flag = true,
                                   .wide = Wide::minus_two});
}

TEST(CompactRoundTrip, EveryWorkloadIsSmallerThanPortable) {
  EXPECT_LT(serialized_size<compact>(workloads::make_car_sequential(7)),
            serialized_size<portable>(workloads::make_car_sequential(7)));
  EXPECT_LT(serialized_size<compact>(workloads::make_monsters(50)),
            serialized_size<portable>(workloads::make_monsters(50)));
}

TEST(CompactRoundTrip, FixedCapacityBufferFailsCleanly) {
  // A buffer one byte short of the varint-sized message: buffer_full, nothing written.
  const workloads::Person p = workloads::make_person();
  FixedBuffer<43> small;
  EXPECT_FALSE(serialize<compact>(small, p));
  EXPECT_EQ(small.size(), 0u);
  EXPECT_EQ(small.last_error().code, errc::buffer_full);
  FixedBuffer<44> exact;
  EXPECT_TRUE(serialize<compact>(exact, p));
}

// serialize() reserves an upper bound (each varint at its longest) instead of
// measuring the message; a buffer that cannot hold the bound is written by the
// checked writer, so a message that fits is never refused.
template <class T>
void expect_exact_fit(const T& value) {
  const std::size_t exact = serialized_size<compact>(value);
  EXPECT_GE(detail::size_bound_of<compact>(value), exact);
  EXPECT_EQ(detail::size_bound_of<native>(value) >= serialized_size<native>(value), true);
  {
    Buffer grown; // appends exactly the encoding, whatever was reserved
    ASSERT_TRUE(serialize<compact>(grown, value));
    EXPECT_EQ(grown.size(), exact);
  }
  std::vector<std::byte> memory(exact + 1, std::byte{0xEE});
  {
    SpanBuffer tight(std::span<std::byte>(memory).first(exact));
    ASSERT_TRUE(serialize<compact>(tight, value)) << tight.last_error().message();
    EXPECT_EQ(tight.size(), exact);
    EXPECT_EQ(tight.last_error().code, errc::ok); // the refused bound leaves no trace
    EXPECT_EQ(memory[exact], std::byte{0xEE});    // nothing past the span
    EXPECT_EQ(to_hex(tight.bytes()), to_hex(encode<compact>(value)));
  }
  if (exact != 0) {
    SpanBuffer short_by_one(std::span<std::byte>(memory).first(exact - 1));
    EXPECT_FALSE(serialize<compact>(short_by_one, value));
    EXPECT_EQ(short_by_one.size(), 0u);
    EXPECT_EQ(short_by_one.last_error().code, errc::buffer_full);
  }
}

TEST(CompactRoundTrip, ABufferJustLargeEnoughIsEnough) {
  expect_exact_fit(workloads::make_person());
  expect_exact_fit(workloads::make_car_sequential(3));
  expect_exact_fit(workloads::make_monsters(7));
  expect_exact_fit(workloads::make_tick(5)); // bounded: the bound is a constant
  expect_exact_fit(Mixed{.big = 1});
  expect_exact_fit(std::vector<std::optional<std::uint64_t>>{1, std::nullopt, ~0ULL});
  expect_exact_fit(std::string());
  // The bound is each leaf at its longest: Tick's is its max_serialized_size_v.
  EXPECT_EQ(detail::size_bound_of<compact>(workloads::make_tick(5)),
            (max_serialized_size_v<workloads::Tick, compact>));
  EXPECT_EQ(detail::size_bound_of<compact>(std::string("abc")), 10u + 3u);
  // Formats whose leaves have one size reserve exactly.
  EXPECT_EQ(detail::reservation_of<portable>(workloads::make_car_sequential(3)),
            serialized_size<portable>(workloads::make_car_sequential(3)));
}

// A 64-bit varint is stored with one 8-byte write, past the end of a shorter
// encoding; serialize() reserves the bound plus the format's store_slack, so
// those writes stay inside the buffer even at its very end. The buffer here
// is a heap block of exactly that size (ASan sees a byte past it).
template <class T>
void expect_wide_stores_stay_inside(const T& value) {
  const std::vector<std::byte> expected = encode<compact>(value);
  const std::size_t room = detail::reservation_of<compact>(value) + F::store_slack;
  const auto block = std::make_unique<std::byte[]>(room);
  SpanBuffer out(block.get(), room);
  ASSERT_TRUE(serialize<compact>(out, value));
  EXPECT_EQ(to_hex(out.bytes()), to_hex(expected));
}

TEST(CompactRoundTrip, WideStoresStayInsideTheReservation) {
  for (const std::uint64_t v :
       {0ULL, 200ULL, 20000ULL, 1ULL << 40, 1ULL << 56, 1ULL << 63, ~0ULL}) {
    SCOPED_TRACE(v);
    expect_wide_stores_stay_inside(v);
    expect_wide_stores_stay_inside(static_cast<std::int64_t>(v));
    // Unbounded values whose codecs state no bound of their own reserve their
    // exact size: the varint at the end has no room to spare but the slack.
    expect_wide_stores_stay_inside(std::variant<std::string, std::uint64_t>(v));
    expect_wide_stores_stay_inside(std::make_tuple(std::string("ab"), v));
    expect_wide_stores_stay_inside(std::make_pair(std::string(), v));
    expect_wide_stores_stay_inside(std::array<std::variant<std::string, std::int64_t>, 2>{
        std::string("x"), static_cast<std::int64_t>(v)});
    expect_wide_stores_stay_inside(std::optional<std::uint64_t>(v));
    expect_wide_stores_stay_inside(std::vector<std::uint64_t>{v, 1, v});
    expect_wide_stores_stay_inside(std::map<std::uint64_t, std::uint64_t>{{v, v}, {1, v}});
  }
  // A 32-bit varint of 3 to 5 bytes is one 4-byte store and a fifth byte.
  for (const std::uint32_t v : {0U, 200U, 20000U, 1U << 21, 1U << 28, ~0U}) {
    SCOPED_TRACE(v);
    expect_wide_stores_stay_inside(v);
    expect_wide_stores_stay_inside(static_cast<std::int32_t>(v));
    expect_wide_stores_stay_inside(std::variant<std::string, std::uint32_t>(v));
    expect_wide_stores_stay_inside(std::make_tuple(std::string("ab"), v));
    expect_wide_stores_stay_inside(std::optional<std::uint32_t>(v));
    expect_wide_stores_stay_inside(std::vector<std::uint32_t>{v, 1, v});
  }
  expect_wide_stores_stay_inside(workloads::make_tick(3));
  expect_wide_stores_stay_inside(workloads::make_car_sequential(3));
}

TEST(CompactRoundTrip, ShortVarintFitsTheLastByteOfAFixedBuffer) {
  // Room for 1 byte, while an int64 varint may take 10: the checked writer
  // must still store the 1-byte encoding, and refuse a longer one cleanly.
  FixedBuffer<1> one;
  ASSERT_TRUE(serialize<compact>(one, compact_test::Money{-1}));
  EXPECT_EQ(to_hex(one.bytes()), "01");
  FixedBuffer<1> full;
  EXPECT_FALSE(serialize<compact>(full, compact_test::Money{1000}));
  EXPECT_EQ(full.size(), 0u);
  EXPECT_EQ(full.last_error().code, errc::buffer_full);
  expect_round_trip<compact>(compact_test::Money{-123456789});
}

// ---- arrays of varints: four at a time ---------------------------------------
// format/compact.hpp's store_group and load_group take four elements of a
// std::array or a C array at once when all four take one byte, and when four
// 32-bit ones all take five. The bytes, the values and every refusal must be
// those of the same varints read one by one: the reference is a struct of
// separate fields.

TEST(CompactArrays, GoldenBytes) {
  EXPECT_EQ(hex_of<compact>(std::array<std::uint32_t, 4>{0, 1, 2, 127}), "0001027f");
  EXPECT_EQ(hex_of<compact>(std::array<std::int32_t, 4>{-1, 1, -64, 63}), "01027f7e");
  EXPECT_EQ(hex_of<compact>(std::array<std::uint32_t, 4>{~0U, 1U << 28, ~0U, 1U << 28}),
            "ffffffff0f" "8080808001" "ffffffff0f" "8080808001");
  EXPECT_EQ(hex_of<compact>(std::array<std::uint32_t, 4>{1, 300, 1U << 28, 2}),
            "01" "ac02" "8080808001" "02");
  // A fifth element after a group of four, and 64-bit, 16-bit and enum ones.
  EXPECT_EQ(hex_of<compact>(std::array<std::uint32_t, 5>{1, 2, 3, 4, 128}), "01020304" "8001");
  EXPECT_EQ(hex_of<compact>(std::array<std::uint64_t, 4>{5, 6, 7, 1ULL << 63}),
            "050607" "80808080808080808001");
  EXPECT_EQ(hex_of<compact>(std::array<std::uint16_t, 4>{65535, 0, 0, 0}), "ffff03" "000000");
  EXPECT_EQ(hex_of<compact>(std::array<Wide, 4>{Wide::minus_two, Wide::one, Wide::big, Wide::one}),
            "03" "02" "d804" "02");
  // A C array: the same bytes.
  EXPECT_EQ(hex_of<compact>(compact_test::CArray<std::uint32_t, 5>{{~0U, 1U << 28, ~0U, 1U << 28, 9}}),
            "ffffffff0f" "8080808001" "ffffffff0f" "8080808001" "09");
  EXPECT_EQ(hex_of<compact>(compact_test::CArray<std::int64_t, 4>{{-1, 1, -64, 63}}), "01027f7e");
}

template <class Ref, class T, std::size_t N>
Ref as_fields(const std::array<T, N>& a) {
  if constexpr (N == 4)
    return Ref{a[0], a[1], a[2], a[3]};
  else
    return Ref{a[0], a[1], a[2], a[3], a[4]};
}

template <class T, std::size_t N>
compact_test::CArray<T, N> as_c_array(const std::array<T, N>& a) {
  compact_test::CArray<T, N> c;
  std::copy(a.begin(), a.end(), c.v);
  return c;
}

template <class T, std::size_t N, class Ref>
void expect_same_as_fields(std::mt19937_64& rng) {
  // Magnitudes that hit every length, both sides of each group test.
  auto draw = [&]() -> T {
    using U = std::make_unsigned_t<detail::leb128::integer_of<T>>;
    const unsigned bits = static_cast<unsigned>(rng() % (8 * sizeof(U) + 1));
    const std::uint64_t mask = bits == 64 ? ~0ULL : (std::uint64_t{1} << bits) - 1;
    return static_cast<T>(static_cast<U>(rng() & mask));
  };
  for (int round = 0; round < 600; ++round) {
    std::array<T, N> a{};
    // All small, all large, mixed, one outlier among small or among large
    // ones, all at one length's edge.
    const int shape = round % 6;
    for (auto& x : a) x = shape == 0 ? static_cast<T>(rng() % 128) : draw();
    if (shape == 1 || shape == 5)
      for (auto& x : a) x = static_cast<T>(x | (T{1} << (8 * sizeof(T) - 2)));
    if (shape == 5) a[rng() % N] = draw();
    if (shape == 3) {
      for (auto& x : a) x = static_cast<T>(rng() % 100);
      a[rng() % N] = draw();
    }
    if (shape == 4) {
      // 2^(7k) - 1 and 2^(7k): the last value of one length, the first of the next.
      const unsigned k = 1 + static_cast<unsigned>(rng() % ((8 * sizeof(T) - 1) / 7));
      for (auto& x : a) x = static_cast<T>((std::uint64_t{1} << (7 * k)) - (rng() % 2));
    }
    const Ref ref = as_fields<Ref>(a);
    const auto bytes = encode<compact>(a);
    ASSERT_EQ(to_hex(bytes), to_hex(encode<compact>(ref)));
    expect_round_trip<compact>(a);
    expect_exact_fit(a);
    expect_wide_stores_stay_inside(a);
    const auto c = as_c_array(a);
    ASSERT_EQ(to_hex(encode<compact>(c)), to_hex(bytes));
    expect_round_trip<compact>(c);
    expect_exact_fit(c);
    expect_wide_stores_stay_inside(c);
  }
}

// The same bytes decoded as a std::array, a C array and a struct of separate
// fields succeed or fail alike, with the same values, error and offset,
// through every reader.
template <class T, std::size_t N, class Ref>
void expect_same_decoding(const std::vector<std::byte>& bytes) {
  {
    BufferView va(bytes), vc(bytes), vr(bytes);
    std::array<T, N> a{};
    compact_test::CArray<T, N> c{};
    Ref r{};
    const bool ok = deserialize<compact>(va, a);
    ASSERT_EQ(ok, deserialize<compact>(vr, r)) << to_hex(bytes);
    ASSERT_EQ(ok, deserialize<compact>(vc, c)) << to_hex(bytes);
    EXPECT_EQ(va.last_error(), vr.last_error()) << to_hex(bytes);
    EXPECT_EQ(vc.last_error(), vr.last_error()) << to_hex(bytes);
    EXPECT_EQ(va.read_position(), vr.read_position());
    EXPECT_EQ(vc.read_position(), vr.read_position());
    if (ok) {
      EXPECT_TRUE(as_fields<Ref>(a) == r) << to_hex(bytes);
      EXPECT_TRUE(c == as_c_array(a)) << to_hex(bytes);
    }
  }
  {
    StreamSource sa(bytes), sc(bytes), sr(bytes);
    std::array<T, N> a{};
    compact_test::CArray<T, N> c{};
    Ref r{};
    const bool ok = deserialize<compact>(sr, r);
    ASSERT_EQ(deserialize<compact>(sa, a), ok) << to_hex(bytes);
    ASSERT_EQ(deserialize<compact>(sc, c), ok) << to_hex(bytes);
    EXPECT_EQ(sa.last_error(), sr.last_error()) << to_hex(bytes);
    EXPECT_EQ(sc.last_error(), sr.last_error()) << to_hex(bytes);
  }
}

// Hostile bytes, random but rich in continuation bytes.
template <class T, std::size_t N, class Ref>
void expect_same_refusals(std::mt19937_64& rng) {
  const std::byte palette[] = {std::byte{0x00}, std::byte{0x01}, std::byte{0x7F},
                               std::byte{0x80}, std::byte{0x81}, std::byte{0xFF}};
  for (int round = 0; round < 3000; ++round) {
    std::vector<std::byte> bytes(rng() % (N * 5 + 3));
    for (auto& b : bytes)
      b = rng() % 3 == 0 ? static_cast<std::byte>(rng()) : palette[rng() % std::size(palette)];
    expect_same_decoding<T, N, Ref>(bytes);
  }
}

TEST(CompactArrays, SameAsSeparateFields) {
  std::mt19937_64 rng(20261127);
  auto both = [&]<class T, std::size_t N>() {
    using Ref = std::conditional_t<N == 4, compact_test::Four<T>, compact_test::Five<T>>;
    expect_same_as_fields<T, N, Ref>(rng);
    expect_same_refusals<T, N, Ref>(rng);
  };
  both.operator()<std::uint32_t, 4>();
  both.operator()<std::int32_t, 5>();
  both.operator()<std::uint32_t, 5>();
  both.operator()<std::uint16_t, 4>();
  both.operator()<std::int16_t, 5>();
  both.operator()<std::uint64_t, 4>();
  both.operator()<std::int64_t, 5>();
}

// Several groups and a rest. Built with -Werror: the loop over the rest once
// made g++ -O2 warn (-Waggressive-loop-optimizations) for 16 elements.
template <class A>
void expect_long_array_round_trips(A a) {
  constexpr std::size_t n = sizeof(a) / sizeof(a[0]);
  for (std::size_t i = 0; i < n; ++i)
    a[i] = static_cast<std::remove_cvref_t<decltype(a[0])>>(i * 37);
  expect_round_trip<compact>(a);
  expect_wide_stores_stay_inside(a);
  for (std::size_t i = 0; i < n; i += 3)
    a[i] = static_cast<std::remove_cvref_t<decltype(a[0])>>(~i);
  expect_round_trip<compact>(a);
  expect_wide_stores_stay_inside(a);
}

TEST(CompactArrays, SeveralGroupsAndARest) {
  expect_long_array_round_trips(std::array<std::uint32_t, 16>{});
  expect_long_array_round_trips(std::array<std::int64_t, 9>{});
  expect_long_array_round_trips(std::array<std::uint16_t, 17>{});
  expect_long_array_round_trips(std::array<std::int32_t, 8>{});
  compact_test::CArray<std::uint32_t, 16> c{};
  for (std::uint32_t i = 0; i < 16; ++i) c.v[i] = i < 12 ? i : 300;
  EXPECT_EQ(hex_of<compact>(c), "00010203" "04050607" "08090a0b" "ac02" "ac02" "ac02" "ac02");
  expect_round_trip<compact>(c);
  compact_test::CArray<std::int64_t, 9> d{};
  for (int i = 0; i < 9; ++i) d.v[i] = -i;
  EXPECT_EQ(hex_of<compact>(d), "00010305" "07090b0d" "0f");
  expect_round_trip<compact>(d);
}

// Four five-byte 32-bit varints, each byte in turn replaced, and every
// truncation: the group decode (format/compact.hpp, load_four) takes or
// refuses them exactly as four separate fields do, through both readers.
TEST(CompactArrays, FiveByteGroupAgainstSeparateFields) {
  const std::array<std::uint32_t, 4> values{0xFFFFFFFFU, 1U << 28, 0x9ABCDEF0U, 0x7FFFFFFFU};
  const std::vector<std::byte> good = encode<compact>(values);
  ASSERT_EQ(good.size(), 20u);
  auto compare = [](const std::vector<std::byte>& bytes) {
    expect_same_decoding<std::uint32_t, 4, compact_test::Four<std::uint32_t>>(bytes);
  };
  compare(good);
  const std::byte replacements[] = {std::byte{0x00}, std::byte{0x01}, std::byte{0x0F},
                                    std::byte{0x10}, std::byte{0x7F}, std::byte{0x80},
                                    std::byte{0x8F}, std::byte{0xFF}};
  for (std::size_t at = 0; at < good.size(); ++at)
    for (const std::byte b : replacements) {
      std::vector<std::byte> bytes = good;
      bytes[at] = b;
      compare(bytes);
    }
  for (std::size_t n = 0; n <= good.size(); ++n)
    compare(std::vector<std::byte>(good.begin(), good.begin() + static_cast<std::ptrdiff_t>(n)));
  // The cases by name: a fifth byte of 0 (not the shortest), of 16 (past 32
  // bits) and one that continues, each in the third value (offset 10).
  for (const char* fifth : {"00", "10", "80"}) {
    std::string hex = to_hex(good);
    hex.replace(2 * 14, 2, fifth);
    expect_decode_error<std::array<std::uint32_t, 4>, compact>(hex, errc::invalid_value, 10);
  }
}

TEST(CompactArrays, RefusalsAtTheGroupTest) {
  // The cases the group test decides: four bytes present but one continues;
  // three present; the input ends right after a whole group.
  expect_decode_error<std::array<std::uint32_t, 4>, compact>("01028003", errc::truncated, 4);
  expect_decode_error<std::array<std::uint32_t, 4>, compact>("010203", errc::truncated, 3);
  expect_decode_error<std::array<std::uint32_t, 5>, compact>("01020304", errc::truncated, 4);
  expect_decode_error<std::array<std::uint32_t, 4>, compact>("0102" "8000" "03",
                                                             errc::invalid_value, 2);
}

TEST(CompactArrays, ValueChecksStillApply) {
  // A ranged enum's elements are read one by one, each checked.
  expect_decode_error<std::array<Ranged, 4>, compact>("01020304", errc::invalid_value, 3);
  expect_decode_error<std::array<Ranged, 4>, compact>("00010203", errc::invalid_value, 0);
  expect_decode_error<compact_test::CArray<Ranged, 4>, compact>("01020304", errc::invalid_value, 3);
  expect_round_trip<compact>(
      compact_test::CArray<Ranged, 4>{{Ranged::low, Ranged::high, Ranged::low, Ranged::high}});
  expect_round_trip<compact>(
      std::array<Ranged, 4>{Ranged::low, Ranged::high, Ranged::low, Ranged::high});
}

// ---- framing and fingerprints ------------------------------------------------

TEST(CompactMessage, HeaderCarriesFormatTwo) {
  Buffer out;
  ASSERT_TRUE(serialize_message<compact>(out, workloads::make_person()));
  EXPECT_EQ(static_cast<unsigned>(out.bytes()[5]), 2u);
  message_header h;
  BufferView view(out.bytes());
  ASSERT_TRUE(read_message_header(view, h));
  EXPECT_EQ(h.format, wire_format::compact);
  EXPECT_TRUE((message_is<workloads::Person, compact>(h)));
  EXPECT_FALSE((message_is<workloads::Person, portable>(h)));

  BufferView again(out.bytes());
  workloads::Person back;
  ASSERT_TRUE(deserialize_message<compact>(again, back));
  EXPECT_EQ(back, workloads::make_person());

  // Read as portable: refused by the fingerprint, nothing consumed.
  BufferView wrong(out.bytes());
  EXPECT_FALSE(deserialize_message<portable>(wrong, back));
  EXPECT_EQ(wrong.read_position(), 0u);
}

TEST(CompactMessage, BigEndianFlagIsRefused) {
  Buffer out;
  ASSERT_TRUE(serialize_message<compact>(out, std::uint32_t{7}));
  std::vector<std::byte> bytes = to_vector(out.bytes());
  bytes[6] = std::byte{1}; // flags bit 0: only a native writer may set it
  BufferView view(bytes);
  std::uint32_t v = 0;
  EXPECT_FALSE(deserialize_message<compact>(view, v));
  EXPECT_EQ(view.last_error().code, errc::bad_header);
}

TEST(CompactSchemaHash, DiffersOnlyByFormat) {
  EXPECT_NE((schema_hash_v<workloads::Person, compact>),
            (schema_hash_v<workloads::Person, portable>));
  EXPECT_NE((schema_hash_v<workloads::Person, compact>), (schema_hash_v<workloads::Person>));
  // Limits do not change the bytes, so not the fingerprint either.
  constexpr options limited{.format = wire_format::compact, .max_string_length = 5};
  EXPECT_EQ((schema_hash_v<workloads::Person, limited>),
            (schema_hash_v<workloads::Person, compact>));
}

// ---- short form: runs and bounded elements read first as one-byte varints -----

// Runs and bounded elements are read in short form first, then, if that
// fails, the ordinary way. The reference reads the same bytes with neither
// (compact_test::Plain). Both must end alike: the same result, error and
// offset, the same read position, and the same target, field for field,
// even after a failure (fields before the failing one decoded, the rest as
// they were), so an abandoned short-form pass leaves nothing behind.
template <class T>
void expect_same_as_plain(const std::vector<std::byte>& bytes, const T& before) {
  BufferView view(bytes);
  BufferView plain_view(bytes);
  T out = before;
  auto ref = compact_test::plain(before);
  const bool ok = deserialize<compact>(view, out);
  ASSERT_EQ(ok, deserialize<compact>(plain_view, ref)) << to_hex(bytes);
  EXPECT_EQ(view.last_error(), plain_view.last_error()) << to_hex(bytes);
  EXPECT_EQ(view.read_position(), plain_view.read_position()) << to_hex(bytes);
  // Compared by their bytes: a float mutated into a NaN is equal to itself there.
  EXPECT_EQ(to_hex(encode<compact>(out)), to_hex(encode<compact>(compact_test::unplain(ref))))
      << to_hex(bytes);
}

// Every truncation and every byte replaced by a continuation-rich palette.
template <class T>
void expect_hostile_same_as_plain(const T& value, const T& before) {
  const std::vector<std::byte> bytes = encode<compact>(value);
  ASSERT_EQ(to_hex(encode<compact>(compact_test::plain(value))), to_hex(bytes));
  const std::byte palette[] = {std::byte{0x00}, std::byte{0x01}, std::byte{0x02}, std::byte{0x7F},
                               std::byte{0x80}, std::byte{0x81}, std::byte{0xFF}};
  expect_same_as_plain(bytes, before);
  for (std::size_t n = 0; n < bytes.size(); ++n)
    expect_same_as_plain(
        std::vector<std::byte>(bytes.begin(), bytes.begin() + static_cast<std::ptrdiff_t>(n)),
        before);
  for (std::size_t i = 0; i < bytes.size(); ++i)
    for (const std::byte b : palette) {
      std::vector<std::byte> changed = bytes;
      changed[i] = b;
      expect_same_as_plain(changed, before);
    }
}

compact_test::Logged make_logged(std::uint64_t wide_every) {
  // wide_every: which varints take more than one byte (bit k: the k-th).
  auto pick = [&](unsigned k, std::uint64_t small, std::uint64_t large) {
    return (wide_every >> k & 1) != 0 ? large : small;
  };
  compact_test::Logged v;
  v.id = static_cast<std::uint32_t>(pick(0, 5, 300000));
  v.on = true;
  v.level = Ranged::high;
  v.four = {static_cast<std::uint32_t>(pick(1, 1, 200)), 2, 3,
            static_cast<std::uint32_t>(pick(8, 4, 400))};
  v.first = {static_cast<std::uint16_t>(pick(2, 30, 9000)), 4.5f};
  v.when = static_cast<std::int64_t>(pick(3, 60, 1'700'000'000'000ULL));
  v.steps = {{static_cast<std::uint16_t>(pick(4, 10, 128)), 1.5f},
             {60, 2.5f},
             {static_cast<std::uint16_t>(pick(5, 100, 65535)), 3.5f}};
  v.marks = {{0.5f, -static_cast<std::int32_t>(pick(6, 7, 700))},
             {1.0f, 8},
             {2.0f, static_cast<std::int32_t>(pick(9, 9, 90000))}};
  v.queued = {{0.25f, static_cast<std::int32_t>(pick(10, 7, 700))}, {8.0f, -3}};
  v.readings = {{static_cast<std::uint16_t>(pick(7, 55, 5500)), 49.0f, "Combined"},
                {75, 40.0f, ""}};
  v.tail = "end";
  return v;
}

TEST(CompactShortForm, GoldenBytesOfAShortAndAWideRun) {
  // The bytes do not depend on how they are read; both decode to the value.
  const compact_test::Reading small{30, 35.9f, "Urban"};
  EXPECT_EQ(to_hex(encode<compact>(small)), "1e" "9a990f42" "05" "557262616e");
  expect_round_trip<compact>(small);
  const compact_test::Reading wide{300, 35.9f, "Urban"};
  EXPECT_EQ(to_hex(encode<compact>(wide)), "ac02" "9a990f42" "05" "557262616e");
  expect_round_trip<compact>(wide);
}

TEST(CompactShortForm, EachVarintWideInTurn) {
  // Every varint short, each one wide alone, and all wide: each short-form
  // read (the elements, the readings' runs) succeeds or gives up in turn.
  const compact_test::Logged reused = make_logged(0x2AA);
  for (unsigned k = 0; k <= 12; ++k) {
    const std::uint64_t wide = k == 0 ? 0 : k == 12 ? 0x7FF : std::uint64_t{1} << (k - 1);
    SCOPED_TRACE(wide);
    const compact_test::Logged value = make_logged(wide);
    const std::vector<std::byte> bytes = expect_round_trip<compact>(value);
    ASSERT_EQ(to_hex(encode<compact>(compact_test::plain(value))), to_hex(bytes));
    expect_same_as_plain(bytes, compact_test::Logged{});
    expect_same_as_plain(bytes, reused); // into elements that exist already
  }
  for (const std::uint32_t id : {0u, 127u, 128u, 16383u, 16384u, 0xFFFFFFFFu}) {
    SCOPED_TRACE(id);
    const compact_test::Counted value{2.5, id, true, "long enough"};
    const auto bytes = expect_round_trip<compact>(value);
    ASSERT_EQ(to_hex(encode<compact>(compact_test::plain(value))), to_hex(bytes));
    expect_same_as_plain(bytes, compact_test::Counted{1.0, 5, false, "before"});
  }
}

TEST(CompactShortForm, HostileBytesEndAsTheOrdinaryRead) {
  // A target that already holds other values and other counts, so a failure
  // that left a field written by an abandoned short-form pass would show.
  compact_test::Logged before = make_logged(0x55);
  before.steps.resize(5);
  before.tail = "previous";
  for (std::uint64_t wide : {0x000ULL, 0x454ULL, 0x7FFULL}) {
    SCOPED_TRACE(wide);
    expect_hostile_same_as_plain(make_logged(wide), before);
    expect_hostile_same_as_plain(make_logged(wide), compact_test::Logged{});
  }
  expect_hostile_same_as_plain(compact_test::Reading{30, 1.0f, "ab"}, compact_test::Reading{});
  expect_hostile_same_as_plain(compact_test::Flagged{true, Ranged::high, false, 2.0f, "f"},
                               compact_test::Flagged{false, Ranged::low, true, 9.0f, "old"});
  // (Messages at least as long as the run's largest encoding: shorter ones
  // are read field by field, without a run.)
  expect_hostile_same_as_plain(compact_test::Counted{0.5, 9, true, "count"},
                               compact_test::Counted{7.0, 7, false, "old"});
  expect_hostile_same_as_plain(compact_test::Counted{0.5, 90000, true, "count"},
                               compact_test::Counted{});
  expect_hostile_same_as_plain(std::vector<compact_test::Step>{{1, 1}, {300, 2}, {3, 3}},
                               std::vector<compact_test::Step>(2));
}

TEST(CompactShortForm, ValueChecksInsideTheRunReportTheirOffset) {
  // A bad bool or an enum out of range before or after the one varint: the
  // short-form pass gives up there and the ordinary read reports it, at its
  // byte, whether the varint took one byte or more.
  auto expect_refused = [](std::vector<std::byte> bytes, std::size_t at, std::byte bad) {
    bytes[at] = bad;
    BufferView view(bytes);
    compact_test::Flagged out;
    EXPECT_FALSE(deserialize<compact>(view, out)) << to_hex(bytes);
    EXPECT_EQ(view.last_error(), (error{errc::invalid_value, at})) << to_hex(bytes);
    EXPECT_EQ(view.read_position(), 0u);
  };
  const auto flagged = encode<compact>(compact_test::Flagged{true, Ranged::high, true, 0.5f, "n"});
  ASSERT_EQ(to_hex(flagged), "01" "03" "01" "0000003f" "01" "6e");
  expect_refused(flagged, 0, std::byte{2}); // before the varint
  expect_refused(flagged, 1, std::byte{4}); // the varint itself: out of range
  expect_refused(flagged, 1, std::byte{0}); // and below it
  expect_refused(flagged, 2, std::byte{2}); // after it
  std::vector<std::byte> wide = flagged;    // the level as a two-byte varint: refused too
  wide[1] = std::byte{0x83};
  wide.insert(wide.begin() + 2, std::byte{0x00});
  BufferView view(wide);
  compact_test::Flagged out;
  EXPECT_FALSE(deserialize<compact>(view, out));
  EXPECT_EQ(view.last_error(), (error{errc::invalid_value, 1}));

  auto counted = encode<compact>(compact_test::Counted{1.0, 300, true, "abc"});
  ASSERT_EQ(to_hex(counted), "000000000000f03f" "ac02" "01" "03616263");
  counted[10] = std::byte{7};
  BufferView after_wide(counted);
  compact_test::Counted c;
  EXPECT_FALSE(deserialize<compact>(after_wide, c));
  EXPECT_EQ(after_wide.last_error(), (error{errc::invalid_value, 10}));
}

TEST(CompactShortForm, WhichRunsAndElementsTakeIt) {
  // One varint in a run or a struct element: read in short form first.
  // None (native, portable), or several (a Car's leading run, a Monster's
  // stats), or a lone varint element: read once, the ordinary way.
  using detail::shape;
  static_assert(shape<compact, compact_test::Step>::varying_leaves() == 1);
  static_assert(shape<compact, compact_test::Mark>::varying_leaves() == 1);
  static_assert(shape<compact, compact_test::Flagged>::varying_leaves() == 1);
  static_assert(shape<compact, compact_test::Counted>::varying_leaves() == 1);
  static_assert(shape<compact, workloads::Acceleration>::varying_leaves() == 1);
  static_assert(shape<compact, workloads::Engine>::varying_leaves() == 2);
  static_assert(shape<compact, workloads::Tick>::varying_leaves() == 3);
  static_assert(shape<compact, std::uint32_t[4]>::varying_leaves() == 4);
  static_assert(shape<compact, std::array<std::uint32_t, 4>>::varying_leaves() == 2); // a codec
  static_assert(shape<portable, compact_test::Step>::varying_leaves() == 0);
  static_assert(shape<native, workloads::Tick>::varying_leaves() == 0);
  SUCCEED();
}

} // namespace
