// A class with virtual functions and no reflect(): the message says why its
// bytes are not sent and shows the reflect() to write.
// EXPECT-ERROR: has virtual functions
// EXPECT-ERROR: reflect\(V&& v\)
// EXPECT-ERROR: Shape
#include <bin_serializer/bin_serializer.hpp>

class Shape {
public:
  virtual ~Shape() = default;
  [[nodiscard]] virtual double area() const { return w_ * h_; }
#ifdef BIN_SERIALIZER_CF_CONTROL
  template <class V> auto reflect(V&& v) { return v(w_, h_); }
  template <class V> auto reflect(V&& v) const { return v(w_, h_); }
#endif

private:
  double w_ = 1, h_ = 2;
};

int main() {
  bin_serializer::Buffer buf;
  const Shape s;
  return serialize(buf, s) ? 0 : 1;
}
