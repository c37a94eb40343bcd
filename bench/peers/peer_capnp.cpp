// Cap'n Proto (Debian libcapnp-dev + capnproto), with the schema
// bench/schemas/workloads.capnp compiled by `capnp compile -oc++` at build time.
//
//   serialize    build the message from the user's struct in a
//                MallocMessageBuilder whose first segment is a reused, zeroed
//                scratch area (the documented way to build many messages
//                without allocating; the builder re-zeroes what it used), then
//                write the standard stream framing (segment table + segments)
//                into a reused byte buffer with capnp::writeMessage
//   deserialize  FlatArrayMessageReader over the received (word-aligned)
//                bytes, then every field copied into the user's struct.
//                Cap'n Proto bounds-checks every pointer as it is followed, so
//                no separate verification pass exists or is needed.
//   traverse     the same reader, every field read in place, nothing copied
#include "workloads.capnp.h"

#include <capnp/message.h>
#include <capnp/serialize.h>
#include <kj/io.h>

#include <cstring>

#include "peers/harness.hpp"

namespace wl = workloads;
namespace cp = bench::cp;

namespace peers {
namespace {

kj::StringPtr text(const std::string& s) { return kj::StringPtr(s.c_str(), s.size()); }
template <class C>
kj::ArrayPtr<const kj::byte> bytes_of(const C& c) {
  return kj::arrayPtr(reinterpret_cast<const kj::byte*>(c.data()), c.size());
}
void get_str(capnp::Text::Reader t, std::string& out) { out.assign(t.cStr(), t.size()); }
void sum_str(checksum_acc& c, capnp::Text::Reader t) { c.s(t.cStr(), t.size()); }
template <class L, class T>
void get_list(L l, std::vector<T>& out) {
  out.resize(l.size());
  for (unsigned i = 0; i < l.size(); ++i) out[i] = l[i];
}

// ============================ Person ============================
void fill(cp::Person::Builder m, const wl::Person& p) {
  m.setName(text(p.name));
  m.setId(p.id);
  m.setEmail(text(p.email));
  auto s = m.initScores(static_cast<unsigned>(p.scores.size()));
  for (unsigned i = 0; i < s.size(); ++i) s.set(i, p.scores[i]);
}
void read(cp::Person::Reader m, wl::Person& p) {
  get_str(m.getName(), p.name);
  p.id = m.getId();
  get_str(m.getEmail(), p.email);
  get_list(m.getScores(), p.scores);
}
void sum(checksum_acc& c, cp::Person::Reader m) {
  sum_str(c, m.getName());
  c.i(m.getId());
  sum_str(c, m.getEmail());
  auto s = m.getScores();
  c.u(s.size());
  for (float x : s) c.f(x);
}

// ============================ Car ============================
void fill(cp::Car::Builder m, const wl::Car& c) {
  m.setTimestamp(c.timestamp);
  m.setSerialNumber(c.serial_number);
  m.setModelYear(c.model_year);
  m.setAvailable(c.available);
  m.setCode(static_cast<std::uint8_t>(c.code));
  auto nums = m.initSomeNumbers(static_cast<unsigned>(c.some_numbers.size()));
  for (unsigned i = 0; i < nums.size(); ++i) nums.set(i, c.some_numbers[i]);
  m.setVehicleCode(bytes_of(c.vehicle_code));
  m.setExtras(static_cast<std::uint8_t>(c.extras.to_ulong()));
  auto e = m.initEngine();
  e.setCapacity(c.engine.capacity);
  e.setNumCylinders(c.engine.num_cylinders);
  e.setMaxRpm(c.engine.max_rpm);
  e.setManufacturerCode(bytes_of(c.engine.manufacturer_code));
  auto b = e.initBooster();
  b.setBoostType(static_cast<std::uint8_t>(c.engine.booster.boost_type));
  b.setHorsePower(c.engine.booster.horse_power);
  auto fuel = m.initFuelFigures(static_cast<unsigned>(c.fuel_figures.size()));
  for (unsigned i = 0; i < fuel.size(); ++i) {
    const auto& f = c.fuel_figures[i];
    fuel[i].setSpeed(f.speed);
    fuel[i].setMpg(f.mpg);
    fuel[i].setUsageDescription(text(f.usage_description));
  }
  auto perf = m.initPerformanceFigures(static_cast<unsigned>(c.performance_figures.size()));
  for (unsigned i = 0; i < perf.size(); ++i) {
    const auto& pf = c.performance_figures[i];
    perf[i].setOctaneRating(pf.octane_rating);
    auto acc = perf[i].initAcceleration(static_cast<unsigned>(pf.acceleration.size()));
    for (unsigned k = 0; k < acc.size(); ++k) {
      acc[k].setMph(pf.acceleration[k].mph);
      acc[k].setSeconds(pf.acceleration[k].seconds);
    }
  }
  m.setManufacturer(text(c.manufacturer));
  m.setModel(text(c.model));
  m.setActivationCode(text(c.activation_code));
}

template <std::size_t N>
void get_bytes(capnp::Data::Reader d, std::array<char, N>& out) {
  out = {};
  std::memcpy(out.data(), d.begin(), std::min<std::size_t>(d.size(), N));
}

void read(cp::Car::Reader m, wl::Car& c) {
  c.timestamp = m.getTimestamp();
  c.serial_number = m.getSerialNumber();
  c.model_year = m.getModelYear();
  c.available = m.getAvailable();
  c.code = static_cast<wl::Model>(m.getCode());
  auto nums = m.getSomeNumbers();
  c.some_numbers = {};
  for (unsigned i = 0; i < nums.size() && i < c.some_numbers.size(); ++i)
    c.some_numbers[i] = nums[i];
  get_bytes(m.getVehicleCode(), c.vehicle_code);
  c.extras = std::bitset<8>(m.getExtras());
  auto e = m.getEngine();
  c.engine.capacity = e.getCapacity();
  c.engine.num_cylinders = e.getNumCylinders();
  c.engine.max_rpm = e.getMaxRpm();
  get_bytes(e.getManufacturerCode(), c.engine.manufacturer_code);
  c.engine.booster.boost_type = static_cast<wl::BoostType>(e.getBooster().getBoostType());
  c.engine.booster.horse_power = e.getBooster().getHorsePower();
  auto fuel = m.getFuelFigures();
  c.fuel_figures.resize(fuel.size());
  for (unsigned i = 0; i < fuel.size(); ++i) {
    auto f = fuel[i];
    c.fuel_figures[i].speed = f.getSpeed();
    c.fuel_figures[i].mpg = f.getMpg();
    get_str(f.getUsageDescription(), c.fuel_figures[i].usage_description);
  }
  auto perf = m.getPerformanceFigures();
  c.performance_figures.resize(perf.size());
  for (unsigned i = 0; i < perf.size(); ++i) {
    auto pf = perf[i];
    auto& out = c.performance_figures[i];
    out.octane_rating = pf.getOctaneRating();
    auto acc = pf.getAcceleration();
    out.acceleration.resize(acc.size());
    for (unsigned k = 0; k < acc.size(); ++k)
      out.acceleration[k] = {acc[k].getMph(), acc[k].getSeconds()};
  }
  get_str(m.getManufacturer(), c.manufacturer);
  get_str(m.getModel(), c.model);
  get_str(m.getActivationCode(), c.activation_code);
}

void sum(checksum_acc& c, cp::Car::Reader m) {
  c.i(m.getTimestamp());
  c.u(m.getSerialNumber());
  c.u(m.getModelYear());
  c.b(m.getAvailable());
  c.u(m.getCode());
  for (auto n : m.getSomeNumbers()) c.u(n);
  auto vc = m.getVehicleCode();
  c.s(reinterpret_cast<const char*>(vc.begin()), vc.size());
  c.u(m.getExtras());
  auto e = m.getEngine();
  c.u(e.getCapacity());
  c.u(e.getNumCylinders());
  c.u(e.getMaxRpm());
  auto mc = e.getManufacturerCode();
  c.s(reinterpret_cast<const char*>(mc.begin()), mc.size());
  c.u(e.getBooster().getBoostType());
  c.u(e.getBooster().getHorsePower());
  auto fuel = m.getFuelFigures();
  c.u(fuel.size());
  for (auto f : fuel) {
    c.u(f.getSpeed());
    c.f(f.getMpg());
    sum_str(c, f.getUsageDescription());
  }
  auto perf = m.getPerformanceFigures();
  c.u(perf.size());
  for (auto pf : perf) {
    c.u(pf.getOctaneRating());
    auto acc = pf.getAcceleration();
    c.u(acc.size());
    for (auto a : acc) {
      c.u(a.getMph());
      c.f(a.getSeconds());
    }
  }
  sum_str(c, m.getManufacturer());
  sum_str(c, m.getModel());
  sum_str(c, m.getActivationCode());
}

// ============================ Monster ============================
void fill(cp::Vec3::Builder m, const wl::Vec3& v) {
  m.setX(v.x);
  m.setY(v.y);
  m.setZ(v.z);
}
void fill(cp::Weapon::Builder m, const wl::Weapon& w) {
  m.setName(text(w.name));
  m.setDamage(w.damage);
}
void fill(cp::MonsterList::Builder list, const std::vector<wl::Monster>& ms) {
  auto l = list.initMonsters(static_cast<unsigned>(ms.size()));
  for (unsigned i = 0; i < l.size(); ++i) {
    const auto& mon = ms[i];
    auto m = l[i];
    fill(m.initPos(), mon.pos);
    m.setMana(mon.mana);
    m.setHp(mon.hp);
    m.setName(text(mon.name));
    m.setInventory(bytes_of(mon.inventory));
    m.setColor(static_cast<std::uint8_t>(mon.color));
    auto ws = m.initWeapons(static_cast<unsigned>(mon.weapons.size()));
    for (unsigned k = 0; k < ws.size(); ++k) fill(ws[k], mon.weapons[k]);
    fill(m.initEquipped(), mon.equipped);
    auto path = m.initPath(static_cast<unsigned>(mon.path.size()));
    for (unsigned k = 0; k < path.size(); ++k) fill(path[k], mon.path[k]);
  }
}
wl::Vec3 read(cp::Vec3::Reader m) { return {m.getX(), m.getY(), m.getZ()}; }
void read(cp::Weapon::Reader m, wl::Weapon& w) {
  get_str(m.getName(), w.name);
  w.damage = m.getDamage();
}
void read(cp::MonsterList::Reader list, std::vector<wl::Monster>& ms) {
  auto l = list.getMonsters();
  ms.resize(l.size());
  for (unsigned i = 0; i < l.size(); ++i) {
    auto m = l[i];
    auto& out = ms[i];
    out.pos = read(m.getPos());
    out.mana = m.getMana();
    out.hp = m.getHp();
    get_str(m.getName(), out.name);
    auto inv = m.getInventory();
    out.inventory.assign(inv.begin(), inv.end());
    out.color = static_cast<wl::Color>(m.getColor());
    auto ws = m.getWeapons();
    out.weapons.resize(ws.size());
    for (unsigned k = 0; k < ws.size(); ++k) read(ws[k], out.weapons[k]);
    read(m.getEquipped(), out.equipped);
    auto path = m.getPath();
    out.path.resize(path.size());
    for (unsigned k = 0; k < path.size(); ++k) out.path[k] = read(path[k]);
  }
}
void sum(checksum_acc& c, cp::Vec3::Reader v) {
  c.f(v.getX());
  c.f(v.getY());
  c.f(v.getZ());
}
void sum(checksum_acc& c, cp::Weapon::Reader w) {
  sum_str(c, w.getName());
  c.i(w.getDamage());
}
void sum(checksum_acc& c, cp::MonsterList::Reader list) {
  auto l = list.getMonsters();
  c.u(l.size());
  for (auto m : l) {
    sum(c, m.getPos());
    c.i(m.getMana());
    c.i(m.getHp());
    sum_str(c, m.getName());
    auto inv = m.getInventory();
    c.u(inv.size());
    for (auto x : inv) c.u(x);
    c.u(m.getColor());
    auto ws = m.getWeapons();
    c.u(ws.size());
    for (auto w : ws) sum(c, w);
    sum(c, m.getEquipped());
    auto path = m.getPath();
    c.u(path.size());
    for (auto p : path) sum(c, p);
  }
}

// ============================ StructPacker ============================
void fill(cp::SmallMessage::Builder m, const wl::SmallMessage& s) {
  m.setId(s.id);
  m.setIsOutgoing(s.is_outgoing);
  m.setPriority(s.priority);
  m.setChannel(s.channel);
  m.setFlags(s.flags);
  m.setSequence(s.sequence);
  m.setChecksum(s.checksum);
  m.setScore(s.score);
  m.setBalance(s.balance);
  m.setTimePosted(s.time_posted.time_since_epoch().count());
  m.setTimeToLive(s.time_to_live.count());
  m.setSender(text(s.sender));
  m.setText(text(s.text));
  auto r = m.initRecipients(static_cast<unsigned>(s.recipients.size()));
  for (unsigned i = 0; i < r.size(); ++i) r.set(i, s.recipients[i]);
  auto rd = m.initReadings(static_cast<unsigned>(s.readings.size()));
  for (unsigned i = 0; i < rd.size(); ++i) rd.set(i, s.readings[i]);
  auto tags = m.initTags(static_cast<unsigned>(s.tags.size()));
  for (unsigned i = 0; i < tags.size(); ++i) tags.set(i, text(s.tags[i]));
}
void read(cp::SmallMessage::Reader m, wl::SmallMessage& s) {
  s.id = m.getId();
  s.is_outgoing = m.getIsOutgoing();
  s.priority = m.getPriority();
  s.channel = m.getChannel();
  s.flags = m.getFlags();
  s.sequence = m.getSequence();
  s.checksum = m.getChecksum();
  s.score = m.getScore();
  s.balance = m.getBalance();
  s.time_posted = wl::DateTime(wl::TimeSpan(m.getTimePosted()));
  s.time_to_live = wl::TimeSpan(m.getTimeToLive());
  get_str(m.getSender(), s.sender);
  get_str(m.getText(), s.text);
  get_list(m.getRecipients(), s.recipients);
  get_list(m.getReadings(), s.readings);
  auto tags = m.getTags();
  s.tags.resize(tags.size());
  for (unsigned i = 0; i < tags.size(); ++i) get_str(tags[i], s.tags[i]);
}
void sum(checksum_acc& c, cp::SmallMessage::Reader m) {
  c.i(m.getId());
  c.b(m.getIsOutgoing());
  c.u(m.getPriority());
  c.i(m.getChannel());
  c.u(m.getFlags());
  c.i(m.getSequence());
  c.u(m.getChecksum());
  c.f(m.getScore());
  c.d(m.getBalance());
  c.i(m.getTimePosted());
  c.i(m.getTimeToLive());
  sum_str(c, m.getSender());
  sum_str(c, m.getText());
  auto r = m.getRecipients();
  c.u(r.size());
  for (auto x : r) c.i(x);
  auto rd = m.getReadings();
  c.u(rd.size());
  for (auto x : rd) c.d(x);
  auto tags = m.getTags();
  c.u(tags.size());
  for (auto t : tags) sum_str(c, t);
}

void fill(cp::LargeMessage::Builder m, const wl::LargeMessage& s) {
  fill(m.initHeader(), s.header);
  auto samples = m.initSamples(static_cast<unsigned>(s.samples.size()));
  for (unsigned i = 0; i < samples.size(); ++i) samples.set(i, s.samples[i]);
  auto ids = m.initIds(static_cast<unsigned>(s.ids.size()));
  for (unsigned i = 0; i < ids.size(); ++i) ids.set(i, s.ids[i]);
  auto w = m.initWeights(static_cast<unsigned>(s.weights.size()));
  for (unsigned i = 0; i < w.size(); ++i) w.set(i, s.weights[i]);
  auto labels = m.initLabels(static_cast<unsigned>(s.labels.size()));
  for (unsigned i = 0; i < labels.size(); ++i) labels.set(i, text(s.labels[i]));
  auto ts = m.initTimestamps(static_cast<unsigned>(s.timestamps.size()));
  for (unsigned i = 0; i < ts.size(); ++i) ts.set(i, s.timestamps[i].time_since_epoch().count());
}
void read(cp::LargeMessage::Reader m, wl::LargeMessage& s) {
  read(m.getHeader(), s.header);
  get_list(m.getSamples(), s.samples);
  get_list(m.getIds(), s.ids);
  get_list(m.getWeights(), s.weights);
  auto labels = m.getLabels();
  s.labels.resize(labels.size());
  for (unsigned i = 0; i < labels.size(); ++i) get_str(labels[i], s.labels[i]);
  auto ts = m.getTimestamps();
  s.timestamps.resize(ts.size());
  for (unsigned i = 0; i < ts.size(); ++i) s.timestamps[i] = wl::DateTime(wl::TimeSpan(ts[i]));
}
void sum(checksum_acc& c, cp::LargeMessage::Reader m) {
  sum(c, m.getHeader());
  auto samples = m.getSamples();
  c.u(samples.size());
  for (auto x : samples) c.d(x);
  auto ids = m.getIds();
  c.u(ids.size());
  for (auto x : ids) c.i(x);
  auto w = m.getWeights();
  c.u(w.size());
  for (auto x : w) c.f(x);
  auto labels = m.getLabels();
  c.u(labels.size());
  for (auto l : labels) sum_str(c, l);
  auto ts = m.getTimestamps();
  c.u(ts.size());
  for (auto x : ts) c.i(x);
}

// ============================ Tick ============================
void fill(cp::Tick::Builder m, const wl::Tick& t) {
  m.setTimestampNs(t.timestamp_ns);
  m.setSymbolId(t.symbol_id);
  m.setQuantity(t.quantity);
  m.setPrice(t.price);
  m.setSide(t.side);
}
void read(cp::Tick::Reader m, wl::Tick& t) {
  t.timestamp_ns = m.getTimestampNs();
  t.symbol_id = m.getSymbolId();
  t.quantity = m.getQuantity();
  t.price = m.getPrice();
  t.side = m.getSide();
}
void sum(checksum_acc& c, cp::Tick::Reader m) {
  c.u(m.getTimestampNs());
  c.u(m.getSymbolId());
  c.u(m.getQuantity());
  c.d(m.getPrice());
  c.u(m.getSide());
}

// ============================ adapter ============================
template <class T> struct schema_of;
template <> struct schema_of<wl::Person> {
  using type = cp::Person;
};
template <> struct schema_of<wl::Car> {
  using type = cp::Car;
};
template <> struct schema_of<std::vector<wl::Monster>> {
  using type = cp::MonsterList;
};
template <> struct schema_of<wl::SmallMessage> {
  using type = cp::SmallMessage;
};
template <> struct schema_of<wl::LargeMessage> {
  using type = cp::LargeMessage;
};
template <> struct schema_of<wl::Tick> {
  using type = cp::Tick;
};

template <class T>
struct capnp_adapter {
  using S = typename schema_of<T>::type;
  std::vector<capnp::word> scratch = std::vector<capnp::word>(1024); // zero-initialised
  std::vector<std::byte> out;

  bytes_view encode(const T& v) {
    std::size_t used_words = 0;
    std::size_t n = 0;
    {
      capnp::MallocMessageBuilder builder(kj::arrayPtr(scratch.data(), scratch.size()));
      fill(builder.initRoot<S>(), v);
      auto segments = builder.getSegmentsForOutput();
      n = capnp::computeSerializedSizeInWords(segments) * sizeof(capnp::word);
      if (out.size() < n) out.resize(n * 2);
      kj::ArrayOutputStream stream(
          kj::arrayPtr(reinterpret_cast<kj::byte*>(out.data()), out.size()));
      capnp::writeMessage(stream, segments);
      if (segments.size() > 1)
        for (auto s : segments) used_words += s.size();
    }
    // The message did not fit the scratch segment: make the next one fit.
    if (used_words != 0) scratch.resize(2 * used_words);
    return {out.data(), n};
  }

  bool decode(bytes_view b, T& v) {
    try {
      capnp::FlatArrayMessageReader reader(kj::arrayPtr(
          reinterpret_cast<const capnp::word*>(b.data()), b.size() / sizeof(capnp::word)));
      read(reader.getRoot<S>(), v);
      return true;
    } catch (const kj::Exception&) {
      return false;
    }
  }

  std::uint64_t traverse(bytes_view b) {
    capnp::FlatArrayMessageReader reader(kj::arrayPtr(
        reinterpret_cast<const capnp::word*>(b.data()), b.size() / sizeof(capnp::word)));
    checksum_acc c;
    sum(c, reader.getRoot<S>());
    return c.h;
  }
};

} // namespace

void register_capnp() {
  add_cell<W_Person, capnp_adapter<wl::Person>>("capnp");
  add_cell<W_CarSequential, capnp_adapter<wl::Car>>("capnp");
  add_cell<W_CarRandom, capnp_adapter<wl::Car>>("capnp");
  add_cell<W_Monster, capnp_adapter<std::vector<wl::Monster>>>("capnp");
  add_cell<W_Small, capnp_adapter<wl::SmallMessage>>("capnp");
  add_cell<W_Large, capnp_adapter<wl::LargeMessage>>("capnp");
  add_cell<W_Tick, capnp_adapter<wl::Tick>>("capnp");
}

} // namespace peers
