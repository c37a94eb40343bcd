// A std::vector of varints in the compact format is written and read a group
// of elements at a time (format/format.hpp, put_scalar_run and
// get_scalar_run; std/codec_support.hpp, read_scalar_groups). Reference: a
// vector of one-field structs, which has the same bytes and still goes
// element by element (std/vector.hpp). Both must write the same bytes, and
// read the same bytes alike: the same result, error, offset and read
// position, and after a failure the same elements kept (those before the
// failing one, and that one as it was).
#include "std_codec_test_support.hpp"

#include <bin_serializer/bin_serializer.hpp>

#include <array>
#include <cstdint>
#include <deque>
#include <random>
#include <string>
#include <vector>

namespace vector_groups_test {

enum class Code : std::uint32_t { none = 0, big = 0xFFFFFFF0U };
enum class Ranged : std::uint16_t { low = 1, high = 3 };

// One element, element by element: the reference.
template <class T>
struct One {
  T v{};
  bool operator==(const One&) const = default;
};

} // namespace vector_groups_test

template <>
struct bin_serializer::enum_range<vector_groups_test::Ranged> {
  static constexpr auto min = vector_groups_test::Ranged::low;
  static constexpr auto max = vector_groups_test::Ranged::high;
};

namespace {

using namespace bin_serializer;
using namespace std_codec_test;
using vector_groups_test::Code;
using vector_groups_test::One;
using vector_groups_test::Ranged;

const std::size_t sizes[] = {0, 1, 2, 3, 4, 5, 7, 8, 9, 15, 16, 17, 63, 64, 65, 1000};

template <class T>
std::vector<One<T>> as_ones(const std::vector<T>& v) {
  std::vector<One<T>> out;
  for (const T& x : v) out.push_back({x});
  return out;
}

// A value whose varint takes `bytes` bytes (at most the type's longest).
template <class T>
T of_length(unsigned bytes, std::mt19937_64& rng) {
  using I = typename std::conditional_t<std::is_enum_v<T>, std::underlying_type<T>,
                                        std::type_identity<T>>::type;
  using U = std::make_unsigned_t<I>;
  const unsigned bits = static_cast<unsigned>(8 * sizeof(U));
  const unsigned low = bytes <= 1 ? 0 : 7 * (bytes - 1);
  const unsigned high = 7 * bytes < bits ? 7 * bytes : bits;
  std::uint64_t u = low == 0 ? rng() % 128 : (std::uint64_t{1} << low);
  if (low != 0 && high > low) u |= rng() & ((std::uint64_t{1} << (high - 1)) - 1);
  const U w = static_cast<U>(u);
  // Signed types are zigzag-coded: the same length for w / 2 with the sign in bit 0.
  if constexpr (std::is_signed_v<T>) {
    using S = std::make_signed_t<U>;
    return static_cast<T>((w & 1U) ? static_cast<S>(~(w >> 1)) : static_cast<S>(w >> 1));
  } else {
    return static_cast<T>(w);
  }
}

// Values of a given mix: 0 all one byte, 1 all the longest, 2 mixed 1-, 2-,
// 3- and 5-byte (or longest) lengths, 3 one-byte with a long one here and there.
template <class T>
std::vector<T> values(std::size_t n, int mix, std::mt19937_64& rng) {
  constexpr unsigned longest = static_cast<unsigned>((8 * sizeof(T) + 6) / 7);
  std::vector<T> v(n);
  for (auto& x : v) {
    unsigned len = 1;
    if (mix == 1) len = longest;
    if (mix == 2) {
      const unsigned pick[] = {1, 2, 3, 5, longest};
      len = std::min(pick[rng() % 5], longest);
    }
    if (mix == 3 && rng() % 7 == 0) len = longest;
    x = of_length<T>(len, rng);
  }
  return v;
}

// Decodes `bytes` into a vector<T> and the reference vector<One<T>>, both
// holding `old` first, through a BufferView and a stream: everything alike.
template <class T>
void expect_same_reading(const std::vector<std::byte>& bytes, const std::vector<T>& old) {
  {
    BufferView vv(bytes), vr(bytes);
    std::vector<T> v = old;
    std::vector<One<T>> ref = as_ones(old);
    const bool ok = deserialize<compact>(vv, v);
    ASSERT_EQ(ok, deserialize<compact>(vr, ref)) << to_hex(bytes);
    EXPECT_EQ(vv.last_error(), vr.last_error()) << to_hex(bytes);
    EXPECT_EQ(vv.read_position(), vr.read_position());
    ASSERT_EQ(v.size(), ref.size()) << to_hex(bytes);
    EXPECT_TRUE(as_ones(v) == ref) << to_hex(bytes);
  }
  {
    StreamSource sv(bytes), sr(bytes);
    std::vector<T> v = old;
    std::vector<One<T>> ref = as_ones(old);
    const bool ok = deserialize<compact>(sv, v);
    ASSERT_EQ(ok, deserialize<compact>(sr, ref));
    EXPECT_EQ(sv.last_error(), sr.last_error());
    EXPECT_TRUE(as_ones(v) == ref);
  }
}

template <class T>
void round_trips(std::mt19937_64& rng) {
  for (const std::size_t n : sizes)
    for (int mix = 0; mix < 4; ++mix) {
      SCOPED_TRACE("n " + std::to_string(n) + " mix " + std::to_string(mix));
      const std::vector<T> v = values<T>(n, mix, rng);
      const auto bytes = expect_round_trip<compact>(v);
      ASSERT_EQ(to_hex(bytes), to_hex(encode<compact>(as_ones(v))));
      // Into targets that are shorter, as long and longer.
      for (const std::size_t have : {std::size_t{0}, n / 2, n, n + 5}) {
        std::vector<T> out = values<T>(have, 2, rng);
        BufferView view(bytes);
        ASSERT_TRUE(deserialize<compact>(view, out));
        EXPECT_TRUE(out == v);
      }
    }
}

TEST(CompactVectorGroups, RoundTripsAroundGroupBoundaries) {
  std::mt19937_64 rng(32);
  round_trips<std::uint16_t>(rng);
  round_trips<std::int16_t>(rng);
  round_trips<std::uint32_t>(rng);
  round_trips<std::int32_t>(rng);
  round_trips<std::uint64_t>(rng);
  round_trips<std::int64_t>(rng);
  round_trips<Code>(rng);
}

TEST(CompactVectorGroups, GoldenBytes) {
  // Nine elements: two groups of four (one-byte, then mixed lengths) and one
  // more. 1, 300 (2 bytes), 2^14 (3), 2^28 (5).
  const std::vector<std::uint32_t> v{0, 1, 2, 127, 1, 300, 1U << 14, 1U << 28, 5};
  EXPECT_EQ(hex_of<compact>(v), "09" "0001027f" "01ac02808001808080800105");
  // Four five-byte values (the 4x5 group path) and two one-byte ones.
  const std::vector<std::int32_t> w{-2147483647 - 1, 2147483647, -1000000000, 1000000000, -1, 1};
  EXPECT_EQ(hex_of<compact>(w), "06" "ffffffff0f" "feffffff0f" "ffa7d6b907" "80a8d6b907" "01" "02");
  const std::vector<std::uint64_t> big{~0ULL, 0, 0, 0};
  EXPECT_EQ(hex_of<compact>(big), "04" "ffffffffffffffffff01" "000000");
  EXPECT_EQ(hex_of<compact>(std::vector<std::int16_t>{-1, 1, -32768, 32767, 64}),
            "05" "0102" "ffff03" "feff03" "8001");
}

// Every truncation and single-byte corruption of a mixed encoding, decoded
// into targets of several sizes: the same as element by element.
template <class T>
void same_failures(std::size_t n, std::mt19937_64& rng) {
  const std::vector<T> v = values<T>(n, 2, rng);
  const std::vector<std::byte> good = encode<compact>(v);
  const std::vector<std::vector<T>> olds = {
      {}, values<T>(n / 2 + 1, 0, rng), values<T>(n + 3, 2, rng)};
  for (const auto& old : olds) {
    for (std::size_t len = 0; len <= good.size(); ++len)
      expect_same_reading<T>(
          std::vector<std::byte>(good.begin(), good.begin() + static_cast<std::ptrdiff_t>(len)),
          old);
    const std::byte replacements[] = {std::byte{0x00}, std::byte{0x01}, std::byte{0x0F},
                                      std::byte{0x10}, std::byte{0x7F}, std::byte{0x80},
                                      std::byte{0xFF}};
    for (std::size_t at = 0; at < good.size(); ++at) {
      std::vector<std::byte> bytes = good;
      bytes[at] = replacements[rng() % std::size(replacements)];
      expect_same_reading<T>(bytes, old);
    }
  }
}

TEST(CompactVectorGroups, FailuresKeepWhatDecoded) {
  std::mt19937_64 rng(1127);
  for (const std::size_t n : {1u, 3u, 4u, 5u, 8u, 9u, 17u, 65u}) {
    same_failures<std::uint32_t>(n, rng);
    same_failures<std::int32_t>(n, rng);
    same_failures<std::uint16_t>(n, rng);
    same_failures<std::int64_t>(n, rng);
  }
}

TEST(CompactVectorGroups, RandomHostileBytes) {
  // Rich in continuation bytes, with counts that claim more than is there.
  std::mt19937_64 rng(20261128);
  const std::byte palette[] = {std::byte{0x00}, std::byte{0x01}, std::byte{0x7F},
                               std::byte{0x80}, std::byte{0x81}, std::byte{0xFF}};
  for (int round = 0; round < 3000; ++round) {
    std::vector<std::byte> bytes(1 + rng() % 40);
    for (auto& b : bytes)
      b = rng() % 3 == 0 ? static_cast<std::byte>(rng()) : palette[rng() % std::size(palette)];
    bytes[0] = static_cast<std::byte>(rng() % 24);
    const std::vector<std::uint32_t> old(rng() % 12, 77U);
    expect_same_reading<std::uint32_t>(bytes, old);
    expect_same_reading<std::int64_t>(bytes, std::vector<std::int64_t>(old.size(), -5));
    expect_same_reading<std::uint16_t>(bytes, std::vector<std::uint16_t>(old.size(), 9));
  }
}

TEST(CompactVectorGroups, FailureInTheMiddleOfAGroup) {
  // Elements 0-3 decode as a group, 4 and 5 decode, 6 is overlong: the
  // vector keeps 0-5 and element 6 as it was (here appended: 0), error at
  // element 6's first byte.
  const auto bytes = from_hex("09" "01020304" "05" "06" "8000" "0809");
  BufferView view(bytes);
  std::vector<std::uint32_t> v;
  EXPECT_FALSE(deserialize<compact>(view, v));
  EXPECT_EQ(view.last_error().code, errc::invalid_value);
  EXPECT_EQ(view.last_error().offset, 7u);
  EXPECT_EQ(view.read_position(), 0u);
  EXPECT_EQ(v, (std::vector<std::uint32_t>{1, 2, 3, 4, 5, 6, 0}));
  // Into a vector that held ten: element 6 keeps its old value, 7 on are gone.
  BufferView again(bytes);
  std::vector<std::uint32_t> held(10, 99);
  EXPECT_FALSE(deserialize<compact>(again, held));
  EXPECT_EQ(held, (std::vector<std::uint32_t>{1, 2, 3, 4, 5, 6, 99}));
  // Truncated inside the second group: the element cut off is the last kept.
  expect_decode_error<std::vector<std::uint32_t>, compact>("06" "01020304" "05" "80",
                                                           errc::truncated, 6);
  // A 10th byte that overflows a 64-bit value, as the third element.
  expect_decode_error<std::vector<std::uint64_t>, compact>(
      "05" "0102" "ffffffffffffffffff02" "0304", errc::invalid_value, 3);
  // Too big for 16 bits (a third byte above 3), as the fifth element.
  expect_decode_error<std::vector<std::uint16_t>, compact>("05" "01020304" "ffff04",
                                                           errc::invalid_value, 5);
}

TEST(CompactVectorGroups, OneByteGroupsThenALongerValue) {
  // Groups of one-byte values are read without a bounds check each while the
  // input holds a byte for each element left (format/format.hpp,
  // get_scalar_run); a longer value ends that. One longer value at every
  // index, every truncation, into vectors that are shorter (they grow, a run
  // at a time) and as long: the same as element by element.
  std::mt19937_64 rng(4);
  for (const std::size_t n : {4u, 5u, 8u, 9u, 13u, 16u, 17u, 33u}) {
    for (std::size_t at = 0; at < n; ++at) {
      std::vector<std::uint32_t> v = values<std::uint32_t>(n, 0, rng);
      v[at] = of_length<std::uint32_t>(2 + static_cast<unsigned>(rng() % 4), rng);
      const std::vector<std::byte> good = encode<compact>(v);
      for (const std::size_t have : {std::size_t{0}, std::size_t{1}, n / 2, n}) {
        const std::vector<std::uint32_t> old = values<std::uint32_t>(have, 0, rng);
        for (std::size_t len = 0; len <= good.size(); ++len)
          expect_same_reading<std::uint32_t>(
              std::vector<std::byte>(good.begin(), good.begin() + static_cast<std::ptrdiff_t>(len)),
              old);
      }
    }
  }
}

TEST(CompactVectorGroups, HostileCountAllocatesNothingLarge) {
  // A count of 2^40 with four bytes after it: refused before any element.
  expect_decode_error<std::vector<std::uint64_t>, compact>("8080808080200102", errc::truncated, 0);
  std::vector<std::byte> bytes = from_hex("ffffff07"); // 16M elements claimed...
  bytes.resize(bytes.size() + 1000, std::byte{0x01});  // ...1000 present
  BufferView view(bytes);
  std::vector<std::uint64_t> v;
  EXPECT_FALSE(deserialize<compact>(view, v));
  EXPECT_EQ(view.last_error().code, errc::truncated);
  EXPECT_LE(v.capacity() * sizeof(std::uint64_t), 2 * 64 * 1024u);
}

TEST(CompactVectorGroups, CheckedElementsStayElementByElement) {
  // A ranged enum's elements and bools are checked one by one, as before.
  expect_decode_error<std::vector<Ranged>, compact>("050102030401", errc::invalid_value, 4);
  expect_decode_error<std::vector<bool>, compact>("050100010200", errc::invalid_value, 4);
  expect_round_trip<compact>(std::vector<Ranged>(9, Ranged::high));
}

} // namespace
