// A raw pointer at the top level has no wire layout: its value is an address
// in the writer's process.
// EXPECT-ERROR: raw pointer cannot be serialized
#include <bin_serializer/bin_serializer.hpp>

int main() {
  bin_serializer::Buffer buf;
  int value = 42;
#ifndef BIN_SERIALIZER_CF_CONTROL
  int* p = &value;
  return serialize(buf, p) ? 0 : 1;
#else
  return serialize(buf, value) ? 0 : 1;
#endif
}
