// A trivially copyable struct is bulk-copied without visiting its fields, but
// when its reflect() lists a raw pointer the library still refuses it.
// EXPECT-ERROR: raw pointer cannot be serialized
#include <bin_serializer/bin_serializer.hpp>

#include <type_traits>

struct Link {
  int id = 0;
#ifndef BIN_SERIALIZER_CF_CONTROL
  const char* label = nullptr;
#else
  long label = 0;
#endif
  template <class V> auto reflect(V&& v) { return v(id, label); }
  template <class V> auto reflect(V&& v) const { return v(id, label); }
};

static_assert(std::is_trivially_copyable_v<Link>);

int main() {
  bin_serializer::FixedBuffer<64> buf;
  Link in{};
  return serialize(buf, in) ? 0 : 1;
}
