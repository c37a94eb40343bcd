// Only the const reflect() exists: serializing works, deserializing cannot
// write the fields. One message, naming the type and the missing overload.
// EXPECT-ERROR: only const fields
// EXPECT-ERROR: add the non-const one
// EXPECT-ERROR: Quote
#include <bin_serializer/bin_serializer.hpp>

#include <string>

struct Quote {
  std::string symbol;
  double price = 0;
#ifdef BIN_SERIALIZER_CF_CONTROL
  template <class V> auto reflect(V&& v) { return v(symbol, price); }
#endif
  template <class V> auto reflect(V&& v) const { return v(symbol, price); }
};

int main() {
  bin_serializer::Buffer buf;
  Quote q{"ACME", 1.5};
  if (!serialize(buf, q)) return 1;
  return deserialize(buf, q) ? 0 : 1;
}
