// schema_hash_v cannot see inside a user codec: without a schema_id (or
// schema_equivalent) the error must say what to declare.
// EXPECT-ERROR: static constexpr std::uint64_t schema_id
// EXPECT-ERROR: schema_equivalent
// MAX-ERRORS: 3 clang-19 adds two errors: the diagnostic is raised inside the constant evaluation of schema_hash_v, which then is not a constant expression
// MAX-LINES: 56 the same three errors, with their notes
#include <bin_serializer/bin_serializer.hpp>

#include <cstdint>

struct Money {
  std::int64_t cents = 0;
};

template <>
struct bin_serializer::codec<Money> {
#ifdef BIN_SERIALIZER_CF_CONTROL
  static constexpr std::uint64_t schema_id = 0x4d6f6e6579;
#endif
  template <class W> static bool write(W& w, const Money& m) { return serialize_field(w, m.cents); }
  template <class R> static bool read(R& r, Money& m) { return deserialize_field(r, m.cents); }
};

int main() { return bin_serializer::schema_hash_v<Money> == 0 ? 1 : 0; }
