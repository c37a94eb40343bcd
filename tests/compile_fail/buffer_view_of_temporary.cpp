// A BufferView over a temporary std::vector<std::byte>: before, it converted
// through the std::span<const std::byte> constructor and dangled at once
// (every decode from it read freed memory). The control views a variable.
//
// EXPECT-ERROR: deleted
#include <bin_serializer/bin_serializer.hpp>

#include <cstddef>
#include <cstdint>
#include <vector>

std::vector<std::byte> receive() { return std::vector<std::byte>(8); }

int main() {
#ifndef BIN_SERIALIZER_CF_CONTROL
  bin_serializer::BufferView in(receive());
#else
  const std::vector<std::byte> bytes = receive();
  bin_serializer::BufferView in(bytes);
#endif
  std::uint64_t v = 0;
  return bin_serializer::deserialize(in, v) ? 0 : 1;
}
