// MessagePack (msgpack-cxx, Debian libmsgpack-cxx-dev), used without Boost.
//
// The workload structs are not ours to change, so instead of MSGPACK_DEFINE
// (which goes inside the struct) each type gets the library's non-intrusive
// adaptor pair, pack<T> and convert<T>: a struct is a msgpack array of its
// fields in declaration order. C++ enums travel as their underlying integer,
// std::bitset<8> as an integer, chrono values as their tick count.
//
// Serialize: a packer over an sbuffer that is cleared (capacity kept) per
// message. Deserialize: unpack into a reused zone (first chunk sized from the
// workload so one message fits; strings reference the input instead of being
// copied into the zone), then convert into the reused struct.
#include <msgpack.hpp>

#include <algorithm>
#include <cstdint>

#include "peers/harness.hpp"

namespace wl = workloads;

// ---------------------------------------------------------------------------
// Adaptors
// ---------------------------------------------------------------------------
namespace msgpack {
MSGPACK_API_VERSION_NAMESPACE(MSGPACK_DEFAULT_API_NS) {
namespace adaptor {

namespace bench_detail {
inline const msgpack::object* fields(const msgpack::object& o, std::uint32_t n) {
  if (o.type != msgpack::type::ARRAY || o.via.array.size != n) throw msgpack::type_error();
  return o.via.array.ptr;
}
template <class E>
void get_enum(const msgpack::object& o, E& e) {
  e = static_cast<E>(o.as<std::underlying_type_t<E>>());
}
template <class Stream, class E>
void put_enum(msgpack::packer<Stream>& p, E e) {
  p.pack(static_cast<std::underlying_type_t<E>>(e));
}
} // namespace bench_detail

// Declares both halves (pack and convert) for one struct; the bodies see the
// packer `p` / the field array `f` and the value `v`.
#define BENCH_MSGPACK_ADAPTOR(TYPE, COUNT, PACK_BODY, CONVERT_BODY)                        \
  template <>                                                                              \
  struct pack<TYPE> {                                                                      \
    template <class Stream>                                                                \
    msgpack::packer<Stream>& operator()(msgpack::packer<Stream>& p, const TYPE& v) const { \
      p.pack_array(COUNT);                                                                 \
      PACK_BODY return p;                                                                  \
    }                                                                                      \
  };                                                                                       \
  template <>                                                                              \
  struct convert<TYPE> {                                                                   \
    const msgpack::object& operator()(const msgpack::object& o, TYPE& v) const {           \
      const msgpack::object* f = bench_detail::fields(o, COUNT);                           \
      CONVERT_BODY return o;                                                               \
    }                                                                                      \
  };

BENCH_MSGPACK_ADAPTOR(
    wl::Person, 4,
    {
      p.pack(v.name);
      p.pack(v.id);
      p.pack(v.email);
      p.pack(v.scores);
    },
    {
      f[0].convert(v.name);
      f[1].convert(v.id);
      f[2].convert(v.email);
      f[3].convert(v.scores);
    })

BENCH_MSGPACK_ADAPTOR(
    wl::Booster, 2,
    {
      bench_detail::put_enum(p, v.boost_type);
      p.pack(v.horse_power);
    },
    {
      bench_detail::get_enum(f[0], v.boost_type);
      f[1].convert(v.horse_power);
    })

BENCH_MSGPACK_ADAPTOR(
    wl::Engine, 5,
    {
      p.pack(v.capacity);
      p.pack(v.num_cylinders);
      p.pack(v.max_rpm);
      p.pack(v.manufacturer_code);
      p.pack(v.booster);
    },
    {
      f[0].convert(v.capacity);
      f[1].convert(v.num_cylinders);
      f[2].convert(v.max_rpm);
      f[3].convert(v.manufacturer_code);
      f[4].convert(v.booster);
    })

BENCH_MSGPACK_ADAPTOR(
    wl::FuelFigure, 3,
    {
      p.pack(v.speed);
      p.pack(v.mpg);
      p.pack(v.usage_description);
    },
    {
      f[0].convert(v.speed);
      f[1].convert(v.mpg);
      f[2].convert(v.usage_description);
    })

BENCH_MSGPACK_ADAPTOR(
    wl::Acceleration, 2,
    {
      p.pack(v.mph);
      p.pack(v.seconds);
    },
    {
      f[0].convert(v.mph);
      f[1].convert(v.seconds);
    })

BENCH_MSGPACK_ADAPTOR(
    wl::PerformanceFigure, 2,
    {
      p.pack(v.octane_rating);
      p.pack(v.acceleration);
    },
    {
      f[0].convert(v.octane_rating);
      f[1].convert(v.acceleration);
    })

BENCH_MSGPACK_ADAPTOR(
    wl::Car, 14,
    {
      p.pack(v.timestamp);
      p.pack(v.serial_number);
      p.pack(v.model_year);
      p.pack(v.available);
      bench_detail::put_enum(p, v.code);
      p.pack(v.some_numbers);
      p.pack(v.vehicle_code);
      p.pack(static_cast<std::uint8_t>(v.extras.to_ulong()));
      p.pack(v.engine);
      p.pack(v.fuel_figures);
      p.pack(v.performance_figures);
      p.pack(v.manufacturer);
      p.pack(v.model);
      p.pack(v.activation_code);
    },
    {
      f[0].convert(v.timestamp);
      f[1].convert(v.serial_number);
      f[2].convert(v.model_year);
      f[3].convert(v.available);
      bench_detail::get_enum(f[4], v.code);
      f[5].convert(v.some_numbers);
      f[6].convert(v.vehicle_code);
      v.extras = std::bitset<8>(f[7].as<std::uint8_t>());
      f[8].convert(v.engine);
      f[9].convert(v.fuel_figures);
      f[10].convert(v.performance_figures);
      f[11].convert(v.manufacturer);
      f[12].convert(v.model);
      f[13].convert(v.activation_code);
    })

BENCH_MSGPACK_ADAPTOR(
    wl::Vec3, 3,
    {
      p.pack(v.x);
      p.pack(v.y);
      p.pack(v.z);
    },
    {
      f[0].convert(v.x);
      f[1].convert(v.y);
      f[2].convert(v.z);
    })

BENCH_MSGPACK_ADAPTOR(
    wl::Weapon, 2,
    {
      p.pack(v.name);
      p.pack(v.damage);
    },
    {
      f[0].convert(v.name);
      f[1].convert(v.damage);
    })

BENCH_MSGPACK_ADAPTOR(
    wl::Monster, 9,
    {
      p.pack(v.pos);
      p.pack(v.mana);
      p.pack(v.hp);
      p.pack(v.name);
      p.pack(v.inventory);
      bench_detail::put_enum(p, v.color);
      p.pack(v.weapons);
      p.pack(v.equipped);
      p.pack(v.path);
    },
    {
      f[0].convert(v.pos);
      f[1].convert(v.mana);
      f[2].convert(v.hp);
      f[3].convert(v.name);
      f[4].convert(v.inventory);
      bench_detail::get_enum(f[5], v.color);
      f[6].convert(v.weapons);
      f[7].convert(v.equipped);
      f[8].convert(v.path);
    })

BENCH_MSGPACK_ADAPTOR(
    wl::SmallMessage, 16,
    {
      p.pack(v.id);
      p.pack(v.is_outgoing);
      p.pack(v.priority);
      p.pack(v.channel);
      p.pack(v.flags);
      p.pack(v.sequence);
      p.pack(v.checksum);
      p.pack(v.score);
      p.pack(v.balance);
      p.pack(static_cast<std::int64_t>(v.time_posted.time_since_epoch().count()));
      p.pack(static_cast<std::int64_t>(v.time_to_live.count()));
      p.pack(v.sender);
      p.pack(v.text);
      p.pack(v.recipients);
      p.pack(v.readings);
      p.pack(v.tags);
    },
    {
      f[0].convert(v.id);
      f[1].convert(v.is_outgoing);
      f[2].convert(v.priority);
      f[3].convert(v.channel);
      f[4].convert(v.flags);
      f[5].convert(v.sequence);
      f[6].convert(v.checksum);
      f[7].convert(v.score);
      f[8].convert(v.balance);
      v.time_posted = wl::DateTime(wl::TimeSpan(f[9].as<std::int64_t>()));
      v.time_to_live = wl::TimeSpan(f[10].as<std::int64_t>());
      f[11].convert(v.sender);
      f[12].convert(v.text);
      f[13].convert(v.recipients);
      f[14].convert(v.readings);
      f[15].convert(v.tags);
    })

BENCH_MSGPACK_ADAPTOR(
    wl::LargeMessage, 6,
    {
      p.pack(v.header);
      p.pack(v.samples);
      p.pack(v.ids);
      p.pack(v.weights);
      p.pack(v.labels);
      p.pack_array(static_cast<std::uint32_t>(v.timestamps.size()));
      for (const auto& t : v.timestamps)
        p.pack(static_cast<std::int64_t>(t.time_since_epoch().count()));
    },
    {
      f[0].convert(v.header);
      f[1].convert(v.samples);
      f[2].convert(v.ids);
      f[3].convert(v.weights);
      f[4].convert(v.labels);
      if (f[5].type != msgpack::type::ARRAY) throw msgpack::type_error();
      const auto& ts = f[5].via.array;
      v.timestamps.resize(ts.size);
      for (std::uint32_t i = 0; i < ts.size; ++i)
        v.timestamps[i] = wl::DateTime(wl::TimeSpan(ts.ptr[i].as<std::int64_t>()));
    })

BENCH_MSGPACK_ADAPTOR(
    wl::Tick, 5,
    {
      p.pack(v.timestamp_ns);
      p.pack(v.symbol_id);
      p.pack(v.quantity);
      p.pack(v.price);
      p.pack(v.side);
    },
    {
      f[0].convert(v.timestamp_ns);
      f[1].convert(v.symbol_id);
      f[2].convert(v.quantity);
      f[3].convert(v.price);
      f[4].convert(v.side);
    })

#undef BENCH_MSGPACK_ADAPTOR

} // namespace adaptor
} // MSGPACK_API_VERSION_NAMESPACE(MSGPACK_DEFAULT_API_NS)
} // namespace msgpack

namespace peers {
namespace {

// Strings and binaries stay in the input buffer: it outlives the conversion.
bool reference_everything(msgpack::type::object_type, std::size_t, void*) { return true; }

template <class T>
struct msgpack_adapter {
  msgpack::sbuffer out{4096};
  std::unique_ptr<msgpack::zone> zone = std::make_unique<msgpack::zone>();

  void bind(const std::vector<T>& pool) {
    // One message's object tree (24 bytes per msgpack::object, at most one
    // object per wire byte) fits the zone's first chunk.
    std::size_t max_wire = 0;
    for (const auto& v : pool) {
      (void)encode(v);
      max_wire = std::max(max_wire, out.size());
    }
    zone = std::make_unique<msgpack::zone>(std::max<std::size_t>(8192, 24 * max_wire / 2 + 4096));
  }

  bytes_view encode(const T& v) {
    out.clear();
    msgpack::packer<msgpack::sbuffer> p(out);
    p.pack(v);
    return {reinterpret_cast<const std::byte*>(out.data()), out.size()};
  }

  bool decode(bytes_view in, T& v) {
    try {
      zone->clear();
      std::size_t off = 0;
      bool referenced = false;
      const msgpack::object obj = msgpack::unpack(*zone, reinterpret_cast<const char*>(in.data()),
                                                  in.size(), off, referenced, reference_everything);
      obj.convert(v);
      return off == in.size();
    } catch (const std::exception&) {
      return false;
    }
  }
};

} // namespace

void register_msgpack() {
  add_cell<W_Person, msgpack_adapter<wl::Person>>("msgpack");
  add_cell<W_CarSequential, msgpack_adapter<wl::Car>>("msgpack");
  add_cell<W_CarRandom, msgpack_adapter<wl::Car>>("msgpack");
  add_cell<W_Monster, msgpack_adapter<std::vector<wl::Monster>>>("msgpack");
  add_cell<W_Small, msgpack_adapter<wl::SmallMessage>>("msgpack");
  add_cell<W_Large, msgpack_adapter<wl::LargeMessage>>("msgpack");
  add_cell<W_Tick, msgpack_adapter<wl::Tick>>("msgpack");
}

} // namespace peers
