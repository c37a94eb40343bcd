// A sequence_view<T, Format> records element bytes of one wire format and
// decodes them again while iterating, so decoding it in the other format must
// not compile; the error shows the declaration to write instead.
//
// EXPECT-ERROR: decoded in another wire format than the call's
// EXPECT-ERROR: sequence_view<T, bin_serializer::wire_format::portable>
#include <bin_serializer/bin_serializer.hpp>
#include <bin_serializer/view/sequence_view.hpp>

#include <string_view>

int main() {
  bin_serializer::Buffer buf;
  bin_serializer::sequence_view<std::string_view> native_elements;
#ifndef BIN_SERIALIZER_CF_CONTROL
  return bin_serializer::deserialize<bin_serializer::portable>(buf, native_elements) ? 0 : 1;
#else
  return bin_serializer::deserialize<bin_serializer::native>(buf, native_elements) ? 0 : 1;
#endif
}
