// A trivially copyable struct is decoded with one memcpy over the whole
// object, which would overwrite a const member: refused at compile time.
// EXPECT-ERROR: cannot deserialize into a trivially copyable type with a const member
#include <bin_serializer/bin_serializer.hpp>

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
  bin_serializer::FixedBuffer<64> buf;
  const Sample in{};
  if (!serialize(buf, in)) return 1;
  Sample out{};
  return deserialize(buf, out) ? 0 : 1;
}
