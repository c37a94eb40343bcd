// Monster: the FlatBuffers seed's game data, as a plain aggregate. The
// workload is a vector of 50 monsters with random data from a fixed seed.
#pragma once

#include <cstdint>
#include <random>
#include <string>
#include <vector>

namespace workloads {

struct Vec3 {
  float x, y, z;
  bool operator==(const Vec3&) const = default;
};

enum class Color : std::uint8_t { Red = 0, Green = 1, Blue = 2 };

struct Weapon {
  std::string name;
  std::int16_t damage{};
  bool operator==(const Weapon&) const = default;
};

struct Monster {
  Vec3 pos{};
  std::int16_t mana{};
  std::int16_t hp{};
  std::string name;
  std::vector<std::uint8_t> inventory;
  Color color{};
  std::vector<Weapon> weapons;
  Weapon equipped;
  std::vector<Vec3> path;
  bool operator==(const Monster&) const = default;
};

inline std::string random_word(std::mt19937_64& rng, std::size_t min_len, std::size_t max_len) {
  std::uniform_int_distribution<std::size_t> len(min_len, max_len);
  std::uniform_int_distribution<int> ch('a', 'z');
  std::string s(len(rng), ' ');
  for (char& c : s) c = static_cast<char>(ch(rng));
  return s;
}

inline Monster make_monster(std::mt19937_64& rng) {
  std::uniform_real_distribution<float> coord(-1000.f, 1000.f);
  std::uniform_int_distribution<int> small(0, 300);
  std::uniform_int_distribution<int> byte(0, 255);
  std::uniform_int_distribution<int> count(0, 10);
  Monster m;
  m.pos = {coord(rng), coord(rng), coord(rng)};
  m.mana = static_cast<std::int16_t>(small(rng));
  m.hp = static_cast<std::int16_t>(small(rng));
  m.name = random_word(rng, 4, 16);
  m.inventory.resize(static_cast<std::size_t>(count(rng)));
  for (auto& item : m.inventory) item = static_cast<std::uint8_t>(byte(rng));
  m.color = static_cast<Color>(byte(rng) % 3);
  const int weapons = 1 + count(rng) % 3;
  for (int i = 0; i < weapons; ++i)
    m.weapons.push_back({random_word(rng, 3, 12), static_cast<std::int16_t>(small(rng))});
  m.equipped = m.weapons.front();
  m.path.resize(static_cast<std::size_t>(count(rng)));
  for (auto& p : m.path) p = {coord(rng), coord(rng), coord(rng)};
  return m;
}

// The benchmark workload: 50 monsters, same bytes on every run.
inline std::vector<Monster> make_monsters(std::size_t n = 50, std::uint64_t seed = 42) {
  std::mt19937_64 rng(seed);
  std::vector<Monster> out;
  out.reserve(n);
  for (std::size_t i = 0; i < n; ++i) out.push_back(make_monster(rng));
  return out;
}

} // namespace workloads
