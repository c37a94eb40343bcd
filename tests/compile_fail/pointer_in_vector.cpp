// A std::vector of raw pointers must not compile: the pointers' values are
// addresses in this process and mean nothing to the reader. The vector codec
// encodes its elements through serialize_field, which reaches the library's
// pointer diagnostic.
//
// EXPECT-ERROR: raw pointer cannot be serialized
#include <bin_serializer/bin_serializer.hpp>
#include <bin_serializer/std/vector.hpp>

#include <vector>

int main() {
  bin_serializer::Buffer buf;
#ifndef BIN_SERIALIZER_CF_CONTROL
  int x = 1;
  std::vector<int*> v{&x};
#else
  std::vector<int> v{1};
#endif
  return bin_serializer::serialize(buf, v) ? 0 : 1;
}
