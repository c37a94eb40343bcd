// A trivially copyable struct with a base class used to be copied as a block
// without the library seeing the base's members; now it needs reflect() or
// the opt-in, and the message says both.
// EXPECT-ERROR: has a base class
// EXPECT-ERROR: trivially_serializable<T> : std::true_type
// EXPECT-ERROR: Point3
#include <bin_serializer/bin_serializer.hpp>

#include <type_traits>

struct Point2 {
  int x, y;
};
struct Point3 : Point2 {
  int z;
};
static_assert(std::is_trivially_copyable_v<Point3>);

#ifdef BIN_SERIALIZER_CF_CONTROL
template <>
struct bin_serializer::trivially_serializable<Point3> : std::true_type {};
#endif

int main() {
  bin_serializer::FixedBuffer<64> buf;
  const Point3 p{{1, 2}, 3};
  return serialize(buf, p) ? 0 : 1;
}
