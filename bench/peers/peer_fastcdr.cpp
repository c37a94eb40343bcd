// eProsima Fast-CDR (Debian libfastcdr-dev), the FastCdr flavour (CDR without
// alignment padding, host byte order), the fastest of the library's two
// encodings.
//
// Fast-CDR's sequence support calls a serialize() member on user types, which
// the workload structs do not have (IDL-generated code would add one), so
// sequences of structs are written here the way generated code writes them:
// a uint32 count, then each element's fields. Scalars, strings, std::array
// and vectors of scalars or strings use the library's own overloads. C++
// enums are sent as their underlying integer, std::bitset<8> as a uint8,
// chrono values as their int64 tick count.
//
// Serialize: a FastCdr over a library-owned FastBuffer that grows once and is
// reset() per message. Deserialize: a FastBuffer wrapping the received bytes;
// errors surface as exceptions, caught and turned into `false`.
#include <fastcdr/FastBuffer.h>
#include <fastcdr/FastCdr.h>
#include <fastcdr/exceptions/Exception.h>

#include <cstdint>

#include "peers/harness.hpp"

namespace wl = workloads;
using eprosima::fastcdr::FastBuffer;
using eprosima::fastcdr::FastCdr;

namespace peers {
namespace {

// ---- sequences of structs, by hand ----
template <class T, class F>
void put_seq(FastCdr& c, const std::vector<T>& v, F&& put_one) {
  c.serialize(static_cast<std::uint32_t>(v.size()));
  for (const auto& x : v) put_one(c, x);
}
template <class T, class F>
void get_seq(FastCdr& c, std::vector<T>& v, F&& get_one) {
  std::uint32_t n = 0;
  c.deserialize(n);
  v.resize(n);
  for (auto& x : v) get_one(c, x);
}

template <class E>
void put_enum(FastCdr& c, E e) {
  c.serialize(static_cast<std::underlying_type_t<E>>(e));
}
template <class E>
void get_enum(FastCdr& c, E& e) {
  std::underlying_type_t<E> raw{};
  c.deserialize(raw);
  e = static_cast<E>(raw);
}

// ---- Person ----
void put(FastCdr& c, const wl::Person& p) {
  c.serialize(p.name);
  c.serialize(p.id);
  c.serialize(p.email);
  c.serialize(p.scores);
}
void get(FastCdr& c, wl::Person& p) {
  c.deserialize(p.name);
  c.deserialize(p.id);
  c.deserialize(p.email);
  c.deserialize(p.scores);
}

// ---- Car ----
void put(FastCdr& c, const wl::Car& v) {
  c.serialize(v.timestamp);
  c.serialize(v.serial_number);
  c.serialize(v.model_year);
  c.serialize(v.available);
  put_enum(c, v.code);
  c.serialize(v.some_numbers);
  c.serialize(v.vehicle_code);
  c.serialize(static_cast<std::uint8_t>(v.extras.to_ulong()));
  c.serialize(v.engine.capacity);
  c.serialize(v.engine.num_cylinders);
  c.serialize(v.engine.max_rpm);
  c.serialize(v.engine.manufacturer_code);
  put_enum(c, v.engine.booster.boost_type);
  c.serialize(v.engine.booster.horse_power);
  put_seq(c, v.fuel_figures, [](FastCdr& cc, const wl::FuelFigure& f) {
    cc.serialize(f.speed);
    cc.serialize(f.mpg);
    cc.serialize(f.usage_description);
  });
  put_seq(c, v.performance_figures, [](FastCdr& cc, const wl::PerformanceFigure& pf) {
    cc.serialize(pf.octane_rating);
    put_seq(cc, pf.acceleration, [](FastCdr& c3, const wl::Acceleration& a) {
      c3.serialize(a.mph);
      c3.serialize(a.seconds);
    });
  });
  c.serialize(v.manufacturer);
  c.serialize(v.model);
  c.serialize(v.activation_code);
}
void get(FastCdr& c, wl::Car& v) {
  c.deserialize(v.timestamp);
  c.deserialize(v.serial_number);
  c.deserialize(v.model_year);
  c.deserialize(v.available);
  get_enum(c, v.code);
  c.deserialize(v.some_numbers);
  c.deserialize(v.vehicle_code);
  std::uint8_t extras = 0;
  c.deserialize(extras);
  v.extras = std::bitset<8>(extras);
  c.deserialize(v.engine.capacity);
  c.deserialize(v.engine.num_cylinders);
  c.deserialize(v.engine.max_rpm);
  c.deserialize(v.engine.manufacturer_code);
  get_enum(c, v.engine.booster.boost_type);
  c.deserialize(v.engine.booster.horse_power);
  get_seq(c, v.fuel_figures, [](FastCdr& cc, wl::FuelFigure& f) {
    cc.deserialize(f.speed);
    cc.deserialize(f.mpg);
    cc.deserialize(f.usage_description);
  });
  get_seq(c, v.performance_figures, [](FastCdr& cc, wl::PerformanceFigure& pf) {
    cc.deserialize(pf.octane_rating);
    get_seq(cc, pf.acceleration, [](FastCdr& c3, wl::Acceleration& a) {
      c3.deserialize(a.mph);
      c3.deserialize(a.seconds);
    });
  });
  c.deserialize(v.manufacturer);
  c.deserialize(v.model);
  c.deserialize(v.activation_code);
}

// ---- Monster ----
void put(FastCdr& c, const wl::Vec3& p) {
  c.serialize(p.x);
  c.serialize(p.y);
  c.serialize(p.z);
}
void get(FastCdr& c, wl::Vec3& p) {
  c.deserialize(p.x);
  c.deserialize(p.y);
  c.deserialize(p.z);
}
void put(FastCdr& c, const wl::Weapon& w) {
  c.serialize(w.name);
  c.serialize(w.damage);
}
void get(FastCdr& c, wl::Weapon& w) {
  c.deserialize(w.name);
  c.deserialize(w.damage);
}
void put(FastCdr& c, const std::vector<wl::Monster>& ms) {
  put_seq(c, ms, [](FastCdr& cc, const wl::Monster& m) {
    put(cc, m.pos);
    cc.serialize(m.mana);
    cc.serialize(m.hp);
    cc.serialize(m.name);
    cc.serialize(m.inventory);
    put_enum(cc, m.color);
    put_seq(cc, m.weapons, [](FastCdr& c3, const wl::Weapon& w) { put(c3, w); });
    put(cc, m.equipped);
    put_seq(cc, m.path, [](FastCdr& c3, const wl::Vec3& p) { put(c3, p); });
  });
}
void get(FastCdr& c, std::vector<wl::Monster>& ms) {
  get_seq(c, ms, [](FastCdr& cc, wl::Monster& m) {
    get(cc, m.pos);
    cc.deserialize(m.mana);
    cc.deserialize(m.hp);
    cc.deserialize(m.name);
    cc.deserialize(m.inventory);
    get_enum(cc, m.color);
    get_seq(cc, m.weapons, [](FastCdr& c3, wl::Weapon& w) { get(c3, w); });
    get(cc, m.equipped);
    get_seq(cc, m.path, [](FastCdr& c3, wl::Vec3& p) { get(c3, p); });
  });
}

// ---- StructPacker small / large ----
void put(FastCdr& c, const wl::SmallMessage& m) {
  c.serialize(m.id);
  c.serialize(m.is_outgoing);
  c.serialize(m.priority);
  c.serialize(m.channel);
  c.serialize(m.flags);
  c.serialize(m.sequence);
  c.serialize(m.checksum);
  c.serialize(m.score);
  c.serialize(m.balance);
  c.serialize(static_cast<std::int64_t>(m.time_posted.time_since_epoch().count()));
  c.serialize(static_cast<std::int64_t>(m.time_to_live.count()));
  c.serialize(m.sender);
  c.serialize(m.text);
  c.serialize(m.recipients);
  c.serialize(m.readings);
  c.serialize(m.tags);
}
void get(FastCdr& c, wl::SmallMessage& m) {
  c.deserialize(m.id);
  c.deserialize(m.is_outgoing);
  c.deserialize(m.priority);
  c.deserialize(m.channel);
  c.deserialize(m.flags);
  c.deserialize(m.sequence);
  c.deserialize(m.checksum);
  c.deserialize(m.score);
  c.deserialize(m.balance);
  std::int64_t t = 0;
  c.deserialize(t);
  m.time_posted = wl::DateTime(wl::TimeSpan(t));
  c.deserialize(t);
  m.time_to_live = wl::TimeSpan(t);
  c.deserialize(m.sender);
  c.deserialize(m.text);
  c.deserialize(m.recipients);
  c.deserialize(m.readings);
  c.deserialize(m.tags);
}
void put(FastCdr& c, const wl::LargeMessage& m) {
  put(c, m.header);
  c.serialize(m.samples);
  c.serialize(m.ids);
  c.serialize(m.weights);
  c.serialize(m.labels);
  put_seq(c, m.timestamps, [](FastCdr& cc, const wl::DateTime& t) {
    cc.serialize(static_cast<std::int64_t>(t.time_since_epoch().count()));
  });
}
void get(FastCdr& c, wl::LargeMessage& m) {
  get(c, m.header);
  c.deserialize(m.samples);
  c.deserialize(m.ids);
  c.deserialize(m.weights);
  c.deserialize(m.labels);
  get_seq(c, m.timestamps, [](FastCdr& cc, wl::DateTime& t) {
    std::int64_t raw = 0;
    cc.deserialize(raw);
    t = wl::DateTime(wl::TimeSpan(raw));
  });
}

// ---- Tick ----
void put(FastCdr& c, const wl::Tick& t) {
  c.serialize(t.timestamp_ns);
  c.serialize(t.symbol_id);
  c.serialize(t.quantity);
  c.serialize(t.price);
  c.serialize(t.side);
}
void get(FastCdr& c, wl::Tick& t) {
  c.deserialize(t.timestamp_ns);
  c.deserialize(t.symbol_id);
  c.deserialize(t.quantity);
  c.deserialize(t.price);
  c.deserialize(t.side);
}

template <class T>
struct fastcdr_adapter {
  FastBuffer storage; // library-owned, grows on demand, kept across messages
  FastCdr out{storage};

  bytes_view encode(const T& v) {
    out.reset();
    put(out, v);
    return {reinterpret_cast<const std::byte*>(storage.getBuffer()), out.getSerializedDataLength()};
  }

  bool decode(bytes_view b, T& v) {
    try {
      FastBuffer view(const_cast<char*>(reinterpret_cast<const char*>(b.data())), b.size());
      FastCdr in(view);
      get(in, v);
      return in.getSerializedDataLength() == b.size();
    } catch (const eprosima::fastcdr::exception::Exception&) {
      return false;
    }
  }
};

} // namespace

void register_fastcdr() {
  add_cell<W_Person, fastcdr_adapter<wl::Person>>("fastcdr");
  add_cell<W_CarSequential, fastcdr_adapter<wl::Car>>("fastcdr");
  add_cell<W_CarRandom, fastcdr_adapter<wl::Car>>("fastcdr");
  add_cell<W_Monster, fastcdr_adapter<std::vector<wl::Monster>>>("fastcdr");
  add_cell<W_Small, fastcdr_adapter<wl::SmallMessage>>("fastcdr");
  add_cell<W_Large, fastcdr_adapter<wl::LargeMessage>>("fastcdr");
  add_cell<W_Tick, fastcdr_adapter<wl::Tick>>("fastcdr");
}

} // namespace peers
