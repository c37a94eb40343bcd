// A codec with only write() and read() -- the form serializable.hpp documents
// for codec<Money> -- gives a type a wire layout. It declares no max_size, so
// the type has no compile-time bound: max_serialized_size_v must not compile.
// The control build checks the other half of the contract: such a codec works
// with every buffer, including the growable Buffer and inside a Reflectable.
// EXPECT-ERROR: BoundedSize
#include <bin_serializer/bin_serializer.hpp>

#include <cstddef>
#include <cstdint>
#include <string>

struct Money {
  std::int64_t cents = 0;
};

template <>
struct bin_serializer::codec<Money> {
  template <class W> static bool write(W& w, const Money& m) { return serialize_field(w, m.cents); }
  template <class R> static bool read(R& r, Money& m) { return deserialize_field(r, m.cents); }
};

struct Invoice {
  std::string customer;
  Money total;
  template <class V> auto reflect(V&& v) { return v(customer, total); }
  template <class V> auto reflect(V&& v) const { return v(customer, total); }
};

int main() {
#ifndef BIN_SERIALIZER_CF_CONTROL
  constexpr std::size_t bound = bin_serializer::max_serialized_size_v<Money>;
  return bound == 0 ? 0 : 1;
#else
  bin_serializer::Buffer buf;
  Money m{5};
  Invoice inv{"ann", {7}};
  Money m2;
  Invoice inv2;
  return serialize(buf, m) && serialize(buf, inv) && deserialize(buf, m2) && deserialize(buf, inv2)
             ? 0
             : 1;
#endif
}
