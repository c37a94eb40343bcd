// Dispatch: which layout each kind of type gets, the extension points (codec,
// serialize_field), custom buffers, the concepts and the size helpers.
#include "test_util.hpp"

#include <cmath>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

namespace bs = bin_serializer;
using bs::errc;
using bs::error;
using test_util::bytes_of;
using test_util::cat;
using test_util::hex;
using test_util::string_wire;
using test_util::to_vector;

namespace {

// Trivially copyable with reflect(): still one copy of sizeof(T) bytes.
// constexpr reflect(): the library can prove it lists every member in
// declaration order, so the struct keeps its one-copy encoding.
struct PaddedVec {
  std::uint8_t tag;
  double x;
  std::uint16_t y;
  template <class V> constexpr auto reflect(V&& v) { return v(tag, x, y); }
  template <class V> constexpr auto reflect(V&& v) const { return v(tag, x, y); }
};
static_assert(std::is_trivially_copyable_v<PaddedVec> && sizeof(PaddedVec) == 24);

// reflect() order differs from declaration order; `hidden` is not listed.
struct Reordered {
  std::uint8_t a = 0;
  std::uint32_t b = 0;
  std::string c;
  std::uint16_t hidden = 0;
  template <class V> auto reflect(V&& v) { return v(c, b, a); }
  template <class V> auto reflect(V&& v) const { return v(c, b, a); }
};

struct Inner {
  std::string name;
  std::uint32_t id = 0;
  template <class V> auto reflect(V&& v) { return v(name, id); }
  template <class V> auto reflect(V&& v) const { return v(name, id); }
  friend bool operator==(const Inner&, const Inner&) = default;
};

struct Outer {
  std::uint16_t version = 0;
  Inner inner;
  Inner pair[2];
  PaddedVec vec{};
  template <class V> auto reflect(V&& v) { return v(version, inner, pair, vec); }
  template <class V> auto reflect(V&& v) const { return v(version, inner, pair, vec); }
};

std::vector<std::byte> inner_wire(const Inner& i) {
  return cat({string_wire(i.name), bytes_of(i.id)});
}

Outer sample_outer() {
  Outer o;
  o.version = 0x0102;
  o.inner = {"inner", 7};
  o.pair[0] = {"", 8};
  o.pair[1] = {std::string(100, 'p'), 9};
  o.vec = PaddedVec{1, 2.5, 3};
  return o;
}

// 5 trivial fields, no reflect(): bulk.
struct Tick {
  std::uint64_t ts;
  double bid;
  double ask;
  std::uint32_t bid_qty;
  std::uint32_t ask_qty;
};

// Bounded but not trivially copyable: field by field, no padding.
struct Order {
  Tick tick{};
  std::int32_t legs[3]{};
  bool urgent = false;
  Order() = default;
  Order(const Order& o) : tick(o.tick), legs{o.legs[0], o.legs[1], o.legs[2]}, urgent(o.urgent) {}
  Order& operator=(const Order&) = default;
  template <class V> auto reflect(V&& v) { return v(tick, legs, urgent); }
  template <class V> auto reflect(V&& v) const { return v(tick, legs, urgent); }
};

struct WithString {
  std::uint32_t n = 0;
  std::string s;
  template <class V> auto reflect(V&& v) { return v(n, s); }
  template <class V> auto reflect(V&& v) const { return v(n, s); }
};

struct WithPointer {
  std::string s;
  int* p = nullptr;
  template <class V> auto reflect(V&& v) { return v(s, p); }
  template <class V> auto reflect(V&& v) const { return v(s, p); }
};

struct TrivialWithPointer {
  int id;
  const char* label;
  template <class V> auto reflect(V&& v) { return v(id, label); }
  template <class V> auto reflect(V&& v) const { return v(id, label); }
};

struct OnlyMutableReflect {
  std::string s;
  template <class V> auto reflect(V&& v) { return v(s); }
};

class Opaque {
public:
  explicit Opaque(std::string s) : s_(std::move(s)) {}

private:
  std::string s_;
};

// Trivially copyable, yet its codec wins: sent as int32 thousandths.
struct Celsius {
  double degrees;
};

// A codec that validates: more than 100 is invalid_value at the byte's offset.
struct Percent {
  std::uint8_t value;
};

// Not trivially copyable; its codec writes a 1-byte length and the characters.
struct Label {
  std::string text;
};

// Only write() and read(), as documented in serializable.hpp.
struct Money {
  std::int64_t cents = 0;
  std::string currency; // not sent
};

} // namespace

template <>
struct bin_serializer::codec<Celsius> {
  template <class W> static bool write(W& w, const Celsius& c) {
    return serialize_field(w, static_cast<std::int32_t>(std::lround(c.degrees * 1000.0)));
  }
  template <class R> static bool read(R& r, Celsius& c) {
    std::int32_t milli = 0;
    if (!deserialize_field(r, milli)) return false;
    c.degrees = milli / 1000.0;
    return true;
  }
  template <bs::options> static constexpr std::size_t size(const Celsius&) { return 4; }
  template <bs::options> static constexpr std::size_t max_size = 4;
};

template <>
struct bin_serializer::codec<Percent> {
  template <class W> static bool write(W& w, const Percent& p) {
    return serialize_field(w, p.value);
  }
  template <class R> static bool read(R& r, Percent& p) {
    const std::size_t at = r.position();
    std::uint8_t v = 0;
    if (!deserialize_field(r, v)) return false;
    if (v > 100) return r.fail(errc::invalid_value, at);
    p.value = v;
    return true;
  }
  template <bs::options> static constexpr std::size_t size(const Percent&) { return 1; }
};

template <>
struct bin_serializer::codec<Label> {
  template <class W> static bool write(W& w, const Label& l) {
    const auto n = static_cast<std::uint8_t>(l.text.size());
    return serialize_field(w, n) && w.write_bytes(l.text.data(), n);
  }
  template <class R> static bool read(R& r, Label& l) {
    const std::size_t at = r.position();
    std::uint8_t n = 0;
    if (!deserialize_field(r, n)) return false;
    if (n > r.remaining()) return r.fail(errc::truncated, at);
    l.text.resize(n);
    return r.read_bytes(l.text.data(), n);
  }
  template <bs::options> static std::size_t size(const Label& l) { return 1 + l.text.size(); }
};

template <>
struct bin_serializer::codec<Money> {
  template <class W> static bool write(W& w, const Money& m) { return serialize_field(w, m.cents); }
  template <class R> static bool read(R& r, Money& m) { return deserialize_field(r, m.cents); }
};

namespace {

struct Reading {
  std::string where;
  Celsius temp;
  Percent humidity;
  template <class V> auto reflect(V&& v) { return v(where, temp, humidity); }
  template <class V> auto reflect(V&& v) const { return v(where, temp, humidity); }
};

// A buffer with nothing but the design document's minimal contract.
struct MinimalBuffer {
  std::vector<std::byte> storage;
  std::size_t rpos = 0;
  std::size_t limit = static_cast<std::size_t>(-1);
  std::vector<std::size_t> writes;
  bool write(const void* src, std::size_t n) {
    if (n > limit - storage.size()) return false;
    const auto* p = static_cast<const std::byte*>(src);
    storage.insert(storage.end(), p, p + n);
    writes.push_back(n);
    return true;
  }
  bool read(void* dst, std::size_t n) {
    if (n > storage.size() - rpos) return false;
    if (n != 0) std::memcpy(dst, storage.data() + rpos, n);
    rpos += n;
    return true;
  }
};

} // namespace

// ------------------------------------------------------------------- concepts

static_assert(bs::BufferLike<bs::Buffer>);
static_assert(bs::BufferLike<bs::FixedBuffer<8>>);
static_assert(bs::BufferLike<MinimalBuffer>);
static_assert(bs::WritableBuffer<bs::FixedBuffer<8>>);
static_assert(bs::ReadableBuffer<bs::BufferView>);
static_assert(!bs::WritableBuffer<bs::BufferView>);
static_assert(!bs::BufferLike<bs::BufferView>);
static_assert(!bs::WritableBuffer<const bs::Buffer>);
static_assert(bs::ContiguousWritableBuffer<bs::Buffer>);
static_assert(bs::ContiguousWritableBuffer<bs::FixedBuffer<8>>);
static_assert(!bs::ContiguousWritableBuffer<MinimalBuffer>);
static_assert(bs::ContiguousReadableBuffer<bs::BufferView>);
static_assert(bs::ContiguousReadableBuffer<bs::Buffer>);
static_assert(!bs::ContiguousReadableBuffer<MinimalBuffer>);
static_assert(bs::ErrorRecordingBuffer<bs::Buffer> && bs::ErrorRecordingBuffer<bs::BufferView>);
static_assert(!bs::ErrorRecordingBuffer<MinimalBuffer>);

static_assert(bs::Reflectable<Inner>);
static_assert(bs::Reflectable<PaddedVec>);
static_assert(bs::Reflectable<Outer>);
static_assert(!bs::Reflectable<Tick>);
static_assert(!bs::Reflectable<int>);
static_assert(!bs::Reflectable<OnlyMutableReflect>, "both overloads are required");

static_assert(bs::Serializable<int>);
static_assert(bs::Serializable<std::string>);
static_assert(bs::Serializable<Tick>);
static_assert(bs::Serializable<Outer>);
static_assert(bs::Serializable<const Outer&>);
static_assert(bs::Serializable<float[3]>);
static_assert(bs::Serializable<std::string[2]>);
static_assert(bs::Serializable<Celsius>);
static_assert(!bs::Serializable<int*>);
static_assert(!bs::Serializable<const char*>);
static_assert(!bs::Serializable<std::nullptr_t>);
static_assert(!bs::Serializable<int Tick::*>);
static_assert(!bs::Serializable<int* [2]>);
static_assert(!bs::Serializable<WithPointer>);
static_assert(!bs::Serializable<TrivialWithPointer>);
static_assert(!bs::Serializable<Opaque>);
static_assert(!bs::Serializable<OnlyMutableReflect>);

static_assert(bs::BoundedSize<Tick>);
static_assert(bs::BoundedSize<int[4]>);
static_assert(bs::BoundedSize<Order>);
static_assert(bs::BoundedSize<Celsius>);
static_assert(!bs::BoundedSize<std::string>);
static_assert(!bs::BoundedSize<WithString>);
static_assert(!bs::BoundedSize<std::string[2]>);
static_assert(!bs::BoundedSize<Inner[1]>);
static_assert(!bs::BoundedSize<Percent>, "its codec declares no max_size");

// ------------------------------------------------------------------- dispatch

TEST(Dispatch, TriviallyCopyableWithReflectIsOneCopyIncludingPadding) {
  alignas(PaddedVec) unsigned char storage[sizeof(PaddedVec)];
  std::memset(storage, 0xAB, sizeof storage);
  auto* v = ::new (storage) PaddedVec; // default-initialised: padding keeps 0xAB
  v->tag = 0x11;
  v->x = -1.0;
  v->y = 0x2233;

  bs::Buffer buf;
  ASSERT_TRUE(bs::serialize(buf, *v));
  ASSERT_EQ(buf.size(), sizeof(PaddedVec)) << "not the 11 bytes of its reflect() fields";
  EXPECT_EQ(hex(buf), hex(bytes_of(*v)));
  for (std::size_t i = 1; i < 8; ++i) EXPECT_EQ(buf.data()[i], std::byte{0xAB}) << i;
  for (std::size_t i = 18; i < 24; ++i) EXPECT_EQ(buf.data()[i], std::byte{0xAB}) << i;

  MinimalBuffer sink;
  ASSERT_TRUE(bs::serialize(sink, *v));
  EXPECT_EQ(sink.writes, std::vector<std::size_t>{sizeof(PaddedVec)}) << "a single write";

  PaddedVec back{};
  ASSERT_TRUE(bs::deserialize(buf, back));
  EXPECT_EQ(bytes_of(back), bytes_of(*v));
}

TEST(Dispatch, ReflectableFollowsReflectOrderAndSkipsUnlistedMembers) {
  Reordered r;
  r.a = 0xA1;
  r.b = 0xB2B3B4B5u;
  r.c = "see";
  r.hidden = 0x7777;
  bs::Buffer buf;
  ASSERT_TRUE(bs::serialize(buf, r));
  EXPECT_EQ(hex(buf), hex(cat({string_wire("see"), bytes_of(r.b), bytes_of(r.a)})));

  Reordered back;
  back.hidden = 99;
  ASSERT_TRUE(bs::deserialize(buf, back));
  EXPECT_EQ(back.a, r.a);
  EXPECT_EQ(back.b, r.b);
  EXPECT_EQ(back.c, r.c);
  EXPECT_EQ(back.hidden, 99) << "not listed, not touched";
}

TEST(Dispatch, NestedReflectablesAreConcatenated) {
  const Outer o = sample_outer();
  const auto expected = cat({bytes_of(o.version), inner_wire(o.inner), inner_wire(o.pair[0]),
                             inner_wire(o.pair[1]), bytes_of(o.vec)});
  bs::Buffer buf;
  ASSERT_TRUE(bs::serialize(buf, o));
  EXPECT_EQ(hex(buf), hex(expected));

  Outer back;
  ASSERT_TRUE(bs::deserialize(buf, back));
  EXPECT_EQ(back.version, o.version);
  EXPECT_EQ(back.inner, o.inner);
  EXPECT_EQ(back.pair[0], o.pair[0]);
  EXPECT_EQ(back.pair[1], o.pair[1]);
  EXPECT_EQ(bytes_of(back.vec), bytes_of(o.vec));
}

TEST(Dispatch, ArrayOfStringsIsElementByElementWithoutCount) {
  const std::string arr[3] = {"a", "", "ccc"};
  bs::Buffer buf;
  ASSERT_TRUE(bs::serialize(buf, arr));
  EXPECT_EQ(hex(buf), hex(cat({string_wire("a"), string_wire(""), string_wire("ccc")})));
  EXPECT_EQ(bs::serialized_size(arr), 3 * 8 + 4u);
  std::string back[3] = {"x", "y", "z"};
  ASSERT_TRUE(bs::deserialize(buf, back));
  EXPECT_EQ(back[0], "a");
  EXPECT_EQ(back[1], "");
  EXPECT_EQ(back[2], "ccc");
}

TEST(Dispatch, CodecWinsOverBulkCopy) {
  const Celsius c{21.5};
  bs::Buffer buf;
  ASSERT_TRUE(bs::serialize(buf, c));
  EXPECT_EQ(hex(buf), hex(bytes_of(std::int32_t{21500})));
  EXPECT_EQ(bs::serialized_size(c), 4u);
  static_assert(bs::max_serialized_size_v<Celsius> == 4);
  Celsius back{0};
  ASSERT_TRUE(bs::deserialize(buf, back));
  EXPECT_DOUBLE_EQ(back.degrees, 21.5);
}

TEST(Dispatch, CodecInsideReflectable) {
  const Reading r{"lab", {-3.0}, {55}};
  bs::Buffer buf;
  ASSERT_TRUE(bs::serialize(buf, r));
  EXPECT_EQ(hex(buf), hex(cat({string_wire("lab"), bytes_of(std::int32_t{-3000}),
                               bytes_of(std::uint8_t{55})})));
  EXPECT_EQ(bs::serialized_size(r), buf.size());
  Reading back{};
  ASSERT_TRUE(bs::deserialize(buf, back));
  EXPECT_EQ(back.where, "lab");
  EXPECT_DOUBLE_EQ(back.temp.degrees, -3.0);
  EXPECT_EQ(back.humidity.value, 55);

  // The codec's own validation: failure at the offending byte, nothing consumed.
  auto wire = to_vector(buf.bytes());
  wire.back() = std::byte{101};
  bs::BufferView view(wire);
  EXPECT_FALSE(bs::deserialize(view, back));
  EXPECT_EQ(view.last_error(), (error{errc::invalid_value, wire.size() - 1}));
  EXPECT_EQ(view.read_position(), 0u);
}

// An array of a non-trivially-copyable type with a codec: each element goes
// through the codec, one after another, with no count.
TEST(Dispatch, CodecAppliesToEachElementOfANonTrivialArray) {
  const Label labels[3] = {{"ab"}, {""}, {"xyz"}};
  bs::Buffer buf;
  ASSERT_TRUE(bs::serialize(buf, labels));
  EXPECT_EQ(hex(buf), "02" "6162" "00" "03" "78797a");
  EXPECT_EQ(bs::serialized_size(labels), buf.size());
  Label back[3];
  ASSERT_TRUE(bs::deserialize(buf, back));
  EXPECT_EQ(back[0].text, "ab");
  EXPECT_EQ(back[1].text, "");
  EXPECT_EQ(back[2].text, "xyz");

  const auto bad = test_util::unhex("01" "61" "05" "6263");
  bs::BufferView view(bad);
  EXPECT_FALSE(bs::deserialize(view, back));
  EXPECT_EQ(view.last_error(), (error{errc::truncated, 2})) << "the second element's length byte";
  EXPECT_EQ(view.read_position(), 0u);
}

// serializable.hpp documents a codec with only write() and read(). It works
// with buffers that do not pre-size the message (see also the compile-fail
// test codec_minimal.cpp for the growable Buffer).
TEST(Dispatch, MinimalCodecWithFixedBufferAndCustomBuffer) {
  const Money m{1234, "EUR"};
  bs::FixedBuffer<16> fixed;
  ASSERT_TRUE(bs::serialize(fixed, m));
  EXPECT_EQ(hex(fixed), hex(bytes_of(std::int64_t{1234})));
  Money back;
  ASSERT_TRUE(bs::deserialize(fixed, back));
  EXPECT_EQ(back.cents, 1234);

  MinimalBuffer custom;
  ASSERT_TRUE(bs::serialize(custom, m));
  EXPECT_EQ(custom.storage, bytes_of(std::int64_t{1234}));
}

TEST(Dispatch, SerializeFieldAndDeserializeFieldOnABuffer) {
  const Outer o = sample_outer();
  bs::Buffer via_field;
  bs::Buffer via_call;
  ASSERT_TRUE(bs::serialize_field(via_field, o));
  ASSERT_TRUE(bs::serialize_field(via_field, std::uint8_t{5}));
  ASSERT_TRUE(bs::serialize(via_call, o));
  ASSERT_TRUE(bs::serialize(via_call, std::uint8_t{5}));
  EXPECT_EQ(hex(via_field), hex(via_call));

  Outer back;
  std::uint8_t five = 0;
  ASSERT_TRUE(bs::deserialize_field(via_field, back));
  ASSERT_TRUE(bs::deserialize_field(via_field, five));
  EXPECT_EQ(back.pair[1], o.pair[1]);
  EXPECT_EQ(five, 5);
  EXPECT_FALSE(bs::deserialize_field(via_field, five));
  EXPECT_EQ(via_field.last_error().code, errc::truncated);
}

TEST(Dispatch, MinimalCustomBufferUsesTheStreamPath) {
  const Outer o = sample_outer();
  MinimalBuffer custom;
  ASSERT_TRUE(bs::serialize(custom, o));
  bs::Buffer reference;
  ASSERT_TRUE(bs::serialize(reference, o));
  EXPECT_EQ(custom.storage, to_vector(reference.bytes()));
  EXPECT_GT(custom.writes.size(), 1u) << "one write() per field";

  Outer back;
  ASSERT_TRUE(bs::deserialize(custom, back));
  EXPECT_EQ(back.inner, o.inner);
  EXPECT_EQ(back.pair[1], o.pair[1]);
  EXPECT_EQ(custom.rpos, custom.storage.size());
  EXPECT_FALSE(bs::deserialize(custom, back)) << "nothing left";
}

TEST(Dispatch, MinimalCustomBufferFailureStopsAtTheFailingField) {
  const Outer o = sample_outer();
  bs::Buffer reference;
  ASSERT_TRUE(bs::serialize(reference, o));
  const auto full = to_vector(reference.bytes());
  for (const std::size_t limit :
       {std::size_t{0}, std::size_t{1}, std::size_t{2}, std::size_t{20}, full.size() - 1}) {
    MinimalBuffer custom;
    custom.limit = limit;
    EXPECT_FALSE(bs::serialize(custom, o)) << limit;
    // No rollback without direct access: what was written is a prefix of the
    // message, ending at a field boundary before the limit.
    ASSERT_LE(custom.storage.size(), limit);
    EXPECT_TRUE(std::equal(custom.storage.begin(), custom.storage.end(), full.begin())) << limit;
  }
}

// --------------------------------------------------------------------- sizes

TEST(Sizes, SerializedSizeMatchesBytesWritten) {
  std::mt19937_64 rng(20240917);
  const auto check = [](const auto& value) {
    bs::Buffer buf;
    ASSERT_TRUE(bs::serialize(buf, value));
    EXPECT_EQ(bs::serialized_size(value), buf.size());
  };
  check(true);
  check(std::uint64_t{1});
  check(Tick{});
  check(Order{});
  check(PaddedVec{});
  check(std::string());
  check(Celsius{1});
  const float floats[7] = {};
  check(floats);
  for (int i = 0; i < 200; ++i) {
    Outer o = sample_outer();
    o.inner.name.assign(rng() % 300, 'i');
    o.pair[0].name.assign(rng() % 5, 'j');
    o.pair[1].name.assign(rng() % 70000, 'k');
    check(o);
    WithString w{static_cast<std::uint32_t>(i), std::string(rng() % 1000, 'w')};
    check(w);
    const std::string strings[2] = {std::string(rng() % 20, 'a'), std::string(rng() % 20, 'b')};
    check(strings);
  }
}

TEST(Sizes, MaxSerializedSizeOfTickFitsExactlyOneTick) {
  static_assert(bs::max_serialized_size_v<Tick> == sizeof(Tick));
  bs::FixedBuffer<bs::max_serialized_size_v<Tick>> buf;
  const Tick t{1, 2.0, 3.0, 4, 5};
  ASSERT_TRUE(bs::serialize(buf, t));
  EXPECT_EQ(buf.size(), buf.capacity());
  EXPECT_FALSE(bs::serialize(buf, t));
  EXPECT_EQ(buf.last_error(), (error{errc::buffer_full, sizeof(Tick)}));
  Tick back{};
  ASSERT_TRUE(bs::deserialize(buf, back));
  EXPECT_EQ(bytes_of(back), bytes_of(t));
}

TEST(Sizes, MaxSerializedSizeOfFieldByFieldType) {
  static_assert(bs::max_serialized_size_v<Order> == sizeof(Tick) + 3 * 4 + 1);
  bs::FixedBuffer<bs::max_serialized_size_v<Order>> buf;
  Order o;
  o.tick.ask = 9.5;
  o.legs[2] = -4;
  o.urgent = true;
  ASSERT_TRUE(bs::serialize(buf, o));
  EXPECT_EQ(buf.size(), buf.capacity());
  EXPECT_EQ(bs::serialized_size(o), buf.size());
  EXPECT_FALSE(bs::serialize(buf, o));
  Order back;
  ASSERT_TRUE(bs::deserialize(buf, back));
  EXPECT_EQ(back.legs[2], -4);
  EXPECT_TRUE(back.urgent);
  EXPECT_EQ(back.tick.ask, 9.5);
}
