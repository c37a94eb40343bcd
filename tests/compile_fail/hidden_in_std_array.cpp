// A std::array of a type whose members the library cannot see, inside an
// otherwise plain struct: the array is copied with the struct only when its
// elements would be (the array's in_block, core/classify.hpp), so the struct
// is encoded field by field and the element gets its own diagnostic, naming
// it, instead of the struct being copied whole on a guess.
// EXPECT-ERROR: hides its members from the library
// EXPECT-ERROR: Handle
#include <bin_serializer/bin_serializer.hpp>

#include <array>
#include <cstdint>
#include <type_traits>

class Handle {
  std::uint32_t id_ = 0;

public:
  std::uint32_t id() const { return id_; }
};

#ifdef BIN_SERIALIZER_CF_CONTROL
template <>
struct bin_serializer::trivially_serializable<Handle> : std::true_type {};
#endif

struct Slots {
  std::int32_t used;
  std::array<Handle, 4> handles;
};

int main() {
  bin_serializer::FixedBuffer<64> buf;
  Slots s{};
  if (!serialize(buf, s)) return 1;
  return deserialize(buf, s) ? 0 : 1;
}
