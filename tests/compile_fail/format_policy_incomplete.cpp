// A format is registered by one line, which checks its policy against the
// wire_format_policy concept (format/registry.hpp). A policy missing a member
// (here refuses<T>) must not compile, and the error names what is missing.
//
// EXPECT-ERROR: a format policy needs the variable templates refuses<T>
#include <bin_serializer/format/all.hpp>
#include <bin_serializer/format/fixed_width.hpp>

#include <bit>
#include <string_view>

namespace bin_serializer {

inline constexpr wire_format test_id = static_cast<wire_format>(0x7C);

template <>
struct format_policy<test_id> : detail::fixed_width_leaves<std::endian::big> {
  static constexpr wire_format id = test_id;
  static constexpr std::string_view name = "incomplete";
  static constexpr bool host_layout = false;
#ifdef BIN_SERIALIZER_CF_CONTROL
  template <class T>
  static constexpr bool refuses = false;
#endif
};

template <>
inline constexpr bool registered_format<test_id> = detail::checked_policy<format_policy<test_id>>();

} // namespace bin_serializer

int main() { return bin_serializer::registered_format<bin_serializer::test_id> ? 0 : 1; }
