// schema_json<T, Opts>() (frame/schema_json.hpp, docs/schema.md): golden
// descriptions of the workload types and of a type using every kind, in each
// format; the "fingerprint" key is schema_hash_v; names never change the
// bytes or the fingerprint.
//
// The goldens live in tests/frame/golden/<name>.<format>.json. To rewrite
// them after an intended change, run this test with
// BIN_SERIALIZER_UPDATE_GOLDEN=1 in the environment and review the diff.
#include <bin_serializer/bin_serializer.hpp>
#include <bin_serializer/frame/schema_json.hpp>

#include <gtest/gtest.h>

#include <array>
#include <bitset>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <optional>
#include <set>
#include <regex>
#include <string>
#include <tuple>
#include <variant>
#include <vector>

#include "workloads/evolving.hpp"
#include "workloads/workloads.hpp"

namespace bs = bin_serializer;

// The goldens, found from the repository's spec/ directory (every unit test
// gets BIN_SERIALIZER_SPEC_DIR), so this test needs no CMake of its own.
#ifndef BIN_SERIALIZER_SCHEMA_GOLDEN_DIR
#define BIN_SERIALIZER_SCHEMA_GOLDEN_DIR BIN_SERIALIZER_SPEC_DIR "/../tests/frame/golden"
#endif

namespace schema_json_test {

enum class Level : std::int8_t { low = -2, mid = 0, high = 3 };
enum class Flags : std::uint16_t { none = 0 };

// reflect() with names declared next to it.
struct Named {
  std::int32_t x = 0;
  std::string label;
  int hidden = 0; // not on the wire
  static constexpr std::array bin_serializer_field_names{"x", "label"};
  template <class V> auto reflect(V&& v) { return v(x, label); }
  template <class V> auto reflect(V&& v) const { return v(x, label); }
};

// reflect() without names: positional.
struct Unnamed {
  std::int32_t x = 0;
  std::string label;
  template <class V> auto reflect(V&& v) { return v(x, label); }
  template <class V> auto reflect(V&& v) const { return v(x, label); }
};

// Names through the trait, without touching the type.
struct Traited {
  std::int32_t x = 0;
  std::string label;
  template <class V> auto reflect(V&& v) { return v(x, label); }
  template <class V> auto reflect(V&& v) const { return v(x, label); }
};

// The same shape as Named with other names.
struct Renamed {
  std::int32_t first = 0;
  std::string second;
  bool operator==(const Renamed&) const = default;
};

struct Tree {
  std::string name;
  std::vector<Tree> children;
};

struct Money {
  std::int64_t cents = 0;
};
struct Cents {
  std::int64_t cents = 0;
};

// Every kind of node, one field each.
struct Everything {
  bool flag = false;
  char c = 0;
  char16_t wc = 0;
  std::uint64_t big = 0;
  std::int16_t small = 0;
  double real = 0;
  Level level{};
  Flags flags{};
  std::uint8_t raw[3]{};
  std::array<std::string, 2> pair_of_names;
  std::u16string wide;
  std::vector<bool> bits;
  std::set<std::int32_t> keys;
  std::map<std::string, std::optional<std::int32_t>> table;
  std::variant<std::monostate, std::int32_t, std::string> choice;
  std::tuple<std::int8_t, float> tup;
  std::bitset<12> mask;
  std::chrono::milliseconds timeout{};
  std::chrono::duration<std::int32_t, std::ratio<1, 30>> frames{};
  std::chrono::sys_time<std::chrono::microseconds> when{};
  Named named;
  Unnamed unnamed;
  Traited traited;
  Tree tree;
  Money money;
  Cents cents;
  workloads::Limits limits;
};

// A framed message type with an id.
struct Order {
  std::uint64_t id = 0;
  double price = 0;
  static constexpr std::uint32_t bin_serializer_message_id = 42;
};

} // namespace schema_json_test

template <>
struct bs::enum_range<schema_json_test::Level> {
  static constexpr auto min = schema_json_test::Level::low;
  static constexpr auto max = schema_json_test::Level::high;
};

template <>
struct bs::field_names<schema_json_test::Traited> {
  static constexpr std::array value{"ex", "text"};
};

template <>
struct bs::codec<schema_json_test::Money> {
  static constexpr std::uint64_t schema_id = 0x4d6f6e6579000001;
  template <class W> static bool write(W& w, const schema_json_test::Money& m) {
    return serialize_field(w, m.cents);
  }
  template <class R> static bool read(R& r, schema_json_test::Money& m) {
    return deserialize_field(r, m.cents);
  }
};
template <>
struct bs::codec<schema_json_test::Cents> {
  using schema_equivalent = std::int64_t;
  template <class W> static bool write(W& w, const schema_json_test::Cents& m) {
    return serialize_field(w, m.cents);
  }
  template <class R> static bool read(R& r, schema_json_test::Cents& m) {
    return deserialize_field(r, m.cents);
  }
};

namespace {

using namespace schema_json_test;

std::string golden_path(const char* name, std::string_view format) {
  return std::string(BIN_SERIALIZER_SCHEMA_GOLDEN_DIR) + "/" + name + "." + std::string(format) +
         ".json";
}

bool read_file(const std::string& path, std::string& out) {
  std::FILE* f = std::fopen(path.c_str(), "rb");
  if (f == nullptr) return false;
  char buf[4096];
  std::size_t n = 0;
  while ((n = std::fread(buf, 1, sizeof buf, f)) != 0) out.append(buf, n);
  std::fclose(f);
  return true;
}

bool write_file(const std::string& path, const std::string& text) {
  std::FILE* f = std::fopen(path.c_str(), "wb");
  if (f == nullptr) return false;
  const bool ok = std::fwrite(text.data(), 1, text.size(), f) == text.size();
  return std::fclose(f) == 0 && ok;
}

std::string hex(std::uint64_t v) {
  char buf[19];
  std::snprintf(buf, sizeof buf, "0x%016llx", static_cast<unsigned long long>(v));
  return buf;
}

// The text with every "default": "<hex>" value emptied.
std::string without_default_bytes(const std::string& text) {
  static const std::regex bytes(R"("default": "[0-9a-f]*")");
  return std::regex_replace(text, bytes, R"("default": "")");
}

template <class T, bs::options Opts>
void check_golden(const char* name) {
  const std::string text = bs::schema_json<T, Opts>();
  const std::string_view format = bs::detail::format_of<Opts>::name;
  const std::string path = golden_path(name, format);
  SCOPED_TRACE(path);
  // The fingerprint key is schema_hash_v.
  EXPECT_NE(text.find("\"fingerprint\": \"" + hex(bs::schema_hash_v<T, Opts>) + "\""),
            std::string::npos);
  EXPECT_NE(text.find("\"format\": \"" + std::string(format) + "\""), std::string::npos);
  // Deterministic: the same bytes on every call.
  EXPECT_EQ(text, (bs::schema_json<T, Opts>()));
  if (std::getenv("BIN_SERIALIZER_UPDATE_GOLDEN") != nullptr) {
    ASSERT_TRUE(write_file(path, text));
    return;
  }
  std::string expected;
  ASSERT_TRUE(read_file(path, expected))
      << "missing golden; run with BIN_SERIALIZER_UPDATE_GOLDEN=1";
  if (Opts.format == bs::wire_format::native && !bs::detail::little_endian_host) {
    // A default is the field's encoding, in native the host's byte order; the
    // goldens were written on a little-endian host. The rest must match.
    EXPECT_EQ(without_default_bytes(text), without_default_bytes(expected));
    return;
  }
  EXPECT_EQ(text, expected);
}

template <class T>
void check_all_formats(const char* name) {
  check_golden<T, bs::native>(name);
  check_golden<T, bs::portable>(name);
  check_golden<T, bs::compact>(name);
}

TEST(SchemaJson, GoldenPerson) { check_all_formats<workloads::Person>("person"); }
TEST(SchemaJson, GoldenCar) { check_all_formats<workloads::Car>("car"); }
TEST(SchemaJson, GoldenMonster) { check_all_formats<workloads::Monster>("monster"); }
TEST(SchemaJson, GoldenTick) { check_all_formats<workloads::Tick>("tick"); }
TEST(SchemaJson, GoldenLargeStruct) { check_all_formats<workloads::LargeStruct>("large_struct"); }
TEST(SchemaJson, GoldenProfileV3) { check_all_formats<workloads::ProfileV3>("profile_v3"); }
TEST(SchemaJson, GoldenEverything) { check_all_formats<Everything>("everything"); }
TEST(SchemaJson, GoldenOrder) { check_all_formats<Order>("order"); }

TEST(SchemaJson, EvolvableVersionFingerprints) {
  const std::string text = bs::schema_json<workloads::ProfileV3, bs::portable>();
  const std::string expected =
      "\"version_fingerprints\": [\"" +
      hex(bs::detail::schema_hash_upto<workloads::ProfileV3, bs::portable, 1>) + "\", \"" +
      hex(bs::detail::schema_hash_upto<workloads::ProfileV3, bs::portable, 2>) + "\", \"" +
      hex(bs::detail::schema_hash_upto<workloads::ProfileV3, bs::portable, 3>) + "\"]";
  EXPECT_NE(text.find(expected), std::string::npos) << text;
  static_assert(bs::detail::schema_hash_upto<workloads::ProfileV3, bs::portable, 1> ==
                bs::schema_hash_v<workloads::ProfileV3, bs::portable>);
  EXPECT_EQ(bs::schema_json<workloads::Person>().find("version_fingerprints"), std::string::npos);
}

// ---- names ----------------------------------------------------------------------

TEST(SchemaJson, AggregateNamesAreFound) {
  constexpr auto& names = bs::field_names_v<workloads::Person>;
  static_assert(names.size() == 4);
  static_assert(names[0] == "name" && names[1] == "id" && names[2] == "email" &&
                names[3] == "scores");
  static_assert(bs::field_names_v<workloads::Monster>[8] == "path");
  static_assert(bs::type_name_v<workloads::Person> == "workloads::Person");
}

TEST(SchemaJson, ReflectNamesDeclaredTraitOrPositional) {
  static_assert(bs::field_names_v<Named>[0] == "x" && bs::field_names_v<Named>[1] == "label");
  static_assert(bs::field_names_v<Traited>[0] == "ex" && bs::field_names_v<Traited>[1] == "text");
  static_assert(bs::field_names_v<Unnamed>[0] == "field0" &&
                bs::field_names_v<Unnamed>[1] == "field1");
}

TEST(SchemaJson, NamesChangeNeitherBytesNorFingerprint) {
  // Named (declared names, reflect()) and Renamed (an aggregate, other names)
  // and Unnamed (positional) have one shape.
  static_assert(bs::schema_hash_v<Named, bs::portable> == bs::schema_hash_v<Renamed, bs::portable>);
  static_assert(bs::schema_hash_v<Named, bs::compact> == bs::schema_hash_v<Unnamed, bs::compact>);
  static_assert(bs::schema_hash_v<Traited> == bs::schema_hash_v<Unnamed>);
  Named n;
  n.x = 7;
  n.label = "seven";
  Renamed r{7, "seven"};
  std::vector<std::byte> a, b;
  ASSERT_TRUE(bs::to_bytes<bs::portable>(n, a));
  ASSERT_TRUE(bs::to_bytes<bs::portable>(r, b));
  EXPECT_EQ(a, b);
  // The descriptions differ in names only.
  const std::string dn = bs::schema_json<Named, bs::portable>();
  const std::string dr = bs::schema_json<Renamed, bs::portable>();
  EXPECT_NE(dn, dr);
  EXPECT_NE(dn.find("\"name\": \"label\""), std::string::npos);
  EXPECT_NE(dr.find("\"name\": \"second\""), std::string::npos);
}

TEST(SchemaJson, OnlyTheFormatMatters) {
  constexpr bs::options checked{.format = bs::wire_format::compact, .max_depth = 4};
  EXPECT_EQ((bs::schema_json<workloads::Person, checked>()),
            (bs::schema_json<workloads::Person, bs::compact>()));
}

TEST(SchemaJson, Numbers) {
  namespace d = bs::detail::describe;
  EXPECT_EQ(d::number(0).text, "0");
  EXPECT_EQ(d::number(18446744073709551615ULL).text, "18446744073709551615");
  EXPECT_EQ(d::signed_number(-2).text, "-2");
  EXPECT_EQ(d::signed_number(-9223372036854775807LL - 1).text, "-9223372036854775808");
  EXPECT_EQ(d::hex64(0x4d6f6e6579000001).text, "\"0x4d6f6e6579000001\"");
}

TEST(SchemaJson, EscapesStrings) {
  EXPECT_EQ(bs::detail::describe::string("a\"b\\c\n").text, "\"a\\\"b\\\\c\\u000a\"");
}

} // namespace
