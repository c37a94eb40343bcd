// What reaches the wire is what the library can see: a member reflect()
// leaves out never does (issue 14, item 2), and a trivially copyable type whose
// members are hidden (private without reflect(), unions) is refused unless the
// user opts it in (item 3). The one-copy path stays for every type whose
// bytes provably match its fields.
#include "test_util.hpp"

#include <cstdint>
#include <cstring>
#include <string>
#include <type_traits>

namespace bs = bin_serializer;
using test_util::bytes_of;
using test_util::cat;
using test_util::hex;

namespace {

// The example: trivially copyable, reflect() lists only `keep`.
struct Secretive {
  int keep = 0;
  int secret = 0;
  const char* p = nullptr;
  template <class V> auto reflect(V&& v) { return v(keep); }
  template <class V> auto reflect(V&& v) const { return v(keep); }
};
static_assert(std::is_trivially_copyable_v<Secretive>);

// The same with a constexpr reflect(): constant evaluation does not change
// the answer, a left-out member is still left out.
struct SecretiveConstexpr {
  std::uint32_t keep = 0;
  std::uint32_t secret = 0;
  template <class V> constexpr auto reflect(V&& v) { return v(keep); }
  template <class V> constexpr auto reflect(V&& v) const { return v(keep); }
};

// Every member, but not in declaration order.
struct Swapped {
  std::uint16_t a = 0;
  std::uint16_t b = 0;
  template <class V> constexpr auto reflect(V&& v) { return v(b, a); }
  template <class V> constexpr auto reflect(V&& v) const { return v(b, a); }
};

// Same field types as the members, but one member twice and one not at all.
struct Repeated {
  std::uint32_t x = 0;
  std::uint32_t y = 0;
  template <class V> constexpr auto reflect(V&& v) { return v(x, x); }
  template <class V> constexpr auto reflect(V&& v) const { return v(x, x); }
};

// Every member in order, constexpr: provably the object's bytes, one copy.
struct Vec3 {
  float x = 0, y = 0, z = 0;
  template <class V> constexpr auto reflect(V&& v) { return v(x, y, z); }
  template <class V> constexpr auto reflect(V&& v) const { return v(x, y, z); }
};

// Every member in order, but reflect() is not constexpr: nothing proves it,
// so field by field (the padding is not sent).
struct PaddedPlain {
  std::uint8_t tag = 0;
  std::uint32_t value = 0;
  template <class V> auto reflect(V&& v) { return v(tag, value); }
  template <class V> auto reflect(V&& v) const { return v(tag, value); }
};
static_assert(sizeof(PaddedPlain) == 8);

// A class with private members and no reflect(), opted in.
class Handle {
public:
  Handle() = default;
  Handle(std::uint32_t id, std::uint16_t gen) : id_(id), gen_(gen) {}
  [[nodiscard]] std::uint32_t id() const { return id_; }
  [[nodiscard]] std::uint16_t gen() const { return gen_; }

private:
  std::uint32_t id_ = 0;
  std::uint16_t gen_ = 0;
};

union Number {
  std::int64_t i;
  double d;
};

class Hidden { // not opted in
  std::uint32_t v_ = 0;

public:
  [[nodiscard]] std::uint32_t v() const { return v_; }
};

union Raw { // not opted in
  std::uint32_t u;
  const char* p;
};

struct HoldsRaw { // visible aggregate with an invisible member
  int tag;
  Raw raw;
};

// Plain aggregates keep their one copy (members visible by aggregate
// reflection, checked for pointers).
struct Tick {
  std::uint64_t ts;
  double px;
  std::uint32_t qty;
};

} // namespace

template <>
struct bin_serializer::trivially_serializable<Handle> : std::true_type {};
template <>
struct bin_serializer::trivially_serializable<Number> : std::true_type {};

namespace {

using bs::detail::category;
template <class T>
constexpr category category_of = bs::detail::category_of<bs::native, T>();

static_assert(category_of<Secretive> == category::reflectable);
static_assert(category_of<SecretiveConstexpr> == category::reflectable);
static_assert(category_of<Swapped> == category::reflectable);
static_assert(category_of<Repeated> == category::reflectable);
static_assert(category_of<Vec3> == category::bulk);
static_assert(category_of<PaddedPlain> == category::reflectable);
static_assert(category_of<Handle> == category::bulk);
static_assert(category_of<Number> == category::bulk);
static_assert(category_of<Tick> == category::bulk);
static_assert(category_of<Hidden> == category::unsupported);
static_assert(category_of<Raw> == category::unsupported);
static_assert(!bs::Serializable<Hidden>);
static_assert(!bs::Serializable<Raw>);
static_assert(!bs::Serializable<HoldsRaw>);
static_assert(bs::Serializable<Handle> && bs::Serializable<Number>);

// Sizes agree with what is written.
static_assert(bs::max_serialized_size_v<Secretive> == sizeof(int));
static_assert(bs::max_serialized_size_v<Swapped> == 4);
static_assert(bs::max_serialized_size_v<Vec3> == sizeof(Vec3));
static_assert(bs::max_serialized_size_v<PaddedPlain> == 5);
static_assert(bs::max_serialized_size_v<Handle> == sizeof(Handle));

// The fingerprint follows the encoding: a struct that sends one uint32 hashes
// like any other struct whose reflect() sends one uint32.
struct OnlyKeep {
  std::uint32_t keep = 0;
  std::string note;
  template <class V> auto reflect(V&& v) { return v(keep); }
  template <class V> auto reflect(V&& v) const { return v(keep); }
};
static_assert(bs::schema_hash_v<SecretiveConstexpr> != bs::schema_hash_v<Vec3>);

TEST(VisibleMembers, MemberLeftOutOfReflectIsNeverSent) {
  Secretive s;
  s.keep = 0x01020304;
  s.secret = 0x55667788;
  s.p = "address";
  bs::Buffer buf;
  ASSERT_TRUE(bs::serialize(buf, s));
  EXPECT_EQ(hex(buf), hex(bytes_of(s.keep))); // 4 bytes, not 16
  EXPECT_EQ(bs::serialized_size(s), 4u);
  Secretive back;
  back.secret = 9;
  ASSERT_TRUE(bs::deserialize(buf, back));
  EXPECT_EQ(back.keep, s.keep);
  EXPECT_EQ(back.secret, 9) << "not listed, not touched";
  EXPECT_EQ(back.p, nullptr);

  // In the portable format as well, and through a FixedBuffer.
  bs::Buffer pbuf;
  ASSERT_TRUE(bs::serialize<bs::portable>(pbuf, s));
  EXPECT_EQ(pbuf.size(), 4u);
  bs::FixedBuffer<bs::max_serialized_size_v<Secretive>> fixed;
  ASSERT_TRUE(bs::serialize(fixed, s));
  EXPECT_EQ(fixed.size(), 4u);
}

TEST(VisibleMembers, ConstexprReflectThatOmitsIsStillFieldByField) {
  SecretiveConstexpr s;
  s.keep = 7;
  s.secret = 0xDEADBEEF;
  bs::Buffer buf;
  ASSERT_TRUE(bs::serialize(buf, s));
  EXPECT_EQ(hex(buf), hex(bytes_of(std::uint32_t{7})));
  EXPECT_EQ(bs::schema_hash_v<SecretiveConstexpr>, bs::schema_hash_v<OnlyKeep>);
}

TEST(VisibleMembers, ReflectOrderWinsOverDeclarationOrder) {
  Swapped s;
  s.a = 0x1111;
  s.b = 0x2222;
  bs::Buffer buf;
  ASSERT_TRUE(bs::serialize(buf, s));
  EXPECT_EQ(hex(buf), hex(cat({bytes_of(s.b), bytes_of(s.a)})));
  Swapped back;
  ASSERT_TRUE(bs::deserialize(buf, back));
  EXPECT_EQ(back.a, 0x1111);
  EXPECT_EQ(back.b, 0x2222);
}

TEST(VisibleMembers, RepeatedMemberSameTypesIsNotMistakenForTheObject) {
  Repeated r;
  r.x = 0x0A0B0C0D;
  r.y = 0x99999999;
  bs::Buffer buf;
  ASSERT_TRUE(bs::serialize(buf, r));
  EXPECT_EQ(hex(buf), hex(cat({bytes_of(r.x), bytes_of(r.x)})));
}

TEST(VisibleMembers, ProvablyCompleteReflectKeepsTheOneCopy) {
  const Vec3 v{1.0f, 2.0f, 3.0f};
  bs::Buffer buf;
  ASSERT_TRUE(bs::serialize(buf, v));
  EXPECT_EQ(hex(buf), hex(bytes_of(v)));
}

TEST(VisibleMembers, UnprovableReflectGoesFieldByFieldWithoutPadding) {
  PaddedPlain p;
  p.tag = 0xAA;
  p.value = 0x01020304;
  bs::Buffer buf;
  ASSERT_TRUE(bs::serialize(buf, p));
  EXPECT_EQ(hex(buf), hex(cat({bytes_of(p.tag), bytes_of(p.value)})));
  PaddedPlain back;
  ASSERT_TRUE(bs::deserialize(buf, back));
  EXPECT_EQ(back.tag, 0xAA);
  EXPECT_EQ(back.value, 0x01020304u);
}

TEST(VisibleMembers, OptedInClassIsOneCopy) {
  const Handle h{0xCAFEF00D, 0x0102};
  bs::Buffer buf;
  ASSERT_TRUE(bs::serialize(buf, h));
  EXPECT_EQ(hex(buf), hex(bytes_of(h)));
  Handle back;
  ASSERT_TRUE(bs::deserialize(buf, back));
  EXPECT_EQ(back.id(), 0xCAFEF00Du);
  EXPECT_EQ(back.gen(), 0x0102);
}

TEST(VisibleMembers, OptedInUnionIsOneCopy) {
  Number n{};
  n.d = 2.5;
  bs::Buffer buf;
  ASSERT_TRUE(bs::serialize(buf, n));
  EXPECT_EQ(buf.size(), sizeof(Number));
  Number back{};
  ASSERT_TRUE(bs::deserialize(buf, back));
  EXPECT_EQ(back.d, 2.5);
}

TEST(VisibleMembers, PlainAggregateKeepsTheOneCopy) {
  const Tick t{1, 2.5, 3};
  bs::Buffer buf;
  ASSERT_TRUE(bs::serialize(buf, t));
  EXPECT_EQ(hex(buf), hex(bytes_of(t))); // padding included, as documented
}

} // namespace
