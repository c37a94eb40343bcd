// A trivially copyable class with a private pointer and no reflect(): the
// library cannot see its members, so it must not copy the address onto the
// wire. The message names the type and prints the one-line opt-in.
// EXPECT-ERROR: hides its members from the library
// EXPECT-ERROR: template <> struct bin_serializer::trivially_serializable<T> : std::true_type \{\};
// EXPECT-ERROR: Label
#include <bin_serializer/bin_serializer.hpp>

#include <type_traits>

class Label {
public:
  explicit Label(const char* text) : text_(text) {}

private:
  const char* text_;
  int id_ = 0;
};

static_assert(std::is_trivially_copyable_v<Label>);

#ifdef BIN_SERIALIZER_CF_CONTROL
template <>
struct bin_serializer::trivially_serializable<Label> : std::true_type {};
#endif

int main() {
  bin_serializer::FixedBuffer<64> buf;
  const Label l{"hello"};
  return serialize(buf, l) ? 0 : 1;
}
