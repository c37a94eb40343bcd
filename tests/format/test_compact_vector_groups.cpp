// A std::vector of varints in the compact format is written and read a group
// of elements at a time (format/format.hpp, put_scalar_run and
// get_scalar_run; std/codec_support.hpp, read_scalar_groups). Reference: a
// vector of one-field structs, which has the same bytes and still goes
// element by element (std/vector.hpp). Both must write the same bytes, and
// read the same bytes alike: the same result, error, offset and read
// position, and after a failure the same elements kept (those before the
// failing one, and that one as it was).
#include "compact_vector_reference.hpp"
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

} // namespace vector_groups_test

template <>
struct bin_serializer::enum_range<vector_groups_test::Ranged> {
  static constexpr auto min = vector_groups_test::Ranged::low;
  static constexpr auto max = vector_groups_test::Ranged::high;
};

namespace {

using namespace bin_serializer;
using namespace std_codec_test;
using namespace compact_vector_reference;
using vector_groups_test::Code;
using vector_groups_test::Ranged;

const std::size_t sizes[] = {0, 1, 2, 3, 4, 5, 7, 8, 9, 15, 16, 17, 63, 64, 65, 1000};

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

TEST(CompactVectorGroups, BlocksThenTheRestWithAndWithoutRoom) {
  // A vector's blocks of sixteen one- or two-byte values are read through the
  // caller's reader; what follows them through a run_reader as far as the
  // bytes left hold their largest encodings, the rest through the caller's
  // reader (std/codec_support.hpp, get_scalars_into). Blocks of each kind,
  // then 1 to 9 longest values, with and without 40 bytes after the vector
  // (which decide that): every truncation and a corruption of each byte of
  // the rest, into an empty vector and one as long: the same result, error,
  // offset, position and elements as element by element.
  std::mt19937_64 rng(1129);
  for (const int block_mix : {0, 1}) {
    for (const std::size_t blocks : {1u, 2u}) {
      for (const std::size_t tail : {1u, 3u, 4u, 5u, 9u}) {
        std::vector<std::uint32_t> v = values<std::uint32_t>(16 * blocks, 0, rng);
        if (block_mix == 1)
          for (auto& x : v) x = of_length<std::uint32_t>(2, rng);
        for (std::size_t k = 0; k < tail; ++k) v.push_back(of_length<std::uint32_t>(5, rng));
        const std::vector<std::byte> good = encode<compact>(v);
        const std::size_t rest_at = good.size() - 5 * tail; // the first longest value
        for (const std::size_t room : {std::size_t{0}, std::size_t{40}}) {
          SCOPED_TRACE("mix " + std::to_string(block_mix) + " blocks " + std::to_string(blocks) +
                       " tail " + std::to_string(tail) + " room " + std::to_string(room));
          std::vector<std::byte> padded = good;
          padded.resize(good.size() + room, std::byte{0x7F});
          for (const std::vector<std::uint32_t>& old :
               {std::vector<std::uint32_t>{}, std::vector<std::uint32_t>(v.size(), 7U)}) {
            expect_same_reading<std::uint32_t>(padded, old);
            for (std::size_t len = rest_at; len < good.size(); ++len)
              expect_same_reading<std::uint32_t>(
                  std::vector<std::byte>(good.begin(),
                                         good.begin() + static_cast<std::ptrdiff_t>(len)),
                  old);
            for (std::size_t at = rest_at; at < good.size(); ++at)
              for (const std::byte b : {std::byte{0x00}, std::byte{0x10}, std::byte{0x7F}}) {
                std::vector<std::byte> bytes = padded;
                bytes[at] = b;
                expect_same_reading<std::uint32_t>(bytes, old);
              }
          }
        }
      }
    }
  }
  // Golden: sixteen one-byte values, then a five-byte one whose fifth byte is
  // out of range, with room after it: invalid_value at its first byte, the
  // sixteen kept and the failing element as it was.
  std::string hex = "11";
  for (int i = 0; i < 16; ++i) hex += "05";
  hex += "ffffffff1f";
  hex += std::string(80, '0');
  const auto bytes = from_hex(hex);
  BufferView view(bytes);
  std::vector<std::uint32_t> got(17, 3U);
  EXPECT_FALSE(deserialize<compact>(view, got));
  EXPECT_EQ(view.last_error().code, errc::invalid_value);
  EXPECT_EQ(view.last_error().offset, 17u);
  std::vector<std::uint32_t> want(16, 5U);
  want.push_back(3U);
  EXPECT_EQ(got, want);
}

// Blocks of sixteen one-byte or two-byte values (format/leb128_blocks.hpp,
// on x86-64): golden bytes at the edges of those lengths, for every width
// and sign, vectors and std::arrays; and a value of another length at each
// index of a block, cut or not the shortest: the same as element by element.
TEST(CompactVectorGroups, BlocksOfSixteenGolden) {
  std::vector<std::int32_t> s(16);
  std::vector<std::uint16_t> u(16);
  std::vector<std::int64_t> l(17);
  std::string s_hex = "10", u_hex = "10", l_hex = "11";
  for (int i = 0; i < 16; ++i) {
    s[static_cast<std::size_t>(i)] =
        i % 2 == 0 ? -64 + i : 63 - i; // zigzag: 127 - 2i, 126 - 2i ...
    u[static_cast<std::size_t>(i)] = static_cast<std::uint16_t>(127 - i);
    l[static_cast<std::size_t>(i)] = i % 2 == 0 ? i : -i;
  }
  l[16] = -64;
  // Two bytes each: 128 ... 16383 (unsigned), -65 and 64 ... (zigzag).
  std::vector<std::uint32_t> pairs(16);
  std::vector<std::int16_t> spairs(16);
  std::string pairs_hex = "10", spairs_hex = "10";
  for (unsigned i = 0; i < 16; ++i) {
    const unsigned w = i == 0 ? 128 : i == 15 ? 16383 : 128 + i * 1000;
    pairs[i] = w;
    const int sv = i % 2 == 0 ? -65 - static_cast<int>(i) * 500 : 64 + static_cast<int>(i) * 500;
    spairs[i] = static_cast<std::int16_t>(sv);
    const unsigned z = static_cast<unsigned>(sv < 0 ? -2 * sv - 1 : 2 * sv);
    static const char* hexd = "0123456789abcdef";
    for (const unsigned b : {(w & 0x7Fu) | 0x80u, w >> 7})
      pairs_hex += std::string{hexd[b >> 4], hexd[b & 15]};
    for (const unsigned b : {(z & 0x7Fu) | 0x80u, z >> 7})
      spairs_hex += std::string{hexd[b >> 4], hexd[b & 15]};
  }
  EXPECT_EQ(pairs_hex.substr(0, 6), "108001");  // 128
  EXPECT_EQ(pairs_hex.substr(62, 4), "ff7f");   // 16383
  EXPECT_EQ(spairs_hex.substr(0, 6), "108101"); // -65 -> 129
  EXPECT_EQ(hex_of<compact>(pairs), pairs_hex);
  EXPECT_EQ(hex_of<compact>(spairs), spairs_hex);
  std::array<std::uint32_t, 16> pa{};
  std::copy(pairs.begin(), pairs.end(), pa.begin());
  EXPECT_EQ(hex_of<compact>(pa), pairs_hex.substr(2));
  expect_round_trip<compact>(pairs);
  expect_round_trip<compact>(spairs);
  expect_round_trip<compact>(pa);
  static const char* digits = "0123456789abcdef";
  auto byte_hex = [](unsigned b) { return std::string{digits[b >> 4], digits[b & 15]}; };
  for (int i = 0; i < 16; ++i) {
    const int v = s[static_cast<std::size_t>(i)];
    s_hex += byte_hex(static_cast<unsigned>(v < 0 ? -2 * v - 1 : 2 * v));
    u_hex += byte_hex(127u - static_cast<unsigned>(i));
    const int w = static_cast<int>(l[static_cast<std::size_t>(i)]);
    l_hex += byte_hex(static_cast<unsigned>(w < 0 ? -2 * w - 1 : 2 * w));
  }
  l_hex += "7f";
  EXPECT_EQ(hex_of<compact>(s), s_hex);
  EXPECT_EQ(hex_of<compact>(u), u_hex);
  EXPECT_EQ(hex_of<compact>(l), l_hex);
  EXPECT_EQ(s_hex.substr(0, 6), "107f7c"); // -64 -> 127, 62 -> 124
  std::array<std::int32_t, 16> a{};
  std::copy(s.begin(), s.end(), a.begin());
  EXPECT_EQ(hex_of<compact>(a), s_hex.substr(2));
  expect_round_trip<compact>(s);
  expect_round_trip<compact>(u);
  expect_round_trip<compact>(l);
  expect_round_trip<compact>(a);
}

// The same bytes (a vector's, without its one-byte count) read as a
// std::array<T, 32> and as one of one-field structs: the same result, error
// and elements decoded.
template <class T>
void expect_same_array_reading(const std::vector<std::byte>& vector_bytes) {
  const std::vector<std::byte> bytes(vector_bytes.begin() + 1, vector_bytes.end());
  BufferView va(bytes), vr(bytes);
  std::array<T, 32> a{};
  std::array<One<T>, 32> ref{};
  const bool ok = deserialize<compact>(va, a);
  ASSERT_EQ(ok, deserialize<compact>(vr, ref)) << to_hex(bytes);
  EXPECT_EQ(va.last_error(), vr.last_error()) << to_hex(bytes);
  if (ok) {
    for (std::size_t i = 0; i < 32; ++i) EXPECT_EQ(a[i], ref[i].v);
  }
}

// Vectors of one length class (`same`: values of one byte, or of two) with
// one value of another length at each index, and that value's bytes cut
// short or made not the shortest form.
template <class T>
void block_edges(const std::vector<T>& same, const std::vector<T>& other, std::mt19937_64& rng) {
  for (const std::size_t n : {16u, 17u, 32u, 35u, 48u}) {
    for (std::size_t at = 0; at < n; ++at) {
      std::vector<T> v(n);
      for (auto& x : v) x = same[rng() % same.size()];
      v[at] = other[rng() % other.size()];
      const std::vector<std::byte> good = encode<compact>(v);
      ASSERT_EQ(to_hex(good), to_hex(encode<compact>(as_ones(v))));
      const std::vector<T> old = values<T>(n / 2, 0, rng);
      expect_same_reading<T>(good, old);
      // Cut inside or right after the other value, or with a byte of it
      // replaced: truncated, not the shortest, a continuation too many.
      std::size_t first = 1; // after the count byte
      for (std::size_t i = 0; i < at; ++i) first += encode<compact>(One<T>{v[i]}).size();
      const std::size_t len = encode<compact>(One<T>{v[at]}).size();
      for (std::size_t cut = first; cut <= first + len && cut <= good.size(); ++cut)
        expect_same_reading<T>(
            std::vector<std::byte>(good.begin(), good.begin() + static_cast<std::ptrdiff_t>(cut)),
            old);
      for (const std::byte b : {std::byte{0x00}, std::byte{0x80}, std::byte{0xFF}}) {
        std::vector<std::byte> bad = good;
        bad[first + len - 1] = b;
        expect_same_reading<T>(bad, old);
        if (n == 32) expect_same_array_reading<T>(bad);
      }
      if (n == 32) {
        expect_same_array_reading<T>(good);
        expect_same_array_reading<T>(std::vector<std::byte>(
            good.begin(), good.begin() + static_cast<std::ptrdiff_t>(first)));
      }
    }
  }
}

template <class T>
void block_edges(std::mt19937_64& rng) {
  using I =
      std::conditional_t<std::is_enum_v<T>, std::underlying_type<T>, std::type_identity<T>>::type;
  // The edges of one and of two bytes (zigzag: -64..63 and -8192..8191;
  // unsigned: 0..127 and 128..16383), and the values just past them.
  if constexpr (std::is_signed_v<I>) {
    const std::vector<T> one{T(-64), T(63), T(0), T(-1)}, two{T(-65), T(64), T(-8192), T(8191)},
        three{T(-8193), T(8192)};
    block_edges<T>(one, two, rng);
    block_edges<T>(two, one, rng);
    block_edges<T>(two, three, rng);
  } else {
    const std::vector<T> one{T(0), T(127), T(1)}, two{T(128), T(16383), T(300)},
        three{T(16384), T(65535)};
    block_edges<T>(one, two, rng);
    block_edges<T>(two, one, rng);
    block_edges<T>(two, three, rng);
  }
}

TEST(CompactVectorGroups, BlocksOfSixteenWithAnotherLengthAtEveryIndex) {
  std::mt19937_64 rng(16);
  block_edges<std::int16_t>(rng);
  block_edges<std::uint16_t>(rng);
  block_edges<std::int32_t>(rng);
  block_edges<std::uint32_t>(rng);
  block_edges<std::int64_t>(rng);
  block_edges<std::uint64_t>(rng);
  block_edges<Code>(rng);
}

// Sixteen and more two-byte values (load_pairs): each byte of a block made
// another byte (a second byte of 0 is not the shortest form, one with its
// continuation bit makes a longer varint), every truncation: the same as
// element by element.
template <class T>
void two_byte_values_each_byte_changed(std::mt19937_64& rng) {
  for (const std::size_t n : {16u, 33u}) {
    const std::vector<T> v = values<T>(n, 0, rng);
    std::vector<T> w(n);
    for (auto& x : w) x = of_length<T>(2, rng);
    const std::vector<std::byte> good = encode<compact>(w);
    ASSERT_EQ(good.size(), 1 + 2 * n);
    for (std::size_t len = 0; len <= good.size(); ++len)
      expect_same_reading<T>(
          std::vector<std::byte>(good.begin(), good.begin() + static_cast<std::ptrdiff_t>(len)), v);
    for (std::size_t at = 1; at < good.size(); ++at)
      for (const std::byte b : {std::byte{0x00}, std::byte{0x01}, std::byte{0x7F}, std::byte{0x80},
                                good[at] ^ std::byte{0x80}}) {
        std::vector<std::byte> bytes = good;
        bytes[at] = b;
        expect_same_reading<T>(bytes, v);
        if (n == 33)
          expect_same_array_reading<T>(std::vector<std::byte>(bytes.begin(), bytes.end() - 2));
      }
  }
}

TEST(CompactVectorGroups, TwoByteValuesEachByteChanged) {
  std::mt19937_64 rng(2);
  two_byte_values_each_byte_changed<std::uint16_t>(rng);
  two_byte_values_each_byte_changed<std::int16_t>(rng);
  two_byte_values_each_byte_changed<std::uint32_t>(rng);
  two_byte_values_each_byte_changed<std::int32_t>(rng);
  two_byte_values_each_byte_changed<std::int64_t>(rng);
  two_byte_values_each_byte_changed<std::uint64_t>(rng);
}

// Four five-byte 32-bit values (the vector path of format/leb128_blocks.hpp):
// each byte of the 20 made a different byte, every truncation: the same as
// element by element; for std::array<std::int32_t, 4>, golden failures.
TEST(CompactVectorGroups, FourFiveByteValuesEachByteChanged) {
  std::mt19937_64 rng(45);
  for (int round = 0; round < 20; ++round) {
    std::vector<std::int32_t> v(8);
    for (auto& x : v) x = of_length<std::int32_t>(5, rng);
    const std::vector<std::byte> good = encode<compact>(v);
    ASSERT_EQ(good.size(), 41u);
    for (std::size_t len = 0; len <= good.size(); ++len)
      expect_same_reading<std::int32_t>(
          std::vector<std::byte>(good.begin(), good.begin() + static_cast<std::ptrdiff_t>(len)),
          {});
    for (std::size_t at = 1; at < good.size(); ++at)
      for (const std::byte b : {std::byte{0x00}, std::byte{0x01}, std::byte{0x0F}, std::byte{0x10},
                                std::byte{0x7F}, std::byte{0x80}, good[at] ^ std::byte{0x80}}) {
        std::vector<std::byte> bytes = good;
        bytes[at] = b;
        expect_same_reading<std::int32_t>(bytes, {});
      }
  }
  // std::array: a fifth byte of 0 (not the shortest) in the third value, and
  // of 0x10 (past 32 bits) in the fourth: refused at that value's first byte.
  const std::string four = "ffffffff0f" "feffffff0f" "ffa7d6b907" "80a8d6b907";
  EXPECT_EQ(hex_of<compact>(
                std::array<std::int32_t, 4>{-2147483647 - 1, 2147483647, -1000000000, 1000000000}),
            four);
  std::string bad = four;
  bad.replace(28, 2, "00");
  expect_decode_error<std::array<std::int32_t, 4>, compact>(bad, errc::invalid_value, 10);
  bad = four;
  bad.replace(38, 2, "10");
  expect_decode_error<std::array<std::int32_t, 4>, compact>(bad, errc::invalid_value, 15);
  expect_decode_error<std::array<std::int32_t, 4>, compact>(four.substr(0, 38), errc::truncated,
                                                            15);
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
