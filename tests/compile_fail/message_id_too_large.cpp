// A message type id is a std::uint32_t: a declared value that does not fit
// is refused, not truncated into another type's id.
// EXPECT-ERROR: must fit a std::uint32_t
#include <bin_serializer/bin_serializer.hpp>

#include <cstdint>

struct Order {
  std::uint64_t id;
#ifndef BIN_SERIALIZER_CF_CONTROL
  static constexpr std::uint64_t bin_serializer_message_id = 0x100000001ULL;
#else
  static constexpr std::uint64_t bin_serializer_message_id = 0xFFFFFFFFULL;
#endif
};

int main() { return bin_serializer::message_id_v<Order> == 1 ? 1 : 0; }
