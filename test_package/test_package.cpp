// Consumer of the Conan package: a framed round trip through a growable
// Buffer (compiled part of the library) and the version macros.
#include <bin_serializer/bin_serializer.hpp>

#include <cstdio>
#include <string>
#include <vector>

struct Order {
  std::string symbol;
  std::vector<int> legs;
  bool operator==(const Order&) const = default;
};

int main() {
  const Order in{"ACME", {1, 2, 3}};
  bin_serializer::Buffer buf;
  Order out;
  if (!bin_serializer::serialize_message<bin_serializer::portable>(buf, in) ||
      !bin_serializer::deserialize_message<bin_serializer::portable>(buf, out) || !(out == in)) {
    std::puts("test_package: round trip FAILED");
    return 1;
  }
  std::printf("test_package: bin_serializer %d.%d.%d, %zu bytes round-tripped\n",
              BIN_SERIALIZER_VERSION_MAJOR, BIN_SERIALIZER_VERSION_MINOR,
              BIN_SERIALIZER_VERSION_PATCH, buf.size());
  return 0;
}
