// The functions a codec provides are tied to its facts (core/codec_facts.hpp):
// .has_size = true with size() misspelt does not compile, where a codec found
// by name would silently measure every value by writing it. The control build
// spells it right.
// EXPECT-ERROR: has_size = true exactly when
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
  static constexpr codec_facts facts{.min_size = 8, .max_size = 8, .has_size = true};
  template <class W> static bool write(W& w, const Money& m) { return serialize_field(w, m.cents); }
  template <class R> static bool read(R& r, Money& m) { return deserialize_field(r, m.cents); }
#ifndef BIN_SERIALIZER_CF_CONTROL
  template <options Opts> static constexpr std::size_t sise(const Money&) { return 8; }
#else
  template <options Opts> static constexpr std::size_t size(const Money&) { return 8; }
#endif
};

int main() {
  bin_serializer::Buffer buf;
  return serialize(buf, Money{5}) && buf.size() == 8 ? 0 : 1;
}
