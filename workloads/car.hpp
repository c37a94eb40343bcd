// Car: the SBE example message the xbuf2 seed benchmarks (~200 bytes), as a
// plain aggregate: scalars, enums, a bit set, fixed arrays, a nested engine
// with a nested booster, two repeating groups (one with a nested group) and
// three variable-length strings.
#pragma once

#include <array>
#include <bitset>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

namespace workloads {

enum class Model : char { A = 'A', B = 'B', C = 'C' };
enum class BoostType : char { Turbo = 'T', Supercharger = 'S', Nitrous = 'N', Kers = 'K' };

// Bit positions of Car::extras.
enum Extra : std::size_t { SunRoof = 0, SportsPack = 1, CruiseControl = 2 };

struct Booster {
  BoostType boost_type{};
  std::uint8_t horse_power{};
  bool operator==(const Booster&) const = default;
};

struct Engine {
  std::uint16_t capacity{};
  std::uint8_t num_cylinders{};
  std::uint16_t max_rpm{};
  std::array<char, 3> manufacturer_code{};
  Booster booster{};
  bool operator==(const Engine&) const = default;
};

struct FuelFigure {
  std::uint16_t speed{};
  float mpg{};
  std::string usage_description;
  bool operator==(const FuelFigure&) const = default;
};

struct Acceleration {
  std::uint16_t mph{};
  float seconds{};
  bool operator==(const Acceleration&) const = default;
};

struct PerformanceFigure {
  std::uint8_t octane_rating{};
  std::vector<Acceleration> acceleration;
  bool operator==(const PerformanceFigure&) const = default;
};

struct Car {
  std::int64_t timestamp{};
  std::uint64_t serial_number{};
  std::uint16_t model_year{};
  bool available{};
  Model code{};
  std::array<std::uint32_t, 4> some_numbers{};
  std::array<char, 6> vehicle_code{};
  std::bitset<8> extras;
  Engine engine;
  std::vector<FuelFigure> fuel_figures;               // 3 entries
  std::vector<PerformanceFigure> performance_figures; // 2 entries x 3 accelerations
  std::string manufacturer;
  std::string model;
  std::string activation_code;
  bool operator==(const Car&) const = default;
};

// Sequential provider: the same predictable values every time (the SBE
// example's values), counter-dependent fields from i.
inline Car make_car_sequential(std::uint64_t i = 0) {
  Car c;
  c.timestamp = 1'700'000'000'000 + static_cast<std::int64_t>(i);
  c.serial_number = 1234 + i;
  c.model_year = 2013;
  c.available = true;
  c.code = Model::A;
  c.some_numbers = {0, 1, 2, 3};
  c.vehicle_code = {'a', 'b', 'c', 'd', 'e', 'f'};
  c.extras.set(SunRoof).set(CruiseControl);
  c.engine = {2000, 4, 9000, {'1', '2', '3'}, {BoostType::Nitrous, 200}};
  c.fuel_figures = {
      {30, 35.9f, "Urban Cycle"}, {55, 49.0f, "Combined Cycle"}, {75, 40.0f, "Highway Cycle"}};
  c.performance_figures = {{95, {{30, 4.0f}, {60, 7.5f}, {100, 12.2f}}},
                           {99, {{30, 3.8f}, {60, 7.1f}, {100, 11.8f}}}};
  c.manufacturer = "Honda";
  c.model = "Civic VTi";
  c.activation_code = "abcdef";
  return c;
}

// Random provider: every field random (fixed seed for reproducibility),
// string lengths vary, so the encoded size varies around the sequential one.
inline Car make_car_random(std::mt19937_64& rng) {
  auto pick = [&](std::uint64_t lo, std::uint64_t hi) {
    return std::uniform_int_distribution<std::uint64_t>(lo, hi)(rng);
  };
  auto real = [&](float lo, float hi) {
    return std::uniform_real_distribution<float>(lo, hi)(rng);
  };
  auto word = [&](std::size_t lo, std::size_t hi) {
    std::string s(pick(lo, hi), ' ');
    for (char& ch : s) ch = static_cast<char>(pick('a', 'z'));
    return s;
  };
  auto letter = [&] { return static_cast<char>(pick('a', 'z')); };
  Car c;
  c.timestamp = static_cast<std::int64_t>(pick(0, 1ULL << 62));
  c.serial_number = pick(0, ~0ULL);
  c.model_year = static_cast<std::uint16_t>(pick(1990, 2030));
  c.available = pick(0, 1) == 1;
  c.code = static_cast<Model>('A' + pick(0, 2));
  for (auto& n : c.some_numbers) n = static_cast<std::uint32_t>(pick(0, ~0U));
  for (auto& ch : c.vehicle_code) ch = letter();
  c.extras = std::bitset<8>(pick(0, 7));
  c.engine = {
      static_cast<std::uint16_t>(pick(800, 6000)),
      static_cast<std::uint8_t>(pick(2, 12)),
      static_cast<std::uint16_t>(pick(5000, 9000)),
      {letter(), letter(), letter()},
      {static_cast<BoostType>("TSNK"[pick(0, 3)]), static_cast<std::uint8_t>(pick(0, 255))}};
  for (int k = 0; k < 3; ++k)
    c.fuel_figures.push_back(
        {static_cast<std::uint16_t>(pick(20, 120)), real(10, 80), word(8, 16)});
  for (int k = 0; k < 2; ++k) {
    PerformanceFigure pf{static_cast<std::uint8_t>(pick(85, 100)), {}};
    for (int a = 0; a < 3; ++a)
      pf.acceleration.push_back({static_cast<std::uint16_t>(pick(10, 120)), real(2, 20)});
    c.performance_figures.push_back(std::move(pf));
  }
  c.manufacturer = word(3, 10);
  c.model = word(5, 12);
  c.activation_code = word(6, 6);
  return c;
}

} // namespace workloads
