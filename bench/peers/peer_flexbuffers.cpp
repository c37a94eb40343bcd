// FlexBuffers, FlatBuffers' schemaless format (Debian libflatbuffers-dev,
// headers only).
//
// Each struct is a FlexBuffers vector of its fields in declaration order
// (positional, like every other row here; a map with field names would be
// larger and slower). Scalar arrays are typed vectors, byte arrays blobs, a
// vector of Vec3 one typed vector of 3n floats. C++ enums travel as their
// underlying integer, std::bitset<8> as an integer, chrono values as int64.
//
//   serialize    a reused flexbuffers::Builder (Clear() keeps its memory)
//   deserialize  flexbuffers::VerifyBuffer, then every field into the struct
//   traverse     every field read in place, without verification (trusted input)
#include <flatbuffers/flexbuffers.h>

#include <cstring>

#include "peers/harness.hpp"

namespace wl = workloads;
using flexbuffers::Builder;
using flexbuffers::Reference;

namespace peers {
namespace {

// ---- reading helpers ----
void get_str(const Reference& r, std::string& out) {
  const auto s = r.AsString();
  out.assign(s.c_str(), s.length());
}
void sum_str(checksum_acc& c, const Reference& r) {
  const auto s = r.AsString();
  c.s(s.c_str(), s.length());
}
template <class T, class Get>
void get_typed(const Reference& r, std::vector<T>& out, Get get) {
  const auto tv = r.AsTypedVector();
  out.resize(tv.size());
  for (std::size_t i = 0; i < out.size(); ++i) out[i] = get(tv[i]);
}
void put_floats3(Builder& b, const wl::Vec3& v) {
  b.TypedVector([&] {
    b.Float(v.x);
    b.Float(v.y);
    b.Float(v.z);
  });
}
wl::Vec3 get_vec3(const flexbuffers::TypedVector& tv, std::size_t at) {
  return {tv[at].AsFloat(), tv[at + 1].AsFloat(), tv[at + 2].AsFloat()};
}

// ============================ Person ============================
void put(Builder& b, const wl::Person& p) {
  b.Vector([&] {
    b.String(p.name);
    b.Int(p.id);
    b.String(p.email);
    b.Vector(p.scores.data(), p.scores.size());
  });
}
void get(const Reference& r, wl::Person& p) {
  const auto v = r.AsVector();
  get_str(v[0], p.name);
  p.id = v[1].AsInt32();
  get_str(v[2], p.email);
  get_typed(v[3], p.scores, [](const Reference& x) { return x.AsFloat(); });
}
void sum(checksum_acc& c, const Reference& r, const wl::Person*) {
  const auto v = r.AsVector();
  sum_str(c, v[0]);
  c.i(v[1].AsInt32());
  sum_str(c, v[2]);
  const auto s = v[3].AsTypedVector();
  c.u(s.size());
  for (std::size_t i = 0; i < s.size(); ++i) c.f(s[i].AsFloat());
}

// ============================ Car ============================
void put(Builder& b, const wl::Car& c) {
  b.Vector([&] {
    b.Int(c.timestamp);
    b.UInt(c.serial_number);
    b.UInt(c.model_year);
    b.Bool(c.available);
    b.UInt(static_cast<std::uint8_t>(c.code));
    b.Vector(c.some_numbers.data(), c.some_numbers.size());
    b.Blob(c.vehicle_code.data(), c.vehicle_code.size());
    b.UInt(c.extras.to_ulong());
    b.Vector([&] {
      b.UInt(c.engine.capacity);
      b.UInt(c.engine.num_cylinders);
      b.UInt(c.engine.max_rpm);
      b.Blob(c.engine.manufacturer_code.data(), c.engine.manufacturer_code.size());
      b.UInt(static_cast<std::uint8_t>(c.engine.booster.boost_type));
      b.UInt(c.engine.booster.horse_power);
    });
    b.Vector([&] {
      for (const auto& f : c.fuel_figures)
        b.Vector([&] {
          b.UInt(f.speed);
          b.Float(f.mpg);
          b.String(f.usage_description);
        });
    });
    b.Vector([&] {
      for (const auto& pf : c.performance_figures)
        b.Vector([&] {
          b.UInt(pf.octane_rating);
          b.Vector([&] {
            for (const auto& a : pf.acceleration)
              b.Vector([&] {
                b.UInt(a.mph);
                b.Float(a.seconds);
              });
          });
        });
    });
    b.String(c.manufacturer);
    b.String(c.model);
    b.String(c.activation_code);
  });
}

void get(const Reference& r, wl::Car& c) {
  const auto v = r.AsVector();
  c.timestamp = v[0].AsInt64();
  c.serial_number = v[1].AsUInt64();
  c.model_year = v[2].AsUInt16();
  c.available = v[3].AsBool();
  c.code = static_cast<wl::Model>(v[4].AsUInt8());
  const auto nums = v[5].AsTypedVector();
  for (std::size_t i = 0; i < c.some_numbers.size(); ++i) c.some_numbers[i] = nums[i].AsUInt32();
  const auto vc = v[6].AsBlob();
  c.vehicle_code = {};
  std::memcpy(c.vehicle_code.data(), vc.data(), std::min(vc.size(), c.vehicle_code.size()));
  c.extras = std::bitset<8>(v[7].AsUInt8());
  const auto e = v[8].AsVector();
  c.engine.capacity = e[0].AsUInt16();
  c.engine.num_cylinders = e[1].AsUInt8();
  c.engine.max_rpm = e[2].AsUInt16();
  const auto mc = e[3].AsBlob();
  c.engine.manufacturer_code = {};
  std::memcpy(c.engine.manufacturer_code.data(), mc.data(), std::min<std::size_t>(mc.size(), 3));
  c.engine.booster.boost_type = static_cast<wl::BoostType>(e[4].AsUInt8());
  c.engine.booster.horse_power = e[5].AsUInt8();
  const auto fuel = v[9].AsVector();
  c.fuel_figures.resize(fuel.size());
  for (std::size_t i = 0; i < fuel.size(); ++i) {
    const auto f = fuel[i].AsVector();
    c.fuel_figures[i].speed = f[0].AsUInt16();
    c.fuel_figures[i].mpg = f[1].AsFloat();
    get_str(f[2], c.fuel_figures[i].usage_description);
  }
  const auto perf = v[10].AsVector();
  c.performance_figures.resize(perf.size());
  for (std::size_t i = 0; i < perf.size(); ++i) {
    const auto pf = perf[i].AsVector();
    auto& out = c.performance_figures[i];
    out.octane_rating = pf[0].AsUInt8();
    const auto acc = pf[1].AsVector();
    out.acceleration.resize(acc.size());
    for (std::size_t k = 0; k < acc.size(); ++k) {
      const auto a = acc[k].AsVector();
      out.acceleration[k] = {a[0].AsUInt16(), a[1].AsFloat()};
    }
  }
  get_str(v[11], c.manufacturer);
  get_str(v[12], c.model);
  get_str(v[13], c.activation_code);
}

void sum(checksum_acc& c, const Reference& r, const wl::Car*) {
  const auto v = r.AsVector();
  c.i(v[0].AsInt64());
  c.u(v[1].AsUInt64());
  c.u(v[2].AsUInt16());
  c.b(v[3].AsBool());
  c.u(v[4].AsUInt8());
  const auto nums = v[5].AsTypedVector();
  for (std::size_t i = 0; i < nums.size(); ++i) c.u(nums[i].AsUInt32());
  const auto vc = v[6].AsBlob();
  c.s(reinterpret_cast<const char*>(vc.data()), vc.size());
  c.u(v[7].AsUInt8());
  const auto e = v[8].AsVector();
  c.u(e[0].AsUInt16());
  c.u(e[1].AsUInt8());
  c.u(e[2].AsUInt16());
  const auto mc = e[3].AsBlob();
  c.s(reinterpret_cast<const char*>(mc.data()), mc.size());
  c.u(e[4].AsUInt8());
  c.u(e[5].AsUInt8());
  const auto fuel = v[9].AsVector();
  c.u(fuel.size());
  for (std::size_t i = 0; i < fuel.size(); ++i) {
    const auto f = fuel[i].AsVector();
    c.u(f[0].AsUInt16());
    c.f(f[1].AsFloat());
    sum_str(c, f[2]);
  }
  const auto perf = v[10].AsVector();
  c.u(perf.size());
  for (std::size_t i = 0; i < perf.size(); ++i) {
    const auto pf = perf[i].AsVector();
    c.u(pf[0].AsUInt8());
    const auto acc = pf[1].AsVector();
    c.u(acc.size());
    for (std::size_t k = 0; k < acc.size(); ++k) {
      const auto a = acc[k].AsVector();
      c.u(a[0].AsUInt16());
      c.f(a[1].AsFloat());
    }
  }
  sum_str(c, v[11]);
  sum_str(c, v[12]);
  sum_str(c, v[13]);
}

// ============================ Monster ============================
void put(Builder& b, const wl::Weapon& w) {
  b.Vector([&] {
    b.String(w.name);
    b.Int(w.damage);
  });
}
void get(const Reference& r, wl::Weapon& w) {
  const auto v = r.AsVector();
  get_str(v[0], w.name);
  w.damage = v[1].AsInt16();
}
void sum_weapon(checksum_acc& c, const Reference& r) {
  const auto v = r.AsVector();
  sum_str(c, v[0]);
  c.i(v[1].AsInt16());
}

void put(Builder& b, const std::vector<wl::Monster>& ms) {
  b.Vector([&] {
    for (const auto& m : ms)
      b.Vector([&] {
        put_floats3(b, m.pos);
        b.Int(m.mana);
        b.Int(m.hp);
        b.String(m.name);
        b.Blob(m.inventory.data(), m.inventory.size());
        b.UInt(static_cast<std::uint8_t>(m.color));
        b.Vector([&] {
          for (const auto& w : m.weapons) put(b, w);
        });
        put(b, m.equipped);
        b.TypedVector([&] {
          for (const auto& p : m.path) {
            b.Float(p.x);
            b.Float(p.y);
            b.Float(p.z);
          }
        });
      });
  });
}

void get(const Reference& r, std::vector<wl::Monster>& ms) {
  const auto list = r.AsVector();
  ms.resize(list.size());
  for (std::size_t i = 0; i < list.size(); ++i) {
    const auto v = list[i].AsVector();
    auto& m = ms[i];
    m.pos = get_vec3(v[0].AsTypedVector(), 0);
    m.mana = v[1].AsInt16();
    m.hp = v[2].AsInt16();
    get_str(v[3], m.name);
    const auto inv = v[4].AsBlob();
    m.inventory.assign(inv.data(), inv.data() + inv.size());
    m.color = static_cast<wl::Color>(v[5].AsUInt8());
    const auto ws = v[6].AsVector();
    m.weapons.resize(ws.size());
    for (std::size_t k = 0; k < ws.size(); ++k) get(ws[k], m.weapons[k]);
    get(v[7], m.equipped);
    const auto path = v[8].AsTypedVector();
    m.path.resize(path.size() / 3);
    for (std::size_t k = 0; k < m.path.size(); ++k) m.path[k] = get_vec3(path, 3 * k);
  }
}

void sum(checksum_acc& c, const Reference& r, const std::vector<wl::Monster>*) {
  const auto list = r.AsVector();
  c.u(list.size());
  for (std::size_t i = 0; i < list.size(); ++i) {
    const auto v = list[i].AsVector();
    const auto pos = v[0].AsTypedVector();
    for (std::size_t k = 0; k < 3; ++k) c.f(pos[k].AsFloat());
    c.i(v[1].AsInt16());
    c.i(v[2].AsInt16());
    sum_str(c, v[3]);
    const auto inv = v[4].AsBlob();
    c.u(inv.size());
    for (std::size_t k = 0; k < inv.size(); ++k) c.u(inv.data()[k]);
    c.u(v[5].AsUInt8());
    const auto ws = v[6].AsVector();
    c.u(ws.size());
    for (std::size_t k = 0; k < ws.size(); ++k) sum_weapon(c, ws[k]);
    sum_weapon(c, v[7]);
    const auto path = v[8].AsTypedVector();
    c.u(path.size() / 3);
    for (std::size_t k = 0; k < path.size(); ++k) c.f(path[k].AsFloat());
  }
}

// ============================ StructPacker ============================
void put(Builder& b, const wl::SmallMessage& m) {
  b.Vector([&] {
    b.Int(m.id);
    b.Bool(m.is_outgoing);
    b.UInt(m.priority);
    b.Int(m.channel);
    b.UInt(m.flags);
    b.Int(m.sequence);
    b.UInt(m.checksum);
    b.Float(m.score);
    b.Double(m.balance);
    b.Int(m.time_posted.time_since_epoch().count());
    b.Int(m.time_to_live.count());
    b.String(m.sender);
    b.String(m.text);
    b.Vector(m.recipients.data(), m.recipients.size());
    b.Vector(m.readings.data(), m.readings.size());
    b.Vector([&] {
      for (const auto& t : m.tags) b.String(t);
    });
  });
}

void get(const Reference& r, wl::SmallMessage& m) {
  const auto v = r.AsVector();
  m.id = v[0].AsInt32();
  m.is_outgoing = v[1].AsBool();
  m.priority = v[2].AsUInt8();
  m.channel = v[3].AsInt16();
  m.flags = v[4].AsUInt32();
  m.sequence = v[5].AsInt64();
  m.checksum = v[6].AsUInt64();
  m.score = v[7].AsFloat();
  m.balance = v[8].AsDouble();
  m.time_posted = wl::DateTime(wl::TimeSpan(v[9].AsInt64()));
  m.time_to_live = wl::TimeSpan(v[10].AsInt64());
  get_str(v[11], m.sender);
  get_str(v[12], m.text);
  get_typed(v[13], m.recipients, [](const Reference& x) { return x.AsInt32(); });
  get_typed(v[14], m.readings, [](const Reference& x) { return x.AsDouble(); });
  const auto tags = v[15].AsVector();
  m.tags.resize(tags.size());
  for (std::size_t i = 0; i < tags.size(); ++i) get_str(tags[i], m.tags[i]);
}

void sum(checksum_acc& c, const Reference& r, const wl::SmallMessage*) {
  const auto v = r.AsVector();
  c.i(v[0].AsInt32());
  c.b(v[1].AsBool());
  c.u(v[2].AsUInt8());
  c.i(v[3].AsInt16());
  c.u(v[4].AsUInt32());
  c.i(v[5].AsInt64());
  c.u(v[6].AsUInt64());
  c.f(v[7].AsFloat());
  c.d(v[8].AsDouble());
  c.i(v[9].AsInt64());
  c.i(v[10].AsInt64());
  sum_str(c, v[11]);
  sum_str(c, v[12]);
  const auto rec = v[13].AsTypedVector();
  c.u(rec.size());
  for (std::size_t i = 0; i < rec.size(); ++i) c.i(rec[i].AsInt32());
  const auto rd = v[14].AsTypedVector();
  c.u(rd.size());
  for (std::size_t i = 0; i < rd.size(); ++i) c.d(rd[i].AsDouble());
  const auto tags = v[15].AsVector();
  c.u(tags.size());
  for (std::size_t i = 0; i < tags.size(); ++i) sum_str(c, tags[i]);
}

void put(Builder& b, const wl::LargeMessage& m) {
  b.Vector([&] {
    put(b, m.header);
    b.Vector(m.samples.data(), m.samples.size());
    b.Vector(m.ids.data(), m.ids.size());
    b.Vector(m.weights.data(), m.weights.size());
    b.Vector([&] {
      for (const auto& l : m.labels) b.String(l);
    });
    b.TypedVector([&] {
      for (const auto& t : m.timestamps) b.Int(t.time_since_epoch().count());
    });
  });
}

void get(const Reference& r, wl::LargeMessage& m) {
  const auto v = r.AsVector();
  get(v[0], m.header);
  get_typed(v[1], m.samples, [](const Reference& x) { return x.AsDouble(); });
  get_typed(v[2], m.ids, [](const Reference& x) { return x.AsInt32(); });
  get_typed(v[3], m.weights, [](const Reference& x) { return x.AsFloat(); });
  const auto labels = v[4].AsVector();
  m.labels.resize(labels.size());
  for (std::size_t i = 0; i < labels.size(); ++i) get_str(labels[i], m.labels[i]);
  get_typed(v[5], m.timestamps,
            [](const Reference& x) { return wl::DateTime(wl::TimeSpan(x.AsInt64())); });
}

void sum(checksum_acc& c, const Reference& r, const wl::LargeMessage*) {
  const auto v = r.AsVector();
  sum(c, v[0], static_cast<const wl::SmallMessage*>(nullptr));
  const auto s = v[1].AsTypedVector();
  c.u(s.size());
  for (std::size_t i = 0; i < s.size(); ++i) c.d(s[i].AsDouble());
  const auto ids = v[2].AsTypedVector();
  c.u(ids.size());
  for (std::size_t i = 0; i < ids.size(); ++i) c.i(ids[i].AsInt32());
  const auto w = v[3].AsTypedVector();
  c.u(w.size());
  for (std::size_t i = 0; i < w.size(); ++i) c.f(w[i].AsFloat());
  const auto labels = v[4].AsVector();
  c.u(labels.size());
  for (std::size_t i = 0; i < labels.size(); ++i) sum_str(c, labels[i]);
  const auto ts = v[5].AsTypedVector();
  c.u(ts.size());
  for (std::size_t i = 0; i < ts.size(); ++i) c.i(ts[i].AsInt64());
}

// ============================ Tick ============================
void put(Builder& b, const wl::Tick& t) {
  b.Vector([&] {
    b.UInt(t.timestamp_ns);
    b.UInt(t.symbol_id);
    b.UInt(t.quantity);
    b.Double(t.price);
    b.UInt(t.side);
  });
}
void get(const Reference& r, wl::Tick& t) {
  const auto v = r.AsVector();
  t.timestamp_ns = v[0].AsUInt64();
  t.symbol_id = v[1].AsUInt32();
  t.quantity = v[2].AsUInt32();
  t.price = v[3].AsDouble();
  t.side = v[4].AsUInt8();
}
void sum(checksum_acc& c, const Reference& r, const wl::Tick*) {
  const auto v = r.AsVector();
  c.u(v[0].AsUInt64());
  c.u(v[1].AsUInt32());
  c.u(v[2].AsUInt32());
  c.d(v[3].AsDouble());
  c.u(v[4].AsUInt8());
}

template <class T>
struct flexbuffers_adapter {
  Builder builder{1024};

  bytes_view encode(const T& v) {
    builder.Clear();
    put(builder, v);
    builder.Finish();
    const auto& buf = builder.GetBuffer();
    return {reinterpret_cast<const std::byte*>(buf.data()), buf.size()};
  }

  bool decode(bytes_view b, T& v) {
    const auto* p = reinterpret_cast<const std::uint8_t*>(b.data());
    if (!flexbuffers::VerifyBuffer(p, b.size())) return false;
    get(flexbuffers::GetRoot(p, b.size()), v);
    return true;
  }

  std::uint64_t traverse(bytes_view b) {
    checksum_acc c;
    sum(c, flexbuffers::GetRoot(reinterpret_cast<const std::uint8_t*>(b.data()), b.size()),
        static_cast<const T*>(nullptr));
    return c.h;
  }
};

} // namespace

void register_flexbuffers() {
  add_cell<W_Person, flexbuffers_adapter<wl::Person>>("flexbuffers");
  add_cell<W_CarSequential, flexbuffers_adapter<wl::Car>>("flexbuffers");
  add_cell<W_CarRandom, flexbuffers_adapter<wl::Car>>("flexbuffers");
  add_cell<W_Monster, flexbuffers_adapter<std::vector<wl::Monster>>>("flexbuffers");
  add_cell<W_Small, flexbuffers_adapter<wl::SmallMessage>>("flexbuffers");
  add_cell<W_Large, flexbuffers_adapter<wl::LargeMessage>>("flexbuffers");
  add_cell<W_Tick, flexbuffers_adapter<wl::Tick>>("flexbuffers");
}

} // namespace peers
