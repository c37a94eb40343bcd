// Decoding from a BufferView, a value of object bytes takes the view's read()
// (core/decode.hpp, read_object_directly). A const member one level down, in
// a nested struct, must still be refused there: the bytes would overwrite a
// const object.
// EXPECT-ERROR: cannot deserialize into a trivially copyable type with a const member
#include <bin_serializer/bin_serializer.hpp>

#include <array>
#include <cstddef>
#include <cstdint>

struct Calibration {
#ifndef BIN_SERIALIZER_CF_CONTROL
  const double gain = 0.5;
#else
  double gain = 0.5;
#endif
};

struct Reading {
  std::int32_t raw = 0;
  Calibration calibration;
};

int main() {
  const std::array<std::byte, sizeof(Reading)> bytes{};
  bin_serializer::BufferView view(bytes);
  Reading out;
  return deserialize(view, out) && out.raw == 0 ? 0 : 1;
}
