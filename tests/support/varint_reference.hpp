// What the compact vector-of-varints checks compare against, with no test
// framework, so that the unit tests (compact_vector_reference.hpp), the
// differential fuzz target (fuzz/fuzz_varint_runs.cpp) and its seeds
// (fuzz/make_corpus.cpp) share it: a one-field struct, which the library
// decodes element by element where a vector of its field is decoded in bulk,
// and values whose varints take a given number of bytes.
#pragma once

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
  out.reserve(v.size());
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

} // namespace compact_vector_reference
