// An evolvable struct whose versions<...> does not end at its field count
// (a field was appended without publishing a version) must not compile, and
// the error must show the spelling to write.
// EXPECT-ERROR: versions<\.\.\.> must list each published version's field count
// EXPECT-ERROR: bin_serializer_evolution = bin_serializer::versions<2, 3>
#include <bin_serializer/bin_serializer.hpp>

#include <cstdint>
#include <string>

struct Config {
  std::uint32_t id = 0;
  std::string name;
  double ratio = 1.0;
#ifndef BIN_SERIALIZER_CF_CONTROL
  using bin_serializer_evolution = bin_serializer::versions<2>;
#else
  using bin_serializer_evolution = bin_serializer::versions<2, 3>;
#endif
};

int main() {
  bin_serializer::Buffer buf;
  return serialize(buf, Config{}) ? 0 : 1;
}
