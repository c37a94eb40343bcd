// A std::u16string_view decodes zero-copy, pointing at the characters in the
// input, so it needs them as this host's object bytes. In a format whose
// characters are in the other byte order (the test-only big-endian format on
// a little-endian host, portable on a big-endian one) decoding must not
// compile, and the error says what to use; encoding such a view works
// (tests/format/test_fourth_format.cpp).
//
// EXPECT-ERROR: does not store these characters as this host's object bytes
// EXPECT-ERROR: std::u16string\) instead
#include "../format/big_endian_format.hpp"

#include <bin_serializer/bin_serializer.hpp>
#include <bin_serializer/std/string_view.hpp>

#include <bit>
#include <string>
#include <string_view>

namespace bs = bin_serializer;

// The byte order that is not this host's.
constexpr bs::options foreign =
    std::endian::native == std::endian::little ? bs::test_formats::big_endian : bs::portable;

int main() {
  const unsigned char in[16] = {};
  bs::BufferView view(in, sizeof in);
#ifndef BIN_SERIALIZER_CF_CONTROL
  std::u16string_view target;
#else
  std::u16string target;
#endif
  return bs::deserialize<foreign>(view, target) ? 0 : 1;
}
