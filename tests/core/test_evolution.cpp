// Evolvable structs: three versions of one struct read in every direction, in
// both formats; golden bytes; nesting; hostile prefixes.
#include "test_util.hpp"

#include <bin_serializer/reflect/evolution.hpp>
#include <bin_serializer/frame/schema_hash.hpp>
#include <bin_serializer/std/map.hpp>
#include <bin_serializer/std/tuple.hpp>
#include <bin_serializer/std/variant.hpp>

#include <array>
#include <cstdint>
#include <map>
#include <optional>
#include <tuple>
#include <utility>
#include <variant>
#include <string>
#include <vector>

namespace bs = bin_serializer;
using bs::native;
using bs::portable;
using test_util::hex;

namespace evolution_test {

// A nested evolvable struct (its own versions: 1 field, then 2).
struct Limits {
  std::uint16_t max_users = 10;
  std::uint16_t max_rooms = 3;
  using bin_serializer_evolution = bs::versions<1, 2>;
  bool operator==(const Limits&) const = default;
};

// Version 1 of the published struct.
struct ConfigV1 {
  std::uint32_t id = 0;
  std::string name;
  using bin_serializer_evolution = bs::versions<2>;
  bool operator==(const ConfigV1&) const = default;
};

// Version 2 appends two fields (with default member initialisers).
struct ConfigV2 {
  std::uint32_t id = 0;
  std::string name;
  double ratio = 1.5;
  std::vector<std::int16_t> tags;
  using bin_serializer_evolution = bs::versions<2, 4>;
  bool operator==(const ConfigV2&) const = default;
};

// Version 3 appends a nested evolvable struct; uses reflect() and the
// non-intrusive trait instead of the member alias.
struct ConfigV3 {
  std::uint32_t id = 0;
  std::string name;
  double ratio = 1.5;
  std::vector<std::int16_t> tags;
  Limits limits;
  template <class V> auto reflect(V&& v) { return v(id, name, ratio, tags, limits); }
  template <class V> auto reflect(V&& v) const { return v(id, name, ratio, tags, limits); }
  bool operator==(const ConfigV3&) const = default;
};

// Not evolvable: the same fields as ConfigV1, for comparison.
struct Plain {
  std::uint32_t id = 0;
  std::string name;
};

// Trivially copyable, but evolvable: never copied as a block.
struct Pod {
  std::uint32_t a;
  std::uint32_t b;
  using bin_serializer_evolution = bs::versions<1, 2>;
};
struct HoldsPod {
  Pod pod;
  std::uint8_t x;
};

struct BagV1 {
  std::vector<ConfigV1> items;
};
struct BagV3 {
  std::vector<ConfigV3> items;
};

// Reordering a first-version field: must change the fingerprint.
struct ConfigSwapped {
  std::string name;
  std::uint32_t id = 0;
  using bin_serializer_evolution = bs::versions<2>;
};
// Retyping a first-version field.
struct ConfigRetyped {
  std::uint64_t id = 0;
  std::string name;
  using bin_serializer_evolution = bs::versions<2>;
};

} // namespace evolution_test

template <>
struct bs::evolution<evolution_test::ConfigV3> : bs::versions<2, 4, 5> {};

namespace {
using namespace evolution_test;

ConfigV1 make_v1() { return {.id = 7, .name = "ab"}; }
ConfigV2 make_v2() { return {.id = 8, .name = "cde", .ratio = 0.25, .tags = {-1, 2}}; }
ConfigV3 make_v3() {
  return {.id = 9,
          .name = "f",
          .ratio = 2.0,
          .tags = {3},
          .limits = {.max_users = 100, .max_rooms = 20}};
}

// The value a reader of type R must produce from writer value w: fields R
// shares with the writer come from w, the rest from R{}.
template <class R, class W>
R expected_read(const W& w) {
  R r{};
  r.id = w.id;
  r.name = w.name;
  if constexpr (requires {
                  r.ratio;
                  w.ratio;
                }) {
    r.ratio = w.ratio;
    r.tags = w.tags;
  }
  if constexpr (requires {
                  r.limits;
                  w.limits;
                })
    r.limits = w.limits;
  return r;
}

template <class T>
const char* version_name() {
  if constexpr (std::is_same_v<T, ConfigV1>)
    return "v1";
  else if constexpr (std::is_same_v<T, ConfigV2>)
    return "v2";
  else
    return "v3";
}

template <bs::options Opts, class W, class R>
void check_pair(const W& written) {
  SCOPED_TRACE(::testing::Message() << "format " << static_cast<int>(Opts.format) << " writer "
                                    << version_name<W>() << " reader " << version_name<R>());
  bs::Buffer buf;
  ASSERT_TRUE(bs::serialize<Opts>(buf, written));
  EXPECT_EQ(buf.size(), bs::serialized_size<Opts>(written));
  buf.write(reinterpret_cast<const void*>("\x5a"), 1); // a following message must stay unread
  R got{};
  ASSERT_TRUE(bs::deserialize<Opts>(buf, got)) << buf.last_error().message();
  EXPECT_EQ(got, expected_read<R>(written));
  EXPECT_EQ(buf.read_position(), buf.size() - 1);
}

template <bs::options Opts>
void all_pairs() {
  check_pair<Opts, ConfigV1, ConfigV1>(make_v1());
  check_pair<Opts, ConfigV1, ConfigV2>(make_v1());
  check_pair<Opts, ConfigV1, ConfigV3>(make_v1());
  check_pair<Opts, ConfigV2, ConfigV1>(make_v2());
  check_pair<Opts, ConfigV2, ConfigV2>(make_v2());
  check_pair<Opts, ConfigV2, ConfigV3>(make_v2());
  check_pair<Opts, ConfigV3, ConfigV1>(make_v3());
  check_pair<Opts, ConfigV3, ConfigV2>(make_v3());
  check_pair<Opts, ConfigV3, ConfigV3>(make_v3());
}

TEST(Evolution, AllNinePairsNative) { all_pairs<native>(); }
TEST(Evolution, AllNinePairsPortable) { all_pairs<portable>(); }
TEST(Evolution, AllNinePairsUntrusted) { all_pairs<bs::untrusted>(); }

TEST(Evolution, GoldenBytesPortable) {
  bs::Buffer b1, b2, b3;
  ASSERT_TRUE(bs::serialize<portable>(b1, make_v1()));
  // body 14 bytes, 2 fields | id 7 | "ab"
  EXPECT_EQ(hex(b1), "0e000000" "02000000" "07000000" "0200000000000000" "6162");
  ASSERT_TRUE(bs::serialize<portable>(b2, make_v2()));
  // body 35, 4 fields | id 8 | "cde" | 0.25 | [-1, 2]
  EXPECT_EQ(hex(b2), "23000000" "04000000" "08000000" "0300000000000000" "636465"
                     "000000000000d03f" "0200000000000000" "ffff" "0200");
  ASSERT_TRUE(bs::serialize<portable>(b3, make_v3()));
  // body 43, 5 fields | ... | Limits: body 4, 2 fields | 100 | 20
  EXPECT_EQ(hex(b3), "2b000000" "05000000" "09000000" "0100000000000000" "66"
                     "0000000000000040" "0100000000000000" "0300"
                     "04000000" "02000000" "6400" "1400");
}

TEST(Evolution, GoldenBytesNativeLittleEndian) {
  if constexpr (!bs::detail::little_endian_host) GTEST_SKIP() << "native bytes are host order";
  bs::Buffer b;
  ASSERT_TRUE(bs::serialize(b, make_v1()));
  EXPECT_EQ(hex(b), "0e000000" "02000000" "07000000" "0200000000000000" "6162");
}

TEST(Evolution, MissingFieldsTakeDefaultMemberInitialisers) {
  bs::Buffer b;
  ASSERT_TRUE(bs::serialize<portable>(b, make_v1()));
  ConfigV3 got{.id = 1, .name = "old", .ratio = 9.0, .tags = {1, 2, 3}, .limits = {1, 1}};
  ASSERT_TRUE(bs::deserialize<portable>(b, got));
  EXPECT_EQ(got.id, 7U);
  EXPECT_EQ(got.name, "ab");
  EXPECT_EQ(got.ratio, 1.5); // ConfigV3{}.ratio, not the old 9.0
  EXPECT_TRUE(got.tags.empty());
  EXPECT_EQ(got.limits, (Limits{10, 3}));
}

TEST(Evolution, NestedEvolvableOlderInner) {
  // A Limits written by version 1 of Limits (1 field), inside a ConfigV3.
  // Built by hand: ConfigV3 body = id | name | ratio | tags | Limits v1.
  const std::string h = "29000000" "05000000" "09000000" "0100000000000000" "66"
                        "0000000000000040" "0100000000000000" "0300"
                        "02000000" "01000000" "6400";
  const auto bytes = test_util::unhex(h);
  bs::BufferView in(bytes);
  ConfigV3 got;
  ASSERT_TRUE(bs::deserialize<portable>(in, got)) << in.last_error().message();
  EXPECT_EQ(got.limits, (Limits{.max_users = 100, .max_rooms = 3}));
}

// An evolvable struct made only of numbers, where its holder reads fields as
// a run or elements through a window of their largest encodings (a plain
// struct's fixed-size fields, a vector's bounded elements): that window is
// this version's, no bound on another's. A newer version read by an older
// one, and back, in every format, with more input after it.
struct LimitsV1 {
  std::uint16_t max_users = 10;
  using bin_serializer_evolution = bs::versions<1>;
  bool operator==(const LimitsV1&) const = default;
};
struct RoomV1 {
  std::uint32_t id = 0;
  LimitsV1 limits;
  std::vector<LimitsV1> history;
  std::uint8_t flag = 0;
  std::string tail;
  bool operator==(const RoomV1&) const = default;
};
struct RoomV2 {
  std::uint32_t id = 0;
  evolution_test::Limits limits;
  std::vector<evolution_test::Limits> history;
  std::uint8_t flag = 0;
  std::string tail;
  bool operator==(const RoomV2&) const = default;
};
struct PodV1 {
  std::uint32_t a;
  using bin_serializer_evolution = bs::versions<1>;
};
struct HoldsPodV1 {
  PodV1 pod;
  std::uint8_t x;
};

// The same evolvable struct as an optional, a std::array and a C array
// between fixed-size fields: each must read a newer version's bytes.
template <class L>
struct Holders {
  struct Opt {
    std::uint32_t a = 1;
    std::optional<L> o = L{};
    std::uint8_t b = 2;
  };
  struct Arr {
    std::uint32_t a = 1;
    std::array<L, 2> arr{};
    std::uint8_t b = 2;
  };
  struct CArr {
    std::uint32_t a = 1;
    L c[2] = {};
    std::uint8_t b = 2;
  };
  struct Others {
    std::uint32_t a = 1;
    std::tuple<std::uint16_t, L> t{};
    std::variant<std::uint8_t, L> v = L{};
    std::map<std::uint16_t, L> m{{1, L{}}, {2, L{}}};
    std::pair<L, std::uint8_t> p{};
    std::uint8_t b = 2;
  };
};

template <bs::options Opts, class New, class Old>
void older_reads(const New& written, auto check) {
  bs::Buffer b;
  ASSERT_TRUE(bs::serialize<Opts>(b, written));
  bs::BufferView in(b.bytes());
  Old got{};
  ASSERT_TRUE(bs::deserialize<Opts>(in, got)) << in.last_error().message();
  EXPECT_EQ(in.read_position(), b.size());
  check(got);
}

template <bs::options Opts>
void newer_nested_numbers_both_ways() {
  using New = Holders<evolution_test::Limits>;
  using Old = Holders<LimitsV1>;
  auto ends = [](const auto& got) {
    EXPECT_EQ(got.a, 1U);
    EXPECT_EQ(got.b, 2U);
  };
  older_reads<Opts, New::Opt, Old::Opt>({}, [&](const Old::Opt& got) {
    ends(got);
    EXPECT_EQ(got.o, LimitsV1{});
  });
  older_reads<Opts, New::Arr, Old::Arr>({}, ends);
  older_reads<Opts, New::CArr, Old::CArr>({}, ends);
  older_reads<Opts, New::Others, Old::Others>({}, [&](const Old::Others& got) {
    ends(got);
    EXPECT_EQ(got.v.index(), 1U);
    EXPECT_EQ(got.m.size(), 2U);
  });

  using evolution_test::Limits;
  const RoomV2 newer{7, {5, 6}, {{1, 2}, {3, 4}}, 9, "end"};
  bs::Buffer b;
  ASSERT_TRUE(bs::serialize<Opts>(b, newer));
  bs::BufferView in(b.bytes());
  RoomV1 old;
  ASSERT_TRUE(bs::deserialize<Opts>(in, old)) << in.last_error().message();
  EXPECT_EQ(old, (RoomV1{7, {5}, {{1}, {3}}, 9, "end"}));
  EXPECT_EQ(in.read_position(), b.size());
  bs::Buffer back;
  ASSERT_TRUE(bs::serialize<Opts>(back, old));
  bs::BufferView in2(back.bytes());
  RoomV2 again;
  ASSERT_TRUE(bs::deserialize<Opts>(in2, again)) << in2.last_error().message();
  EXPECT_EQ(again, (RoomV2{7, {5, 3}, {Limits{1, 3}, Limits{3, 3}}, 9, "end"}));
  // A holder whose only fields are the evolvable one and a byte.
  bs::Buffer p;
  ASSERT_TRUE(bs::serialize<Opts>(p, evolution_test::HoldsPod{{1, 2}, 3}));
  bs::BufferView in3(p.bytes());
  HoldsPodV1 pod{};
  ASSERT_TRUE(bs::deserialize<Opts>(in3, pod)) << in3.last_error().message();
  EXPECT_EQ(pod.pod.a, 1U);
  EXPECT_EQ(pod.x, 3U);
}

TEST(Evolution, NewerNestedEvolvableOfNumbersInARunOrAVector) {
  newer_nested_numbers_both_ways<native>();
  newer_nested_numbers_both_ways<portable>();
  newer_nested_numbers_both_ways<bs::compact>();
  newer_nested_numbers_both_ways<bs::untrusted>();
}

TEST(Evolution, VectorsOfEvolvable) {
  BagV3 bag{{make_v3(), make_v3(), ConfigV3{}}};
  bag.items[1].name = "second";
  for (auto fmt : {0, 1}) {
    bs::Buffer buf;
    BagV1 old;
    if (fmt == 0) {
      ASSERT_TRUE(bs::serialize(buf, bag));
      ASSERT_TRUE(bs::deserialize(buf, old));
    } else {
      ASSERT_TRUE(bs::serialize<portable>(buf, bag));
      ASSERT_TRUE(bs::deserialize<portable>(buf, old));
    }
    ASSERT_EQ(old.items.size(), 3U);
    EXPECT_EQ(old.items[1], (ConfigV1{9, "second"}));
    EXPECT_EQ(old.items[2], ConfigV1{});
    // And back: old items read by the new definition get defaults.
    bs::Buffer back;
    ASSERT_TRUE(bs::serialize<portable>(back, old));
    BagV3 again;
    ASSERT_TRUE(bs::deserialize<portable>(back, again));
    ASSERT_EQ(again.items.size(), 3U);
    EXPECT_EQ(again.items[0], expected_read<ConfigV3>(old.items[0]));
  }
}

TEST(Evolution, FingerprintCoversFirstVersionOnly) {
  EXPECT_EQ(bs::schema_hash_v<ConfigV1>, bs::schema_hash_v<ConfigV2>);
  EXPECT_EQ((bs::schema_hash_v<ConfigV1, portable>), (bs::schema_hash_v<ConfigV3, portable>));
  EXPECT_NE(bs::schema_hash_v<ConfigV1>, bs::schema_hash_v<Plain>); // the EVOLVABLE token
  EXPECT_NE(bs::schema_hash_v<ConfigV1>, bs::schema_hash_v<ConfigSwapped>);
  EXPECT_NE(bs::schema_hash_v<ConfigV1>, bs::schema_hash_v<ConfigRetyped>);
  EXPECT_EQ(bs::schema_hash_v<BagV1>, bs::schema_hash_v<BagV3>);
  // The per-version chain tells later versions apart.
  using bs::detail::schema_hash_upto;
  EXPECT_EQ((schema_hash_upto<ConfigV3, native, 1>), bs::schema_hash_v<ConfigV3>);
  EXPECT_EQ((schema_hash_upto<ConfigV2, native, 2>), (schema_hash_upto<ConfigV3, native, 2>));
  EXPECT_NE((schema_hash_upto<ConfigV3, native, 2>), (schema_hash_upto<ConfigV3, native, 3>));
  EXPECT_NE((schema_hash_upto<ConfigV3, native, 1>), (schema_hash_upto<ConfigV3, native, 2>));
}

TEST(Evolution, TriviallyCopyableEvolvableIsNotBulk) {
  static_assert(bs::detail::category_of<native, Pod>() == bs::detail::category::evolvable);
  static_assert(bs::detail::category_of<native, HoldsPod>() != bs::detail::category::bulk);
  static_assert(bs::max_serialized_size_v<Pod> == 16);
  static_assert(bs::max_serialized_size_v<HoldsPod, portable> == 17);
  bs::Buffer b;
  ASSERT_TRUE(bs::serialize<portable>(b, HoldsPod{{1, 2}, 3}));
  EXPECT_EQ(hex(b), "08000000" "02000000" "01000000" "02000000" "03");
  HoldsPod got{};
  ASSERT_TRUE(bs::deserialize<portable>(b, got));
  EXPECT_EQ(got.pod.b, 2U);
  EXPECT_EQ(got.x, 3);
}

// ---- hostile prefixes

template <class T>
bs::error decode_fails(const std::string& h) {
  const auto bytes = test_util::unhex(h);
  bs::BufferView in(bytes);
  T got{};
  EXPECT_FALSE(bs::deserialize<portable>(in, got)) << h;
  EXPECT_EQ(in.read_position(), 0U);
  return in.last_error();
}

TEST(Evolution, HostileBodyLengthsAndCounts) {
  using bs::errc;
  // Body longer than the input.
  EXPECT_EQ(decode_fails<ConfigV1>("ffffffff" "02000000" "07000000"),
            (bs::error{errc::truncated, 0}));
  // Field count below the reader's first version / not a version boundary.
  // The error gives the reader's field count and the input's.
  EXPECT_EQ(decode_fails<ConfigV2>("04000000" "01000000" "07000000"),
            bs::error::schema(4, bs::mismatch::field_count, 4, 1));
  EXPECT_EQ(decode_fails<ConfigV2>("0e000000" "03000000" "07000000" "0200000000000000" "6162"),
            bs::error::schema(4, bs::mismatch::field_count, 4, 3));
  EXPECT_EQ(decode_fails<ConfigV1>("00000000" "00000000"),
            bs::error::schema(4, bs::mismatch::field_count, 2, 0));
  // Body shorter than the fields: the name runs past the body's end.
  EXPECT_EQ(decode_fails<ConfigV1>("0d000000" "02000000" "07000000" "0200000000000000" "6162"),
            (bs::error{errc::invalid_value, 21}));
  // Body longer than the fields of an equal-count writer.
  EXPECT_EQ(decode_fails<ConfigV1>("0f000000" "02000000" "07000000" "0200000000000000" "6162" "00"),
            (bs::error{errc::invalid_value, 23}));
  // A newer writer whose body is shorter than the fields this reader decodes.
  EXPECT_EQ(decode_fails<ConfigV1>("0d000000" "09000000" "07000000" "0200000000000000" "6162"),
            (bs::error{errc::invalid_value, 21}));
  // Truncated prefix.
  EXPECT_EQ(decode_fails<ConfigV1>("0e0000"), (bs::error{errc::truncated, 0}));
}

TEST(Evolution, NewerWriterTrailingBytesAreSkipped) {
  // Count 3 with 5 unknown trailing bytes: a v1 reader skips them.
  const auto bytes = test_util::unhex("13000000" "03000000" "07000000" "0200000000000000" "6162" "0102030405" "99");
  bs::BufferView in(bytes);
  ConfigV1 got;
  ASSERT_TRUE(bs::deserialize<portable>(in, got));
  EXPECT_EQ(got, make_v1());
  EXPECT_EQ(in.read_position(), bytes.size() - 1);
}

TEST(Evolution, TruncatedAtEveryOffsetFailsCleanly) {
  bs::Buffer full;
  ASSERT_TRUE(bs::serialize<portable>(full, make_v3()));
  for (std::size_t n = 0; n < full.size(); ++n) {
    bs::BufferView in(std::span<const std::byte>(full.bytes()).first(n));
    ConfigV3 got;
    EXPECT_FALSE(bs::deserialize<portable>(in, got)) << n;
    EXPECT_EQ(in.read_position(), 0U);
    ConfigV1 old;
    bs::BufferView in1(std::span<const std::byte>(full.bytes()).first(n));
    EXPECT_FALSE(bs::deserialize<portable>(in1, old)) << n;
  }
}

TEST(Evolution, MaxTotalBytesLimitsTheBody) {
  constexpr auto opts = bs::options{.format = bs::wire_format::portable, .max_total_bytes = 12};
  bs::Buffer b;
  ASSERT_TRUE(bs::serialize<portable>(b, make_v1()));
  ConfigV1 got;
  EXPECT_FALSE(bs::deserialize<opts>(b, got));
  EXPECT_EQ(b.last_error().code, bs::errc::limit_exceeded);
}

} // namespace

// ---- golden vectors: spec/vectors/framed/<format>/evolvable_v{1,2,3}.bin and
// nested_evolvable_v{1,2}.bin

#include <filesystem>
#include <fstream>
#include <iterator>

#include "workloads/evolving.hpp"

namespace {

std::vector<std::byte> read_vector(const std::string& format, const std::string& name) {
  return test_util::read_framed_vector(format, name);
}

template <bs::options Opts>
void check_profile_vectors(const std::string& format) {
  const auto v1 = read_vector(format, "evolvable_v1");
  const auto v2 = read_vector(format, "evolvable_v2");
  const auto v3 = read_vector(format, "evolvable_v3");
  const auto enc = [](const auto& value) {
    bs::Buffer b;
    EXPECT_TRUE(bs::serialize<Opts>(b, value));
    return std::vector<std::byte>(b.bytes().begin(), b.bytes().end());
  };
  EXPECT_EQ(enc(workloads::make_profile_v1()), v1);
  EXPECT_EQ(enc(workloads::make_profile_v2()), v2);
  EXPECT_EQ(enc(workloads::make_profile_v3()), v3);
  // Every reader version reads every vector.
  const auto read_as = [](const std::vector<std::byte>& bytes, auto& out) {
    bs::BufferView in(bytes);
    EXPECT_TRUE(bs::deserialize<Opts>(in, out));
    EXPECT_EQ(in.read_position(), bytes.size());
  };
  workloads::ProfileV1 r1;
  workloads::ProfileV3 r3;
  read_as(v3, r1);
  EXPECT_EQ(r1, (workloads::ProfileV1{"Bo", 3}));
  read_as(v1, r3);
  EXPECT_EQ(r3, (workloads::ProfileV3{"Ann", 1, {}, {}, {}}));
  workloads::ProfileV2 r2;
  read_as(v3, r2);
  EXPECT_EQ(r2.email, "b@x.org");
  read_as(v2, r3);
  EXPECT_EQ(r3.limits, workloads::Limits{});

  // A plain struct holding two versions of a nested evolvable struct of
  // numbers: each version reads the other's golden bytes.
  const auto n1 = read_vector(format, "nested_evolvable_v1");
  const auto n2 = read_vector(format, "nested_evolvable_v2");
  EXPECT_EQ(enc(workloads::make_room_v1()), n1);
  EXPECT_EQ(enc(workloads::make_room_v2()), n2);
  workloads::RoomV1 old_room;
  read_as(n2, old_room);
  EXPECT_EQ(old_room, (workloads::RoomV1{8, {300}, {{1}, {3}}, workloads::LimitsV1{5}, 2, "v2"}));
  workloads::RoomV2 new_room;
  read_as(n1, new_room);
  using workloads::Limits;
  EXPECT_EQ(new_room, (workloads::RoomV2{7, {40, 3}, {{1, 3}, {2, 3}}, Limits{9, 3}, 1, "v1"}));
}

TEST(EvolutionVectors, Portable) { check_profile_vectors<portable>("portable"); }
TEST(EvolutionVectors, Compact) { check_profile_vectors<bs::compact>("compact"); }

TEST(EvolutionVectors, NativeOnLittleEndianLp64) {
  if constexpr (!bs::detail::little_endian_host || sizeof(void*) != 8)
    GTEST_SKIP() << "the native vectors are little-endian LP64 bytes";
  check_profile_vectors<native>("native");
}

} // namespace
