// bin_serializer rows: the default (native) options, the same bytes decoded
// with the `trusted` preset (no value checks; bounds checks stay), and the
// portable format (little-endian, no padding) both ways.
// Serialize appends to a Buffer cleared before each message (capacity kept);
// deserialize reads a BufferView over the received bytes into a reused value.
#include <bin_serializer/bin_serializer.hpp>
#include <bin_serializer/std/all.hpp>

#include "peers/harness.hpp"

namespace peers {
namespace {

template <class T, bin_serializer::options Opts, bin_serializer::options EncodeOpts = bin_serializer::native>
struct bs_adapter {
  bin_serializer::Buffer buf;

  bytes_view encode(const T& v) {
    buf.clear();
    if (!serialize<EncodeOpts>(buf, v)) return {};
    return buf.bytes();
  }
  bool decode(bytes_view in, T& out) {
    bin_serializer::BufferView view(in);
    return deserialize<Opts>(view, out);
  }
};

template <class T>
struct bs_native : bs_adapter<T, bin_serializer::native> {};

// Same encoder as bs_native, so only its decode is timed.
template <class T>
struct bs_trusted : bs_adapter<T, bin_serializer::trusted> {
  static constexpr bool timed_serialize = false;
};

template <class T>
struct bs_portable : bs_adapter<T, bin_serializer::portable, bin_serializer::portable> {};

template <class W>
void add_both() {
  add_cell<W, bs_native<typename W::value_type>>("bin_serializer");
  add_cell<W, bs_trusted<typename W::value_type>>("bin_serializer_trusted");
  add_cell<W, bs_portable<typename W::value_type>>("bin_serializer_portable");
}

} // namespace

void register_bin_serializer() {
  add_both<W_Person>();
  add_both<W_CarSequential>();
  add_both<W_CarRandom>();
  add_both<W_Monster>();
  add_both<W_Small>();
  add_both<W_Large>();
  add_both<W_Tick>();
}

} // namespace peers
