// A FixedBuffer with no storage could never hold a byte: refused at compile
// time with a message saying what to write instead.
// EXPECT-ERROR: FixedBuffer<0> can hold nothing
#include <bin_serializer/bin_serializer.hpp>

int main() {
#ifndef BIN_SERIALIZER_CF_CONTROL
  bin_serializer::FixedBuffer<0> buf;
#else
  bin_serializer::FixedBuffer<1> buf;
#endif
  return buf.size() == 0 ? 0 : 1;
}
