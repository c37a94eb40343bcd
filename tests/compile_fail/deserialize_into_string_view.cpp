// A std::string_view decodes zero-copy, pointing into the input, so it needs a
// contiguous source (Buffer, FixedBuffer, BufferView). From a stream (a buffer
// with only read()) it must not compile, and the error says what to use.
//
// EXPECT-ERROR: cannot deserialize this type \(named in this diagnostic\) from a stream
// EXPECT-ERROR: view_needs_contiguous_input<std::basic_string_view<char
// EXPECT-ERROR: std::string instead
#include <bin_serializer/bin_serializer.hpp>
#include <bin_serializer/std/string_view.hpp>

#include <cstddef>
#include <string>
#include <string_view>

struct Stream {
  bool read(void*, std::size_t) { return false; }
};

int main() {
  Stream in;
#ifndef BIN_SERIALIZER_CF_CONTROL
  std::string_view target;
#else
  std::string target;
#endif
  return bin_serializer::deserialize(in, target) ? 0 : 1;
}
