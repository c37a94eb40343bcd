// checksum(value): a sum over every field of a workload value. A zero-copy
// peer's traverse() reads every field straight from the wire bytes and feeds
// the same accumulator in the same way, so the harness can check that it saw
// every field with the right value before timing it. (A sum does not depend on
// the order fields are visited in, so peers may read in wire order.)
#pragma once

#include <workloads/workloads.hpp>

#include <bit>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace peers {

struct checksum_acc {
  std::uint64_t h = 0;

  void u(std::uint64_t x) noexcept { h += (x ^ (x >> 29)) * 0x9E3779B97F4A7C15ull + 1; }
  void i(std::int64_t x) noexcept { u(static_cast<std::uint64_t>(x)); }
  void f(float x) noexcept { u(std::bit_cast<std::uint32_t>(x)); }
  void d(double x) noexcept { u(std::bit_cast<std::uint64_t>(x)); }
  void b(bool x) noexcept { u(x ? 1 : 0); }
  void s(const char* p, std::size_t n) noexcept {
    u(n);
    std::uint64_t t = 0;
    for (std::size_t k = 0; k < n; ++k) t += static_cast<unsigned char>(p[k]);
    u(t);
  }
  void s(std::string_view v) noexcept { s(v.data(), v.size()); }
};

// The workload checksums are templates so that the zero-copy view twins
// (workloads/views.hpp: string_view for string, array_view / sequence_view for
// vector) are summed by the very same code as the owning types.
template <class PersonLike>
void add_person(checksum_acc& c, const PersonLike& p) {
  c.s(p.name);
  c.i(p.id);
  c.s(p.email);
  c.u(p.scores.size());
  for (const float x : p.scores) c.f(x);
}
inline void add(checksum_acc& c, const workloads::Person& p) { add_person(c, p); }

template <class CarLike>
void add_car(checksum_acc& c, const CarLike& car) {
  c.i(car.timestamp);
  c.u(car.serial_number);
  c.u(car.model_year);
  c.b(car.available);
  c.u(static_cast<std::uint8_t>(car.code));
  for (auto n : car.some_numbers) c.u(n);
  c.s(car.vehicle_code.data(), car.vehicle_code.size());
  c.u(car.extras.to_ulong());
  const auto& e = car.engine;
  c.u(e.capacity);
  c.u(e.num_cylinders);
  c.u(e.max_rpm);
  c.s(e.manufacturer_code.data(), e.manufacturer_code.size());
  c.u(static_cast<std::uint8_t>(e.booster.boost_type));
  c.u(e.booster.horse_power);
  c.u(car.fuel_figures.size());
  for (const auto& f : car.fuel_figures) {
    c.u(f.speed);
    c.f(f.mpg);
    c.s(f.usage_description);
  }
  c.u(car.performance_figures.size());
  for (const auto& pf : car.performance_figures) {
    c.u(pf.octane_rating);
    c.u(pf.acceleration.size());
    for (const workloads::Acceleration a : pf.acceleration) {
      c.u(a.mph);
      c.f(a.seconds);
    }
  }
  c.s(car.manufacturer);
  c.s(car.model);
  c.s(car.activation_code);
}
inline void add(checksum_acc& c, const workloads::Car& car) { add_car(c, car); }

inline void add(checksum_acc& c, const workloads::Vec3& v) {
  c.f(v.x);
  c.f(v.y);
  c.f(v.z);
}

template <class WeaponLike>
void add_weapon(checksum_acc& c, const WeaponLike& w) {
  c.s(w.name);
  c.i(w.damage);
}

template <class MonsterLike>
void add_monster(checksum_acc& c, const MonsterLike& m) {
  add(c, m.pos);
  c.i(m.mana);
  c.i(m.hp);
  c.s(m.name);
  c.u(m.inventory.size());
  for (const std::uint8_t x : m.inventory) c.u(x);
  c.u(static_cast<std::uint8_t>(m.color));
  c.u(m.weapons.size());
  for (const auto& w : m.weapons) add_weapon(c, w);
  add_weapon(c, m.equipped);
  c.u(m.path.size());
  for (const workloads::Vec3 p : m.path) add(c, p);
}

template <class MonstersLike>
void add_monsters(checksum_acc& c, const MonstersLike& ms) {
  c.u(ms.size());
  for (const auto& m : ms) add_monster(c, m);
}
inline void add(checksum_acc& c, const workloads::Weapon& w) { add_weapon(c, w); }
inline void add(checksum_acc& c, const workloads::Monster& m) { add_monster(c, m); }
inline void add(checksum_acc& c, const std::vector<workloads::Monster>& ms) { add_monsters(c, ms); }

inline void add(checksum_acc& c, const workloads::SmallMessage& m) {
  c.i(m.id);
  c.b(m.is_outgoing);
  c.u(m.priority);
  c.i(m.channel);
  c.u(m.flags);
  c.i(m.sequence);
  c.u(m.checksum);
  c.f(m.score);
  c.d(m.balance);
  c.i(m.time_posted.time_since_epoch().count());
  c.i(m.time_to_live.count());
  c.s(m.sender);
  c.s(m.text);
  c.u(m.recipients.size());
  for (auto r : m.recipients) c.i(r);
  c.u(m.readings.size());
  for (auto r : m.readings) c.d(r);
  c.u(m.tags.size());
  for (const auto& t : m.tags) c.s(t);
}

inline void add(checksum_acc& c, const workloads::LargeMessage& m) {
  add(c, m.header);
  c.u(m.samples.size());
  for (auto x : m.samples) c.d(x);
  c.u(m.ids.size());
  for (auto x : m.ids) c.i(x);
  c.u(m.weights.size());
  for (auto x : m.weights) c.f(x);
  c.u(m.labels.size());
  for (const auto& l : m.labels) c.s(l);
  c.u(m.timestamps.size());
  for (auto t : m.timestamps) c.i(t.time_since_epoch().count());
}

inline void add(checksum_acc& c, const workloads::Tick& t) {
  c.u(t.timestamp_ns);
  c.u(t.symbol_id);
  c.u(t.quantity);
  c.d(t.price);
  c.u(t.side);
}

template <class T>
std::uint64_t checksum(const T& value) {
  checksum_acc c;
  add(c, value);
  return c.h;
}

} // namespace peers
