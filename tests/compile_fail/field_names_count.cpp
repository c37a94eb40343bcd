// Declared field names (reflect/field_names.hpp) must give one name per
// field: a list of the wrong length fails with one message that says so,
// when the type is described (encoding never looks at names).
// EXPECT-ERROR: one name per field
// MAX-LINES: 40 Clang notes each step from schema_json down to the names (still one error)
#include <bin_serializer/bin_serializer.hpp>
#include <bin_serializer/frame/schema_json.hpp>

#include <array>
#include <cstdint>
#include <string>

struct Player {
  std::int32_t id = 0;
  std::string name;
#ifndef BIN_SERIALIZER_CF_CONTROL
  static constexpr std::array bin_serializer_field_names{"id"};
#else
  static constexpr std::array bin_serializer_field_names{"id", "name"};
#endif
  template <class V> auto reflect(V&& v) { return v(id, name); }
  template <class V> auto reflect(V&& v) const { return v(id, name); }
};

int main() { return bin_serializer::schema_json<Player>().empty() ? 1 : 0; }
