// A union with a pointer alternative: which member is live is unknown to the
// library, so its bytes (possibly an address) are not sent without an opt-in.
// EXPECT-ERROR: hides its members from the library
// EXPECT-ERROR: trivially_serializable<T> : std::true_type
// EXPECT-ERROR: Slot
#include <bin_serializer/bin_serializer.hpp>

#include <type_traits>

union Slot {
  long number;
  const char* text;
};

#ifdef BIN_SERIALIZER_CF_CONTROL
template <>
struct bin_serializer::trivially_serializable<Slot> : std::true_type {};
#endif

int main() {
  bin_serializer::FixedBuffer<64> buf;
  Slot s{};
  s.number = 5;
  return serialize(buf, s) ? 0 : 1;
}
