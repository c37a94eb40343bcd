// Every message of a list built from the seed workloads and the std families,
// truncated at every byte offset and with every byte flipped, decoded in the
// default and the `untrusted` mode (and in the portable format with the same
// checks, from its own encoding):
//
//   truncated   must fail: false, read position unchanged, errc truncated /
//               limit_exceeded / invalid_value at an offset <= the cut, and the
//               target (fresh or already holding a value) is still valid and
//               decodes the full message afterwards.
//   flipped     (byte ^ 0xFF, and byte = 0x02) either fails cleanly as above,
//               or succeeds with a value whose encoding decodes to an equal
//               value (compared by encoding: a flip can make a float NaN).
//
// Serialize side: FixedBuffer with exactly K bytes free for every K < the
// message size, after a previously written message: false, size, bytes and
// read position unchanged; K == size succeeds.
//
// LargeMessage is swept at every offset in a scaled-down copy (the same
// structure with 3 elements per vector); the real 2 MB message only with
// flips at a sample of offsets (the lowest and highest byte of every count
// prefix, one byte inside each vector), in the two native modes, to keep the
// AddressSanitizer build fast. Every other message is swept at every offset.
// (Before the includes: GCC attributes these middle-end warnings to the
// library header lines.) GCC 12 -O2 warns inside contiguous_writer::write_bytes for FixedBuffers that
// statically cannot hold a value (see test_util.hpp); these tests overflow
// FixedBuffers on purpose.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Warray-bounds"
#pragma GCC diagnostic ignored "-Wstringop-overflow"
#endif

#include <bin_serializer/bin_serializer.hpp>
#include <bin_serializer/std/all.hpp>
#include <gtest/gtest.h>

#include "workloads/workloads.hpp"

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <deque>
#include <list>
#include <map>
#include <optional>
#include <random>
#include <set>
#include <span>
#include <string>
#include <tuple>
#include <unordered_map>
#include <utility>
#include <variant>
#include <vector>

namespace {

namespace bs = bin_serializer;
using bs::errc;
using bytes = std::vector<std::byte>;

template <bs::options Opts = bs::native, class T>
bytes encode(const T& value) {
  bs::Buffer b;
  EXPECT_TRUE(bs::serialize<Opts>(b, value));
  return bytes(b.bytes().begin(), b.bytes().end());
}

bool is_decode_error(errc c) {
  return c == errc::truncated || c == errc::invalid_value || c == errc::limit_exceeded;
}

template <class T>
concept unordered = requires { typename T::hasher; };

// Equal values: by encoding (so NaN equals itself bit for bit), except for
// unordered containers, whose encoding follows their iteration order.
template <bs::options Opts, class T>
bool same(const T& a, const T& b) {
  if constexpr (unordered<T>)
    return a == b;
  else
    return encode<Opts>(a) == encode<Opts>(b);
}

// Every offset in [0, n).
std::vector<std::size_t> all_offsets(std::size_t n) {
  std::vector<std::size_t> out(n);
  for (std::size_t i = 0; i < n; ++i) out[i] = i;
  return out;
}

// Reports at most a few failures per message, with the offset.
struct reporter {
  const char* mode;
  int reported = 0;
  void fail(const char* what, std::size_t at, std::size_t extra = 0) {
    if (++reported <= 5)
      ADD_FAILURE() << "[" << mode << "] " << what << " (offset " << at << ", " << extra << ")";
  }
};

// After a failed decode of `input`: the contract on the view and the target.
template <bs::options Opts, class T>
void check_clean_failure(const bs::BufferView& view, std::size_t limit, T& target,
                         const T& original, const bytes& original_bytes, reporter& r,
                         std::size_t at) {
  if (view.read_position() != 0) r.fail("read position moved", at, view.read_position());
  const bs::error e = view.last_error();
  if (!is_decode_error(e.code))
    r.fail("not a decoding error code", at, static_cast<std::size_t>(e.code));
  if (e.offset > limit) r.fail("error offset past the input", at, e.offset);
  // The target is valid: copy it, encode the copy, decode the original into it.
  const T copy = target;
  (void)encode<Opts>(copy);
  bs::BufferView again(original_bytes);
  if (!bs::deserialize<Opts>(again, target) || again.read_position() != original_bytes.size())
    r.fail("target not re-decodable", at);
  else if (!same<Opts>(target, original))
    r.fail("re-decoded target differs", at);
}

template <bs::options Opts, class T>
void sweep_mode(const T& value, const char* mode, const std::vector<std::size_t>& offsets,
                bool truncations = true) {
  const bytes enc = encode<Opts>(value);
  reporter r{mode};

  // Sanity: the whole message decodes.
  {
    T target{};
    bs::BufferView view(enc);
    ASSERT_TRUE(bs::deserialize<Opts>(view, target)) << mode;
    ASSERT_EQ(view.read_position(), enc.size());
    ASSERT_TRUE(same<Opts>(target, value));
  }

  // Truncation at every offset (decoding into a fresh and into a warm target).
  for (const std::size_t cut : offsets) {
    if (!truncations || cut >= enc.size()) continue;
    const bytes head(enc.begin(), enc.begin() + static_cast<std::ptrdiff_t>(cut));
    for (int warm = 0; warm < 2; ++warm) {
      T target{};
      if (warm != 0) target = value;
      bs::BufferView view(head);
      if (bs::deserialize<Opts>(view, target)) {
        r.fail("truncated message decoded", cut);
        continue;
      }
      check_clean_failure<Opts>(view, cut, target, value, enc, r, cut);
    }
  }

  // Every byte flipped two ways.
  for (const std::size_t at : offsets) {
    if (at >= enc.size()) continue;
    for (const int how : {0, 1}) {
      bytes mutated = enc;
      mutated[at] = how == 0 ? (mutated[at] ^ std::byte{0xFF}) : std::byte{0x02};
      if (mutated == enc) continue;
      T target{};
      bs::BufferView view(mutated);
      if (!bs::deserialize<Opts>(view, target)) {
        check_clean_failure<Opts>(view, mutated.size(), target, value, enc, r, at);
        continue;
      }
      if (view.read_position() > mutated.size()) r.fail("consumed past the input", at);
      // Accepted: the value must survive its own round trip.
      const bytes re = encode<Opts>(target);
      T again{};
      bs::BufferView re_view(re);
      if (!bs::deserialize<Opts>(re_view, again) || re_view.read_position() != re.size())
        r.fail("re-encoding of an accepted value does not decode", at);
      else if (!same<Opts>(again, target))
        r.fail("re-encoding of an accepted value decodes to another value", at);
    }
  }
}

// The portable format, with the checks of `untrusted`.
constexpr bs::options portable_untrusted{.format = bs::wire_format::portable,
                                         .check_trivial_members = true};

template <class T>
void sweep(const T& value, const std::vector<std::size_t>& offsets) {
  sweep_mode<bs::native>(value, "native", offsets);
  sweep_mode<bs::untrusted>(value, "untrusted", offsets);
  sweep_mode<portable_untrusted>(value, "portable", offsets);
}

template <class T>
void sweep(const T& value) {
  sweep(value, all_offsets(std::max(bs::serialized_size(value),
                                    bs::serialized_size<portable_untrusted>(value))));
}

// ---- serialize side --------------------------------------------------------------

constexpr std::size_t fixed_capacity = 4096;

// A FixedBuffer<4096> holding a previous message that leaves exactly `room`
// bytes free, with a non-zero read position.
void fill_leaving(bs::FixedBuffer<fixed_capacity>& fb, std::size_t room) {
  const std::size_t filler = fixed_capacity - room - sizeof(std::uint64_t);
  ASSERT_TRUE(bs::serialize(fb, std::string(filler, 'f')));
  ASSERT_EQ(fb.capacity() - fb.size(), room);
  ASSERT_TRUE(fb.seek(3));
}

template <class T>
void fixed_buffer_sweep(const T& value) {
  const bytes enc = encode(value);
  ASSERT_LT(enc.size() + sizeof(std::uint64_t), fixed_capacity);
  int reported = 0;
  for (std::size_t room = 0; room < enc.size(); ++room) {
    bs::FixedBuffer<fixed_capacity> fb;
    fill_leaving(fb, room);
    const bytes before(fb.bytes().begin(), fb.bytes().end());
    const std::size_t size = fb.size();
    const bool ok = bs::serialize(fb, value);
    const bool unchanged = fb.size() == size && fb.read_position() == 3 &&
                           bytes(fb.bytes().begin(), fb.bytes().end()) == before;
    const bs::error e = fb.last_error();
    if ((ok || !unchanged || e.code != errc::buffer_full || e.offset < size ||
         e.offset > fixed_capacity) &&
        ++reported <= 5)
      ADD_FAILURE() << "room " << room << " of " << enc.size() << ": ok=" << ok
                    << " unchanged=" << unchanged << " code=" << static_cast<int>(e.code)
                    << " offset=" << e.offset;
  }
  bs::FixedBuffer<fixed_capacity> fb;
  fill_leaving(fb, enc.size());
  ASSERT_TRUE(bs::serialize(fb, value));
  EXPECT_EQ(fb.size(), fixed_capacity);
  EXPECT_TRUE(std::equal(enc.begin(), enc.end(),
                         fb.bytes().end() - static_cast<std::ptrdiff_t>(enc.size())));
}

// FixedBuffer<K> itself, for every capacity K up to the message size + 1, with
// a one-byte message already in it.
template <class T, std::size_t... K>
void fixed_capacities(const T& value, std::index_sequence<K...>) {
  const bytes enc = encode(value);
  int bad = 0;
  auto one = [&]<std::size_t Cap>(std::integral_constant<std::size_t, Cap>) {
    bs::FixedBuffer<Cap> fb;
    if (!bs::serialize(fb, std::uint8_t{0x5A})) {
      ++bad;
      return;
    }
    const bool ok = bs::serialize(fb, value);
    const bool fits = Cap - 1 >= enc.size();
    if (ok != fits) ++bad;
    if (!ok && (fb.size() != 1 || fb.bytes()[0] != std::byte{0x5A} ||
                fb.last_error().code != errc::buffer_full))
      ++bad;
    if (ok && !std::equal(enc.begin(), enc.end(), fb.bytes().begin() + 1)) ++bad;
  };
  (one(std::integral_constant<std::size_t, K + 1>{}), ...);
  EXPECT_EQ(bad, 0);
}

// ---- the messages --------------------------------------------------------------------

struct Node {
  std::int32_t v{};
  std::vector<Node> children;
  bool operator==(const Node&) const = default;
};

Node tree() { return {1, {{2, {}}, {3, {{4, {}}, {5, {{6, {}}}}}}}}; }

workloads::Car random_car(std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  return workloads::make_car_random(rng);
}

} // namespace

TEST(HostileMutations, Person) { sweep(workloads::make_person()); }
TEST(HostileMutations, CarSequential) { sweep(workloads::make_car_sequential()); }
TEST(HostileMutations, CarRandom) {
  sweep(random_car(1));
  sweep(random_car(2));
}
TEST(HostileMutations, Monsters) {
  const auto monsters = workloads::make_monsters(3);
  for (const auto& m : monsters) sweep(m);
  sweep(monsters);
}
TEST(HostileMutations, SmallMessage) { sweep(workloads::make_small_message()); }
TEST(HostileMutations, Tick) {
  sweep(workloads::make_tick(42));
  sweep(std::vector<workloads::Tick>{workloads::make_tick(1), workloads::make_tick(2)});
}
TEST(HostileMutations, LargeMessageScaledDown) {
  workloads::LargeMessage m = workloads::make_large_message();
  m.samples.resize(3);
  m.ids.resize(3);
  m.weights.resize(3);
  m.labels.resize(3);
  m.timestamps.resize(3);
  sweep(m);
}

TEST(HostileMutations, LargeMessageSampledOffsets) {
  // The real 2 MB message: every byte of every count prefix flipped (a huge or
  // a shrunk count), plus one byte in the middle of each vector. Truncation
  // and the other bytes are covered by LargeMessageScaledDown.
  const workloads::LargeMessage m = workloads::make_large_message();
  std::vector<std::size_t> offsets;
  std::size_t at = bs::serialized_size(m.header);
  for (const std::size_t part :
       {bs::serialized_size(m.samples), bs::serialized_size(m.ids), bs::serialized_size(m.weights),
        bs::serialized_size(m.labels), bs::serialized_size(m.timestamps)}) {
    offsets.push_back(at);     // lowest byte of the count: a few elements more or fewer
    offsets.push_back(at + 7); // highest byte: a count far beyond the input
    offsets.push_back(at + part / 2);
    at += part;
  }
  ASSERT_EQ(at, bs::serialized_size(m));
  sweep_mode<bs::native>(m, "native", offsets, false);
  sweep_mode<bs::untrusted>(m, "untrusted", offsets, false);
}

TEST(HostileMutations, VectorOfStrings) {
  sweep(std::vector<std::string>{"alpha", "", "gamma", "delta"});
}
TEST(HostileMutations, VectorOfBool) { sweep(std::vector<bool>{true, false, true, true, false}); }
TEST(HostileMutations, MapOfStringToVector) {
  sweep(std::map<std::string, std::vector<std::int32_t>>{{"a", {1, 2, 3}}, {"b", {}}, {"c", {-1}}});
}
TEST(HostileMutations, MultimapAndUnorderedMap) {
  sweep(std::multimap<std::int32_t, std::string>{{1, "x"}, {1, "y"}, {2, "z"}});
  sweep(std::unordered_map<std::uint32_t, std::string>{{1, "one"}, {2, "two"}, {3, ""}});
}
TEST(HostileMutations, OptionalVariant) {
  using OV = std::optional<std::variant<std::int32_t, std::string>>;
  sweep(OV{std::string("text")});
  sweep(OV{std::int32_t{-7}});
  sweep(OV{});
  sweep(std::vector<OV>{OV{1}, OV{}, OV{std::string("s")}});
}
TEST(HostileMutations, ListOfDeques) {
  sweep(std::list<std::deque<std::int32_t>>{{1, 2}, {}, {3, 4, 5}});
}
TEST(HostileMutations, SetOfStrings) { sweep(std::set<std::string>{"apple", "banana", "cherry"}); }
TEST(HostileMutations, TupleAndPair) {
  sweep(std::tuple<bool, std::string, std::int16_t, std::optional<double>>{true, "t", -2, 0.5});
  sweep(std::pair<std::string, std::array<bool, 3>>{"p", {true, false, true}});
}
TEST(HostileMutations, RecursiveNode) { sweep(tree()); }

// ---- serialize side ----------------------------------------------------------------------

TEST(HostileSerialize, FixedBufferEveryRoomSmallerThanTheMessage) {
  fixed_buffer_sweep(workloads::make_person());
  fixed_buffer_sweep(workloads::make_car_sequential());
  fixed_buffer_sweep(workloads::make_monsters(3));
  fixed_buffer_sweep(workloads::make_small_message());
  fixed_buffer_sweep(workloads::make_tick(1));
  fixed_buffer_sweep(std::map<std::string, std::vector<std::int32_t>>{{"a", {1, 2}}, {"b", {}}});
  fixed_buffer_sweep(std::optional<std::variant<std::int32_t, std::string>>{std::string("v")});
  fixed_buffer_sweep(std::list<std::deque<std::int32_t>>{{1}, {2, 3}});
  fixed_buffer_sweep(std::set<std::string>{"x", "yy"});
  fixed_buffer_sweep(std::vector<bool>(300, true)); // more than one 256-byte block
  fixed_buffer_sweep(tree());
}

TEST(HostileSerialize, FixedBufferOfEveryCapacity) {
  // Person encodes to 68 bytes: capacities 1 .. 70.
  ASSERT_EQ(encode(workloads::make_person()).size(), 68u);
  fixed_capacities(workloads::make_person(), std::make_index_sequence<70>{});
  // Tick is one bulk copy of 32 bytes: capacities 1 .. 34.
  fixed_capacities(workloads::make_tick(5), std::make_index_sequence<34>{});
}

// ---- values the contract says are rejected -------------------------------------------------

namespace hostile_values {

enum class Level : std::uint8_t { Low, Mid, High };

} // namespace hostile_values

template <>
struct bin_serializer::enum_range<hostile_values::Level> {
  static constexpr hostile_values::Level min = hostile_values::Level::Low;
  static constexpr hostile_values::Level max = hostile_values::Level::High;
};

namespace hostile_values {

// Trivially copyable: bulk-copied; bool / ranged-enum members checked only
// with check_trivial_members (untrusted).
struct Flags {
  std::uint32_t id;
  bool on;
  Level level;
  bool bits[2];
};
static_assert(std::is_trivially_copyable_v<Flags> && sizeof(Flags) == 8);

// Trivially copyable too, but its members have codecs that validate.
struct WithVariant {
  std::int32_t id;
  std::variant<std::int32_t, float> v;
};
struct WithOptional {
  std::int32_t id;
  std::optional<std::int32_t> o;
};
struct WithBoolArray {
  std::int32_t id;
  std::array<bool, 2> a;
};
struct WithLevelArray {
  std::int32_t id;
  std::array<Level, 2> levels;
};
static_assert(std::is_trivially_copyable_v<WithVariant> &&
              std::is_trivially_copyable_v<WithOptional> &&
              std::is_trivially_copyable_v<WithBoolArray> &&
              std::is_trivially_copyable_v<WithLevelArray>);

template <class T>
bytes object_bytes_with(std::size_t at, unsigned value) {
  bytes b(sizeof(T), std::byte{0});
  b[at] = static_cast<std::byte>(value);
  return b;
}

// Decodes and reports only success / the error: never reads the members.
template <bs::options Opts, class T>
bs::error decode_error(const bytes& input) {
  T target{};
  bs::BufferView view(input);
  if (bs::deserialize<Opts>(view, target)) return {};
  EXPECT_EQ(view.read_position(), 0u);
  return view.last_error();
}

// The encoding of `changed` differs from the encoding of `base` first at the
// byte that holds what was changed (a discriminator: an index, a flag, a
// bool). Whatever the layout, that byte set to `value` must be rejected.
template <class T>
bytes with_discriminator(const T& base, const T& changed, unsigned value) {
  const bytes a = encode(base);
  bytes b = encode(changed);
  std::size_t at = 0;
  while (at < a.size() && at < b.size() && a[at] == b[at]) ++at;
  EXPECT_LT(at, b.size());
  if (at < b.size()) b[at] = static_cast<std::byte>(value);
  return b;
}

} // namespace hostile_values

TEST(HostileValues, MembersOfTriviallyCopyableStructsCheckedWhenUntrusted) {
  using namespace hostile_values;
  for (const auto& [at, value] : std::vector<std::pair<std::size_t, unsigned>>{
           {4, 2}, {4, 0xFF}, {5, 3}, {6, 2}, {7, 0x80}}) {
    const bytes input = object_bytes_with<Flags>(at, value);
    const bs::error untrusted = decode_error<bs::untrusted, Flags>(input);
    EXPECT_EQ(untrusted.code, errc::invalid_value) << "byte " << at << " = " << value;
    EXPECT_EQ(untrusted.offset, at);
    // Documented: the default options copy the struct unchecked.
    EXPECT_EQ((decode_error<bs::native, Flags>(input).code), errc::ok);
  }
  EXPECT_EQ((decode_error<bs::untrusted, Flags>(object_bytes_with<Flags>(5, 2)).code), errc::ok);
}

TEST(HostileValues, TopLevelAndFieldByFieldValuesCheckedInEveryMode) {
  using namespace hostile_values;
  EXPECT_EQ((decode_error<bs::native, bool>(bytes{std::byte{2}}).code), errc::invalid_value);
  EXPECT_EQ((decode_error<bs::native, Level>(bytes{std::byte{3}}).code), errc::invalid_value);
  EXPECT_EQ(
      (decode_error<bs::native, std::optional<std::int32_t>>(bytes{std::byte{2}, {}, {}, {}, {}})
           .code),
      errc::invalid_value);
  bytes index7(4 + 4, std::byte{0});
  index7[0] = std::byte{7};
  EXPECT_EQ((decode_error<bs::native, std::variant<std::int32_t, float>>(index7).code),
            errc::invalid_value);
  bytes dup;
  for (const bytes& part :
       {encode(std::uint64_t{2}), encode(std::string("k")), encode(std::string("k"))})
    dup.insert(dup.end(), part.begin(), part.end());
  const bs::error e = decode_error<bs::native, std::set<std::string>>(dup);
  EXPECT_EQ(e.code, errc::invalid_value);
  EXPECT_EQ(e.offset, 8u + 9u);
}

// ---- library bugs found by this suite (all fixed upstream; kept as regressions) --------
//
// 1. (fixed upstream in 5592a34)
// A trivially copyable struct holding a std::variant, std::optional or
// std::array<bool, N> used to be bulk-copied as a whole (serializable.hpp:
// the struct has no codec and is trivially copyable), so the members' codecs,
// which validate, never ran, and check_trivial_members (validate.hpp) did not
// look inside those members either. A variant index of 200 was accepted in
// every mode, and std::visit / operator== then jumped through the variant's
// dispatch table out of bounds; an optional flag or std::array<bool> element
// of 2 was accepted even with `untrusted`. Since 5592a34 such a struct is
// encoded field by field. These tests are written against the encoding
// (whatever it is), not the object layout, and guard against a regression.
//
// 2. (fixed upstream in 3ba8b7d) A trivially copyable struct whose bool /
// ranged-enum members are inside a std::array (std::array<bool, 2>,
// std::array<Level, 2>) is still one block of object bytes, and
// check_trivial_members did not check those elements: detail/validate.hpp,
// bulk_needs_check() / find_invalid() handled bool, ranged enums, C arrays and
// structs with visible fields, but std::array was none of these to it (not
// is_array_v; tuple-like, so not an aggregate with visible fields). bool[2] in
// the same place was checked.

TEST(HostileValues, VariantIndexInsideTriviallyCopyableStructIsRejected) {
  using namespace hostile_values;
  const WithVariant a{1, std::int32_t{0}};
  const WithVariant b{1, 0.0f};
  const bytes input = with_discriminator(a, b, 200);
  EXPECT_EQ((decode_error<bs::native, WithVariant>(input).code), errc::invalid_value);
  EXPECT_EQ((decode_error<bs::untrusted, WithVariant>(input).code), errc::invalid_value);
}

TEST(HostileValues, OptionalFlagInsideTriviallyCopyableStructIsRejected) {
  using namespace hostile_values;
  const WithOptional a{1, std::nullopt};
  const WithOptional b{1, 0};
  const bytes input = with_discriminator(a, b, 2);
  EXPECT_EQ((decode_error<bs::untrusted, WithOptional>(input).code), errc::invalid_value);
  EXPECT_EQ((decode_error<bs::native, WithOptional>(input).code), errc::invalid_value);
}

TEST(HostileValues, StdArrayOfBoolInsideTriviallyCopyableStructIsRejectedWhenUntrusted) {
  using namespace hostile_values;
  const WithBoolArray a{1, {false, false}};
  const WithBoolArray b{1, {true, false}};
  const bytes input = with_discriminator(a, b, 2); // {1, {2, 0}}
  const bs::error e = decode_error<bs::untrusted, WithBoolArray>(input);
  EXPECT_EQ(e.code, errc::invalid_value);
  EXPECT_EQ(e.offset, offsetof(WithBoolArray, a));
}

TEST(HostileValues, StdArrayOfRangedEnumInsideTriviallyCopyableStructIsRejectedWhenUntrusted) {
  using namespace hostile_values;
  const WithLevelArray a{1, {Level::Low, Level::Low}};
  const WithLevelArray b{1, {Level::High, Level::Low}};
  const bytes input = with_discriminator(a, b, 7); // {1, {7, Low}}
  EXPECT_EQ((decode_error<bs::untrusted, WithLevelArray>(input).code), errc::invalid_value);
}
