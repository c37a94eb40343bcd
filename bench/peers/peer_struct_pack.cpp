// struct_pack (yalantinglibs, github.com/alibaba/yalantinglibs): not a Debian
// package, so it is compiled in only when the build is pointed at a local
// checkout (-DBENCH_YLT_DIR=/path/to/yalantinglibs, or YLT_DIR for
// scripts/bench.sh). Nothing of it is in this repository.
//
// Its defaults: a 4-byte type hash first, then the fields with compact
// (1/2/4/8-byte, chosen per message) size prefixes. Serialize: appended to a
// reused byte vector that is cleared per message (capacity kept; the library
// sizes the message first and resizes once). Deserialize: deserialize_to into
// the reused struct.
#include <ylt/struct_pack.hpp>

#include <bitset>
#include <cstdint>
#include <vector>

// struct_pack has no std::bitset<8> (its bitset concept wants sizeof ==
// (N + 7) / 8; libstdc++'s is 8 bytes): Car's extras travel as one byte, as
// every other library here writes them, through struct_pack's user-type hooks
// (found by argument-dependent lookup, hence namespace std).
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

#include "peers/harness.hpp"

namespace peers {
namespace {

template <class T>
struct struct_pack_adapter {
  std::vector<char> data;

  bytes_view encode(const T& v) {
    data.clear();
    struct_pack::serialize_to(data, v);
    return {reinterpret_cast<const std::byte*>(data.data()), data.size()};
  }
  bool decode(bytes_view in, T& v) {
    return !struct_pack::deserialize_to(v, reinterpret_cast<const char*>(in.data()), in.size());
  }
};

} // namespace

void register_struct_pack() {
  add_cell<W_Person, struct_pack_adapter<workloads::Person>>("struct_pack");
  add_cell<W_CarSequential, struct_pack_adapter<workloads::Car>>("struct_pack");
  add_cell<W_CarRandom, struct_pack_adapter<workloads::Car>>("struct_pack");
  add_cell<W_Monster, struct_pack_adapter<std::vector<workloads::Monster>>>("struct_pack");
  add_cell<W_Tick, struct_pack_adapter<workloads::Tick>>("struct_pack");
  add_cell<W_String0, struct_pack_adapter<std::string>>("struct_pack");
  add_cell<W_String8, struct_pack_adapter<std::string>>("struct_pack");
  add_cell<W_String128, struct_pack_adapter<std::string>>("struct_pack");
}

} // namespace peers
