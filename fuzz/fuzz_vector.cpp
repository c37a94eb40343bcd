// std::vector of scalars (one memcpy), of bool (one checked byte each), of
// strings, of a reflectable struct and of a trivially copyable struct.
#include "fuzz_common.hpp"
#include "fuzz_types.hpp"

using namespace fuzz_types;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const fuzz::input in = fuzz::as_input(data, size);
  fuzz::guard_scope guard(size);

  fuzz::roundtrip_all(in, std::vector<std::int32_t>{1, -2, 3});
  fuzz::roundtrip_all(in, std::vector<bool>{true, false, true});
  fuzz::roundtrip_all(in, std::vector<std::string>{"a", "", "ccc"});
  fuzz::roundtrip_all(in, std::vector<Item>{sample_item(), {}});
  fuzz::roundtrip_all(in, std::vector<Point>{{1, 2}, {-3, 4}});
  fuzz::roundtrip_all(in, std::vector<double>{0.5, -1.0});
  fuzz::roundtrip_all(in, std::vector<std::vector<std::int16_t>>{{1}, {}, {2, 3}});
  return 0;
}
