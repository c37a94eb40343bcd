// Zero-copy reads (docs/zero-copy.md): the sender writes owning types, the
// receiver decodes the same bytes into views that point into its buffer.
#include <bin_serializer/bin_serializer.hpp>

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

struct Reading { // what the sender has
  std::string sensor;
  std::vector<float> samples;
};

struct ReadingView { // what the receiver decodes: no allocation, no copy
  std::string_view sensor;
  bin_serializer::array_view<float> samples;
};

int main() {
  bin_serializer::Buffer wire;
  if (!serialize(wire, Reading{"thermo-7", {20.5f, 21.0f, 21.25f}})) return 1;

  ReadingView view;
  if (!deserialize(wire, view)) return 1;
  float sum = 0;
  for (const float x : view.samples) sum += x; // elements are copied out: any alignment works
  // The views are valid only while `wire` is alive and not written to again.
  return view.sensor == "thermo-7" && view.samples.size() == 3 && sum == 62.75f ? 0 : 1;
}
