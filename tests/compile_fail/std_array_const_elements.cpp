// A std::array of const elements cannot be decoded into, even when its
// elements are one copy of bytes (the codec's block read, and the direct read
// from a BufferView, core/decode.hpp): one message that says what to write.
// EXPECT-ERROR: cannot deserialize into std::array<const T, N>
#include <bin_serializer/bin_serializer.hpp>
#include <bin_serializer/std/array.hpp>

#include <array>
#include <cstddef>
#include <cstdint>

#ifndef BIN_SERIALIZER_CF_CONTROL
using Gains = std::array<const std::int32_t, 4>;
#else
using Gains = std::array<std::int32_t, 4>;
#endif

int main() {
  const std::array<std::byte, 16> bytes{};
  bin_serializer::BufferView view(bytes);
  Gains out{};
  return deserialize(view, out) ? 0 : 1;
}
