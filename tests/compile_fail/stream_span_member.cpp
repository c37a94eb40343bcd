// A std::span member (not only a top-level span or string_view) decoded from
// a stream adapter, which hands out copies of a block it then reuses: refused
// with one message naming Blob. The control reads the same bytes from a BufferView.
//
// EXPECT-ERROR: cannot deserialize this type \(named in this diagnostic\) from a stream
// EXPECT-ERROR: view_needs_contiguous_input<Blob>
// EXPECT-ERROR: std::vector instead of a span
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
