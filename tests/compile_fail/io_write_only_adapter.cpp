// An ostream_writer only writes: it has no read(), so it is not a
// ReadableBuffer and deserialize() does not accept it. Read through an
// istream_reader instead.
//
// EXPECT-ERROR: no matching function for call to .deserialize
#include <bin_serializer/bin_serializer.hpp>
#include <bin_serializer/io/stream.hpp>

#include <sstream>

int main() {
  std::stringstream ss;
  int v = 0;
#ifndef BIN_SERIALIZER_CF_CONTROL
  bin_serializer::ostream_writer in(ss);
#else
  bin_serializer::istream_reader in(ss);
#endif
  return bin_serializer::deserialize(in, v) ? 0 : 1;
}
