// The encoder's and decoder's fast paths give the same bytes and values as
// the plain ones, at every size they switch on:
//   - detail::copy_bytes and copy_string_bytes (0..16 bytes inline, then
//     memcpy) and copy_fixed<N>;
//   - string decode into a reused string: same length (copy only), shorter,
//     longer within capacity, and growing past the small-string buffer (the
//     reallocation must copy exactly n characters: libstdc++ 12's
//     resize_and_overwrite passes the grown capacity instead);
//   - the presized writer (exact size reserved once) against a write()-only
//     output, which encodes through checked writes;
//   - runs whose adjacent fields are one copy: padded aggregates, reflect()
//     types listing fields out of memory order, portable format;
//   - recursive types (outlined past inline_nesting_limit) round-trip.
#include <bin_serializer/bin_serializer.hpp>
#include <bin_serializer/format/copy.hpp>
#include <bin_serializer/std/all.hpp>

#include <gtest/gtest.h>

#include <array>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "test_util.hpp"

namespace bs = bin_serializer;
using test_util::WriteOnlySink;

namespace {

// copy_bytes and copy_string_bytes (the same copies, tested in another order).
template <class Copy>
void check_every_size_up_to_64(Copy copy) {
  std::array<unsigned char, 80> src{};
  for (std::size_t i = 0; i < src.size(); ++i) src[i] = static_cast<unsigned char>(i * 7 + 1);
  for (std::size_t n = 0; n <= 64; ++n) {
    std::array<unsigned char, 80> dst{};
    dst.fill(0xEE);
    copy(dst.data() + 1, src.data() + 3, n);
    EXPECT_EQ(dst[0], 0xEE) << n; // nothing before
    for (std::size_t i = 0; i < n; ++i)
      ASSERT_EQ(dst[1 + i], src[3 + i]) << "n " << n << " i " << i;
    for (std::size_t i = 1 + n; i < dst.size(); ++i)
      ASSERT_EQ(dst[i], 0xEE) << "n " << n; // nothing after
  }
}

TEST(CopyBytes, EverySizeUpTo64CopiesExactlyNBytes) {
  check_every_size_up_to_64(
      [](void* d, const void* s, std::size_t n) { bs::detail::copy_bytes(d, s, n); });
  check_every_size_up_to_64(
      [](void* d, const void* s, std::size_t n) { bs::detail::copy_string_bytes(d, s, n); });
}

template <std::size_t N>
void check_copy_fixed() {
  std::array<unsigned char, N + 2> src{}, dst{};
  for (std::size_t i = 0; i < src.size(); ++i) src[i] = static_cast<unsigned char>(i + 1);
  dst.fill(0xEE);
  bs::detail::copy_fixed<N>(dst.data() + 1, src.data());
  EXPECT_EQ(dst[0], 0xEE);
  for (std::size_t i = 0; i < N; ++i) EXPECT_EQ(dst[1 + i], src[i]) << N;
  EXPECT_EQ(dst[N + 1], 0xEE) << N;
}

TEST(CopyBytes, FixedSizesAroundTheSixteenByteSteps) {
  check_copy_fixed<1>();
  check_copy_fixed<15>();
  check_copy_fixed<16>();
  check_copy_fixed<17>();
  check_copy_fixed<25>();
  check_copy_fixed<32>();
  check_copy_fixed<42>();
  check_copy_fixed<63>();
  check_copy_fixed<64>();
  check_copy_fixed<65>();
}

std::string text(std::size_t n, char first) {
  std::string s(n, ' ');
  for (std::size_t i = 0; i < n; ++i) s[i] = static_cast<char>(first + static_cast<char>(i % 26));
  return s;
}

TEST(StringDecode, IntoAReusedStringOfEveryLengthPair) {
  // Old length x new length across the small-string buffer (15) and the
  // inline-copy steps (4, 8, 16): the result is exactly the new string.
  const std::size_t lengths[] = {0, 1, 3, 4, 7, 8, 15, 16, 17, 20, 31, 40, 100};
  for (std::size_t before : lengths) {
    for (std::size_t after : lengths) {
      const std::string in = text(after, 'a');
      bs::Buffer buf;
      ASSERT_TRUE(serialize(buf, in));
      std::string out = text(before, 'A');
      bs::BufferView view(buf.bytes());
      ASSERT_TRUE(deserialize(view, out)) << before << " -> " << after;
      EXPECT_EQ(out, in) << before << " -> " << after;
      EXPECT_EQ(out.size(), after);
      EXPECT_EQ(out.c_str()[after], '\0'); // terminated
      EXPECT_EQ(view.read_position(), buf.size());
    }
  }
}

TEST(StringDecode, GrowingPastTheSmallBufferCopiesOnlyTheString) {
  // The string is followed by bytes it must not take: a short string whose
  // reallocation rounds the capacity up (15 -> 30) must still be 20 long.
  struct Msg {
    std::string s;
    std::uint32_t tail;
    bool operator==(const Msg&) const = default;
  };
  const Msg in{text(20, 'k'), 0xA1B2C3D4u};
  bs::Buffer buf;
  ASSERT_TRUE(serialize(buf, in));
  Msg out{};
  bs::BufferView view(buf.bytes());
  ASSERT_TRUE(deserialize(view, out));
  EXPECT_EQ(out, in);
  EXPECT_EQ(out.s.size(), 20u);
}

TEST(StringDecode, ATruncatedStringLeavesNoPartialRead) {
  bs::Buffer buf;
  ASSERT_TRUE(serialize(buf, text(40, 'a')));
  for (std::size_t cut = 0; cut < buf.size(); ++cut) {
    std::string out = "keep";
    bs::BufferView view(buf.data(), cut);
    EXPECT_FALSE(deserialize(view, out)) << cut;
    EXPECT_EQ(view.read_position(), 0u);
    EXPECT_EQ(view.last_error().code, bs::errc::truncated) << cut;
  }
}

struct Padded { // fields not back to back: 1 + 3 padding + 4, 2 + 6 padding + 8
  std::uint8_t a;
  std::uint32_t b;
  std::uint16_t c;
  std::uint64_t d;
  std::string name;
  bool operator==(const Padded&) const = default;
};

struct Reordered { // reflect() lists fields out of memory order
  std::uint32_t x = 0, y = 0, z = 0;
  std::string tag;
  template <class V> auto reflect(V&& v) { return v(z, x, y, tag); }
  template <class V> auto reflect(V&& v) const { return v(z, x, y, tag); }
  bool operator==(const Reordered&) const = default;
};

struct Inner {
  std::int16_t h;
  float f;
  bool operator==(const Inner&) const = default;
};

struct Mixed {
  std::int64_t t;
  std::uint64_t serial;
  std::uint16_t year;
  bool flag;
  char code;
  std::array<std::uint32_t, 4> numbers;
  std::optional<std::int32_t> maybe;
  std::vector<Inner> inners;
  std::variant<std::monostate, std::string, double> v;
  std::map<std::string, std::vector<std::uint16_t>> index;
  bool operator==(const Mixed&) const = default;
};

template <bs::options Opts, class T>
void expect_same_as_checked_writes(const T& value) {
  bs::Buffer fast;
  ASSERT_TRUE(serialize<Opts>(fast, value));
  EXPECT_EQ(fast.size(), bs::serialized_size<Opts>(value));
  WriteOnlySink slow; // no direct access: every field through write()
  ASSERT_TRUE(bs::serialize<Opts>(slow, value));
  EXPECT_EQ(test_util::hex(fast.bytes()), test_util::hex(slow.bytes));
  T back{};
  bs::BufferView view(fast.bytes());
  ASSERT_TRUE(deserialize<Opts>(view, back));
  EXPECT_EQ(back, value);
  EXPECT_EQ(view.read_position(), fast.size());
}

Mixed make_mixed() {
  return {.t = -5,
          .serial = 77,
          .year = 2024,
          .flag = true,
          .code = 'Q',
          .numbers = {1, 2, 3, 4},
          .maybe = 9,
          .inners = {{1, 1.5f}, {-2, 2.5f}},
          .v = std::string("alt"),
          .index = {{"a", {1, 2}}, {"bb", {}}}};
}

TEST(PresizedWriter, SameBytesAsCheckedWritesInBothFormats) {
  const Padded p{1, 0x02030405u, 0x0607u, 0x08090A0B0C0D0E0FULL, "pad"};
  const Reordered r{1, 2, 3, "re"};
  const Mixed m = make_mixed();
  expect_same_as_checked_writes<bs::native>(p);
  expect_same_as_checked_writes<bs::portable>(p);
  expect_same_as_checked_writes<bs::native>(r);
  expect_same_as_checked_writes<bs::portable>(r);
  expect_same_as_checked_writes<bs::native>(m);
  expect_same_as_checked_writes<bs::portable>(m);
}

TEST(PresizedWriter, PortablePaddedFieldsAreTheirValuesOnly) {
  // Golden bytes: no padding, little-endian, fields in declaration order.
  const Padded p{1, 0x02030405u, 0x0607u, 0x08090A0B0C0D0E0FULL, "pad"};
  bs::Buffer buf;
  ASSERT_TRUE(serialize<bs::portable>(buf, p));
  EXPECT_EQ(test_util::hex(buf.bytes()),
            "01" "05040302" "0706" "0f0e0d0c0b0a0908" "0300000000000000" "706164");
  const Reordered r{1, 2, 3, "re"};
  buf.clear();
  ASSERT_TRUE(serialize<bs::portable>(buf, r));
  EXPECT_EQ(test_util::hex(buf.bytes()), "03000000" "01000000" "02000000" "0200000000000000" "7265");
}

TEST(PresizedWriter, AFullFixedBufferFailsWithoutWriting) {
  const Mixed m = make_mixed();
  const std::size_t need = bs::serialized_size(m);
  bs::FixedBuffer<64> small; // smaller than the message
  ASSERT_LT(small.capacity(), need);
  EXPECT_FALSE(serialize(small, m));
  EXPECT_EQ(small.size(), 0u);
  EXPECT_EQ(small.last_error().code, bs::errc::buffer_full);
}

#if defined(__cpp_exceptions)
// Moving it throws, which leaves a variant valueless; reflect() keeps it a
// type the library sizes itself, so the presized writer is the one failing.
struct MoveThrows {
  std::int32_t x = 0;
  MoveThrows() = default;
  MoveThrows(const MoveThrows&) = default;
  MoveThrows(MoveThrows&&) { throw 1; }
  MoveThrows& operator=(const MoveThrows&) = default;
  MoveThrows& operator=(MoveThrows&&) = default;
  template <class V> auto reflect(V&& v) { return v(x); }
  template <class V> auto reflect(V&& v) const { return v(x); }
};

TEST(PresizedWriter, AValuelessVariantFailsAndRollsBackTheBuffer) {
  struct Holder {
    std::string before;
    std::variant<int, MoveThrows> v;
  };
  static_assert(bs::detail::presizable<bs::native, Holder>());
  Holder h{"written first", 1};
  try {
    h.v.emplace<1>(MoveThrows{});
  } catch (int) {
  }
  ASSERT_TRUE(h.v.valueless_by_exception());
  bs::Buffer buf;
  ASSERT_TRUE(serialize(buf, std::string("keep")));
  const auto kept = test_util::to_vector(buf.bytes());
  EXPECT_FALSE(serialize(buf, h));
  EXPECT_EQ(buf.last_error().code, bs::errc::invalid_value);
  // The variant starts after the 8 + 13 bytes of `before`, after what was kept.
  EXPECT_EQ(buf.last_error().offset, kept.size() + 8 + 13);
  EXPECT_EQ(test_util::hex(buf.bytes()), test_util::hex(kept)); // nothing of h stays
}
#endif

struct Node {
  std::int32_t value = 0;
  std::vector<Node> children;
  bool operator==(const Node&) const = default;
};

TEST(Recursion, DeepTreesRoundTripThroughOutlinedCalls) {
  Node root{1, {}};
  Node* at = &root;
  for (int i = 0; i < 40; ++i) { // deeper than inline_nesting_limit
    at->children.push_back(Node{i, {}});
    at->children.push_back(Node{-i, {}});
    at = &at->children.front();
  }
  bs::Buffer buf;
  ASSERT_TRUE(serialize(buf, root));
  EXPECT_EQ(buf.size(), bs::serialized_size(root));
  Node back;
  bs::BufferView view(buf.bytes());
  ASSERT_TRUE(deserialize(view, back));
  EXPECT_EQ(back, root);
  static_assert(bs::detail::outline_element<Node>);
  static_assert(!bs::detail::outline_element<Mixed>);
}

} // namespace
