// A std::span member (not only a top-level span or string_view) decoded from
// a stream adapter, which hands out copies of a block it then reuses: refused
// with the span's message. The control reads the same bytes from a BufferView.
//
// EXPECT-ERROR: cannot deserialize into a std::span from a stream
#include <bin_serializer/bin_serializer.hpp>
#include <bin_serializer/io/stream.hpp>

#include <cstddef>
#include <cstdint>
#include <span>
#include <sstream>

struct Blob {
  std::uint32_t id;
  std::span<const std::byte> bytes;
};

int main() {
#ifndef BIN_SERIALIZER_CF_CONTROL
  std::istringstream is;
  bin_serializer::istream_reader in(is);
#else
  bin_serializer::BufferView in;
#endif
  Blob b{};
  return bin_serializer::deserialize(in, b) ? 0 : 1;
}
