// Zero-copy decoding (docs/zero-copy.md): std::basic_string_view, std::span of
// const bytes, bin_serializer::array_view<T> and bin_serializer::sequence_view<T>
// decode into views of the input bytes, with the same wire bytes as
// std::string / std::vector.
#define BIN_SERIALIZER_TEST_COUNT_ALLOCATIONS
#include "test_util.hpp"

#include <bin_serializer/view/array_view.hpp>
#include <bin_serializer/frame/schema_hash.hpp>
#include <bin_serializer/view/sequence_view.hpp>

#include <array>
#include <chrono>
#include <map>
#include <tuple>
#include <utility>
#include <variant>
#include <cstring>
#include <iterator>
#include <ranges>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "workloads/views.hpp"

namespace bs = bin_serializer;
using test_util::AllocationProbe;

// Hand-written golden bytes are little-endian: they are decoded and compared
// in the portable format, which is the native one's bytes on little-endian
// hosts. Native-format checks compare with the owning type's encoding instead,
// so the file also passes on big-endian hosts (the s390x preset).
constexpr bs::options P = bs::portable;
constexpr bool le_host = bs::detail::little_endian_host;
using test_util::hex;
using test_util::unhex;

namespace {

// True when [p, p + n) lies inside the source bytes.
bool points_into(const void* p, std::size_t n, std::span<const std::byte> source) {
  const auto* b = static_cast<const std::byte*>(p);
  return b >= source.data() && b + n <= source.data() + source.size();
}
bool points_into(std::string_view s, std::span<const std::byte> source) {
  return points_into(s.data(), s.size(), source);
}
template <class T>
bool points_into(const bs::array_view<T>& v, std::span<const std::byte> source) {
  return points_into(v.bytes().data(), v.size_bytes(), source);
}

template <bs::options Opts = bs::native, class T>
std::vector<std::byte> encode(const T& value) {
  bs::Buffer buf;
  EXPECT_TRUE(bs::serialize<Opts>(buf, value));
  return test_util::to_vector(buf.bytes());
}

// Every proper prefix of `bytes` must fail to decode (truncated), leaving the
// view's read position at 0.
template <bs::options Opts, class View>
void expect_every_prefix_fails(const std::vector<std::byte>& bytes) {
  for (std::size_t cut = 0; cut < bytes.size(); ++cut) {
    bs::BufferView in{std::span(bytes).first(cut)};
    View v{};
    ASSERT_FALSE(bs::deserialize<Opts>(in, v)) << "cut at " << cut;
    EXPECT_EQ(in.last_error().code, bs::errc::truncated) << "cut at " << cut;
    EXPECT_EQ(in.read_position(), 0U);
  }
}

// ---- std::string_view ---------------------------------------------------------------------------

TEST(ZeroCopyStringView, DecodesIntoTheInput) {
  const auto bytes = unhex("0300000000000000616263");
  bs::BufferView in{bytes};
  std::string_view s;
  ASSERT_TRUE(bs::deserialize<P>(in, s));
  EXPECT_EQ(s, "abc");
  EXPECT_EQ(static_cast<const void*>(s.data()), static_cast<const void*>(bytes.data() + 8));
  EXPECT_EQ(in.read_position(), bytes.size());
  // Same bytes back, and the same bytes as std::string, in both formats.
  EXPECT_EQ(hex(encode<P>(s)), "0300000000000000616263");
  EXPECT_EQ(hex(encode(std::string("abc"))), hex(encode(s)));
  EXPECT_EQ(hex(encode<P>(std::string("abc"))), hex(encode<P>(s)));
}

TEST(ZeroCopyStringView, EmptyAndFromBufferAndFixedBuffer) {
  bs::Buffer buf;
  ASSERT_TRUE(bs::serialize(buf, std::string_view{}));
  ASSERT_TRUE(bs::serialize(buf, std::string("hello")));
  std::string_view a = "old";
  std::string_view b;
  ASSERT_TRUE(bs::deserialize(buf, a));
  ASSERT_TRUE(bs::deserialize(buf, b));
  EXPECT_TRUE(a.empty());
  EXPECT_EQ(b, "hello");
  EXPECT_TRUE(points_into(b, buf.bytes()));

  bs::FixedBuffer<64> fixed;
  ASSERT_TRUE(bs::serialize(fixed, std::string("fixed")));
  std::string_view c;
  ASSERT_TRUE(bs::deserialize(fixed, c));
  EXPECT_EQ(c, "fixed");
  EXPECT_TRUE(points_into(c, fixed.bytes()));
}

TEST(ZeroCopyStringView, Char8AndPortable) {
  const auto bytes = unhex("02000000000000006869");
  bs::BufferView in{bytes};
  std::u8string_view s;
  ASSERT_TRUE(bs::deserialize<bs::portable>(in, s));
  EXPECT_EQ(s, u8"hi");
}

TEST(ZeroCopyStringView, RespectsMaxStringLength) {
  const auto bytes = unhex("050000000000000068656c6c6f");
  constexpr auto opts = bs::options{.format = bs::wire_format::portable, .max_string_length = 4};
  bs::BufferView in{bytes};
  std::string_view s = "kept";
  EXPECT_FALSE(bs::deserialize<opts>(in, s));
  EXPECT_EQ(in.last_error(), (bs::error{bs::errc::limit_exceeded, 0}));
  EXPECT_EQ(s, "kept");
  EXPECT_EQ(in.read_position(), 0U);
  constexpr auto five = bs::options{.format = bs::wire_format::portable, .max_string_length = 5};
  EXPECT_TRUE(bs::deserialize<five>(in, s));
  EXPECT_EQ(s, "hello");
}

// A string_view is a leaf like std::string: a vector of them is one level
// deep, whatever max_depth allows.
TEST(ZeroCopyStringView, IsALeafForMaxDepth) {
  const auto bytes = unhex("0100000000000000" "0200000000000000" "6869");
  constexpr auto one_level = bs::options{.format = bs::wire_format::portable, .max_depth = 1};
  bs::BufferView in{bytes};
  std::vector<std::string_view> views;
  ASSERT_TRUE(bs::deserialize<one_level>(in, views));
  ASSERT_EQ(views.size(), 1U);
  EXPECT_EQ(views[0], "hi");
  bs::BufferView again{bytes};
  std::vector<std::string> strings;
  ASSERT_TRUE(bs::deserialize<one_level>(again, strings));
  EXPECT_EQ(strings, std::vector<std::string>{"hi"});
}

TEST(ZeroCopyStringView, HostileLengthFailsCleanly) {
  for (const char* text : {"ffffffffffffffff41", "0000000000000080", "0900000000000000616263"}) {
    const auto bytes = unhex(text);
    bs::BufferView in{bytes};
    std::string_view s = "kept";
    EXPECT_FALSE(bs::deserialize(in, s)) << text;
    EXPECT_EQ(in.last_error(), (bs::error{bs::errc::truncated, 0})) << text;
    EXPECT_EQ(s, "kept");
  }
}

// The portable format's u16 characters are host characters only on a
// little-endian host (elsewhere decoding into a view does not compile).
template <bool LittleEndian = le_host>
void expect_portable_u16_view_in_place(const std::byte* data, std::size_t size) {
  if constexpr (LittleEndian) {
    bs::BufferView in{data, size};
    std::u16string_view p;
    ASSERT_TRUE(bs::deserialize<P>(in, p));
    EXPECT_EQ(p, u"A\u00e9");
    EXPECT_EQ(static_cast<const void*>(p.data()), static_cast<const void*>(data + 8));
  }
}

// Wider characters are used in place only when aligned for the character type.
TEST(ZeroCopyStringView, WideCharsAlignedAndUnaligned) {
  EXPECT_EQ(hex(encode<P>(std::u16string(u"A\u00e9"))), "02000000000000004100e900");
  const auto wire = encode(std::u16string(u"A\u00e9")); // native: host byte order
  alignas(8) std::array<std::byte, 32> storage{};
  std::memcpy(storage.data(), wire.data(), wire.size());

  bs::BufferView aligned{storage.data(), wire.size()};
  std::u16string_view s;
  ASSERT_TRUE(bs::deserialize(aligned, s));
  EXPECT_EQ(s, u"A\u00e9");
  EXPECT_EQ(static_cast<const void*>(s.data()), static_cast<const void*>(storage.data() + 8));
  EXPECT_EQ(hex(encode(s)), hex(wire));
  if (le_host) expect_portable_u16_view_in_place(storage.data(), wire.size());

  // One byte later the characters sit at an odd address.
  std::memcpy(storage.data() + 1, wire.data(), wire.size());
  bs::BufferView unaligned{storage.data() + 1, wire.size()};
  std::u16string_view u = u"kept";
  EXPECT_FALSE(bs::deserialize(unaligned, u));
  EXPECT_EQ(unaligned.last_error(), (bs::error{bs::errc::invalid_value, 8}));
  EXPECT_EQ(u, u"kept");
  EXPECT_EQ(unaligned.read_position(), 0U);
  // The owning string reads the same bytes anywhere.
  std::u16string owned;
  ASSERT_TRUE(bs::deserialize(unaligned, owned));
  EXPECT_EQ(owned, u"A\u00e9");

  // An empty wide string has no characters to align.
  const auto empty_wire = encode(std::u16string());
  std::memcpy(storage.data() + 1, empty_wire.data(), empty_wire.size());
  bs::BufferView empty{storage.data() + 1, empty_wire.size()};
  ASSERT_TRUE(bs::deserialize(empty, u));
  EXPECT_TRUE(u.empty());
}

// ---- std::span of const bytes -------------------------------------------------------------------

TEST(ZeroCopySpan, ByteSpansDecodeIntoTheInput) {
  const auto bytes = unhex("0300000000000000010203");
  {
    bs::BufferView in{bytes};
    std::span<const std::byte> s;
    ASSERT_TRUE(bs::deserialize<P>(in, s));
    ASSERT_EQ(s.size(), 3U);
    EXPECT_EQ(s.data(), bytes.data() + 8);
    EXPECT_EQ(hex(encode<P>(s)), "0300000000000000010203");
    EXPECT_EQ(hex(encode(s)), hex(encode(std::vector<std::byte>(s.begin(), s.end()))));
  }
  {
    bs::BufferView in{bytes};
    std::span<const std::uint8_t> s;
    ASSERT_TRUE(bs::deserialize<bs::portable>(in, s));
    EXPECT_EQ((std::vector<std::uint8_t>(s.begin(), s.end())),
              (std::vector<std::uint8_t>{1, 2, 3}));
  }
  {
    bs::BufferView in{bytes};
    std::span<const char> s;
    ASSERT_TRUE(bs::deserialize<P>(in, s));
    EXPECT_EQ(static_cast<const void*>(s.data()), static_cast<const void*>(bytes.data() + 8));
  }
  // Same bytes as the vector.
  EXPECT_EQ(hex(encode<P>(std::vector<std::uint8_t>{1, 2, 3})), "0300000000000000010203");
}

TEST(ZeroCopySpan, SerializesFromAnySpan) {
  const std::vector<std::uint16_t> v{1, 0x0203};
  EXPECT_EQ(hex(encode<P>(std::span<const std::uint16_t>(v))), "020000000000000001000302");
  EXPECT_EQ(hex(encode(std::span<const std::uint16_t>(v))), hex(encode(v)));
}

TEST(ZeroCopySpan, HostileCountFailsCleanly) {
  const auto bytes = unhex("ffffffffffffff7f00");
  bs::BufferView in{bytes};
  std::span<const std::byte> s;
  EXPECT_FALSE(bs::deserialize<bs::untrusted>(in, s));
  EXPECT_EQ(in.last_error(), (bs::error{bs::errc::truncated, 0}));
  EXPECT_TRUE(s.empty());
}

// ---- array_view ---------------------------------------------------------------------------------

TEST(ArrayView, GoldenBytesMatchTheVector) {
  const std::vector<std::uint32_t> v{1, 0x01020304};
  const bs::array_view<std::uint32_t> view(v);
  EXPECT_EQ(hex(encode<bs::portable>(view)), "02000000000000000100000004030201");
  EXPECT_EQ(hex(encode(view)), hex(encode(v)));
  EXPECT_EQ(bs::serialized_size(view), 16U);
  EXPECT_EQ(hex(encode<P>(bs::array_view<float>{})), "0000000000000000");
}

TEST(ArrayView, DecodesUnalignedElementsInPlace) {
  // One leading byte puts the count and the elements at odd addresses.
  const auto bytes = unhex("ff" "0300000000000000" "0100" "0200" "0300");
  bs::BufferView in{bytes};
  ASSERT_TRUE(in.seek(1));
  bs::array_view<std::uint16_t> view;
  ASSERT_TRUE(bs::deserialize<bs::portable>(in, view));
  ASSERT_EQ(view.size(), 3U);
  EXPECT_FALSE(view.empty());
  EXPECT_EQ(view.bytes().data(), bytes.data() + 9);
  // The portable format's little-endian elements are swapped on access only on
  // a big-endian host.
  EXPECT_EQ(view.swaps_bytes(), !le_host);
  EXPECT_EQ(view[0], 1);
  EXPECT_EQ(view[2], 3);
  EXPECT_EQ(view.front(), 1);
  EXPECT_EQ(view.back(), 3);
  EXPECT_EQ(view.at(1), std::optional<std::uint16_t>(2));
  EXPECT_EQ(view.at(3), std::nullopt);
  std::vector<std::uint16_t> seen;
  for (const std::uint16_t x : view) seen.push_back(x);
  EXPECT_EQ(seen, (std::vector<std::uint16_t>{1, 2, 3}));
  EXPECT_EQ(view.to_vector(), seen);
  EXPECT_EQ(view.end() - view.begin(), 3);
  EXPECT_EQ(view.begin()[1], 2);
  static_assert(std::random_access_iterator<bs::array_view<std::uint16_t>::iterator>);
  EXPECT_EQ(view, bs::array_view<std::uint16_t>(seen));
  EXPECT_NE(view, bs::array_view<std::uint16_t>(std::span(seen).first(2)));
  EXPECT_EQ(hex(encode<P>(view)), "0300000000000000010002000300");
  // Native: the host's bytes (converted element by element where the view
  // holds swapped ones), equal to the vector's.
  EXPECT_EQ(hex(encode(view)), hex(encode(seen)));
}

// Struct elements: in the portable format only where their memory is their
// encoding (a little-endian host); elsewhere array_view<Vec3> does not compile.
template <bs::options Opts>
void check_struct_elements() {
  const std::vector<workloads::Vec3> path{{1, 2, 3}, {4, 5, 6}};
  const auto bytes = encode<Opts>(path);
  bs::BufferView in{bytes};
  bs::array_view<workloads::Vec3> view;
  ASSERT_TRUE(bs::deserialize<Opts>(in, view));
  EXPECT_TRUE(workloads::same_elements(view, path));
  EXPECT_EQ(hex(encode<Opts>(view)), hex(bytes));
}

template <bool LittleEndian = le_host>
void check_struct_elements_portable() {
  if constexpr (LittleEndian) check_struct_elements<P>();
}

TEST(ArrayView, StructElements) {
  check_struct_elements<bs::native>();
  check_struct_elements_portable();
  const std::vector<workloads::Vec3> path{{1, 2, 3}, {4, 5, 6}};
  const auto bytes = encode<P>(path);
  EXPECT_EQ(hex(bytes), "0200000000000000" "0000803f0000004000004040"
                        "000080400000a0400000c040"); // 1, 2, 3, 4, 5, 6 as little-endian floats
}

TEST(ArrayView, ChecksBoolElements) {
  const auto good = unhex("03000000000000000100" "01");
  bs::BufferView in{good};
  bs::array_view<bool> view;
  ASSERT_TRUE(bs::deserialize<P>(in, view));
  EXPECT_EQ(view.to_vector(), (std::vector<bool>{true, false, true}));

  const auto bad = unhex("03000000000000000102" "01");
  bs::BufferView in2{bad};
  bs::array_view<bool> kept;
  EXPECT_FALSE(bs::deserialize<P>(in2, kept));
  EXPECT_EQ(in2.last_error(), (bs::error{bs::errc::invalid_value, 9}));
  EXPECT_TRUE(kept.empty());
  bs::BufferView in3{bad};
  constexpr auto unchecked =
      bs::options{.format = bs::wire_format::portable, .validate_values = false};
  EXPECT_TRUE(bs::deserialize<unchecked>(in3, kept)); // validation off: any byte
}

TEST(ArrayView, HostileCountsFailCleanly) {
  for (const char* text : {"ffffffffffffffff",
                           "0000000000000020" "00000000",
                           "0200000000000000" "0000803f"}) {
    const auto bytes = unhex(text);
    bs::BufferView in{bytes};
    bs::array_view<float> view;
    EXPECT_FALSE(bs::deserialize<bs::untrusted>(in, view)) << text;
    EXPECT_EQ(in.last_error(), (bs::error{bs::errc::truncated, 0})) << text;
    EXPECT_TRUE(view.empty());
  }
  const auto bytes = unhex("0300000000000000" "000000000000000000000000");
  constexpr auto opts = bs::options{.max_element_count = 2};
  bs::BufferView in{bytes};
  bs::array_view<float> view;
  EXPECT_FALSE(bs::deserialize<opts>(in, view));
  EXPECT_EQ(in.last_error(), (bs::error{bs::errc::limit_exceeded, 0}));
}

// ---- nesting ------------------------------------------------------------------------------------

struct Mixed {
  std::string_view title;
  std::optional<std::string_view> note;
  std::span<const std::byte> blob;
  bs::array_view<std::int32_t> numbers;
  std::vector<std::string_view> tags;
};

struct Owned {
  std::string title;
  std::optional<std::string> note;
  std::vector<std::byte> blob;
  std::vector<std::int32_t> numbers;
  std::vector<std::string> tags;
};

template <bs::options Opts>
void check_mixed() {
  const Owned owned{"t", std::string("n"), {std::byte{7}}, {-1, 2}, {"a", "bc"}};
  {
    const auto bytes = encode<Opts>(owned);
    bs::BufferView in{bytes};
    Mixed m;
    ASSERT_TRUE(bs::deserialize<Opts>(in, m));
    EXPECT_EQ(m.title, "t");
    ASSERT_TRUE(m.note.has_value());
    EXPECT_EQ(*m.note, "n");
    ASSERT_EQ(m.blob.size(), 1U);
    EXPECT_EQ(m.blob[0], std::byte{7});
    EXPECT_EQ(m.numbers.to_vector(), owned.numbers);
    ASSERT_EQ(m.tags.size(), 2U);
    EXPECT_EQ(m.tags[1], "bc");
    EXPECT_TRUE(points_into(*m.note, bytes));
    EXPECT_TRUE(points_into(m.tags[1], bytes));
    EXPECT_TRUE(points_into(m.numbers, bytes));
    EXPECT_EQ(hex(encode<Opts>(m)), hex(bytes));
  }
  EXPECT_EQ(hex(encode<Opts>(Mixed{})), hex(encode<Opts>(Owned{})));
}

TEST(ZeroCopyNested, StructOfViewsMatchesTheOwningStruct) {
  check_mixed<bs::native>();
  check_mixed<bs::portable>();
}

TEST(ZeroCopyNested, VectorOfViewsReusesItsCapacity) {
  const std::vector<std::string> words{"one", "two", "three"};
  const auto bytes = encode(words);
  std::vector<std::string_view> views;
  {
    bs::BufferView in{bytes};
    AllocationProbe probe;
    ASSERT_TRUE(bs::deserialize(in, views));
    EXPECT_EQ(probe.count(), 1U); // the vector's own storage, nothing per string
  }
  {
    bs::BufferView in{bytes};
    AllocationProbe probe;
    ASSERT_TRUE(bs::deserialize(in, views));
    EXPECT_EQ(probe.count(), 0U);
  }
  EXPECT_EQ(views, (std::vector<std::string_view>{"one", "two", "three"}));
  EXPECT_TRUE(points_into(views[2], bytes));
}

TEST(ZeroCopyNested, OptionalStringView) {
  const auto bytes = unhex("01" "0200000000000000" "6f6b");
  bs::BufferView in{bytes};
  std::optional<std::string_view> s;
  ASSERT_TRUE(bs::deserialize<P>(in, s));
  EXPECT_EQ(s, std::optional<std::string_view>("ok"));
  EXPECT_EQ(hex(encode<P>(s)), "0102000000000000006f6b");
}

// ---- the view workloads -------------------------------------------------------------------------

template <bs::options Opts>
void check_person() {
  const workloads::Person person = workloads::make_person();
  const auto bytes = encode<Opts>(person);
  bs::BufferView in{bytes};
  workloads::PersonView view;
  AllocationProbe probe;
  ASSERT_TRUE(bs::deserialize<Opts>(in, view));
  EXPECT_EQ(probe.count(), 0U);
  EXPECT_TRUE(workloads::same_value(view, person));
  EXPECT_TRUE(points_into(view.name, bytes));
  EXPECT_TRUE(points_into(view.email, bytes));
  EXPECT_TRUE(points_into(view.scores, bytes));
  EXPECT_EQ(in.read_position(), bytes.size());
  EXPECT_EQ(hex(encode<Opts>(view)), hex(bytes));
  expect_every_prefix_fails<Opts, workloads::PersonView>(bytes);
}

TEST(ViewWorkloads, PersonNative) { check_person<bs::native>(); }
TEST(ViewWorkloads, PersonPortable) { check_person<bs::portable>(); }
TEST(ViewWorkloads, PersonUntrusted) { check_person<bs::untrusted>(); }

TEST(ViewWorkloads, PersonGolden) {
  const auto bytes = encode<bs::portable>(workloads::make_person());
  EXPECT_EQ(hex(bytes), "0800000000000000" "4a6f686e20446f65" "19000000"
                        "1400000000000000" "6a6f686e2e646f65406578616d706c652e636f6d"
                        "0300000000000000" "66660640cdcc4c4000009040");
}

// The n-th element of a sequence_view (iteration is forward-only).
template <class Seq>
typename Seq::value_type nth(const Seq& seq, std::size_t n) {
  auto it = seq.begin();
  for (std::size_t i = 0; i < n; ++i) ++it;
  return *it;
}

TEST(ViewWorkloads, Car) {
  const workloads::Car car = workloads::make_car_sequential(7);
  const auto bytes = encode(car);
  workloads::CarView view;
  {
    bs::BufferView in{bytes};
    AllocationProbe probe; // the first decode too: sequence_view holds no vector
    ASSERT_TRUE(bs::deserialize(in, view));
    EXPECT_EQ(probe.count(), 0U);
    EXPECT_EQ(in.read_position(), bytes.size());
  }
  {
    AllocationProbe probe; // so does traversing it
    EXPECT_TRUE(workloads::same_value(view, car));
    EXPECT_EQ(probe.count(), 0U);
  }
  EXPECT_TRUE(points_into(view.manufacturer, bytes));
  EXPECT_TRUE(points_into(nth(view.fuel_figures, 2).usage_description, bytes));
  EXPECT_TRUE(points_into(nth(view.performance_figures, 1).acceleration, bytes));
  EXPECT_EQ(hex(encode(view)), hex(bytes));
  EXPECT_EQ(bs::serialized_size(view), bytes.size());
  expect_every_prefix_fails<bs::native, workloads::CarView>(bytes);
}

template <bs::options Opts>
void check_monsters() {
  using View = workloads::MonstersView<Opts.format>;
  const auto monsters = workloads::make_monsters(8);
  const auto bytes = encode<Opts>(monsters);
  View views;
  {
    bs::BufferView in{bytes};
    AllocationProbe probe;
    ASSERT_TRUE(bs::deserialize<Opts>(in, views));
    EXPECT_EQ(probe.count(), 0U);
  }
  ASSERT_EQ(views.size(), monsters.size());
  {
    AllocationProbe probe;
    std::size_t i = 0;
    for (const auto& m : views) EXPECT_TRUE(workloads::same_value(m, monsters[i++])) << i;
    EXPECT_EQ(i, monsters.size());
    EXPECT_EQ(probe.count(), 0U);
  }
  const auto m3 = nth(views, 3);
  EXPECT_TRUE(points_into(m3.name, bytes));
  EXPECT_TRUE(points_into(nth(m3.weapons, 0).name, bytes));
  EXPECT_TRUE(points_into(m3.path, bytes));
  EXPECT_EQ(hex(encode<Opts>(views)), hex(bytes));

  const auto one = encode<Opts>(monsters[1]);
  expect_every_prefix_fails<Opts, workloads::BasicMonsterView<Opts.format>>(one);
  expect_every_prefix_fails<Opts, View>(bytes);
}

TEST(ViewWorkloads, MonstersNative) { check_monsters<bs::native>(); }
template <bool LittleEndian = le_host>
void check_monsters_portable() {
  if constexpr (LittleEndian)
    check_monsters<bs::portable>();
  else
    GTEST_SKIP() << "MonsterView's array_view<Vec3> is not viewable in the portable format on a "
                    "big-endian host";
}
TEST(ViewWorkloads, MonstersPortable) { check_monsters_portable(); }

// ---- sequence_view ------------------------------------------------------------------------------

struct Named {
  std::string_view name;
  std::uint16_t code{};
  bool flag{};
};
struct NamedOwned {
  std::string name;
  std::uint16_t code{};
  bool flag{};
};
template <bs::wire_format F = bs::wire_format::native>
using NamedSeq = bs::sequence_view<Named, F>;
using PortableSeq = NamedSeq<bs::wire_format::portable>;

TEST(ZeroCopySequenceView, GoldenBytesAreThoseOfTheVector) {
  const std::vector<NamedOwned> owned{{"ab", 0x0102, true}, {"", 7, false}};
  // count 2 | "ab": len 2, 'a' 'b' | 0x0102 | true | "": len 0 | 7 | false
  const std::string golden = "0200000000000000"
                             "0200000000000000" "6162" "0201" "01"
                             "0000000000000000" "0700" "00";
  ASSERT_EQ(hex(encode<P>(owned)), golden);
  const auto bytes = unhex(golden);
  bs::BufferView in{bytes};
  PortableSeq seq;
  AllocationProbe probe;
  ASSERT_TRUE(bs::deserialize<P>(in, seq));
  EXPECT_EQ(probe.count(), 0U);
  EXPECT_EQ(in.read_position(), bytes.size());
  EXPECT_EQ(seq.size(), 2U);
  EXPECT_FALSE(seq.empty());
  // bytes() is the elements' encoding, after the count.
  EXPECT_EQ(seq.bytes().data(), bytes.data() + 8);
  EXPECT_EQ(seq.bytes().size(), bytes.size() - 8);
  auto it = seq.begin();
  EXPECT_EQ(it->name, "ab");
  EXPECT_EQ(it->code, 0x0102);
  EXPECT_TRUE(it->flag);
  EXPECT_TRUE(points_into(it->name, bytes));
  ++it;
  EXPECT_EQ(it->name, "");
  EXPECT_EQ(it->code, 7);
  EXPECT_FALSE(it->flag);
  ++it;
  EXPECT_TRUE(it == seq.end());
  EXPECT_TRUE(it == std::default_sentinel);
  EXPECT_EQ(probe.count(), 0U);
  EXPECT_EQ(hex(encode<P>(seq)), golden);
  EXPECT_EQ(bs::serialized_size<P>(seq), bytes.size());
}

TEST(ZeroCopySequenceView, EmptyAndDefault) {
  const PortableSeq none;
  EXPECT_TRUE(none.empty());
  EXPECT_TRUE(none.begin() == none.end());
  EXPECT_EQ(hex(encode<P>(none)), "0000000000000000");
  const auto bytes = unhex("0000000000000000");
  bs::BufferView in{bytes};
  PortableSeq seq;
  ASSERT_TRUE(bs::deserialize<P>(in, seq));
  EXPECT_TRUE(seq.empty());
  EXPECT_TRUE(seq.begin() == seq.end());
}

TEST(ZeroCopySequenceView, IsAForwardRange) {
  static_assert(std::forward_iterator<NamedSeq<>::iterator>);
  static_assert(std::ranges::forward_range<const NamedSeq<>>);
  const std::vector<NamedOwned> owned{{"x", 1, true}, {"yy", 2, false}, {"zzz", 3, true}};
  const auto bytes = encode(owned);
  bs::BufferView in{bytes};
  NamedSeq<> seq;
  ASSERT_TRUE(bs::deserialize(in, seq));
  // Multi-pass: a copied iterator is independent.
  auto a = seq.begin();
  auto b = a;
  ++a;
  EXPECT_EQ(b->name, "x");
  EXPECT_EQ(a->name, "yy");
  EXPECT_EQ(std::ranges::distance(seq), 3);
  const std::vector<Named> copy = seq.to_vector();
  ASSERT_EQ(copy.size(), 3U);
  EXPECT_EQ(copy[2].name, "zzz");
  EXPECT_EQ(copy[2].code, 3);
}

TEST(ZeroCopySequenceView, ReencodesInTheOtherFormat) {
  const std::vector<NamedOwned> owned{{"abc", 300, true}, {"d", 4, false}};
  const auto native_bytes = encode(owned);
  bs::BufferView in{native_bytes};
  NamedSeq<> seq;
  ASSERT_TRUE(bs::deserialize(in, seq));
  // A native view written in the portable format decodes element by element.
  EXPECT_EQ(hex(encode<P>(seq)), hex(encode<P>(owned)));
  EXPECT_EQ(bs::serialized_size<P>(seq), encode<P>(owned).size());
}

TEST(ZeroCopySequenceView, HostileElementsFailLikeTheVector) {
  const std::vector<NamedOwned> owned{{"ab", 1, true}, {"cd", 2, false}};
  auto bytes = encode<P>(owned);
  // The second element's bool byte: count 8 + (8 + 2 + 2 + 1) + 8 + 2 + 2.
  const std::size_t bool_at = 8 + 13 + 12;
  bytes[bool_at] = std::byte{2};
  bs::BufferView a{bytes};
  bs::BufferView b{bytes};
  PortableSeq seq;
  std::vector<NamedOwned> vec;
  EXPECT_FALSE(bs::deserialize<P>(a, seq));
  EXPECT_FALSE(bs::deserialize<P>(b, vec));
  EXPECT_EQ(a.last_error(), (bs::error{bs::errc::invalid_value, bool_at}));
  EXPECT_EQ(a.last_error(), b.last_error());
  EXPECT_EQ(a.read_position(), 0U);
  // A count larger than the input can hold is refused before any element.
  const auto huge = unhex("ffffffffffffff7f");
  bs::BufferView h{huge};
  EXPECT_FALSE(bs::deserialize<P>(h, seq));
  EXPECT_EQ(h.last_error().code, bs::errc::truncated);
  expect_every_prefix_fails<P, PortableSeq>(encode<P>(owned));
}

TEST(ZeroCopySequenceView, LimitsApplyToTheCount) {
  const std::vector<NamedOwned> owned(5, NamedOwned{"n", 1, false});
  const auto bytes = encode(owned);
  constexpr bs::options four{.max_element_count = 4};
  bs::BufferView in{bytes};
  NamedSeq<> seq;
  EXPECT_FALSE(bs::deserialize<four>(in, seq));
  EXPECT_EQ(in.last_error(), (bs::error{bs::errc::limit_exceeded, 0}));
}

TEST(ZeroCopySequenceView, NestedSequencesAndSchemaHash) {
  struct Inner {
    std::vector<std::string> words;
  };
  struct InnerView {
    bs::sequence_view<std::string_view> words;
  };
  const std::vector<Inner> owned{{{"a", "bc"}}, {{}}, {{"def"}}};
  const auto bytes = encode(owned);
  bs::BufferView in{bytes};
  bs::sequence_view<InnerView> seq;
  AllocationProbe probe;
  ASSERT_TRUE(bs::deserialize(in, seq));
  std::string joined;
  for (const auto& inner : seq)
    for (const std::string_view w : inner.words) joined.append(w).push_back('|');
  EXPECT_EQ(probe.count(), 0U);
  EXPECT_EQ(joined, "a|bc|def|");
  EXPECT_EQ(hex(encode(seq)), hex(bytes));
  static_assert(bs::schema_hash_v<bs::sequence_view<InnerView>> ==
                bs::schema_hash_v<std::vector<Inner>>);
  static_assert(bs::schema_hash_v<PortableSeq, P> == bs::schema_hash_v<std::vector<NamedOwned>, P>);
}

TEST(ZeroCopySequenceView, BytesChangedUnderTheViewStopIterationInsideThem) {
  const std::vector<NamedOwned> owned{{"ab", 1, true}, {"cd", 2, false}, {"ef", 3, true}};
  auto bytes = encode(owned);
  bs::BufferView in{bytes};
  NamedSeq<> seq;
  ASSERT_TRUE(bs::deserialize(in, seq));
  // Misuse: the second element's string length now points far past the input.
  const std::uint64_t bogus = 1'000'000;
  std::memcpy(bytes.data() + 8 + 13, &bogus, sizeof bogus);
  std::size_t seen = 0;
  for (const auto& e : seq) {
    (void)e;
    ++seen;
  }
  EXPECT_EQ(seen, 1U); // the first element, then the iteration ends
}

// ---- debug-build misuse detection ---------------------------------------------------------------

TEST(ZeroCopyDebug, ClearPoisonsTheBytesViewsPointAt) {
#if !BIN_SERIALIZER_DEBUG
  GTEST_SKIP() << "Buffer poisons released bytes only in debug builds (BIN_SERIALIZER_DEBUG)";
#else
  bs::Buffer buf;
  ASSERT_TRUE(bs::serialize(buf, std::string("secret")));
  std::string_view view;
  ASSERT_TRUE(bs::deserialize(buf, view));
  ASSERT_EQ(view, "secret");
  buf.clear(); // the storage is kept, so reading the stale view is defined, and shows garbage
  EXPECT_EQ(view, std::string(6, '\xDD'));
#endif
}

#if defined(__SANITIZE_ADDRESS__)
#define ZERO_COPY_TEST_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define ZERO_COPY_TEST_ASAN 1
#endif
#endif

// A view into storage the Buffer has since freed (it grew) is a
// heap-use-after-free that AddressSanitizer reports.
TEST(ZeroCopyDebugDeathTest, ViewIntoReallocatedBufferIsReportedUnderAsan) {
#ifndef ZERO_COPY_TEST_ASAN
  GTEST_SKIP() << "needs AddressSanitizer";
#else
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_DEATH(
      {
        bs::Buffer buf;
        (void)bs::serialize(buf, std::string("stale"));
        std::string_view view;
        (void)bs::deserialize(buf, view);
        (void)buf.reserve(buf.capacity() * 4); // moves the bytes, frees the old block
        volatile char c = view[0];
        (void)c;
      },
      "heap-use-after-free");
#endif
}

// ---- borrows_input_v: which decoded types point into the input ----------

namespace borrow_cases {
struct ViewMember {
  std::string_view symbol;
  std::uint32_t depth;
};
struct OwnedMember {
  std::string symbol;
  std::uint32_t depth;
};
struct TreeOwned { // recursive: the walk must end, and say false
  std::string name;
  std::vector<TreeOwned> kids;
};
struct TreeWithView { // recursive, a view two levels down
  std::vector<TreeWithView> kids;
  std::optional<std::string_view> label;
};
class Reflected {
public:
  template <class V>
  auto reflect(V&& v) {
    return v(id_, bytes_);
  }
  template <class V>
  auto reflect(V&& v) const {
    return v(id_, bytes_);
  }

private:
  std::uint32_t id_ = 0;
  std::span<const std::byte> bytes_;
};
struct InMap {
  std::map<std::uint32_t, std::variant<std::uint32_t, bs::array_view<std::uint32_t>>> m;
};
struct InTuple {
  std::tuple<int, std::pair<int, bs::sequence_view<std::string_view>>> t;
};
struct InStdArray {
  std::array<std::string_view, 2> a;
};
struct InCArray {
  std::u16string_view c[3];
};
struct Deep { // nine levels of struct and container
  std::vector<std::optional<std::array<std::vector<std::pair<int, std::tuple<InStdArray>>>, 1>>> v;
};
struct Handle { // a user type whose codec views the input
  const std::byte* p;
};
} // namespace borrow_cases
} // namespace

template <>
struct bin_serializer::codec<borrow_cases::Handle> {
  static constexpr bool borrows = true;
  using schema_equivalent = std::vector<std::byte>;
  template <class W>
  static bool write(W&, const borrow_cases::Handle&) {
    return true;
  }
  template <class R>
  static bool read(R&, borrow_cases::Handle&) {
    return true;
  }
};

namespace {
using namespace borrow_cases;
static_assert(bs::borrows_input_v<std::string_view>);
static_assert(bs::borrows_input_v<std::span<const std::byte>>);
static_assert(bs::borrows_input_v<bs::array_view<std::uint32_t>>);
static_assert(bs::borrows_input_v<bs::sequence_view<std::string>>);
static_assert(bs::borrows_input_v<ViewMember>);
static_assert(bs::borrows_input_v<const ViewMember&>);
static_assert(!bs::borrows_input_v<OwnedMember>);
static_assert(!bs::borrows_input_v<TreeOwned>);
static_assert(bs::borrows_input_v<TreeWithView>);
static_assert(bs::borrows_input_v<Reflected>);
static_assert(bs::borrows_input_v<InMap>);
static_assert(bs::borrows_input_v<InTuple>);
static_assert(bs::borrows_input_v<InStdArray>);
static_assert(bs::borrows_input_v<InCArray>);
static_assert(bs::borrows_input_v<Deep>);
static_assert(bs::borrows_input_v<std::vector<Handle>>);
static_assert(bs::borrows_input_v<std::vector<std::optional<std::string_view>>, bs::portable>);
static_assert(bs::borrows_input_v<std::vector<std::optional<std::string_view>>,
                                  bs::options{.format = bs::wire_format::compact}>);
static_assert(!bs::borrows_input_v<std::map<std::string, std::vector<std::uint32_t>>>);
static_assert(!bs::borrows_input_v<std::chrono::milliseconds>);
static_assert(!bs::borrows_input_v<std::uint32_t>);
static_assert(!bs::borrows_input_v<std::array<std::uint32_t, 4>>);
static_assert(!bs::borrows_input_v<std::u16string>);

TEST(BorrowsInput, ViewsAtAnyDepthOwnersNot) {
  // The facts are the static_asserts above; a decoded ViewMember indeed
  // points into the buffer it came from.
  bs::Buffer buf;
  ASSERT_TRUE(bs::serialize(buf, OwnedMember{"ABC", 3}));
  ViewMember v{};
  ASSERT_TRUE(bs::deserialize(buf, v));
  EXPECT_EQ(v.symbol, "ABC");
  EXPECT_GE(reinterpret_cast<const std::byte*>(v.symbol.data()), buf.data());
  EXPECT_LT(reinterpret_cast<const std::byte*>(v.symbol.data()), buf.data() + buf.size());
}

} // namespace
