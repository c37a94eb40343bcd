// A framed message of a type without a bound on its encoding (here one
// holding a std::string) has no max_message_size_v either.
// EXPECT-ERROR: BoundedSize
#include <bin_serializer/bin_serializer.hpp>

#include <cstdint>
#include <string>

struct Named {
  std::uint32_t id;
  std::string name;
};

#ifndef BIN_SERIALIZER_CF_CONTROL
constexpr std::size_t n = bin_serializer::max_message_size_v<Named>;
#else
constexpr std::size_t n = bin_serializer::max_message_size_v<std::uint64_t>;
static_assert(n == 24 + 8);
#endif

int main() { return n == 0 ? 1 : 0; }
