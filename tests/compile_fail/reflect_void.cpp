// reflect() overloads that call the visitor but return void: the library
// cannot learn the field types nor stop at a failing field.
// EXPECT-ERROR: reflect\(\) member, but not both overloads returning the visitor's result
#include <bin_serializer/bin_serializer.hpp>

#include <string>

struct Quiet {
  std::string a;
  int b = 0;
#ifndef BIN_SERIALIZER_CF_CONTROL
  template <class V> void reflect(V&& v) { v(a, b); }
  template <class V> void reflect(V&& v) const { v(a, b); }
#else
  template <class V> auto reflect(V&& v) { return v(a, b); }
  template <class V> auto reflect(V&& v) const { return v(a, b); }
#endif
};

int main() {
  bin_serializer::Buffer buf;
  Quiet q{"x", 1};
  return serialize(buf, q) ? 0 : 1;
}
