// bin_serializer rows: the default (native) options, the same bytes decoded
// with the `trusted` preset (no value checks; bounds checks stay), and the
// portable format (little-endian, no padding) both ways.
// Serialize appends to a Buffer cleared before each message (capacity kept);
// deserialize reads a BufferView over the received bytes into a reused value.
//
// bin_serializer_views (docs/zero-copy.md): the native bytes decoded into the
// view workloads (workloads/views.hpp: string_view / array_view members, the
// input's bytes used in place) and every field read from the views: the
// "traverse" column, next to FlatBuffers' and Cap'n Proto's. Unlike theirs,
// this decode checks every length against the input (it is the full decoder).
#include <bin_serializer/bin_serializer.hpp>
#include <bin_serializer/std/all.hpp>

#include <workloads/views.hpp>

#include "peers/harness.hpp"

namespace peers {
namespace {

template <class T, bin_serializer::options Opts,
          bin_serializer::options EncodeOpts = bin_serializer::native>
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

template <class T>
struct bs_compact : bs_adapter<T, bin_serializer::compact, bin_serializer::compact> {};

// ---- zero-copy views: decode + traverse ----

namespace wl = workloads;

void add(checksum_acc& c, const wl::PersonView& p) { add_person(c, p); }
void add(checksum_acc& c, const wl::CarView& car) { add_car(c, car); }
void add(checksum_acc& c, const wl::MonstersView<>& ms) { add_monsters(c, ms); }

template <class T> struct view_of;
template <> struct view_of<wl::Person> {
  using type = wl::PersonView;
};
template <> struct view_of<wl::Car> {
  using type = wl::CarView;
};
template <> struct view_of<std::vector<wl::Monster>> {
  using type = wl::MonstersView<>;
};

// Serialize and deserialize are bs_native's; only traverse is timed. The view
// object is reused across messages, like the decoded value in the other rows.
template <class T>
struct bs_views : bs_adapter<T, bin_serializer::native> {
  static constexpr bool timed_serialize = false;
  static constexpr bool timed_deserialize = false;
  typename view_of<T>::type views{};

  std::uint64_t traverse(bytes_view in) {
    bin_serializer::BufferView view(in);
    if (!deserialize(view, views)) [[unlikely]]
      return 0;
    checksum_acc c;
    add(c, views);
    return c.h;
  }
};

template <class W>
void add_both() {
  add_cell<W, bs_native<typename W::value_type>>("bin_serializer");
  add_cell<W, bs_trusted<typename W::value_type>>("bin_serializer_trusted");
  add_cell<W, bs_portable<typename W::value_type>>("bin_serializer_portable");
  add_cell<W, bs_compact<typename W::value_type>>("bin_serializer_compact");
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
  add_both<W_Vec>();
  add_both<W_LargeStruct>();
  add_both<W_TickBatch>();
  add_both<W_String0>();
  add_both<W_String8>();
  add_both<W_String128>();
  add_cell<W_Person, bs_views<wl::Person>>("bin_serializer_views");
  add_cell<W_CarSequential, bs_views<wl::Car>>("bin_serializer_views");
  add_cell<W_CarRandom, bs_views<wl::Car>>("bin_serializer_views");
  add_cell<W_Monster, bs_views<std::vector<wl::Monster>>>("bin_serializer_views");
}

} // namespace peers
