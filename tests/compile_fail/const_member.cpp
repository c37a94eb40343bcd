// Deserializing must write every field reflect() lists, so a const member in
// the list is refused (serializing the same struct is fine).
// EXPECT-ERROR: cannot deserialize into a const object or const member
// EXPECT-ERROR: const_member_cannot_be_decoded<Account>
#include <bin_serializer/bin_serializer.hpp>

#include <string>

struct Account {
#ifndef BIN_SERIALIZER_CF_CONTROL
  const int id = 7;
#else
  int id = 7;
#endif
  std::string owner;
  template <class V> auto reflect(V&& v) { return v(id, owner); }
  template <class V> auto reflect(V&& v) const { return v(id, owner); }
};

int main() {
  bin_serializer::Buffer buf;
  Account in{7, "ann"};
  if (!serialize(buf, in)) return 1;
  Account out{7, ""};
  return deserialize(buf, out) ? 0 : 1;
}
