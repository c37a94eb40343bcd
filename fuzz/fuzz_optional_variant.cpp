// std::optional (presence byte 0/1) and std::variant (uint32 index in range),
// alone and nested.
#include "fuzz_common.hpp"
#include "fuzz_types.hpp"

using namespace fuzz_types;

namespace {
using Var = std::variant<std::monostate, std::int32_t, std::string, std::vector<std::uint8_t>>;
} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const fuzz::input in = fuzz::as_input(data, size);
  fuzz::guard_scope guard(size);

  fuzz::roundtrip_all(in, std::optional<std::string>("engaged"));
  fuzz::roundtrip_all(in, std::optional<std::int32_t>(5));
  fuzz::roundtrip_all(in, Var(std::string("alt")));
  fuzz::roundtrip_all(in, std::optional<std::variant<std::int64_t, std::string>>(std::string("x")));
  fuzz::roundtrip_all(in, std::vector<std::optional<std::int16_t>>{1, std::nullopt, 3});
  fuzz::roundtrip_all(in, std::variant<bool, char, Level>(Level::Mid));
  fuzz::roundtrip_all(in, std::optional<std::optional<bool>>(std::optional<bool>(true)));
  return 0;
}
