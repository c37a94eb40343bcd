// versions<...> must be strictly increasing: <2, 2> lists one version twice.
// EXPECT-ERROR: strictly increasing
#include <bin_serializer/bin_serializer.hpp>

#include <cstdint>

struct Point {
  std::int32_t x = 0;
  std::int32_t y = 0;
};
#ifndef BIN_SERIALIZER_CF_CONTROL
template <>
struct bin_serializer::evolution<Point> : bin_serializer::versions<2, 2> {};
#else
template <>
struct bin_serializer::evolution<Point> : bin_serializer::versions<1, 2> {};
#endif

int main() {
  bin_serializer::Buffer buf;
  Point p;
  return deserialize(buf, p) ? 0 : 1;
}
