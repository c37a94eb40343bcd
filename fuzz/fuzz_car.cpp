// Seed workload: workloads::Car (SBE example: scalars, bool, enums, bitset,
// arrays, a trivially copyable Engine with 2 padding bytes, nested groups,
// strings).
//
// Padding: Engine and Acceleration are copied as object bytes, padding
// included, so the re-encoding must match the input except at their padding
// bytes, whose positions depend on the decoded value (fuzz_types.hpp).
#include "fuzz_common.hpp"
#include "fuzz_types.hpp"

namespace {

namespace bs = bin_serializer;

std::vector<bool> g_padding; // of the current input, as decoded

bool padding_at(std::size_t offset) { return offset < g_padding.size() && g_padding[offset]; }

// Decodes `in` as T once to find where its padding bytes are.
template <class T>
fuzz::checks padding_checks(fuzz::input in, std::vector<bool> (*map_of)(const T&)) {
  g_padding.clear();
  T value{};
  bs::BufferView view(in);
  if (bs::deserialize(view, value)) g_padding = map_of(value);
  fuzz::checks c;
  c.rule = fuzz::prefix::except_padding;
  c.is_padding = padding_at;
  return c;
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const fuzz::input in = fuzz::as_input(data, size);
  fuzz::guard_scope guard(size);
  fuzz::roundtrip_all(in, workloads::make_car_sequential(),
                      padding_checks(in, fuzz_types::car_padding_map));
  fuzz::roundtrip_all(in, workloads::PerformanceFigure{95, {{30, 4.0f}, {60, 7.5f}}},
                      padding_checks(in, fuzz_types::performance_figure_padding_map));
  fuzz::roundtrip_all(in, workloads::FuelFigure{30, 35.9f, "Urban Cycle"});
  return 0;
}
