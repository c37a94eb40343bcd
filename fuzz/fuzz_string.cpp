// Strings of every character width, and a string with a length limit.
#include "fuzz_common.hpp"
#include "fuzz_types.hpp"

namespace {

constexpr bin_serializer::options short_strings{.max_string_length = 8};

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const fuzz::input in = fuzz::as_input(data, size);
  fuzz::guard_scope guard(size);

  fuzz::roundtrip_all(in, std::string("sample"));
  fuzz::roundtrip_all(in, std::u16string(u"sample"));
  fuzz::roundtrip_all(in, std::u32string(U"sample"));
  fuzz::roundtrip_native_modes(in, std::wstring(L"sample")); // no portable encoding

  // The limit is enforced: whatever decodes has at most 8 characters, and a
  // string decodes under the limit exactly when it decodes without it and is
  // short enough.
  const bool limited = fuzz::roundtrip<short_strings>(in, std::string("short"));
  std::string unlimited;
  fuzz::bs::BufferView view(in);
  const bool ok = fuzz::bs::deserialize(view, unlimited);
  FUZZ_CHECK(limited == (ok && unlimited.size() <= 8));
  return 0;
}
