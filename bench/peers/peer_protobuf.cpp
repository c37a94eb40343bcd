// Protocol Buffers (Debian libprotobuf-dev + protobuf-compiler), with the
// schema bench/schemas/workloads.proto compiled by protoc at build time.
//
// Two rows:
//   protobuf          the same job as every other row: serialize = fill a
//                     reused generated message from the user's struct, then
//                     SerializeWithCachedSizesToArray into a reused buffer;
//                     deserialize = ParseFromArray into a reused message, then
//                     copy every field into the user's struct.
//   protobuf_message  protobuf's own best case, when the generated class IS
//                     the application's data type: serialize = encode an
//                     already filled message; deserialize = ParseFromArray
//                     into a reused message, nothing copied out.
// A reused message keeps its strings' and repeated fields' storage across
// Clear()/Parse, which is what makes the steady state allocation-light.
#include "workloads.pb.h"

#include <cstring>

#include "peers/harness.hpp"

namespace wl = workloads;
namespace pb = bench::pb;

namespace peers {
namespace {

template <class R, class T>
void put_repeated(R* field, const std::vector<T>& v) {
  field->Clear();
  field->Reserve(static_cast<int>(v.size()));
  for (const auto& x : v) field->AddAlreadyReserved(x);
}
template <class R, class T>
void get_repeated(const R& field, std::vector<T>& v) {
  v.resize(static_cast<std::size_t>(field.size()));
  if (!v.empty()) std::memcpy(v.data(), field.data(), v.size() * sizeof(T));
}

// ============================ Person ============================
void fill(pb::Person& m, const wl::Person& p) {
  m.set_name(p.name);
  m.set_id(p.id);
  m.set_email(p.email);
  put_repeated(m.mutable_scores(), p.scores);
}
void read(const pb::Person& m, wl::Person& p) {
  p.name.assign(m.name());
  p.id = m.id();
  p.email.assign(m.email());
  get_repeated(m.scores(), p.scores);
}

// ============================ Car ============================
void fill(pb::Car& m, const wl::Car& c) {
  m.set_timestamp(c.timestamp);
  m.set_serial_number(c.serial_number);
  m.set_model_year(c.model_year);
  m.set_available(c.available);
  m.set_code(static_cast<std::uint8_t>(c.code));
  m.mutable_some_numbers()->Clear();
  for (auto n : c.some_numbers) m.add_some_numbers(n);
  m.set_vehicle_code(c.vehicle_code.data(), c.vehicle_code.size());
  m.set_extras(static_cast<std::uint32_t>(c.extras.to_ulong()));
  auto* e = m.mutable_engine();
  e->set_capacity(c.engine.capacity);
  e->set_num_cylinders(c.engine.num_cylinders);
  e->set_max_rpm(c.engine.max_rpm);
  e->set_manufacturer_code(c.engine.manufacturer_code.data(), c.engine.manufacturer_code.size());
  e->mutable_booster()->set_boost_type(static_cast<std::uint8_t>(c.engine.booster.boost_type));
  e->mutable_booster()->set_horse_power(c.engine.booster.horse_power);
  m.mutable_fuel_figures()->Clear();
  for (const auto& f : c.fuel_figures) {
    auto* x = m.add_fuel_figures();
    x->set_speed(f.speed);
    x->set_mpg(f.mpg);
    x->set_usage_description(f.usage_description);
  }
  m.mutable_performance_figures()->Clear();
  for (const auto& pf : c.performance_figures) {
    auto* x = m.add_performance_figures();
    x->set_octane_rating(pf.octane_rating);
    for (const auto& a : pf.acceleration) {
      auto* y = x->add_acceleration();
      y->set_mph(a.mph);
      y->set_seconds(a.seconds);
    }
  }
  m.set_manufacturer(c.manufacturer);
  m.set_model(c.model);
  m.set_activation_code(c.activation_code);
}

void read(const pb::Car& m, wl::Car& c) {
  c.timestamp = m.timestamp();
  c.serial_number = m.serial_number();
  c.model_year = static_cast<std::uint16_t>(m.model_year());
  c.available = m.available();
  c.code = static_cast<wl::Model>(m.code());
  c.some_numbers = {};
  for (int i = 0; i < m.some_numbers_size() && i < 4; ++i)
    c.some_numbers[static_cast<std::size_t>(i)] = m.some_numbers(i);
  c.vehicle_code = {};
  std::memcpy(c.vehicle_code.data(), m.vehicle_code().data(),
              std::min<std::size_t>(m.vehicle_code().size(), 6));
  c.extras = std::bitset<8>(m.extras());
  const auto& e = m.engine();
  c.engine.capacity = static_cast<std::uint16_t>(e.capacity());
  c.engine.num_cylinders = static_cast<std::uint8_t>(e.num_cylinders());
  c.engine.max_rpm = static_cast<std::uint16_t>(e.max_rpm());
  c.engine.manufacturer_code = {};
  std::memcpy(c.engine.manufacturer_code.data(), e.manufacturer_code().data(),
              std::min<std::size_t>(e.manufacturer_code().size(), 3));
  c.engine.booster.boost_type = static_cast<wl::BoostType>(e.booster().boost_type());
  c.engine.booster.horse_power = static_cast<std::uint8_t>(e.booster().horse_power());
  c.fuel_figures.resize(static_cast<std::size_t>(m.fuel_figures_size()));
  for (std::size_t i = 0; i < c.fuel_figures.size(); ++i) {
    const auto& f = m.fuel_figures(static_cast<int>(i));
    c.fuel_figures[i].speed = static_cast<std::uint16_t>(f.speed());
    c.fuel_figures[i].mpg = f.mpg();
    c.fuel_figures[i].usage_description.assign(f.usage_description());
  }
  c.performance_figures.resize(static_cast<std::size_t>(m.performance_figures_size()));
  for (std::size_t i = 0; i < c.performance_figures.size(); ++i) {
    const auto& pf = m.performance_figures(static_cast<int>(i));
    auto& out = c.performance_figures[i];
    out.octane_rating = static_cast<std::uint8_t>(pf.octane_rating());
    out.acceleration.resize(static_cast<std::size_t>(pf.acceleration_size()));
    for (std::size_t k = 0; k < out.acceleration.size(); ++k) {
      const auto& a = pf.acceleration(static_cast<int>(k));
      out.acceleration[k] = {static_cast<std::uint16_t>(a.mph()), a.seconds()};
    }
  }
  c.manufacturer.assign(m.manufacturer());
  c.model.assign(m.model());
  c.activation_code.assign(m.activation_code());
}

// ============================ Monster ============================
void fill(pb::Vec3* m, const wl::Vec3& v) {
  m->set_x(v.x);
  m->set_y(v.y);
  m->set_z(v.z);
}
void fill(pb::Weapon* m, const wl::Weapon& w) {
  m->set_name(w.name);
  m->set_damage(w.damage);
}
void fill(pb::MonsterList& list, const std::vector<wl::Monster>& ms) {
  list.mutable_monsters()->Clear();
  for (const auto& mon : ms) {
    auto* m = list.add_monsters();
    fill(m->mutable_pos(), mon.pos);
    m->set_mana(mon.mana);
    m->set_hp(mon.hp);
    m->set_name(mon.name);
    m->set_inventory(mon.inventory.data(), mon.inventory.size());
    m->set_color(static_cast<std::uint8_t>(mon.color));
    for (const auto& w : mon.weapons) fill(m->add_weapons(), w);
    fill(m->mutable_equipped(), mon.equipped);
    for (const auto& p : mon.path) fill(m->add_path(), p);
  }
}
void read(const pb::Weapon& m, wl::Weapon& w) {
  w.name.assign(m.name());
  w.damage = static_cast<std::int16_t>(m.damage());
}
wl::Vec3 read(const pb::Vec3& m) { return {m.x(), m.y(), m.z()}; }
void read(const pb::MonsterList& list, std::vector<wl::Monster>& ms) {
  ms.resize(static_cast<std::size_t>(list.monsters_size()));
  for (std::size_t i = 0; i < ms.size(); ++i) {
    const auto& m = list.monsters(static_cast<int>(i));
    auto& out = ms[i];
    out.pos = read(m.pos());
    out.mana = static_cast<std::int16_t>(m.mana());
    out.hp = static_cast<std::int16_t>(m.hp());
    out.name.assign(m.name());
    out.inventory.assign(m.inventory().begin(), m.inventory().end());
    out.color = static_cast<wl::Color>(m.color());
    out.weapons.resize(static_cast<std::size_t>(m.weapons_size()));
    for (std::size_t k = 0; k < out.weapons.size(); ++k)
      read(m.weapons(static_cast<int>(k)), out.weapons[k]);
    read(m.equipped(), out.equipped);
    out.path.resize(static_cast<std::size_t>(m.path_size()));
    for (std::size_t k = 0; k < out.path.size(); ++k)
      out.path[k] = read(m.path(static_cast<int>(k)));
  }
}

// ============================ StructPacker ============================
void fill(pb::SmallMessage& m, const wl::SmallMessage& s) {
  m.set_id(s.id);
  m.set_is_outgoing(s.is_outgoing);
  m.set_priority(s.priority);
  m.set_channel(s.channel);
  m.set_flags(s.flags);
  m.set_sequence(s.sequence);
  m.set_checksum(s.checksum);
  m.set_score(s.score);
  m.set_balance(s.balance);
  m.set_time_posted(s.time_posted.time_since_epoch().count());
  m.set_time_to_live(s.time_to_live.count());
  m.set_sender(s.sender);
  m.set_text(s.text);
  put_repeated(m.mutable_recipients(), s.recipients);
  put_repeated(m.mutable_readings(), s.readings);
  m.mutable_tags()->Clear();
  for (const auto& t : s.tags) m.add_tags(t);
}
void read(const pb::SmallMessage& m, wl::SmallMessage& s) {
  s.id = m.id();
  s.is_outgoing = m.is_outgoing();
  s.priority = static_cast<std::uint8_t>(m.priority());
  s.channel = static_cast<std::int16_t>(m.channel());
  s.flags = m.flags();
  s.sequence = m.sequence();
  s.checksum = m.checksum();
  s.score = m.score();
  s.balance = m.balance();
  s.time_posted = wl::DateTime(wl::TimeSpan(m.time_posted()));
  s.time_to_live = wl::TimeSpan(m.time_to_live());
  s.sender.assign(m.sender());
  s.text.assign(m.text());
  get_repeated(m.recipients(), s.recipients);
  get_repeated(m.readings(), s.readings);
  s.tags.resize(static_cast<std::size_t>(m.tags_size()));
  for (std::size_t i = 0; i < s.tags.size(); ++i) s.tags[i].assign(m.tags(static_cast<int>(i)));
}

void fill(pb::LargeMessage& m, const wl::LargeMessage& s) {
  fill(*m.mutable_header(), s.header);
  put_repeated(m.mutable_samples(), s.samples);
  put_repeated(m.mutable_ids(), s.ids);
  put_repeated(m.mutable_weights(), s.weights);
  m.mutable_labels()->Clear();
  for (const auto& l : s.labels) m.add_labels(l);
  auto* ts = m.mutable_timestamps();
  ts->Clear();
  ts->Reserve(static_cast<int>(s.timestamps.size()));
  for (const auto& t : s.timestamps) ts->AddAlreadyReserved(t.time_since_epoch().count());
}
void read(const pb::LargeMessage& m, wl::LargeMessage& s) {
  read(m.header(), s.header);
  get_repeated(m.samples(), s.samples);
  get_repeated(m.ids(), s.ids);
  get_repeated(m.weights(), s.weights);
  s.labels.resize(static_cast<std::size_t>(m.labels_size()));
  for (std::size_t i = 0; i < s.labels.size(); ++i)
    s.labels[i].assign(m.labels(static_cast<int>(i)));
  s.timestamps.resize(static_cast<std::size_t>(m.timestamps_size()));
  for (std::size_t i = 0; i < s.timestamps.size(); ++i)
    s.timestamps[i] = wl::DateTime(wl::TimeSpan(m.timestamps(static_cast<int>(i))));
}

// ============================ Tick ============================
void fill(pb::Tick& m, const wl::Tick& t) {
  m.set_timestamp_ns(t.timestamp_ns);
  m.set_symbol_id(t.symbol_id);
  m.set_quantity(t.quantity);
  m.set_price(t.price);
  m.set_side(t.side);
}
void read(const pb::Tick& m, wl::Tick& t) {
  t.timestamp_ns = m.timestamp_ns();
  t.symbol_id = m.symbol_id();
  t.quantity = m.quantity();
  t.price = m.price();
  t.side = static_cast<std::uint8_t>(m.side());
}

// ============================ adapters ============================
template <class T> struct message_of;
template <> struct message_of<wl::Person> {
  using type = pb::Person;
};
template <> struct message_of<wl::Car> {
  using type = pb::Car;
};
template <> struct message_of<std::vector<wl::Monster>> {
  using type = pb::MonsterList;
};
template <> struct message_of<wl::SmallMessage> {
  using type = pb::SmallMessage;
};
template <> struct message_of<wl::LargeMessage> {
  using type = pb::LargeMessage;
};
template <> struct message_of<wl::Tick> {
  using type = pb::Tick;
};

// Encodes an already filled message into a reused byte buffer.
template <class M>
bytes_view encode_message(const M& m, std::vector<std::byte>& out) {
  const std::size_t n = m.ByteSizeLong();
  if (out.size() < n) out.resize(n * 2);
  m.SerializeWithCachedSizesToArray(reinterpret_cast<std::uint8_t*>(out.data()));
  return {out.data(), n};
}

template <class T>
struct protobuf_adapter {
  using M = typename message_of<T>::type;
  M msg;
  std::vector<std::byte> out;

  bytes_view encode(const T& v) {
    fill(msg, v);
    return encode_message(msg, out);
  }
  bool decode(bytes_view b, T& v) {
    if (!msg.ParseFromArray(b.data(), static_cast<int>(b.size()))) return false;
    read(msg, v);
    return true;
  }
};

template <class T>
struct protobuf_message_adapter {
  using M = typename message_of<T>::type;
  const T* first = nullptr;
  std::vector<M> filled; // one per pool value, filled before timing
  M parsed;
  std::vector<std::byte> out;

  void bind(const std::vector<T>& pool) {
    first = pool.data();
    filled.resize(pool.size());
    for (std::size_t i = 0; i < pool.size(); ++i) fill(filled[i], pool[i]);
  }
  bytes_view encode(const T& v) {
    return encode_message(filled[static_cast<std::size_t>(&v - first)], out);
  }
  bool decode(bytes_view b, T&) {
    return parsed.ParseFromArray(b.data(), static_cast<int>(b.size()));
  }
  bool check_decode(bytes_view b, T& v) {
    if (!parsed.ParseFromArray(b.data(), static_cast<int>(b.size()))) return false;
    read(parsed, v);
    return true;
  }
};

template <class W>
void add_both() {
  add_cell<W, protobuf_adapter<typename W::value_type>>("protobuf");
  add_cell<W, protobuf_message_adapter<typename W::value_type>>("protobuf_message");
}

} // namespace

void register_protobuf() {
  add_both<W_Person>();
  add_both<W_CarSequential>();
  add_both<W_CarRandom>();
  add_both<W_Monster>();
  add_both<W_Small>();
  add_both<W_Large>();
  add_both<W_Tick>();
}

} // namespace peers
