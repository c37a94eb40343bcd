// A std::string_view can be serialized (same bytes as a std::string) but not
// deserialized into: zero-copy views into the input are not supported yet.
// The error says to decode into a std::string instead.
//
// EXPECT-ERROR: cannot deserialize into a std::basic_string_view
// EXPECT-ERROR: std::string instead
#include <bin_serializer/bin_serializer.hpp>
#include <bin_serializer/std/string_view.hpp>

#include <string>
#include <string_view>

int main() {
  bin_serializer::Buffer buf;
#ifndef BIN_SERIALIZER_CF_CONTROL
  std::string_view target;
#else
  std::string target;
#endif
  return bin_serializer::deserialize(buf, target) ? 0 : 1;
}
