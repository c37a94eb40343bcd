// zpp_bits (github.com/eyalz800/zpp_bits): not a Debian package, so it is
// compiled in only when the build is pointed at a local checkout
// (-DBENCH_ZPP_BITS_DIR=/path/to/zpp_bits, or ZPP_BITS_DIR for
// scripts/bench.sh). Nothing of it is in this repository.
//
// Its defaults: aggregates member by member, u32 size prefixes, no header.
// Serialize: one `out` archive over a reused byte vector, rewound per message
// (the vector keeps its size, so no re-allocation). Deserialize: an `in`
// archive over the received bytes into the reused struct.
#include <zpp_bits.h>

#include <vector>

#include "peers/harness.hpp"

namespace peers {
namespace {

template <class T>
struct zpp_adapter {
  std::vector<std::byte> data;
  zpp::bits::out<std::vector<std::byte>> out{data};

  bytes_view encode(const T& v) {
    out.reset();
    if (zpp::bits::failure(out(v))) return {};
    return {data.data(), out.position()};
  }
  bool decode(bytes_view in_bytes, T& v) {
    zpp::bits::in in{in_bytes};
    return zpp::bits::success(in(v));
  }
};

} // namespace

void register_zpp_bits() {
  add_cell<W_Person, zpp_adapter<workloads::Person>>("zpp_bits");
  add_cell<W_CarSequential, zpp_adapter<workloads::Car>>("zpp_bits");
  add_cell<W_CarRandom, zpp_adapter<workloads::Car>>("zpp_bits");
  add_cell<W_Monster, zpp_adapter<std::vector<workloads::Monster>>>("zpp_bits");
  add_cell<W_Tick, zpp_adapter<workloads::Tick>>("zpp_bits");
  add_cell<W_Vec, zpp_adapter<workloads::Vec>>("zpp_bits");
  add_cell<W_LargeStruct, zpp_adapter<workloads::LargeStruct>>("zpp_bits");
  add_cell<W_TickBatch, zpp_adapter<W_TickBatch::value_type>>("zpp_bits");
  add_cell<W_String0, zpp_adapter<std::string>>("zpp_bits");
  add_cell<W_String8, zpp_adapter<std::string>>("zpp_bits");
  add_cell<W_String128, zpp_adapter<std::string>>("zpp_bits");
}

} // namespace peers
