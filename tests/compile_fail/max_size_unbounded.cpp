// A std::string has no compile-time bound on its encoding, so
// max_serialized_size_v is not defined for it (nor for anything holding one).
// EXPECT-ERROR: BoundedSize
#include <bin_serializer/bin_serializer.hpp>

#include <cstdint>
#include <string>

#ifndef BIN_SERIALIZER_CF_CONTROL
constexpr std::size_t n = bin_serializer::max_serialized_size_v<std::string>;
#else
constexpr std::size_t n = bin_serializer::max_serialized_size_v<std::uint64_t>;
#endif

int main() { return n == 0 ? 1 : 0; }
