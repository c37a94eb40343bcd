// A std family type whose codec header is not included must not compile
// (it would otherwise be memcpy'd: layout depending on the include path).
// EXPECT-ERROR: serialized by a codec in its own header
#include <bin_serializer/buffer/buffer.hpp>
#include <bin_serializer/core/encode.hpp>
#include <bin_serializer/std/string.hpp>
#ifdef BIN_SERIALIZER_CF_CONTROL
#include <bin_serializer/std/optional.hpp>
#endif

#include <optional>

int main() {
  bin_serializer::Buffer buf;
  std::optional<int> value = 3;
  return serialize(buf, value) ? 0 : 1;
}
