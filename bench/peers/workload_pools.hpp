// The peers workloads. Each is a pool of values cycled through by the timed
// loops (one value for the fixed seeds' records; 16 for the providers that
// vary per message), built once from the shared generators in workloads/.
#pragma once

#include <workloads/workloads.hpp>

#include <array>
#include <string>
#include <vector>

namespace peers {

// Grape's Person record (one value, the seed's).
struct W_Person {
  using value_type = workloads::Person;
  static constexpr const char* id = "Person";
  static const std::vector<value_type>& pool();
};

// xbuf2's Car, sequential provider: make_car_sequential(i), i = 0..15.
struct W_CarSequential {
  using value_type = workloads::Car;
  static constexpr const char* id = "Car_sequential";
  static const std::vector<value_type>& pool();
};

// xbuf2's Car, random provider: 16 make_car_random() values, fixed seed.
struct W_CarRandom {
  using value_type = workloads::Car;
  static constexpr const char* id = "Car_random";
  static const std::vector<value_type>& pool();
};

// FlatBuffers' game data: one message = a vector of 50 monsters.
struct W_Monster {
  using value_type = std::vector<workloads::Monster>;
  static constexpr const char* id = "Monster";
  static const std::vector<value_type>& pool();
};

// StructPacker's small (~400 B) and large (~2 MB) structures.
struct W_Small {
  using value_type = workloads::SmallMessage;
  static constexpr const char* id = "StructPacker_small";
  static const std::vector<value_type>& pool();
};
struct W_Large {
  using value_type = workloads::LargeMessage;
  static constexpr const char* id = "StructPacker_large";
  static const std::vector<value_type>& pool();
};

// The design document's Tick: make_tick(i), i = 0..15.
struct W_Tick {
  using value_type = workloads::Tick;
  static constexpr const char* id = "Tick";
  static const std::vector<value_type>& pool();
};

// bench/compare.cpp's Vec (12 bytes) and LargeStruct (80 bytes), one value
// each, and a batch of 256 ticks (make_tick(i), i = 0..255) as one message.
struct W_Vec {
  using value_type = workloads::Vec;
  static constexpr const char* id = "Vec";
  static const std::vector<value_type>& pool();
};
struct W_LargeStruct {
  using value_type = workloads::LargeStruct;
  static constexpr const char* id = "LargeStruct";
  static const std::vector<value_type>& pool();
};
struct W_TickBatch {
  using value_type = std::array<workloads::Tick, 256>;
  static constexpr const char* id = "Tick_256";
  static const std::vector<value_type>& pool();
};

// Strings alone (`std::string` as the whole message): empty, 8 and 128 chars.
struct W_String0 {
  using value_type = std::string;
  static constexpr const char* id = "String_0";
  static const std::vector<value_type>& pool();
};
struct W_String8 {
  using value_type = std::string;
  static constexpr const char* id = "String_8";
  static const std::vector<value_type>& pool();
};
struct W_String128 {
  using value_type = std::string;
  static constexpr const char* id = "String_128";
  static const std::vector<value_type>& pool();
};

} // namespace peers
