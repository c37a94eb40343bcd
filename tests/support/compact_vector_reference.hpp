// The reference the compact vector-of-varints tests hold the group, block and
// run paths to (tests/format/test_compact_vector_groups.cpp,
// test_compact_varint_runs.cpp): a vector of one-field structs, which has the
// same bytes and is still decoded element by element (std/vector.hpp).
#pragma once

#include "std_codec_test_support.hpp"

#include <cstdint>
#include <random>
#include <type_traits>
#include <vector>

namespace compact_vector_reference {

// One element, element by element.
template <class T>
struct One {
  T v{};
  bool operator==(const One&) const = default;
};

template <class T>
std::vector<One<T>> as_ones(const std::vector<T>& v) {
  std::vector<One<T>> out;
  for (const T& x : v) out.push_back({x});
  return out;
}

// A value of T (an integer or an enum) whose varint takes `bytes` bytes, at
// most the type's longest; signed types are zigzag-coded.
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
  // The same length for w / 2 with the sign in bit 0.
  if constexpr (std::is_signed_v<T>) {
    using S = std::make_signed_t<U>;
    return static_cast<T>((w & 1U) ? static_cast<S>(~(w >> 1)) : static_cast<S>(w >> 1));
  } else {
    return static_cast<T>(w);
  }
}

// Decodes `bytes` into a vector<T> and the reference vector<One<T>>, both
// holding `old` first, through a BufferView and a stream: the same result,
// error, offset, read position and elements kept.
template <class T>
void expect_same_reading(const std::vector<std::byte>& bytes, const std::vector<T>& old) {
  using namespace bin_serializer;
  using std_codec_test::to_hex;
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
    std_codec_test::StreamSource sv(bytes), sr(bytes);
    std::vector<T> v = old;
    std::vector<One<T>> ref = as_ones(old);
    const bool ok = deserialize<compact>(sv, v);
    ASSERT_EQ(ok, deserialize<compact>(sr, ref));
    EXPECT_EQ(sv.last_error(), sr.last_error());
    EXPECT_TRUE(as_ones(v) == ref);
  }
}

} // namespace compact_vector_reference
