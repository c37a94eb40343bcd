// A class that is not trivially copyable, not an aggregate (private data), and
// has no reflect() and no codec has no wire layout. The diagnostic must name
// the type and show the reflect() to write.
// EXPECT-ERROR: no wire layout for this type
// EXPECT-ERROR: reflect\(V&& v\)
// EXPECT-ERROR: Opaque
#include <bin_serializer/bin_serializer.hpp>

#include <string>
#include <utility>

class Opaque {
public:
  explicit Opaque(std::string text) : text_(std::move(text)) {}
#ifdef BIN_SERIALIZER_CF_CONTROL
  template <class V> auto reflect(V&& v) { return v(text_); }
  template <class V> auto reflect(V&& v) const { return v(text_); }
#endif

private:
  std::string text_;
};

int main() {
  bin_serializer::Buffer buf;
  const Opaque o{"hidden"};
  return serialize(buf, o) ? 0 : 1;
}
