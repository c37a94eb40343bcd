// A retired enum field writes E{}; when enum_range<E> excludes it, readers
// that still use the field would refuse every new message, so writing it
// does not compile (core/evolution_fields.hpp). The control names a value.
// EXPECT-ERROR: retired<E, E::some_valid_value>
// MAX-LINES: 45 clang-19 lists the whole instantiation chain (serialize, the evolvable struct, its field), 42 lines; GCC 21
#include <bin_serializer/bin_serializer.hpp>

#include <cstdint>

enum class Mode : std::uint8_t { off = 1, on = 2 };
template <>
struct bin_serializer::enum_range<Mode> {
  static constexpr Mode min = Mode::off;
  static constexpr Mode max = Mode::on;
};

struct Settings {
  std::uint32_t id = 0;
#ifndef BIN_SERIALIZER_CF_CONTROL
  [[no_unique_address]] bin_serializer::retired<Mode> mode;
#else
  [[no_unique_address]] bin_serializer::retired<Mode, Mode::off> mode;
#endif
  using bin_serializer_evolution = bin_serializer::versions<2>;
};

int main() {
  bin_serializer::Buffer out;
  return bin_serializer::serialize<bin_serializer::portable>(out, Settings{}) ? 0 : 1;
}
