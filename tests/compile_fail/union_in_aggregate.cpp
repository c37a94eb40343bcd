// The union hides inside a visible aggregate: the aggregate is no longer
// copied as a block, and the union member gets the same diagnostic.
// EXPECT-ERROR: hides its members from the library
// EXPECT-ERROR: Slot
#include <bin_serializer/bin_serializer.hpp>

#include <cstdint>
#include <type_traits>

union Slot {
  std::int64_t number;
  const char* text;
};

#ifdef BIN_SERIALIZER_CF_CONTROL
template <>
struct bin_serializer::trivially_serializable<Slot> : std::true_type {};
#endif

struct Cell {
  std::int32_t tag;
  Slot slot;
};

int main() {
  bin_serializer::FixedBuffer<64> buf;
  Cell c{};
  if (!serialize(buf, c)) return 1;
  return deserialize(buf, c) ? 0 : 1;
}
