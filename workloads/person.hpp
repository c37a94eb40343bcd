// Person: the grape seed's benchmark record. A plain aggregate: no reflect(),
// serialized field by field through aggregate reflection.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace workloads {

struct Person {
  std::string name;
  std::int32_t id{};
  std::string email;
  std::vector<float> scores;

  bool operator==(const Person&) const = default;
};

// The seed's exact value.
inline Person make_person() {
  return {
      .name = "John Doe", .id = 25, .email = "john.doe@example.com", .scores = {2.1f, 3.2f, 4.5f}};
}

} // namespace workloads
