// schema_hash_v: names do not matter, shape does; the token stream is the
// one docs/wire-format.md section 9 specifies.
#include "test_util.hpp"

#include <bin_serializer/view/array_view.hpp>
#include <bin_serializer/frame/schema_hash.hpp>

#include <array>
#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <span>
#include <string>
#include <string_view>
#include <tuple>
#include <variant>
#include <vector>

#include "workloads/views.hpp"
#include "workloads/workloads.hpp"

namespace bs = bin_serializer;
using bs::native;
using bs::portable;
using bs::schema_hash_v;

namespace schema_hash_test {

struct A {
  std::int32_t id;
  std::string name;
};
struct A_renamed {
  std::int32_t key;
  std::string label;
};
struct A_added {
  std::int32_t id;
  std::string name;
  double extra;
};
struct A_removed {
  std::int32_t id;
};
struct A_reordered {
  std::string name;
  std::int32_t id;
};
struct A_retyped {
  std::int64_t id;
  std::string name;
};
struct A_unsigned {
  std::uint32_t id;
  std::string name;
};
struct A_float {
  float id;
  std::string name;
};
struct A_u16string {
  std::int32_t id;
  std::u16string name;
};

struct Reflected {
  std::int32_t x;
  std::string s;
  int hidden = 0;
  template <class V> auto reflect(V&& v) { return v(x, s); }
  template <class V> auto reflect(V&& v) const { return v(x, s); }
};

// Trivially copyable: bulk in native format (with padding), fields in portable.
struct Padded {
  std::uint8_t a;
  std::uint32_t b;
};
struct Packed5 {
  std::uint8_t a;
  std::uint8_t b[4];
};

struct Node {
  int value;
  std::vector<Node> children;
};

enum class Color : std::uint8_t { red, green, blue };
enum class Color2 : std::uint8_t { r, g, b };
enum class Ranged : std::uint8_t { lo = 1, hi = 5 };

struct Money {
  std::int64_t cents;
};
struct Opaque {
  std::int64_t cents;
};

} // namespace schema_hash_test

template <>
struct bs::enum_range<schema_hash_test::Ranged> {
  static constexpr auto min = schema_hash_test::Ranged::lo;
  static constexpr auto max = schema_hash_test::Ranged::hi;
};

// A custom codec declaring its layout id.
template <>
struct bs::codec<schema_hash_test::Money> {
  static constexpr std::uint64_t schema_id = 0x4d6f6e6579000001;
  template <class W> static bool write(W& w, const schema_hash_test::Money& m) {
    return serialize_field(w, m.cents);
  }
  template <class R> static bool read(R& r, schema_hash_test::Money& m) {
    return deserialize_field(r, m.cents);
  }
};
// A custom codec that encodes exactly like a std::int64_t.
template <>
struct bs::codec<schema_hash_test::Opaque> {
  using schema_equivalent = std::int64_t;
  template <class W> static bool write(W& w, const schema_hash_test::Opaque& m) {
    return serialize_field(w, m.cents);
  }
  template <class R> static bool read(R& r, schema_hash_test::Opaque& m) {
    return deserialize_field(r, m.cents);
  }
};

namespace {
using namespace schema_hash_test;

using test_util::fnv;

// Compile time: usable in static_assert and as a template argument.
static_assert(schema_hash_v<A> == schema_hash_v<A_renamed>);
static_assert(schema_hash_v<A> != schema_hash_v<A_added>);
template <std::uint64_t H> struct needs_constant {
  static constexpr std::uint64_t value = H;
};
static_assert(needs_constant<schema_hash_v<A, portable>>::value ==
              schema_hash_v<A_renamed, portable>);

TEST(SchemaHash, SpecExampleTokenStream) {
  // docs/wire-format.md section 9: portable struct { int32 id; std::string name; }
  // FORMAT(1) STRUCT(2) SINT(4) STRING(1) END
  constexpr std::uint64_t expected =
      fnv({0x01, 1, 0, 0, 0, 0, 0, 0, 0,    0x20, 2, 0, 0, 0, 0, 0, 0, 0,   0x05,
           4,    0, 0, 0, 0, 0, 0, 0, 0x11, 1,    0, 0, 0, 0, 0, 0, 0, 0x21});
  EXPECT_EQ((schema_hash_v<A, portable>), expected);
  // Native: FORMAT(0), and A is not trivially copyable so it is the same STRUCT.
  constexpr std::uint64_t expected_native =
      fnv({0x01, 0, 0, 0, 0, 0, 0, 0, 0,    0x20, 2, 0, 0, 0, 0, 0, 0, 0,   0x05,
           4,    0, 0, 0, 0, 0, 0, 0, 0x11, 1,    0, 0, 0, 0, 0, 0, 0, 0x21});
  EXPECT_EQ(schema_hash_v<A>, expected_native);
  // A scalar alone: FORMAT(1) UINT(4).
  EXPECT_EQ((schema_hash_v<std::uint32_t, portable>),
            fnv({0x01, 1, 0, 0, 0, 0, 0, 0, 0, 0x04, 4, 0, 0, 0, 0, 0, 0, 0}));
}

TEST(SchemaHash, RenamingKeepsIt) {
  EXPECT_EQ(schema_hash_v<A>, schema_hash_v<A_renamed>);
  EXPECT_EQ((schema_hash_v<A, portable>), (schema_hash_v<A_renamed, portable>));
  // reflect() lists the same shape: same hash as the aggregate.
  EXPECT_EQ((schema_hash_v<Reflected, portable>), (schema_hash_v<A, portable>));
  // Enumerator names do not matter either.
  EXPECT_EQ(schema_hash_v<Color>, schema_hash_v<Color2>);
}

TEST(SchemaHash, ShapeChangesChangeIt) {
  const std::uint64_t base = schema_hash_v<A, portable>;
  EXPECT_NE(base, (schema_hash_v<A_added, portable>));
  EXPECT_NE(base, (schema_hash_v<A_removed, portable>));
  EXPECT_NE(base, (schema_hash_v<A_reordered, portable>));
  EXPECT_NE(base, (schema_hash_v<A_retyped, portable>));
  EXPECT_NE(base, (schema_hash_v<A_unsigned, portable>));
  EXPECT_NE(base, (schema_hash_v<A_float, portable>));
  EXPECT_NE(base, (schema_hash_v<A_u16string, portable>));
  // Format is part of it.
  EXPECT_NE(schema_hash_v<A>, (schema_hash_v<A, portable>));
}

TEST(SchemaHash, OptionsOtherThanFormatDoNotMatter) {
  EXPECT_EQ(schema_hash_v<workloads::Person>, (schema_hash_v<workloads::Person, bs::untrusted>));
  EXPECT_EQ(schema_hash_v<workloads::Person>, (schema_hash_v<workloads::Person, bs::trusted>));
  constexpr auto limited =
      bs::options{.format = bs::wire_format::portable, .max_string_length = 10};
  EXPECT_EQ((schema_hash_v<workloads::Person, portable>),
            (schema_hash_v<workloads::Person, limited>));
}

TEST(SchemaHash, ContainerFamiliesAreDistinct) {
  const std::uint64_t hashes[] = {
      schema_hash_v<std::vector<int>>,
      schema_hash_v<std::set<int>>,
      schema_hash_v<std::optional<int>>,
      schema_hash_v<std::array<int, 3>>,
      schema_hash_v<std::array<int, 4>>,
      schema_hash_v<std::map<int, int>>,
      schema_hash_v<std::tuple<int, int>>,
      schema_hash_v<std::variant<int, float>>,
      schema_hash_v<std::variant<float, int>>,
      schema_hash_v<int>,
      schema_hash_v<std::string>,
      schema_hash_v<std::vector<char>>,
  };
  for (std::size_t i = 0; i < std::size(hashes); ++i)
    for (std::size_t j = i + 1; j < std::size(hashes); ++j)
      EXPECT_NE(hashes[i], hashes[j]) << i << " " << j;
  // Families whose bytes are identical hash alike.
  EXPECT_EQ(schema_hash_v<std::vector<int>>, schema_hash_v<std::deque<int>>);
  EXPECT_EQ(schema_hash_v<std::vector<int>>, schema_hash_v<std::list<int>>);
  EXPECT_EQ((schema_hash_v<std::map<int, int>>),
            (schema_hash_v<std::unordered_multimap<int, int>>));
  EXPECT_EQ((schema_hash_v<std::pair<int, float>>), (schema_hash_v<std::tuple<int, float>>));
  EXPECT_EQ((schema_hash_v<std::array<int, 3>>), schema_hash_v<int[3]>);
  EXPECT_EQ(schema_hash_v<long long>, schema_hash_v<std::int64_t>);
}

TEST(SchemaHash, ViewsHashLikeOwners) {
  EXPECT_EQ(schema_hash_v<std::string_view>, schema_hash_v<std::string>);
  EXPECT_EQ((schema_hash_v<std::string_view, portable>), (schema_hash_v<std::string, portable>));
  EXPECT_EQ(schema_hash_v<std::span<const std::byte>>, schema_hash_v<std::vector<std::byte>>);
  EXPECT_EQ(schema_hash_v<std::span<const float>>, schema_hash_v<std::vector<float>>);
  EXPECT_EQ(schema_hash_v<bin_serializer::array_view<std::int32_t>>,
            schema_hash_v<std::vector<std::int32_t>>);
  EXPECT_EQ((schema_hash_v<bin_serializer::array_view<double>, portable>),
            (schema_hash_v<std::vector<double>, portable>));
  EXPECT_NE(schema_hash_v<bin_serializer::array_view<std::int32_t>>,
            schema_hash_v<std::vector<std::uint32_t>>);
  // A view workload and its owning twin: the same wire shape.
  EXPECT_EQ(schema_hash_v<workloads::PersonView>, schema_hash_v<workloads::Person>);
  EXPECT_EQ(schema_hash_v<workloads::CarView>, schema_hash_v<workloads::Car>);
  EXPECT_EQ(schema_hash_v<workloads::MonsterView>, schema_hash_v<workloads::Monster>);
  EXPECT_EQ((schema_hash_v<workloads::PortableMonsterView, portable>),
            (schema_hash_v<workloads::Monster, portable>));
  EXPECT_EQ(schema_hash_v<workloads::MonstersView<>>,
            schema_hash_v<std::vector<workloads::Monster>>);
}

TEST(SchemaHash, NativeBulkIncludesSize) {
  // Padded is 8 bytes natively (padding copied), 5 in portable; Packed5 is 5
  // bytes in both. Native hashes differ by BULK(sizeof) and the field types.
  EXPECT_NE(schema_hash_v<Padded>, schema_hash_v<Packed5>);
  EXPECT_NE(schema_hash_v<Padded>, (schema_hash_v<Padded, portable>));
}

TEST(SchemaHash, EnumsAndRanges) {
  EXPECT_NE(schema_hash_v<Color>, schema_hash_v<std::uint8_t>);
  EXPECT_NE(schema_hash_v<Color>, schema_hash_v<Ranged>);
  EXPECT_NE(schema_hash_v<char>, schema_hash_v<std::int8_t>);
  EXPECT_NE(schema_hash_v<bool>, schema_hash_v<std::uint8_t>);
}

TEST(SchemaHash, RecursiveAndCustom) {
  constexpr std::uint64_t node = schema_hash_v<Node, portable>;
  EXPECT_NE(node, 0U);
  EXPECT_NE(schema_hash_v<Money>, schema_hash_v<std::int64_t>);
  EXPECT_EQ(schema_hash_v<Opaque>, schema_hash_v<std::int64_t>);
}

TEST(SchemaHash, WorkloadsAreDistinct) {
  EXPECT_NE(schema_hash_v<workloads::Person>, schema_hash_v<workloads::Tick>);
  EXPECT_NE((schema_hash_v<workloads::Person, portable>),
            (schema_hash_v<workloads::Monster, portable>));
}

} // namespace
