// Seed workload: workloads::Person (aggregate: string, int32, string, vector<float>).
#include "fuzz_common.hpp"
#include "fuzz_types.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const fuzz::input in = fuzz::as_input(data, size);
  fuzz::guard_scope guard(size);
  fuzz::roundtrip_all(in, workloads::make_person());
  fuzz::roundtrip_all(in, std::vector<workloads::Person>{workloads::make_person(), {}});
  return 0;
}
