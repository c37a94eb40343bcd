#include <bin_serializer/bin_serializer.hpp>

struct Vec {
  float x, y, z;
};
struct Player {
  Vec pos;
  std::string name;
  template <class V> auto reflect(V&& v) { return v(pos, name); }
  template <class V> auto reflect(V&& v) const { return v(pos, name); }
};

int main() {
  bin_serializer::FixedBuffer<64> buf;
  Player in{{1, 2, 3}, "Ada"}, out;
  bool ok = serialize(buf, in) && deserialize(buf, out);
  return ok && out.name == "Ada" && out.pos.z == 3 ? 0 : 1;
}
