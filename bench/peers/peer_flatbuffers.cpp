// FlatBuffers (Debian libflatbuffers-dev + flatbuffers-compiler), with the
// schema bench/schemas/workloads.fbs compiled by flatc at build time.
//
//   serialize    build the buffer from the user's struct with a reused
//                FlatBufferBuilder (Clear() keeps its memory) and reused
//                scratch vectors for table offsets
//   deserialize  run the Verifier over the received bytes (what makes reading
//                untrusted input memory-safe, as every other row's decoder is),
//                then copy every field into the user's struct
//   traverse     FlatBuffers' zero-copy case: read every field in place
//                through the generated accessors, no verification, nothing
//                copied (trusted input)
#include "workloads_generated.h"

#include <cstring>

#include "peers/harness.hpp"

namespace wl = workloads;
namespace fb = bench::fb;
using flatbuffers::FlatBufferBuilder;
using flatbuffers::Offset;

namespace peers {
namespace {

// ---- small helpers ----
Offset<flatbuffers::String> str(FlatBufferBuilder& b, const std::string& s) {
  return b.CreateString(s.data(), s.size());
}

void get_str(const flatbuffers::String* s, std::string& out) {
  if (s == nullptr)
    out.clear();
  else
    out.assign(s->c_str(), s->size());
}

template <class T>
void get_scalars(const flatbuffers::Vector<T>* v, std::vector<T>& out) {
  if (v == nullptr) {
    out.clear();
    return;
  }
  out.resize(v->size());
  if (v->size() != 0)
    std::memcpy(out.data(), v->data(), v->size() * sizeof(T)); // little-endian host
}

void sum_str(checksum_acc& c, const flatbuffers::String* s) {
  if (s == nullptr)
    c.s("", 0);
  else
    c.s(s->c_str(), s->size());
}

template <class T>
std::size_t size_of(const flatbuffers::Vector<T>* v) {
  return v == nullptr ? 0 : v->size();
}

// ============================ Person ============================
Offset<fb::Person> build(FlatBufferBuilder& b, const wl::Person& p) {
  auto name = str(b, p.name);
  auto email = str(b, p.email);
  auto scores = b.CreateVector(p.scores.data(), p.scores.size());
  return fb::CreatePerson(b, name, p.id, email, scores);
}
void read(const fb::Person* f, wl::Person& p) {
  get_str(f->name(), p.name);
  p.id = f->id();
  get_str(f->email(), p.email);
  get_scalars(f->scores(), p.scores);
}
void sum(checksum_acc& c, const fb::Person* f) {
  sum_str(c, f->name());
  c.i(f->id());
  sum_str(c, f->email());
  c.u(size_of(f->scores()));
  if (f->scores())
    for (float x : *f->scores()) c.f(x);
}

// ============================ Car ============================
struct car_scratch {
  std::vector<Offset<fb::FuelFigure>> fuel;
  std::vector<Offset<fb::PerformanceFigure>> perf;
};

Offset<fb::Car> build(FlatBufferBuilder& b, const wl::Car& c, car_scratch& s) {
  s.fuel.clear();
  for (const auto& f : c.fuel_figures)
    s.fuel.push_back(fb::CreateFuelFigure(b, f.speed, f.mpg, str(b, f.usage_description)));
  s.perf.clear();
  for (const auto& pf : c.performance_figures) {
    fb::Acceleration* acc = nullptr;
    auto accv = b.CreateUninitializedVectorOfStructs(pf.acceleration.size(), &acc);
    for (std::size_t i = 0; i < pf.acceleration.size(); ++i)
      acc[i] = fb::Acceleration(pf.acceleration[i].mph, pf.acceleration[i].seconds);
    s.perf.push_back(fb::CreatePerformanceFigure(b, pf.octane_rating, accv));
  }
  auto fuel = b.CreateVector(s.fuel);
  auto perf = b.CreateVector(s.perf);
  auto numbers = b.CreateVector(c.some_numbers.data(), c.some_numbers.size());
  auto vcode = b.CreateVector(reinterpret_cast<const std::int8_t*>(c.vehicle_code.data()),
                              c.vehicle_code.size());
  auto manufacturer = str(b, c.manufacturer);
  auto model = str(b, c.model);
  auto activation = str(b, c.activation_code);
  const auto& e = c.engine;
  const fb::Engine engine(
      e.capacity, e.num_cylinders, e.max_rpm,
      flatbuffers::span<const std::int8_t, 3>(
          reinterpret_cast<const std::int8_t*>(e.manufacturer_code.data()), 3),
      fb::Booster(static_cast<std::int8_t>(e.booster.boost_type), e.booster.horse_power));
  return fb::CreateCar(b, c.timestamp, c.serial_number, c.model_year, c.available,
                       static_cast<std::int8_t>(c.code), numbers, vcode,
                       static_cast<std::uint8_t>(c.extras.to_ulong()), &engine, fuel, perf,
                       manufacturer, model, activation);
}

void read(const fb::Car* f, wl::Car& c) {
  c.timestamp = f->timestamp();
  c.serial_number = f->serial_number();
  c.model_year = f->model_year();
  c.available = f->available();
  c.code = static_cast<wl::Model>(f->code());
  c.some_numbers = {};
  if (const auto* n = f->some_numbers())
    for (flatbuffers::uoffset_t i = 0; i < n->size() && i < c.some_numbers.size(); ++i)
      c.some_numbers[i] = n->Get(i);
  c.vehicle_code = {};
  if (const auto* v = f->vehicle_code())
    std::memcpy(c.vehicle_code.data(), v->data(),
                std::min<std::size_t>(v->size(), c.vehicle_code.size()));
  c.extras = std::bitset<8>(f->extras());
  if (const fb::Engine* e = f->engine()) {
    c.engine.capacity = e->capacity();
    c.engine.num_cylinders = e->num_cylinders();
    c.engine.max_rpm = e->max_rpm();
    for (flatbuffers::uoffset_t i = 0; i < 3; ++i)
      c.engine.manufacturer_code[i] = static_cast<char>(e->manufacturer_code()->Get(i));
    c.engine.booster.boost_type = static_cast<wl::BoostType>(e->booster().boost_type());
    c.engine.booster.horse_power = e->booster().horse_power();
  } else {
    c.engine = {};
  }
  const auto* fuel = f->fuel_figures();
  c.fuel_figures.resize(size_of(fuel));
  for (std::size_t i = 0; i < c.fuel_figures.size(); ++i) {
    const auto* ff = fuel->Get(static_cast<flatbuffers::uoffset_t>(i));
    auto& out = c.fuel_figures[i];
    out.speed = ff->speed();
    out.mpg = ff->mpg();
    get_str(ff->usage_description(), out.usage_description);
  }
  const auto* perf = f->performance_figures();
  c.performance_figures.resize(size_of(perf));
  for (std::size_t i = 0; i < c.performance_figures.size(); ++i) {
    const auto* pf = perf->Get(static_cast<flatbuffers::uoffset_t>(i));
    auto& out = c.performance_figures[i];
    out.octane_rating = pf->octane_rating();
    const auto* acc = pf->acceleration();
    out.acceleration.resize(size_of(acc));
    for (std::size_t k = 0; k < out.acceleration.size(); ++k) {
      const auto* a = acc->Get(static_cast<flatbuffers::uoffset_t>(k));
      out.acceleration[k] = {a->mph(), a->seconds()};
    }
  }
  get_str(f->manufacturer(), c.manufacturer);
  get_str(f->model(), c.model);
  get_str(f->activation_code(), c.activation_code);
}

void sum(checksum_acc& c, const fb::Car* f) {
  c.i(f->timestamp());
  c.u(f->serial_number());
  c.u(f->model_year());
  c.b(f->available());
  c.u(static_cast<std::uint8_t>(f->code()));
  if (const auto* n = f->some_numbers())
    for (auto x : *n) c.u(x);
  const auto* vc = f->vehicle_code();
  c.s(reinterpret_cast<const char*>(vc->data()), vc->size());
  c.u(f->extras());
  const fb::Engine* e = f->engine();
  c.u(e->capacity());
  c.u(e->num_cylinders());
  c.u(e->max_rpm());
  c.s(reinterpret_cast<const char*>(e->manufacturer_code()->data()), 3);
  c.u(static_cast<std::uint8_t>(e->booster().boost_type()));
  c.u(e->booster().horse_power());
  c.u(size_of(f->fuel_figures()));
  for (const auto* ff : *f->fuel_figures()) {
    c.u(ff->speed());
    c.f(ff->mpg());
    sum_str(c, ff->usage_description());
  }
  c.u(size_of(f->performance_figures()));
  for (const auto* pf : *f->performance_figures()) {
    c.u(pf->octane_rating());
    c.u(size_of(pf->acceleration()));
    for (const auto* a : *pf->acceleration()) {
      c.u(a->mph());
      c.f(a->seconds());
    }
  }
  sum_str(c, f->manufacturer());
  sum_str(c, f->model());
  sum_str(c, f->activation_code());
}

// ============================ Monster ============================
struct monster_scratch {
  std::vector<Offset<fb::Monster>> monsters;
  std::vector<Offset<fb::Weapon>> weapons;
};

Offset<fb::MonsterList> build(FlatBufferBuilder& b, const std::vector<wl::Monster>& ms,
                              monster_scratch& s) {
  s.monsters.clear();
  for (const auto& m : ms) {
    auto name = str(b, m.name);
    auto inventory = b.CreateVector(m.inventory.data(), m.inventory.size());
    s.weapons.clear();
    for (const auto& w : m.weapons)
      s.weapons.push_back(fb::CreateWeapon(b, str(b, w.name), w.damage));
    auto weapons = b.CreateVector(s.weapons);
    auto equipped = fb::CreateWeapon(b, str(b, m.equipped.name), m.equipped.damage);
    fb::Vec3* path = nullptr;
    auto pathv = b.CreateUninitializedVectorOfStructs(m.path.size(), &path);
    for (std::size_t i = 0; i < m.path.size(); ++i)
      path[i] = fb::Vec3(m.path[i].x, m.path[i].y, m.path[i].z);
    const fb::Vec3 pos(m.pos.x, m.pos.y, m.pos.z);
    s.monsters.push_back(fb::CreateMonster(b, &pos, m.mana, m.hp, name, inventory,
                                           static_cast<std::uint8_t>(m.color), weapons, equipped,
                                           pathv));
  }
  return fb::CreateMonsterList(b, b.CreateVector(s.monsters));
}

void read(const fb::Weapon* f, wl::Weapon& w) {
  if (f == nullptr) {
    w = {};
    return;
  }
  get_str(f->name(), w.name);
  w.damage = f->damage();
}

void read(const fb::MonsterList* f, std::vector<wl::Monster>& ms) {
  const auto* list = f->monsters();
  ms.resize(size_of(list));
  for (std::size_t i = 0; i < ms.size(); ++i) {
    const auto* m = list->Get(static_cast<flatbuffers::uoffset_t>(i));
    auto& out = ms[i];
    if (const auto* p = m->pos())
      out.pos = {p->x(), p->y(), p->z()};
    else
      out.pos = {};
    out.mana = m->mana();
    out.hp = m->hp();
    get_str(m->name(), out.name);
    get_scalars(m->inventory(), out.inventory);
    out.color = static_cast<wl::Color>(m->color());
    const auto* ws = m->weapons();
    out.weapons.resize(size_of(ws));
    for (std::size_t k = 0; k < out.weapons.size(); ++k)
      read(ws->Get(static_cast<flatbuffers::uoffset_t>(k)), out.weapons[k]);
    read(m->equipped(), out.equipped);
    const auto* path = m->path();
    out.path.resize(size_of(path));
    for (std::size_t k = 0; k < out.path.size(); ++k) {
      const auto* p = path->Get(static_cast<flatbuffers::uoffset_t>(k));
      out.path[k] = {p->x(), p->y(), p->z()};
    }
  }
}

void sum(checksum_acc& c, const fb::Weapon* w) {
  sum_str(c, w->name());
  c.i(w->damage());
}

void sum(checksum_acc& c, const fb::MonsterList* f) {
  c.u(size_of(f->monsters()));
  for (const auto* m : *f->monsters()) {
    c.f(m->pos()->x());
    c.f(m->pos()->y());
    c.f(m->pos()->z());
    c.i(m->mana());
    c.i(m->hp());
    sum_str(c, m->name());
    c.u(size_of(m->inventory()));
    for (auto x : *m->inventory()) c.u(x);
    c.u(m->color());
    c.u(size_of(m->weapons()));
    for (const auto* w : *m->weapons()) sum(c, w);
    sum(c, m->equipped());
    c.u(size_of(m->path()));
    for (const auto* p : *m->path()) {
      c.f(p->x());
      c.f(p->y());
      c.f(p->z());
    }
  }
}

// ============================ StructPacker ============================
Offset<fb::SmallMessage> build(FlatBufferBuilder& b, const wl::SmallMessage& m) {
  auto sender = str(b, m.sender);
  auto text = str(b, m.text);
  auto recipients = b.CreateVector(m.recipients.data(), m.recipients.size());
  auto readings = b.CreateVector(m.readings.data(), m.readings.size());
  auto tags = b.CreateVectorOfStrings(m.tags.begin(), m.tags.end());
  return fb::CreateSmallMessage(b, m.id, m.is_outgoing, m.priority, m.channel, m.flags, m.sequence,
                                m.checksum, m.score, m.balance,
                                m.time_posted.time_since_epoch().count(), m.time_to_live.count(),
                                sender, text, recipients, readings, tags);
}

void read(const fb::SmallMessage* f, wl::SmallMessage& m) {
  m.id = f->id();
  m.is_outgoing = f->is_outgoing();
  m.priority = f->priority();
  m.channel = f->channel();
  m.flags = f->flags();
  m.sequence = f->sequence();
  m.checksum = f->checksum();
  m.score = f->score();
  m.balance = f->balance();
  m.time_posted = wl::DateTime(wl::TimeSpan(f->time_posted()));
  m.time_to_live = wl::TimeSpan(f->time_to_live());
  get_str(f->sender(), m.sender);
  get_str(f->text(), m.text);
  get_scalars(f->recipients(), m.recipients);
  get_scalars(f->readings(), m.readings);
  const auto* tags = f->tags();
  m.tags.resize(size_of(tags));
  for (std::size_t i = 0; i < m.tags.size(); ++i)
    get_str(tags->Get(static_cast<flatbuffers::uoffset_t>(i)), m.tags[i]);
}

void sum(checksum_acc& c, const fb::SmallMessage* f) {
  c.i(f->id());
  c.b(f->is_outgoing());
  c.u(f->priority());
  c.i(f->channel());
  c.u(f->flags());
  c.i(f->sequence());
  c.u(f->checksum());
  c.f(f->score());
  c.d(f->balance());
  c.i(f->time_posted());
  c.i(f->time_to_live());
  sum_str(c, f->sender());
  sum_str(c, f->text());
  c.u(size_of(f->recipients()));
  for (auto x : *f->recipients()) c.i(x);
  c.u(size_of(f->readings()));
  for (auto x : *f->readings()) c.d(x);
  c.u(size_of(f->tags()));
  for (const auto* t : *f->tags()) sum_str(c, t);
}

Offset<fb::LargeMessage> build(FlatBufferBuilder& b, const wl::LargeMessage& m) {
  auto header = build(b, m.header);
  auto samples = b.CreateVector(m.samples.data(), m.samples.size());
  auto ids = b.CreateVector(m.ids.data(), m.ids.size());
  auto weights = b.CreateVector(m.weights.data(), m.weights.size());
  auto labels = b.CreateVectorOfStrings(m.labels.begin(), m.labels.end());
  static_assert(sizeof(wl::DateTime) == sizeof(std::int64_t));
  std::int64_t* ts = nullptr;
  auto timestamps = b.CreateUninitializedVector(m.timestamps.size(), &ts);
  for (std::size_t i = 0; i < m.timestamps.size(); ++i)
    ts[i] = m.timestamps[i].time_since_epoch().count();
  return fb::CreateLargeMessage(b, header, samples, ids, weights, labels, timestamps);
}

void read(const fb::LargeMessage* f, wl::LargeMessage& m) {
  read(f->header(), m.header);
  get_scalars(f->samples(), m.samples);
  get_scalars(f->ids(), m.ids);
  get_scalars(f->weights(), m.weights);
  const auto* labels = f->labels();
  m.labels.resize(size_of(labels));
  for (std::size_t i = 0; i < m.labels.size(); ++i)
    get_str(labels->Get(static_cast<flatbuffers::uoffset_t>(i)), m.labels[i]);
  const auto* ts = f->timestamps();
  m.timestamps.resize(size_of(ts));
  for (std::size_t i = 0; i < m.timestamps.size(); ++i)
    m.timestamps[i] = wl::DateTime(wl::TimeSpan(ts->Get(static_cast<flatbuffers::uoffset_t>(i))));
}

void sum(checksum_acc& c, const fb::LargeMessage* f) {
  sum(c, f->header());
  c.u(size_of(f->samples()));
  for (auto x : *f->samples()) c.d(x);
  c.u(size_of(f->ids()));
  for (auto x : *f->ids()) c.i(x);
  c.u(size_of(f->weights()));
  for (auto x : *f->weights()) c.f(x);
  c.u(size_of(f->labels()));
  for (const auto* l : *f->labels()) sum_str(c, l);
  c.u(size_of(f->timestamps()));
  for (auto x : *f->timestamps()) c.i(x);
}

// ============================ Tick ============================
Offset<fb::TickMessage> build(FlatBufferBuilder& b, const wl::Tick& t) {
  const fb::Tick tick(t.timestamp_ns, t.symbol_id, t.quantity, t.price, t.side);
  return fb::CreateTickMessage(b, &tick);
}
void read(const fb::TickMessage* f, wl::Tick& t) {
  const fb::Tick* x = f->tick();
  if (x == nullptr) {
    t = {};
    return;
  }
  t.timestamp_ns = x->timestamp_ns();
  t.symbol_id = x->symbol_id();
  t.quantity = x->quantity();
  t.price = x->price();
  t.side = x->side();
}
void sum(checksum_acc& c, const fb::TickMessage* f) {
  const fb::Tick* x = f->tick();
  c.u(x->timestamp_ns());
  c.u(x->symbol_id());
  c.u(x->quantity());
  c.d(x->price());
  c.u(x->side());
}

// ============================ adapter ============================
template <class T> struct root_of;
template <> struct root_of<wl::Person> {
  using type = fb::Person;
};
template <> struct root_of<wl::Car> {
  using type = fb::Car;
};
template <> struct root_of<std::vector<wl::Monster>> {
  using type = fb::MonsterList;
};
template <> struct root_of<wl::SmallMessage> {
  using type = fb::SmallMessage;
};
template <> struct root_of<wl::LargeMessage> {
  using type = fb::LargeMessage;
};
template <> struct root_of<wl::Tick> {
  using type = fb::TickMessage;
};

template <class T>
struct flatbuffers_adapter {
  using root = typename root_of<T>::type;
  FlatBufferBuilder builder{1024};
  car_scratch car;
  monster_scratch monsters;

  bytes_view encode(const T& v) {
    builder.Clear();
    if constexpr (std::is_same_v<T, wl::Car>)
      builder.Finish(build(builder, v, car));
    else if constexpr (std::is_same_v<T, std::vector<wl::Monster>>)
      builder.Finish(build(builder, v, monsters));
    else
      builder.Finish(build(builder, v));
    return {reinterpret_cast<const std::byte*>(builder.GetBufferPointer()), builder.GetSize()};
  }

  bool decode(bytes_view b, T& v) {
    const auto* p = reinterpret_cast<const std::uint8_t*>(b.data());
    flatbuffers::Verifier verifier(p, b.size());
    if (!verifier.VerifyBuffer<root>(nullptr)) return false;
    read(flatbuffers::GetRoot<root>(p), v);
    return true;
  }

  std::uint64_t traverse(bytes_view b) {
    checksum_acc c;
    sum(c, flatbuffers::GetRoot<root>(b.data()));
    return c.h;
  }
};

} // namespace

void register_flatbuffers() {
  add_cell<W_Person, flatbuffers_adapter<wl::Person>>("flatbuffers");
  add_cell<W_CarSequential, flatbuffers_adapter<wl::Car>>("flatbuffers");
  add_cell<W_CarRandom, flatbuffers_adapter<wl::Car>>("flatbuffers");
  add_cell<W_Monster, flatbuffers_adapter<std::vector<wl::Monster>>>("flatbuffers");
  add_cell<W_Small, flatbuffers_adapter<wl::SmallMessage>>("flatbuffers");
  add_cell<W_Large, flatbuffers_adapter<wl::LargeMessage>>("flatbuffers");
  add_cell<W_Tick, flatbuffers_adapter<wl::Tick>>("flatbuffers");
}

} // namespace peers
