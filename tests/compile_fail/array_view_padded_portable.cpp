// array_view<T> points at elements in the input, so T's encoding must be its
// object bytes. In the portable format a struct with padding is written field
// by field (no padding bytes), so an array_view of it must not compile; the
// error says to use a std::vector. (workloads::CarView is native-only for this
// reason.)
//
// EXPECT-ERROR: array_view<T> can only view elements whose encoding is their
// EXPECT-ERROR: std::vector<T> instead
#include <bin_serializer/bin_serializer.hpp>
#include <bin_serializer/view/array_view.hpp>

#include <cstdint>

struct Padded {
  std::uint16_t a;
  float b;
};

int main() {
  bin_serializer::Buffer buf;
  bin_serializer::array_view<Padded> target;
#ifndef BIN_SERIALIZER_CF_CONTROL
  return bin_serializer::deserialize<bin_serializer::portable>(buf, target) ? 0 : 1;
#else
  return bin_serializer::deserialize<bin_serializer::native>(buf, target) ? 0 : 1;
#endif
}
