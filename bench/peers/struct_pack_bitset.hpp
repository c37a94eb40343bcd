// struct_pack has no std::bitset<8> (its bitset concept wants sizeof ==
// (N + 7) / 8; libstdc++'s is 8 bytes): Car's extras travel as one byte, as
// every other library in the benchmarks writes them, through struct_pack's
// user-type hooks (found by argument-dependent lookup, hence namespace std).
// Include after <ylt/struct_pack.hpp>.
#pragma once

#include <bitset>
#include <cstddef>
#include <cstdint>

namespace std {
inline std::size_t sp_get_needed_size(const std::bitset<8>&) { return 1; }
template <typename W>
void sp_serialize_to(W& w, const std::bitset<8>& b) {
  const auto v = static_cast<std::uint8_t>(b.to_ulong());
  struct_pack::write(w, v);
}
template <typename R>
struct_pack::err_code sp_deserialize_to(R& r, std::bitset<8>& b) {
  std::uint8_t v = 0;
  const auto e = struct_pack::read(r, v);
  b = std::bitset<8>(v);
  return e;
}
} // namespace std
