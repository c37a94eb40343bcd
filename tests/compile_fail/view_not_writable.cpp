// BufferView is a read-only cursor over someone else's bytes: it is not an
// output buffer.
// EXPECT-ERROR: WritableBuffer
#include <bin_serializer/bin_serializer.hpp>

#include <array>
#include <cstddef>

int main() {
  std::array<std::byte, 8> storage{};
  bin_serializer::BufferView view(storage);
  int value = 0;
#ifndef BIN_SERIALIZER_CF_CONTROL
  return serialize(view, value) ? 0 : 1;
#else
  return deserialize(view, value) ? 0 : 1;
#endif
}
