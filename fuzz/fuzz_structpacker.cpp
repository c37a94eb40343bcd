// Seed workload: workloads::SmallMessage and LargeMessage (StructPacker:
// primitives, bool, chrono time_point and duration, strings, vectors).
#include "fuzz_common.hpp"
#include "fuzz_types.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const fuzz::input in = fuzz::as_input(data, size);
  fuzz::guard_scope guard(size);
  fuzz::roundtrip_all(in, workloads::make_small_message());
  fuzz::roundtrip_all(in, fuzz_types::small_large_message());
  return 0;
}
