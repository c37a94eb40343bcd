// Retired fields and kept unknown fields of evolvable structs
// (reflect/evolution.hpp, core/evolution_fields.hpp): golden bytes, the
// fingerprint, read-modify-write by an older program in every format, bad
// bytes in a retired slot, hostile lengths with a stream and a buffer.
#define BIN_SERIALIZER_TEST_COUNT_ALLOCATIONS
#include <gtest/gtest.h>

#include "test_util.hpp"

#include <bin_serializer/bin_serializer.hpp>
#include <bin_serializer/frame/schema_json.hpp>
#include <bin_serializer/io/stream.hpp>

#include <cstdint>
#include <sstream>
#include <string>
#include <vector>

namespace bs = bin_serializer;
using bs::compact;
using bs::native;
using bs::portable;

namespace {

enum class Mode : std::uint8_t { off = 1, on = 2, automatic = 3 };

} // namespace

template <>
struct bs::enum_range<Mode> {
  static constexpr Mode min = Mode::off;
  static constexpr Mode max = Mode::automatic;
};

namespace {

// Version 1 and 2 of a settings record, then version 2 with two fields retired.
struct Live {
  std::uint32_t id = 0;
  std::string nickname;
  Mode mode = Mode::on;
  std::uint16_t volume = 5;
  using bin_serializer_evolution = bs::versions<3, 4>;
  bool operator==(const Live&) const = default;
};

struct Retired {
  std::uint32_t id = 0;
  [[no_unique_address]] bs::retired<std::string> nickname;
  [[no_unique_address]] bs::retired<Mode, Mode::off> mode;
  std::uint16_t volume = 5;
  using bin_serializer_evolution = bs::versions<3, 4>;
  bool operator==(const Retired&) const = default;
};

struct WithoutRetired {
  std::uint32_t id = 0;
  std::uint16_t volume = 5;
};

static_assert(sizeof(Retired) == sizeof(WithoutRetired), "a retired field takes no storage");
static_assert(bs::schema_hash_v<Retired, native> == bs::schema_hash_v<Live, native>);
static_assert(bs::schema_hash_v<Retired, portable> == bs::schema_hash_v<Live, portable>);
static_assert(bs::schema_hash_v<Retired, compact> == bs::schema_hash_v<Live, compact>);

TEST(RetiredField, GoldenBytesPortable) {
  // body 4 (id) + 8 (empty string) + 1 (Mode::off) + 2 (volume) = 15, 4 fields.
  bs::Buffer out;
  ASSERT_TRUE(bs::serialize<portable>(out, Retired{7, {}, {}, 9}));
  EXPECT_EQ(test_util::hex(out), "0f000000" "04000000" "07000000" "0000000000000000" "01" "0900");
  EXPECT_EQ(bs::serialized_size<portable>(Retired{7, {}, {}, 9}), out.size());
  // The same bytes as the live type holding the fixed values.
  bs::Buffer live;
  ASSERT_TRUE(bs::serialize<portable>(live, Live{7, "", Mode::off, 9}));
  EXPECT_EQ(test_util::hex(live), test_util::hex(out));
}

TEST(RetiredField, GoldenBytesCompact) {
  bs::Buffer out;
  ASSERT_TRUE(bs::serialize<compact>(out, Retired{300, {}, {}, 9}));
  EXPECT_EQ(test_util::hex(out), "05000000" "04000000" "ac02" "00" "01" "09");
}

template <bs::options Opts>
void reads_and_drops() {
  bs::Buffer live;
  ASSERT_TRUE(bs::serialize<Opts>(live, Live{7, "an old nickname", Mode::automatic, 11}));
  Retired got;
  bs::BufferView in(live.bytes());
  ASSERT_TRUE(bs::deserialize<Opts>(in, got));
  EXPECT_EQ(got, (Retired{7, {}, {}, 11}));
  EXPECT_EQ(in.read_position(), live.size());
  // And back: a live reader sees the fixed values.
  bs::Buffer again;
  ASSERT_TRUE(bs::serialize<Opts>(again, got));
  Live back;
  ASSERT_TRUE(bs::deserialize<Opts>(again, back));
  EXPECT_EQ(back, (Live{7, "", Mode::off, 11}));
}

TEST(RetiredField, ReadsAndDropsNative) { reads_and_drops<native>(); }
TEST(RetiredField, ReadsAndDropsPortable) { reads_and_drops<portable>(); }
TEST(RetiredField, ReadsAndDropsCompact) { reads_and_drops<compact>(); }

TEST(RetiredField, ItsBytesAreStillChecked) {
  // Mode 9 in the retired slot: the value is dropped, but it was never valid.
  auto bytes = test_util::unhex("0f000000" "04000000" "07000000" "0000000000000000" "09" "0900");
  bs::BufferView in(bytes);
  Retired got;
  EXPECT_FALSE(bs::deserialize<portable>(in, got));
  EXPECT_EQ(in.last_error(), (bs::error{bs::errc::invalid_value, 20}));
  // A string length past the input.
  bytes = test_util::unhex("0f000000" "04000000" "07000000" "ffffffffffffff7f" "01" "0900");
  bs::BufferView in2(bytes);
  test_util::AllocationProbe probe;
  EXPECT_FALSE(bs::deserialize<portable>(in2, got));
  EXPECT_EQ(in2.read_position(), 0U);
  EXPECT_LT(probe.largest(), 1024U);
}

TEST(RetiredField, CutAtEveryByteFailsCleanly) {
  bs::Buffer full;
  ASSERT_TRUE(bs::serialize<portable>(full, Live{7, "abc", Mode::on, 9}));
  for (std::size_t n = 0; n < full.size(); ++n) {
    bs::BufferView in(full.bytes().first(n));
    Retired got{1, {}, {}, 2};
    EXPECT_FALSE(bs::deserialize<portable>(in, got)) << n;
    EXPECT_EQ(in.read_position(), 0U) << n;
  }
}

TEST(RetiredField, Described) {
  const std::string text = bs::schema_json<Retired, portable>();
  EXPECT_NE(
      text.find(R"({"name": "nickname", "since": 1, "retired": true, "type": {"kind": "string")"),
      std::string::npos)
      << text;
  EXPECT_NE(text.find(R"("name": "mode",
        "since": 1,
        "retired": true,
        "retired_value": 1,)"),
            std::string::npos)
      << text;
  EXPECT_EQ(text.find("keeps_unknown"), std::string::npos);
}

// ---- unknown fields --------------------------------------------------------

struct Old {
  std::uint32_t id = 0;
  std::string locale = "en_US";
  bs::unknown_fields unknown;
  using bin_serializer_evolution = bs::versions<2>;
  bool operator==(const Old&) const = default;
};

struct Newer {
  std::uint32_t id = 0;
  std::string locale = "en_US";
  std::vector<std::int32_t> shortcuts;
  std::string theme = "light";
  using bin_serializer_evolution = bs::versions<2, 3, 4>;
  bool operator==(const Newer&) const = default;
};

static_assert(bs::schema_hash_v<Old, portable> == bs::schema_hash_v<Newer, portable>);

template <bs::options Opts>
void read_modify_write() {
  const Newer written{7, "fr_FR", {-1, 2, 300}, "dark"};
  bs::Buffer bytes;
  ASSERT_TRUE(bs::serialize<Opts>(bytes, written));

  Old old;
  ASSERT_TRUE(bs::deserialize<Opts>(bytes, old));
  EXPECT_EQ(old.id, 7U);
  EXPECT_EQ(old.locale, "fr_FR");
  EXPECT_EQ(old.unknown.count, 2U);
  EXPECT_FALSE(old.unknown.bytes.empty());

  old.id = 8; // the older program's change
  bs::Buffer rewritten;
  ASSERT_TRUE(bs::serialize<Opts>(rewritten, old));
  EXPECT_EQ(bs::serialized_size<Opts>(old), rewritten.size());

  // What the newer program would have written with that change.
  Newer expected = written;
  expected.id = 8;
  bs::Buffer direct;
  ASSERT_TRUE(bs::serialize<Opts>(direct, expected));
  EXPECT_EQ(test_util::hex(rewritten), test_util::hex(direct));

  Newer back;
  ASSERT_TRUE(bs::deserialize<Opts>(rewritten, back));
  EXPECT_EQ(back, expected);

  // Data with no extra field clears what was kept.
  bs::Buffer plain;
  ASSERT_TRUE(bs::serialize<Opts>(plain, Old{9, "de_DE", {}}));
  ASSERT_TRUE(bs::deserialize<Opts>(plain, old));
  EXPECT_EQ(old, (Old{9, "de_DE", {}}));
}

TEST(UnknownFields, ReadModifyWriteNative) { read_modify_write<native>(); }
TEST(UnknownFields, ReadModifyWritePortable) { read_modify_write<portable>(); }
TEST(UnknownFields, ReadModifyWriteCompact) { read_modify_write<compact>(); }

TEST(UnknownFields, GoldenBytesPortable) {
  Old old;
  old.id = 7;
  old.locale = "fr";
  old.unknown.bytes = {std::byte{0xaa}, std::byte{0xbb}};
  old.unknown.count = 1;
  bs::Buffer out;
  ASSERT_TRUE(bs::serialize<portable>(out, old));
  EXPECT_EQ(test_util::hex(out), "10000000" "03000000" "07000000" "0200000000000000" "6672" "aabb");
  Old back;
  ASSERT_TRUE(bs::deserialize<portable>(out, back));
  EXPECT_EQ(back, old);
}

TEST(UnknownFields, InconsistentKeptFieldsAreRefused) {
  Old old;
  old.unknown.bytes = {std::byte{1}};
  bs::Buffer out;
  EXPECT_FALSE(bs::serialize<portable>(out, old));
  EXPECT_EQ(out.last_error().code, bs::errc::invalid_value);
  EXPECT_EQ(out.size(), 0U);
  old.unknown.bytes.clear();
  old.unknown.count = 2;
  EXPECT_FALSE(bs::serialize<portable>(out, old));
  EXPECT_EQ(out.size(), 0U);
}

TEST(UnknownFields, HostileBodyFromAStreamAllocatesOnlyWhatArrives) {
  // Count 5 (3 unknown fields) and a body of 4 GiB - 1, then 20 bytes.
  const auto bytes = test_util::unhex("ffffffff" "05000000" "07000000" "0200000000000000" "6672"
                                      "0102030405060708090a");
  std::istringstream is(std::string(reinterpret_cast<const char*>(bytes.data()), bytes.size()));
  bs::basic_istream_reader<256> r(is);
  Old got;
  test_util::AllocationProbe probe;
  EXPECT_FALSE(bs::deserialize<portable>(r, got));
  EXPECT_EQ(r.last_error().code, bs::errc::truncated);
  EXPECT_LT(probe.largest(), 64U * 1024U);
  // From a buffer the body length is checked against the input first.
  bs::BufferView in(bytes);
  EXPECT_FALSE(bs::deserialize<portable>(in, got));
  EXPECT_EQ(in.last_error(), (bs::error{bs::errc::truncated, 0}));
}

TEST(UnknownFields, KeptThroughAStream) {
  const Newer written{7, "fr_FR", {1, 2, 3}, "dark"};
  std::ostringstream os;
  {
    bs::ostream_writer w(os);
    ASSERT_TRUE(bs::serialize<portable>(w, written));
    ASSERT_TRUE(w.flush());
  }
  std::istringstream is(os.str());
  bs::basic_istream_reader<64> r(is);
  Old old;
  ASSERT_TRUE(bs::deserialize<portable>(r, old));
  EXPECT_EQ(old.unknown.count, 2U);
  bs::Buffer rewritten;
  ASSERT_TRUE(bs::serialize<portable>(rewritten, old));
  Newer back;
  ASSERT_TRUE(bs::deserialize<portable>(rewritten, back));
  EXPECT_EQ(back, written);
}

TEST(UnknownFields, Described) {
  const std::string text = bs::schema_json<Old, portable>();
  EXPECT_NE(text.find(R"("versions": [2],
    "keeps_unknown": true,)"),
            std::string::npos)
      << text;
  EXPECT_EQ(text.find(R"("name": "unknown")"), std::string::npos) << text;
}

} // namespace
