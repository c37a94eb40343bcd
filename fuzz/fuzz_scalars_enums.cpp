// Scalars, floats (NaN payloads), bool, ranged and open enums, alone and as
// members of arrays, tuples and a field-by-field aggregate.
#include "fuzz_common.hpp"
#include "fuzz_types.hpp"

#include <bit>

using namespace fuzz_types;

namespace {

namespace bs = bin_serializer;

// A value decodes exactly when its byte is a valid value: checked without ever
// loading an invalid bool or enum.
template <bs::options Opts>
void check_validation(fuzz::input in) {
  if (in.empty()) return;
  const auto first = std::to_integer<unsigned>(in[0]);

  bool b = false;
  bs::BufferView bv(in);
  FUZZ_CHECK(bs::deserialize<Opts>(bv, b) == (first <= 1));

  Level level{};
  bs::BufferView lv(in);
  FUZZ_CHECK(bs::deserialize<Opts>(lv, level) == (first <= 2));

  if (in.size() >= sizeof(std::int32_t)) {
    std::int32_t raw = 0;
    std::memcpy(&raw, in.data(), sizeof raw);
    Offset offset{};
    bs::BufferView ov(in);
    FUZZ_CHECK(bs::deserialize<Opts>(ov, offset) == (raw >= -5 && raw <= 5));
    if (raw < -5 || raw > 5) {
      FUZZ_CHECK(ov.last_error().code == bs::errc::invalid_value);
      FUZZ_CHECK(ov.last_error().offset == 0);
    }
  }
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const fuzz::input in = fuzz::as_input(data, size);
  fuzz::guard_scope guard(size);

  fuzz::roundtrip_all(in, true);
  fuzz::roundtrip_all(in, std::uint8_t{0xAB});
  fuzz::roundtrip_all(in, std::int32_t{-2});
  fuzz::roundtrip_all(in, std::uint64_t{1} << 40);
  fuzz::roundtrip_all(in, 1.5f);
  fuzz::roundtrip_all(in, -0.25);
  fuzz::roundtrip_all(in, Level::High);
  fuzz::roundtrip_all(in, Offset::Min);
  fuzz::roundtrip_all(in, Open::B);
  fuzz::roundtrip_all(in, std::byte{0x7F});
  fuzz::roundtrip_all(in, char32_t{U'x'});
  fuzz::roundtrip_all(in, std::array<bool, 3>{true, false, true});
  fuzz::roundtrip_all(in, std::array<Level, 2>{Level::Low, Level::High});
  fuzz::roundtrip_all(in, std::tuple<bool, Level, std::int16_t, double>{true, Level::Mid, -3, 0.5});
  fuzz::roundtrip_all(in, Fields{true, Level::Mid, Offset::Max, Open::A, "tag"});
  fuzz::roundtrip_all(in, std::chrono::milliseconds{1234});
  fuzz::roundtrip_all(in, std::pair<Offset, bool>{Offset::Zero, false});

  check_validation<bs::native>(in);
  check_validation<bs::untrusted>(in);
  if constexpr (std::endian::native == std::endian::little) // the raw int32 read below
    check_validation<fuzz::portable_untrusted>(in);
  return 0;
}
