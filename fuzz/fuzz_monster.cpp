// Seed workload: workloads::Monster (FlatBuffers example), alone and as the
// benchmark's vector of monsters.
#include "fuzz_common.hpp"
#include "fuzz_types.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const fuzz::input in = fuzz::as_input(data, size);
  fuzz::guard_scope guard(size);
  const std::vector<workloads::Monster> monsters = workloads::make_monsters(2);
  fuzz::roundtrip_all(in, monsters.front());
  fuzz::roundtrip_all(in, monsters);
  return 0;
}
