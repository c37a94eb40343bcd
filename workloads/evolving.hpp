// Three published versions of one evolvable struct (bin_serializer/reflect/evolution.hpp),
// shared by the evolution fuzz target, the golden vectors and the benchmarks.
// ProfileV2 has exactly workloads::Person's fields, so it measures what the
// evolvable prefix costs against the plain struct.
#pragma once

#include <bin_serializer/reflect/evolution.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace workloads {

// Nested evolvable struct: version 1 had max_users only.
struct Limits {
  std::uint16_t max_users = 10;
  std::uint16_t max_rooms = 3;
  using bin_serializer_evolution = bin_serializer::versions<1, 2>;
  bool operator==(const Limits&) const = default;
};

// Limits as a program built before max_rooms existed declares it.
struct LimitsV1 {
  std::uint16_t max_users = 10;
  using bin_serializer_evolution = bin_serializer::versions<1>;
  bool operator==(const LimitsV1&) const = default;
};

// A plain struct holding a nested evolvable struct of numbers where a decoder
// may read fixed-size things through one window checked once: between
// fixed-size fields, as a vector's elements, in an optional. RoomV1 is what
// an older program reads a newer RoomV2 as (and back), so a version's bytes
// must never be sized by another's largest encoding.
template <class L>
struct RoomOf {
  std::uint32_t id = 0;
  L limits;
  std::vector<L> history;
  std::optional<L> cap;
  std::uint8_t flag = 0;
  std::string tail;
  bool operator==(const RoomOf&) const = default;
};
using RoomV1 = RoomOf<LimitsV1>;
using RoomV2 = RoomOf<Limits>;

struct ProfileV1 {
  std::string name;
  std::int32_t id{};
  using bin_serializer_evolution = bin_serializer::versions<2>;
  bool operator==(const ProfileV1&) const = default;
};

// Version 2 appends email and scores: Person's fields, evolvable.
struct ProfileV2 {
  std::string name;
  std::int32_t id{};
  std::string email;
  std::vector<float> scores;
  using bin_serializer_evolution = bin_serializer::versions<2, 4>;
  bool operator==(const ProfileV2&) const = default;
};

// Version 3 appends a nested evolvable struct.
struct ProfileV3 {
  std::string name;
  std::int32_t id{};
  std::string email;
  std::vector<float> scores;
  Limits limits;
  using bin_serializer_evolution = bin_serializer::versions<2, 4, 5>;
  bool operator==(const ProfileV3&) const = default;
};

inline ProfileV1 make_profile_v1() { return {.name = "Ann", .id = 1}; }
inline ProfileV2 make_profile_v2() {
  return {
      .name = "John Doe", .id = 25, .email = "john.doe@example.com", .scores = {2.1f, 3.2f, 4.5f}};
}
inline ProfileV3 make_profile_v3() {
  return {.name = "Bo",
          .id = 3,
          .email = "b@x.org",
          .scores = {1.0f},
          .limits = {.max_users = 100, .max_rooms = 7}};
}

inline RoomV1 make_room_v1() {
  return {
      .id = 7, .limits = {40}, .history = {{1}, {2}}, .cap = LimitsV1{9}, .flag = 1, .tail = "v1"};
}
inline RoomV2 make_room_v2() {
  return {.id = 8,
          .limits = {.max_users = 300, .max_rooms = 12},
          .history = {{.max_users = 1, .max_rooms = 2}, {.max_users = 3, .max_rooms = 4}},
          .cap = Limits{.max_users = 5, .max_rooms = 6},
          .flag = 2,
          .tail = "v2"};
}

} // namespace workloads
