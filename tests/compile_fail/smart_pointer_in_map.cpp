// A std::unique_ptr two containers down (a map's value inside a struct
// field): Serializable looks through the containers' element types
// (codec<T>::elements), so the call fails with the smart pointer's one
// message, naming it, instead of an error from inside the map's codec.
// EXPECT-ERROR: smart_pointer_is_not_serializable<std::unique_ptr<int
// EXPECT-ERROR: std::optional<T> for a value that may be absent
#include <bin_serializer/bin_serializer.hpp>

#include <map>
#include <memory>
#include <optional>
#include <string>

struct Registry {
#ifndef BIN_SERIALIZER_CF_CONTROL
  std::map<std::string, std::unique_ptr<int>> items;
#else
  std::map<std::string, std::optional<int>> items;
#endif
};

static_assert(!bin_serializer::Serializable<std::map<std::string, std::unique_ptr<int>>>);

int main() {
  bin_serializer::Buffer buf;
  Registry r;
  return serialize(buf, r) && deserialize(buf, r) ? 0 : 1;
}
