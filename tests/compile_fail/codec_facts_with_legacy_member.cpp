// A codec that states facts (core/codec_facts.hpp) and also a 0.1-style
// member would lose that member silently: it does not compile. The control
// build states it as a field.
// EXPECT-ERROR: 0.1-style member
// MAX-LINES: 40 clang-19 prints the instantiation path from serialize() to the codec's facts (ten notes: the entry point, the classification walk that reads the facts, the check) and the compared values
#include <bin_serializer/bin_serializer.hpp>

#include <cstddef>
#include <cstdint>

struct Money {
  std::int64_t cents = 0;
};

template <>
struct bin_serializer::codec<Money> {
  using schema_equivalent = std::int64_t;
#ifndef BIN_SERIALIZER_CF_CONTROL
  static constexpr codec_facts facts{.min_size = 8};
  template <options Opts> static constexpr std::size_t max_size = 8;
#else
  static constexpr codec_facts facts{.min_size = 8, .max_size = 8};
#endif
  template <class W> static bool write(W& w, const Money& m) { return serialize_field(w, m.cents); }
  template <class R> static bool read(R& r, Money& m) { return deserialize_field(r, m.cents); }
};

int main() {
  bin_serializer::Buffer buf;
  return serialize(buf, Money{5}) && buf.size() == 8 ? 0 : 1;
}
