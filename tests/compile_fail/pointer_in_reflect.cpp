// A struct that is not trivially copyable (it holds a std::string) and lists a
// raw pointer among its reflect() fields must be refused, on serialize and
// deserialize alike.
// EXPECT-ERROR: raw pointer cannot be serialized
#include <bin_serializer/bin_serializer.hpp>

#include <string>

struct Node {
  std::string name;
#ifndef BIN_SERIALIZER_CF_CONTROL
  int* next = nullptr;
#else
  int next = 0;
#endif
  template <class V> auto reflect(V&& v) { return v(name, next); }
  template <class V> auto reflect(V&& v) const { return v(name, next); }
};

static_assert(!std::is_trivially_copyable_v<Node>);

int main() {
  bin_serializer::Buffer buf;
  Node in{"n", {}};
  Node out;
  return serialize(buf, in) && deserialize(buf, out) ? 0 : 1;
}
