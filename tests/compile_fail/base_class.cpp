// A struct with a base class: structured bindings cannot see the base's
// members. One static_assert names the type and shows the reflect() to write
// (it used to be dozens of lines of structured-binding errors).
// EXPECT-ERROR: has a base class
// EXPECT-ERROR: reflect\(V&& v\)
// EXPECT-ERROR: Derived
#include <bin_serializer/bin_serializer.hpp>

#include <string>

struct Base {
  int id = 0;
};

struct Derived : Base {
  std::string name;
#ifdef BIN_SERIALIZER_CF_CONTROL
  template <class V> auto reflect(V&& v) { return v(id, name); }
  template <class V> auto reflect(V&& v) const { return v(id, name); }
#endif
};

int main() {
  bin_serializer::Buffer buf;
  Derived d;
  d.id = 1;
  d.name = "x";
  if (!serialize(buf, d)) return 1;
  return deserialize(buf, d) ? 0 : 1;
}
