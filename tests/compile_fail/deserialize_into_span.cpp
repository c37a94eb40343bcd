// A std::span can be serialized (same bytes as a std::vector of its elements)
// but not deserialized into: it owns no storage. The error says to decode
// into a std::vector instead.
//
// EXPECT-ERROR: cannot deserialize into a std::span
// EXPECT-ERROR: std::vector
#include <bin_serializer/bin_serializer.hpp>
#include <bin_serializer/std/array.hpp>
#include <bin_serializer/std/vector.hpp>

#include <span>
#include <vector>

int main() {
  bin_serializer::Buffer buf;
  std::vector<int> storage(3);
#ifndef BIN_SERIALIZER_CF_CONTROL
  std::span<int> target(storage);
#else
  std::vector<int>& target = storage;
#endif
  return bin_serializer::deserialize(buf, target) ? 0 : 1;
}
