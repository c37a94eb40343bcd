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

#include "peers/struct_pack_bitset.hpp"

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
  add_cell<W_Vec, struct_pack_adapter<workloads::Vec>>("struct_pack");
  add_cell<W_LargeStruct, struct_pack_adapter<workloads::LargeStruct>>("struct_pack");
  add_cell<W_TickBatch, struct_pack_adapter<W_TickBatch::value_type>>("struct_pack");
  add_cell<W_String0, struct_pack_adapter<std::string>>("struct_pack");
  add_cell<W_String8, struct_pack_adapter<std::string>>("struct_pack");
  add_cell<W_String128, struct_pack_adapter<std::string>>("struct_pack");
}

} // namespace peers
