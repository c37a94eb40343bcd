// A sequence_view points into the input bytes, so it cannot be decoded from a
// source that hands out copies (a read()-only buffer, a stream adapter).
//
// EXPECT-ERROR: view_needs_contiguous_input<bin_serializer::sequence_view<
// EXPECT-ERROR: points into the input bytes
#include <bin_serializer/bin_serializer.hpp>
#include <bin_serializer/view/sequence_view.hpp>

#include <cstddef>
#include <cstring>
#include <string_view>

struct ReadOnly { // a buffer with read() only
  const std::byte* p = nullptr;
  std::size_t left = 0;
  bool read(void* dst, std::size_t n) {
    if (n > left) return false;
    std::memcpy(dst, p, n);
    p += n;
    left -= n;
    return true;
  }
};

int main() {
#ifndef BIN_SERIALIZER_CF_CONTROL
  ReadOnly in;
#else
  bin_serializer::BufferView in;
#endif
  bin_serializer::sequence_view<std::string_view> seq;
  return bin_serializer::deserialize(in, seq) ? 0 : 1;
}
