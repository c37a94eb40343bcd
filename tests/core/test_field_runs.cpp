// Runs of fixed-size fields (detail/field_runs.hpp): a struct's consecutive
// scalars and block-copied members are bounds-checked once, from a contiguous
// source. The result must be indistinguishable from decoding field by field,
// which is what a read()-only source still does: same values, same failures,
// same error codes and offsets, for every truncation and every corrupted byte.
#include "test_util.hpp"

#include <bin_serializer/std/deque.hpp>
#include <bin_serializer/std/list.hpp>

#include <array>
#include <concepts>
#include <bitset>
#include <cstdint>
#include <cstring>
#include <deque>
#include <limits>
#include <list>
#include <optional>
#include <span>
#include <string>
#include <variant>
#include <vector>

#include "workloads/workloads.hpp"

namespace bs = bin_serializer;
using test_util::hex;

namespace field_runs_test {
enum class Side : std::uint8_t { bid, ask };
struct Code3 { // a user codec stating its exact size: joins runs
  std::uint8_t a = 0, b = 0, c = 0;
  bool operator==(const Code3&) const = default;
};
struct Liar { // states 4 bytes, writes and reads 3: must be caught, not shift fields
  std::uint8_t a = 0, b = 0, c = 0;
  bool operator==(const Liar&) const = default;
};
struct WithCode {
  std::uint32_t id = 0;
  Code3 code;
  std::uint16_t x = 0;
  std::string s;
  bool operator==(const WithCode&) const = default;
};
struct WithLiar {
  std::uint32_t id = 0;
  Liar liar;
  std::uint16_t x = 0;
  bool operator==(const WithLiar&) const = default;
};
} // namespace field_runs_test

template <class T>
  requires std::same_as<T, field_runs_test::Code3> || std::same_as<T, field_runs_test::Liar>
struct bin_serializer::codec<T> {
  template <bin_serializer::options Opts>
  static constexpr std::size_t exact_size = std::same_as<T, field_runs_test::Code3> ? 3 : 4;
  template <class W>
  static bool write(W& w, const T& v) {
    const std::uint8_t bytes[3] = {v.a, v.b, v.c};
    return w.write_bytes(bytes, 3);
  }
  template <class R>
  static bool read(R& r, T& v) {
    std::uint8_t bytes[3];
    if (!r.read_bytes(bytes, 3)) return false;
    v = {bytes[0], bytes[1], bytes[2]};
    return true;
  }
};

template <>
struct bin_serializer::enum_range<field_runs_test::Side> {
  static constexpr auto min = field_runs_test::Side::bid;
  static constexpr auto max = field_runs_test::Side::ask;
};

namespace field_runs_test {
struct Point { // trivially copyable: one member of a run
  float x, y;
  bool operator==(const Point&) const = default;
};
struct Row {
  std::uint32_t id = 0; // run 1: id, live, side, level, at, corners (4+1+1+2+8+16)
  bool live = false;
  Side side = Side::bid;
  std::int16_t level = 0;
  Point at{};
  std::array<std::uint32_t, 4> corners{};
  std::string name;       // breaks the run
  std::uint8_t flags = 0; // run 2: flags, ratio
  double ratio = 0;
  std::vector<std::uint16_t> tail; // not a run member
  bool operator==(const Row&) const = default;
};
static_assert(bs::detail::run_size<bs::native, Point>() == sizeof(Point));
static_assert(bs::detail::run_size<bs::native, std::string>() == 0);
static_assert(bs::detail::run_size<bs::native, std::array<std::uint32_t, 4>>() == 16);
static_assert(bs::detail::run_size<bs::portable, std::bitset<12>>() == 2);
static_assert(bs::detail::leading_run_length<bs::native, std::uint32_t, bool, Side, std::int16_t,
                                             Point, std::array<std::uint32_t, 4>, std::string>() ==
              6);

// Bounded members whose size varies (an optional, a variant, and in the
// compact format every integer of 16 bits and more) join a run for reading,
// counted at their largest; the input then moves on by what they took.
struct Varying {
  std::uint8_t tag = 0;
  std::optional<std::uint16_t> maybe;
  std::variant<std::uint8_t, std::int32_t> either;
  std::uint64_t count = 0;
  std::int32_t delta = 0;
  std::string note; // ends the run
  std::array<std::uint16_t, 3> small{};
  bool live = false;
  bool operator==(const Varying&) const = default;
};
static_assert(bs::detail::run_length<bs::native, true, std::uint8_t, std::optional<std::uint16_t>,
                                     std::variant<std::uint8_t, std::int32_t>, std::uint64_t,
                                     std::int32_t, std::string>() == 5);
static_assert(bs::detail::leading_run_length<bs::native, std::uint8_t,
                                             std::optional<std::uint16_t>>() ==
              1); // not for writing
static_assert(bs::detail::run_size<bs::compact, std::uint64_t, true>() == 10);
static_assert(bs::detail::run_size<bs::compact, std::uint64_t>() == 0); // not for writing

// An output with write() only: encoded field by field (no runs).
using WriteOnly = test_util::WriteOnlySink;

// A source with read() and a position: decoded field by field (no runs), with
// rollback, so its errors can be compared with a BufferView's one for one.
struct FieldByField {
  std::span<const std::byte> bytes;
  std::size_t pos = 0;
  bs::error err{};
  bool read(void* dst, std::size_t n) {
    if (n > bytes.size() - pos) {
      err = {bs::errc::truncated, pos}; // a buffer reports its own shortfall
      return false;
    }
    std::memcpy(dst, bytes.data() + pos, n);
    pos += n;
    return true;
  }
  [[nodiscard]] std::size_t read_position() const { return pos; }
  [[nodiscard]] std::size_t remaining() const { return bytes.size() - pos; }
  bool seek(std::size_t p) {
    if (p > bytes.size()) return false;
    pos = p;
    return true;
  }
  [[nodiscard]] bs::error last_error() const { return err; }
  void set_error(bs::error e) { err = e; }
};

Row sample(std::uint32_t i) {
  Row r;
  r.id = 1000 + i;
  r.live = (i % 2) == 1;
  r.side = (i % 2) == 1 ? Side::ask : Side::bid;
  r.level = static_cast<std::int16_t>(-3 * static_cast<int>(i));
  r.at = {1.5f * static_cast<float>(i), -2.0f};
  r.corners = {i, i + 1, i + 2, i + 3};
  r.name = "row" + std::to_string(i);
  r.flags = static_cast<std::uint8_t>(i);
  r.ratio = 0.25 * i;
  r.tail.assign(i % 3, static_cast<std::uint16_t>(i));
  return r;
}

template <bs::options Opts, class T>
std::vector<std::byte> encode(const T& v) {
  bs::Buffer buf;
  EXPECT_TRUE(bs::serialize<Opts>(buf, v));
  return test_util::to_vector(buf.bytes());
}

// Decodes `bytes` both ways and checks that nothing tells them apart.
// Both decode into a copy of `start` (an empty container appends, a filled
// one decodes into the elements it holds first).
template <bs::options Opts, class T>
void expect_same_outcome(const std::vector<std::byte>& bytes, const std::string& what,
                         const T& start = T{}) {
  T a = start;
  T b = start;
  bs::BufferView view(bytes);
  FieldByField slow{bytes};
  const bool ok_a = bs::deserialize<Opts>(view, a);
  const bool ok_b = bs::deserialize<Opts>(slow, b);
  ASSERT_EQ(ok_a, ok_b) << what;
  if (ok_a) {
    // Compared by encoding: a corrupted float may be a NaN, unequal to itself.
    EXPECT_EQ(hex(encode<Opts>(a)), hex(encode<Opts>(b))) << what;
    EXPECT_EQ(view.read_position(), slow.read_position()) << what;
  } else {
    EXPECT_EQ(view.last_error(), slow.last_error()) << what;
    EXPECT_EQ(view.read_position(), 0u) << what;
  }
}

Varying varying(std::uint32_t i) {
  Varying v;
  v.tag = static_cast<std::uint8_t>(i);
  if (i % 2 == 0) v.maybe = static_cast<std::uint16_t>(300 * i);
  if (i % 3 == 0)
    v.either = static_cast<std::int32_t>(-70000 * static_cast<std::int32_t>(i));
  else
    v.either = static_cast<std::uint8_t>(i);
  v.count = i == 2 ? ~0ULL : 1ULL << (7 * i);
  v.delta = -static_cast<std::int32_t>(i * i * 1000);
  v.note = std::string(i, 'n');
  v.small = {static_cast<std::uint16_t>(i), 200, 65535};
  v.live = i % 2 == 1;
  return v;
}

// Every cut of the value's encoding and every byte replaced by a few values
// (0x80 and 0xff continue a varint, 0x02 is no bool): the same outcome either way.
template <bs::options Opts, class T>
void check_every_cut_and_byte(const T& value, const T& start = T{}) {
  const auto good = encode<Opts>(value);
  expect_same_outcome<Opts, T>(good, "intact", start);
  for (std::size_t cut = 0; cut < good.size(); ++cut) {
    const std::vector<std::byte> part(good.begin(),
                                      good.begin() + static_cast<std::ptrdiff_t>(cut));
    expect_same_outcome<Opts, T>(part, "cut " + std::to_string(cut), start);
  }
  for (std::size_t i = 0; i < good.size(); ++i) {
    for (const unsigned v : {0x00u, 0x02u, 0x80u, 0xffu}) {
      auto bad = good;
      bad[i] = static_cast<std::byte>(v);
      expect_same_outcome<Opts, T>(bad, "byte " + std::to_string(i) + " = " + std::to_string(v),
                                   start);
    }
  }
}

// Elements of bounded size that are not one copy (a bool to check, and in the
// compact format varints): a container's elements are read after one check
// of their largest encoding (std/codec_support.hpp, read_elements).
struct Reading {
  std::uint16_t sensor = 0;
  bool valid = false;
  std::int64_t at = 0;
  std::optional<std::uint32_t> raw;
  bool operator==(const Reading&) const = default;
};
static_assert(bs::detail::std_codec::bounded_element_max<bs::native, Reading>() == 16);
static_assert(bs::detail::std_codec::bounded_element_max<bs::compact, Reading>() == 20);
static_assert(bs::detail::std_codec::bounded_element_max<bs::native, Point>() == 0); // one copy

std::vector<Reading> readings(std::size_t n) {
  std::vector<Reading> out;
  for (std::size_t i = 0; i < n; ++i) {
    Reading r;
    r.sensor = static_cast<std::uint16_t>(i * 150); // 1 to 2 bytes as a varint
    r.valid = i % 2 == 0;
    r.at = -static_cast<std::int64_t>(i) << (9 * i); // 1 to 8 bytes
    if (i % 3 != 0) r.raw = static_cast<std::uint32_t>(i * 40000);
    out.push_back(r);
  }
  return out;
}

// Every element at its largest encoding (a varint of each width at its
// longest, the optional present): the input then holds exactly the bytes the
// one check asks for, and the last cut holds one byte less.
std::vector<Reading> readings_at_largest(std::size_t n) {
  Reading r;
  r.sensor = 0xFFFF;
  r.valid = true;
  r.at = std::numeric_limits<std::int64_t>::min();
  r.raw = 0xFFFFFFFFU;
  return std::vector<Reading>(n, r);
}

template <bs::options Opts>
void check_every_cut_and_byte() {
  check_every_cut_and_byte<Opts>(std::vector<Row>{sample(1), sample(2), sample(3)});
  check_every_cut_and_byte<Opts>(
      std::vector<Varying>{varying(0), varying(1), varying(2), varying(3), varying(4)});
  // Appended, decoded into as many, into fewer, and into more elements.
  check_every_cut_and_byte<Opts>(readings(6));
  check_every_cut_and_byte<Opts>(readings(6), readings(6));
  check_every_cut_and_byte<Opts>(readings(6), readings(2));
  check_every_cut_and_byte<Opts>(readings(4), readings(7));
  check_every_cut_and_byte<Opts>(readings_at_largest(3));
  check_every_cut_and_byte<Opts>(readings_at_largest(3), readings(3));
  const auto six = readings(6);
  check_every_cut_and_byte<Opts>(std::deque<Reading>(six.begin(), six.end()));
  check_every_cut_and_byte<Opts>(std::list<Reading>(six.begin(), six.end()));
}

} // namespace field_runs_test

namespace {
using namespace field_runs_test;

TEST(FieldRuns, RoundTripAndGoldenBytesUnchanged) {
  const Row r = sample(7);
  const auto bytes = encode<bs::portable>(r);
  // id | live | side | level | at.x at.y | corners | "row7" | flags | ratio | tail (1 element)
  EXPECT_EQ(hex(bytes), "ef030000" "01" "01" "ebff" "00002841" "000000c0"
                        "07000000" "08000000" "09000000" "0a000000"
                        "0400000000000000" "726f7737" "07" "000000000000fc3f"
                        "0100000000000000" "0700");
  Row back;
  bs::BufferView in(bytes);
  ASSERT_TRUE(bs::deserialize<bs::portable>(in, back));
  EXPECT_EQ(back, r);
}

TEST(FieldRuns, NativeSameAsFieldByField) { check_every_cut_and_byte<bs::native>(); }
TEST(FieldRuns, PortableSameAsFieldByField) { check_every_cut_and_byte<bs::portable>(); }
TEST(FieldRuns, UntrustedSameAsFieldByField) { check_every_cut_and_byte<bs::untrusted>(); }
TEST(FieldRuns, CompactSameAsFieldByField) { check_every_cut_and_byte<bs::compact>(); }

template <bs::options Opts, class T>
void expect_same_bytes_as_field_by_field(const T& value) {
  WriteOnly slow;
  ASSERT_TRUE(bs::serialize<Opts>(slow, value));
  EXPECT_EQ(hex(encode<Opts>(value)), hex(slow.bytes));
  bs::FixedBuffer<4096> fixed;
  ASSERT_TRUE(bs::serialize<Opts>(fixed, value));
  EXPECT_EQ(hex(fixed.bytes()), hex(slow.bytes));
}

TEST(FieldRuns, EncodingWritesTheSameBytesAsFieldByField) {
  expect_same_bytes_as_field_by_field<bs::native>(std::vector<Row>{sample(1), sample(2)});
  expect_same_bytes_as_field_by_field<bs::portable>(std::vector<Row>{sample(1), sample(2)});
  expect_same_bytes_as_field_by_field<bs::native>(workloads::make_car_sequential(5));
  expect_same_bytes_as_field_by_field<bs::portable>(workloads::make_small_message());
  expect_same_bytes_as_field_by_field<bs::native>(workloads::make_monsters(3));
  for (std::uint32_t i = 0; i < 5; ++i) {
    expect_same_bytes_as_field_by_field<bs::native>(varying(i));
    expect_same_bytes_as_field_by_field<bs::compact>(varying(i));
  }
  expect_same_bytes_as_field_by_field<bs::compact>(std::vector<Row>{sample(1), sample(2)});
  expect_same_bytes_as_field_by_field<bs::compact>(workloads::make_car_sequential(5));
  expect_same_bytes_as_field_by_field<bs::compact>(workloads::make_monsters(3));
  expect_same_bytes_as_field_by_field<bs::compact>(workloads::make_tick(9));
}

TEST(FieldRuns, UserCodecWithExactSizeJoinsARun) {
  static_assert(bs::detail::leading_run_length<bs::native, std::uint32_t, Code3, std::uint16_t,
                                               std::string>() == 3);
  const WithCode v{7, {1, 2, 3}, 0x0102, "s"};
  expect_same_bytes_as_field_by_field<bs::portable>(v);
  const auto bytes = encode<bs::portable>(v);
  EXPECT_EQ(hex(bytes), "07000000" "010203" "0201" "0100000000000000" "73");
  expect_same_outcome<bs::portable, WithCode>(bytes, "with code");
}

TEST(FieldRuns, ACodecThatMissesItsExactSizeIsReported) {
  bs::Buffer out;
  ASSERT_TRUE(bs::serialize(out, std::uint8_t{9}));
  EXPECT_FALSE(bs::serialize(out, WithLiar{1, {1, 2, 3}, 5}));
  EXPECT_EQ(out.size(), 1u); // nothing of the failed value stays
  EXPECT_EQ(out.last_error().code, bs::errc::invalid_value);
  // Field by field the same struct encodes (3 bytes for the codec) ...
  WriteOnly slow;
  ASSERT_TRUE(bs::serialize(slow, WithLiar{1, {1, 2, 3}, 5}));
  // ... and decoding those bytes as a run (more input follows, so the run is
  // taken) is refused rather than misread.
  slow.bytes.push_back(std::byte{0});
  bs::BufferView in(slow.bytes);
  WithLiar back;
  EXPECT_FALSE(bs::deserialize(in, back));
  EXPECT_EQ(in.last_error().code, bs::errc::invalid_value);
}

TEST(FieldRuns, OutputTooSmallForARunLeavesItUnchanged) {
  const Row r = sample(3);
  const std::size_t need = bs::serialized_size(r);
  // Every capacity short of the message, including ones that end inside a run.
  bs::FixedBuffer<256> out;
  ASSERT_LT(need, 200u);
  for (std::size_t room = 0; room < need; ++room) {
    out.clear();
    const std::vector<std::byte> filler(256 - room, std::byte{0xAB});
    ASSERT_TRUE(out.write(filler.data(), filler.size()));
    EXPECT_FALSE(bs::serialize(out, r)) << room;
    EXPECT_EQ(out.size(), filler.size()) << room;
    EXPECT_EQ(out.last_error().code, bs::errc::buffer_full) << room;
  }
}

TEST(FieldRuns, ErrorsInsideARunPointAtTheField) {
  auto bytes = encode<bs::portable>(std::vector<Row>{sample(1), sample(2)});
  // Second row's `side` byte: count 8, first row, then id 4 + live 1.
  const std::size_t first_row = bs::serialized_size<bs::portable>(sample(1));
  const std::size_t side_at = 8 + first_row + 4 + 1;
  bytes[side_at] = std::byte{7}; // outside enum_range<Side>
  bs::BufferView in(bytes);
  std::vector<Row> out;
  EXPECT_FALSE(bs::deserialize<bs::portable>(in, out));
  EXPECT_EQ(in.last_error(), (bs::error{bs::errc::invalid_value, side_at}));
}

TEST(FieldRuns, ATotalLimitInsideARunIsReportedAsTheLimit) {
  const auto bytes = encode<bs::native>(sample(4));
  constexpr bs::options small{.max_total_bytes = 10}; // ends inside the first run
  expect_same_outcome<small, Row>(bytes, "max_total_bytes 10");
  bs::BufferView in(bytes);
  Row out;
  EXPECT_FALSE(bs::deserialize<small>(in, out));
  EXPECT_EQ(in.last_error().code, bs::errc::limit_exceeded);
}

TEST(FieldRuns, SeedWorkloadsDecodeAsFieldByField) {
  expect_same_outcome<bs::native, workloads::Car>(
      encode<bs::native>(workloads::make_car_sequential(3)), "car");
  // Compact: Car's leading fields are one run of varints read at their largest.
  check_every_cut_and_byte<bs::compact>(workloads::make_car_sequential(3));
  check_every_cut_and_byte<bs::compact>(workloads::make_tick(77));
  check_every_cut_and_byte<bs::compact>(workloads::make_person());
  expect_same_outcome<bs::portable, workloads::SmallMessage>(
      encode<bs::portable>(workloads::make_small_message()), "small message");
  const auto monsters = workloads::make_monsters(4);
  const auto bytes = encode<bs::native>(monsters);
  for (std::size_t cut = 0; cut < bytes.size(); cut += 7) {
    const std::vector<std::byte> part(bytes.begin(),
                                      bytes.begin() + static_cast<std::ptrdiff_t>(cut));
    expect_same_outcome<bs::native, std::vector<workloads::Monster>>(part, "monsters cut " +
                                                                               std::to_string(cut));
  }
}

} // namespace
