// std::shared_ptr at the top level: the smart-pointer message, naming the type.
// EXPECT-ERROR: smart pointer
// EXPECT-ERROR: shared_ptr
#include <bin_serializer/bin_serializer.hpp>

#include <memory>
#include <vector>

int main() {
  bin_serializer::Buffer buf;
#ifndef BIN_SERIALIZER_CF_CONTROL
  const auto p = std::make_shared<int>(3);
#else
  const std::vector<int> p{3};
#endif
  return serialize(buf, p) ? 0 : 1;
}
