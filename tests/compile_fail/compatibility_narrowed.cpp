// A change that breaks old data does not compile where the project asks
// check_compatible, and the error names the field and the change
// (frame/compatibility.hpp). The control build keeps the field's width.
// EXPECT-ERROR: limits.max_users
// MAX-ERRORS: 2 clang-19 adds "static assertion expression is not an integral constant expression" for the user's static_assert once the check inside failed; GCC gives one
#include <bin_serializer/bin_serializer.hpp>
#include <bin_serializer/frame/compatibility.hpp>

#include <cstdint>
#include <string>

struct Limits {
  std::uint32_t max_users = 10;
  using bin_serializer_evolution = bin_serializer::versions<1>;
};
struct Settings {
  std::string locale;
  Limits limits;
  using bin_serializer_evolution = bin_serializer::versions<2>;
};

struct LimitsNext {
#ifndef BIN_SERIALIZER_CF_CONTROL
  std::uint16_t max_users = 10;
#else
  std::uint64_t max_users = 10;
#endif
  using bin_serializer_evolution = bin_serializer::versions<1>;
};
struct SettingsNext {
  std::string locale;
  LimitsNext limits;
  using bin_serializer_evolution = bin_serializer::versions<2>;
};

static_assert(bin_serializer::check_compatible<Settings, SettingsNext, bin_serializer::compact>());

int main() { return 0; }
