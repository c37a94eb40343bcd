// The same refusal when decoding from a BufferView, whose read() a value of
// object bytes otherwise takes directly (core/decode.hpp,
// read_object_directly): a const member still does not compile.
// EXPECT-ERROR: cannot deserialize into a trivially copyable type with a const member
#include <bin_serializer/bin_serializer.hpp>

#include <array>
#include <cstddef>
#include <cstdint>

struct Sample {
#ifndef BIN_SERIALIZER_CF_CONTROL
  const std::uint32_t sensor = 3;
#else
  std::uint32_t sensor = 3;
#endif
  float value = 0.5f;
};

int main() {
  const std::array<std::byte, sizeof(Sample)> bytes{};
  bin_serializer::BufferView view(bytes);
  Sample out{};
  return deserialize(view, out) ? 0 : 1;
}
