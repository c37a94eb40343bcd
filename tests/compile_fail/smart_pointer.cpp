// A std::unique_ptr member: no header makes it serializable, and the message
// must say what to do instead (not "include its header").
// EXPECT-ERROR: smart pointer
// EXPECT-ERROR: std::optional<T>
// EXPECT-ERROR: unique_ptr
#include <bin_serializer/bin_serializer.hpp>

#include <memory>
#include <optional>

struct Node {
  int value = 0;
#ifndef BIN_SERIALIZER_CF_CONTROL
  std::unique_ptr<int> extra;
#else
  std::optional<int> extra;
#endif
};

int main() {
  bin_serializer::Buffer buf;
  const Node n{};
  return serialize(buf, n) ? 0 : 1;
}
