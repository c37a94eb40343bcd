// A codec's facts are one typed declaration (core/codec_facts.hpp): a misspelt
// field is a compile error, not a fact silently not found. The control build
// spells it right.
// EXPECT-ERROR: min_sise
#include <bin_serializer/bin_serializer.hpp>

#include <cstdint>

struct Money {
  std::int64_t cents = 0;
};

template <>
struct bin_serializer::codec<Money> {
  using schema_equivalent = std::int64_t;
#ifndef BIN_SERIALIZER_CF_CONTROL
  static constexpr codec_facts facts{.min_sise = 1, .max_size = 10};
#else
  static constexpr codec_facts facts{.min_size = 1, .max_size = 10};
#endif
  template <class W> static bool write(W& w, const Money& m) { return serialize_field(w, m.cents); }
  template <class R> static bool read(R& r, Money& m) { return deserialize_field(r, m.cents); }
};

int main() {
  bin_serializer::Buffer buf;
  Money back;
  return serialize(buf, Money{5}) && deserialize(buf, back) && back.cents == 5 ? 0 : 1;
}
