// Zero-copy counterparts of Person, Car and Monster (docs/zero-copy.md): the
// same wire bytes, decoded into views that point into the input instead of
// owning strings and vectors. std::string becomes std::string_view, a
// std::vector of trivially copyable elements becomes bin_serializer::array_view,
// and a std::vector of structs that hold strings becomes a
// bin_serializer::sequence_view of view structs (decoded while iterating), so
// decoding any of them allocates nothing, the first time included.
//
// CarView is native-format only: Acceleration {uint16, float} has padding, so
// in the portable format its encoding is not its object bytes and an
// array_view cannot point at it (a compile error says so). MonsterView comes in
// both formats (BasicMonsterView<Format>) because a sequence_view's element
// bytes belong to one format.
#pragma once

#include <array>
#include <bitset>
#include <cstdint>
#include <string_view>
#include <vector>

#include <bin_serializer/view/array_view.hpp>
#include <bin_serializer/view/sequence_view.hpp>

#include "car.hpp"
#include "monster.hpp"
#include "person.hpp"

namespace workloads {

// Plain aggregates like their owning twins: automatic reflection applies.
struct PersonView {
  std::string_view name;
  std::int32_t id{};
  std::string_view email;
  bin_serializer::array_view<float> scores;
};

struct FuelFigureView {
  std::uint16_t speed{};
  float mpg{};
  std::string_view usage_description;
};

struct PerformanceFigureView {
  std::uint8_t octane_rating{};
  bin_serializer::array_view<Acceleration> acceleration;
};

struct CarView {
  std::int64_t timestamp{};
  std::uint64_t serial_number{};
  std::uint16_t model_year{};
  bool available{};
  Model code{};
  std::array<std::uint32_t, 4> some_numbers{};
  std::array<char, 6> vehicle_code{};
  std::bitset<8> extras;
  Engine engine;
  bin_serializer::sequence_view<FuelFigureView> fuel_figures;
  bin_serializer::sequence_view<PerformanceFigureView> performance_figures;
  std::string_view manufacturer;
  std::string_view model;
  std::string_view activation_code;
};

// With reflect() (the other way to list fields), to cover both in tests.
struct WeaponView {
  std::string_view name;
  std::int16_t damage{};

  template <class V> auto reflect(V&& v) { return v(name, damage); }
  template <class V> auto reflect(V&& v) const { return v(name, damage); }
};

template <bin_serializer::wire_format Format>
struct BasicMonsterView {
  Vec3 pos{};
  std::int16_t mana{};
  std::int16_t hp{};
  std::string_view name;
  bin_serializer::array_view<std::uint8_t> inventory;
  Color color{};
  bin_serializer::sequence_view<WeaponView, Format> weapons;
  WeaponView equipped;
  bin_serializer::array_view<Vec3> path;
};
using MonsterView = BasicMonsterView<bin_serializer::wire_format::native>;
using PortableMonsterView = BasicMonsterView<bin_serializer::wire_format::portable>;
// A vector<Monster> message, e.g. the benchmark's batch.
template <bin_serializer::wire_format Format = bin_serializer::wire_format::native>
using MonstersView = bin_serializer::sequence_view<BasicMonsterView<Format>, Format>;

// ---- comparisons with the owning types (tests, fuzzers, benchmarks) ----

template <class T>
bool same_elements(const bin_serializer::array_view<T>& view, const std::vector<T>& v) {
  if (view.size() != v.size()) return false;
  for (std::size_t i = 0; i < v.size(); ++i)
    if (!(view[i] == v[i])) return false;
  return true;
}

inline bool same_value(const PersonView& a, const Person& b) {
  return a.name == b.name && a.id == b.id && a.email == b.email &&
         same_elements(a.scores, b.scores);
}

// A sequence_view and a vector hold equal elements (by `same`).
template <class Seq, class T, class Same>
bool same_sequence(const Seq& a, const std::vector<T>& b, Same same) {
  if (a.size() != b.size()) return false;
  std::size_t i = 0;
  for (const auto& x : a) {
    if (i >= b.size() || !same(x, b[i])) return false;
    ++i;
  }
  return i == b.size();
}
inline bool same_value(const CarView& a, const Car& b) {
  const bool fuel = same_sequence(a.fuel_figures, b.fuel_figures, [](const auto& x, const auto& y) {
    return x.speed == y.speed && x.mpg == y.mpg && x.usage_description == y.usage_description;
  });
  const bool perf =
      same_sequence(a.performance_figures, b.performance_figures, [](const auto& x, const auto& y) {
        return x.octane_rating == y.octane_rating && same_elements(x.acceleration, y.acceleration);
      });
  if (!fuel || !perf) return false;
  return a.timestamp == b.timestamp && a.serial_number == b.serial_number &&
         a.model_year == b.model_year && a.available == b.available && a.code == b.code &&
         a.some_numbers == b.some_numbers && a.vehicle_code == b.vehicle_code &&
         a.extras == b.extras && a.engine == b.engine && a.manufacturer == b.manufacturer &&
         a.model == b.model && a.activation_code == b.activation_code;
}

inline bool same_value(const WeaponView& a, const Weapon& b) {
  return a.name == b.name && a.damage == b.damage;
}

template <bin_serializer::wire_format Format>
bool same_value(const BasicMonsterView<Format>& a, const Monster& b) {
  const bool weapons = same_sequence(a.weapons, b.weapons,
                                     [](const auto& x, const auto& y) { return same_value(x, y); });
  return weapons && a.pos == b.pos && a.mana == b.mana && a.hp == b.hp && a.name == b.name &&
         same_elements(a.inventory, b.inventory) && a.color == b.color &&
         same_value(a.equipped, b.equipped) && same_elements(a.path, b.path);
}
} // namespace workloads
