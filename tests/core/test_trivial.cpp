// Trivially copyable values: each is one copy of its sizeof(T) bytes (padding
// included), except that bool bytes are checked on the way in.
#include "test_util.hpp"

#include <cstdint>
#include <limits>
#include <type_traits>
#include <vector>

namespace bs = bin_serializer;
using bs::errc;
using bs::error;
using test_util::bytes_of;
using test_util::cat;
using test_util::hex;
using test_util::to_vector;

namespace {

// A sink with write() only, recording each call: shows how many copies a
// value takes.
struct CountingSink {
  std::vector<std::byte> bytes;
  std::vector<std::size_t> calls;
  bool write(const void* src, std::size_t n) {
    const auto* p = static_cast<const std::byte*>(src);
    bytes.insert(bytes.end(), p, p + n);
    calls.push_back(n);
    return true;
  }
};

// One value, every way: exact bytes, one write() call, round trip from a
// Buffer and a FixedBuffer, serialized_size and max_serialized_size_v.
template <class T>
void expect_bulk(const T& value) {
  static_assert(std::is_trivially_copyable_v<T>);
  static_assert(bs::Serializable<T>);
  static_assert(bs::BoundedSize<T>);
  static_assert(bs::max_serialized_size_v<T> == sizeof(T));
  EXPECT_EQ(bs::serialized_size(value), sizeof(T));

  bs::Buffer buf;
  ASSERT_TRUE(bs::serialize(buf, value));
  EXPECT_EQ(hex(buf), hex(bytes_of(value)));

  CountingSink sink;
  ASSERT_TRUE(bs::serialize(sink, value));
  EXPECT_EQ(sink.calls, std::vector<std::size_t>{sizeof(T)}) << "one copy of sizeof(T) bytes";

  T back{};
  ASSERT_TRUE(bs::deserialize(buf, back));
  EXPECT_EQ(bytes_of(back), bytes_of(value));
  EXPECT_EQ(buf.remaining(), 0u);

  bs::FixedBuffer<sizeof(T)> fixed;
  ASSERT_TRUE(bs::serialize(fixed, value));
  T back2{};
  ASSERT_TRUE(bs::deserialize(fixed, back2));
  EXPECT_EQ(bytes_of(back2), bytes_of(value));
}

template <class T>
class Arithmetic : public ::testing::Test {};
using ArithmeticTypes =
    ::testing::Types<bool, char, signed char, unsigned char, char8_t, char16_t, char32_t, wchar_t,
                     short, unsigned short, int, unsigned, long, unsigned long, long long,
                     unsigned long long, float, double, std::byte>;
TYPED_TEST_SUITE(Arithmetic, ArithmeticTypes);

enum Unscoped { u_zero, u_one, u_big = 0x7FFFFFFF };
enum class Small : std::uint8_t { a = 1, b = 0xFF };
enum class Signed16 : std::int16_t { neg = -300, pos = 300 };
enum class Wide : std::int64_t { min = std::numeric_limits<std::int64_t>::min(), one = 1 };

struct Padded { // 1 + 3 padding + 4 + 2 + 6 padding + 8 = 24 bytes
  std::uint8_t tag;
  float x;
  std::uint16_t id;
  double y;
};

} // namespace

TYPED_TEST(Arithmetic, MinMaxZeroAndOne) {
  using T = TypeParam;
  if constexpr (std::is_same_v<T, std::byte>) {
    for (unsigned v : {0u, 1u, 0x7Fu, 0x80u, 0xFFu}) expect_bulk(static_cast<std::byte>(v));
  } else {
    expect_bulk(std::numeric_limits<T>::min());
    expect_bulk(std::numeric_limits<T>::max());
    expect_bulk(std::numeric_limits<T>::lowest());
    expect_bulk(T{});
    expect_bulk(static_cast<T>(1));
  }
}

TEST(Trivial, FloatingPointSpecials) {
  for (const float f :
       {0.0f, -0.0f, std::numeric_limits<float>::infinity(),
        -std::numeric_limits<float>::infinity(), std::numeric_limits<float>::quiet_NaN(),
        std::numeric_limits<float>::denorm_min(), std::numeric_limits<float>::epsilon()})
    expect_bulk(f);
  for (const double d :
       {-0.0, std::numeric_limits<double>::infinity(), std::numeric_limits<double>::signaling_NaN(),
        std::numeric_limits<double>::denorm_min()})
    expect_bulk(d);
  expect_bulk(static_cast<long double>(1.5)); // x86-64: 10 value bytes + 6 padding bytes, all sent
}

TEST(Trivial, Enums) {
  expect_bulk(u_zero);
  expect_bulk(u_big);
  expect_bulk(Small::b);
  expect_bulk(Signed16::neg);
  expect_bulk(Wide::min);
  static_assert(bs::max_serialized_size_v<Small> == 1);
  static_assert(bs::max_serialized_size_v<Wide> == 8);

  bs::Buffer buf;
  ASSERT_TRUE(bs::serialize(buf, Signed16::neg));
  EXPECT_EQ(hex(buf), hex(bytes_of(std::int16_t{-300}))) << "the underlying value";
}

TEST(Trivial, StructWithPaddingIsSentWhole) {
  static_assert(sizeof(Padded) == 24);
  alignas(Padded) unsigned char storage[sizeof(Padded)];
  std::memset(storage, 0x5A, sizeof storage);
  auto* p = ::new (storage) Padded; // default-initialised: the padding keeps 0x5A
  p->tag = 1;
  p->x = 2.0f;
  p->id = 3;
  p->y = 4.0;
  expect_bulk(*p);

  bs::Buffer buf;
  ASSERT_TRUE(bs::serialize(buf, *p));
  ASSERT_EQ(buf.size(), 24u);
  EXPECT_EQ(buf.data()[1], std::byte{0x5A});
  EXPECT_EQ(buf.data()[10], std::byte{0x5A});
  EXPECT_EQ(buf.data()[15], std::byte{0x5A});
}

TEST(Trivial, FloatArrayIsOneBulkCopy) {
  const float arr[5] = {1.0f, -2.5f, 3.25f, 0.0f, 1e30f};
  expect_bulk(arr[0]);
  CountingSink sink;
  ASSERT_TRUE(bs::serialize(sink, arr));
  EXPECT_EQ(sink.calls, std::vector<std::size_t>{5 * 4});
  EXPECT_EQ(sink.bytes, cat({bytes_of(arr[0]), bytes_of(arr[1]), bytes_of(arr[2]), bytes_of(arr[3]),
                             bytes_of(arr[4])}));
  static_assert(bs::max_serialized_size_v<float[5]> == 20);
  EXPECT_EQ(bs::serialized_size(arr), 20u);

  bs::Buffer buf;
  ASSERT_TRUE(bs::serialize(buf, arr));
  float back[5] = {};
  ASSERT_TRUE(bs::deserialize(buf, back));
  EXPECT_EQ(std::memcmp(back, arr, sizeof arr), 0);
}

TEST(Trivial, MultiDimensionalAndStructArrays) {
  std::int32_t grid[3][4];
  for (int r = 0; r < 3; ++r)
    for (int c = 0; c < 4; ++c) grid[r][c] = r * 10 - c;
  CountingSink sink;
  ASSERT_TRUE(bs::serialize(sink, grid));
  EXPECT_EQ(sink.calls, std::vector<std::size_t>{48});
  std::int32_t back[3][4] = {};
  bs::BufferView view(sink.bytes);
  ASSERT_TRUE(bs::deserialize(view, back));
  EXPECT_EQ(std::memcmp(back, grid, sizeof grid), 0);

  const Padded rows[2] = {{1, 2.0f, 3, 4.0}, {5, 6.0f, 7, 8.0}};
  bs::Buffer buf;
  ASSERT_TRUE(bs::serialize(buf, rows));
  EXPECT_EQ(buf.size(), 2 * sizeof(Padded));
}

TEST(Trivial, ByteAndChar8) {
  bs::Buffer buf;
  ASSERT_TRUE(bs::serialize(buf, std::byte{0xC3}));
  ASSERT_TRUE(bs::serialize(buf, char8_t{0xA9}));
  ASSERT_TRUE(bs::serialize(buf, u8'z'));
  EXPECT_EQ(hex(buf), "c3a97a");
  std::byte b{};
  char8_t c1{}, c2{};
  ASSERT_TRUE(bs::deserialize(buf, b) && bs::deserialize(buf, c1) && bs::deserialize(buf, c2));
  EXPECT_EQ(b, std::byte{0xC3});
  EXPECT_EQ(c1, char8_t{0xA9});
  EXPECT_EQ(c2, u8'z');
}

// ------------------------------------------------------------------ bool bytes

namespace {

// A source with read() only, for the stream decoding path.
struct StreamSource {
  std::vector<std::byte> bytes;
  std::size_t pos = 0;
  bool read(void* dst, std::size_t n) {
    if (n > bytes.size() - pos) return false;
    if (n != 0) std::memcpy(dst, bytes.data() + pos, n);
    pos += n;
    return true;
  }
  [[nodiscard]] std::size_t read_position() const { return pos; }
  bool seek(std::size_t p) {
    if (p > bytes.size()) return false;
    pos = p;
    return true;
  }
  error err{};
  [[nodiscard]] error last_error() const { return err; }
  void set_error(error e) { err = e; }
};

// Decodes a uint16 header then a T from `wire`; expects the T to be rejected
// with invalid_value at `bad_offset`, read position back at 2, target unchanged.
template <class T, class Source>
void expect_invalid_bool(Source& src, std::size_t bad_offset, const T& untouched) {
  std::uint16_t head = 0;
  ASSERT_TRUE(bs::deserialize(src, head));
  T target;
  std::memcpy(&target, &untouched, sizeof(T));
  EXPECT_FALSE(bs::deserialize(src, target));
  EXPECT_EQ(src.last_error(), (error{errc::invalid_value, bad_offset}));
  EXPECT_EQ(src.read_position(), 2u);
  EXPECT_EQ(std::memcmp(&target, &untouched, sizeof(T)), 0) << "no invalid byte became a bool";
}

template <class T>
void expect_invalid_bool_everywhere(const std::vector<std::byte>& wire, std::size_t bad_offset,
                                    const T& untouched) {
  {
    bs::BufferView view(wire);
    expect_invalid_bool(view, bad_offset, untouched);
  }
  {
    bs::Buffer buf;
    ASSERT_TRUE(buf.assign(wire));
    expect_invalid_bool(buf, bad_offset, untouched);
  }
  {
    bs::FixedBuffer<64> buf;
    ASSERT_TRUE(buf.write(wire.data(), wire.size()));
    expect_invalid_bool(buf, bad_offset, untouched);
  }
  {
    StreamSource src{wire};
    expect_invalid_bool(src, bad_offset, untouched);
  }
}

} // namespace

TEST(Bool, ZeroAndOneRoundTrip) {
  bs::Buffer buf;
  ASSERT_TRUE(bs::serialize(buf, true) && bs::serialize(buf, false));
  EXPECT_EQ(hex(buf), "0100");
  bool a = false, b = true;
  ASSERT_TRUE(bs::deserialize(buf, a) && bs::deserialize(buf, b));
  EXPECT_TRUE(a);
  EXPECT_FALSE(b);
}

TEST(Bool, BytesOtherThanZeroOrOneAreRejected) {
  for (const unsigned bad : {2u, 0x7Fu, 0x80u, 0xFFu}) {
    SCOPED_TRACE(bad);
    const auto wire = cat({bytes_of(std::uint16_t{0xBEEF}), test_util::byte_vec({bad})});
    expect_invalid_bool_everywhere(wire, 2, true);
    expect_invalid_bool_everywhere(wire, 2, false);
  }
}

TEST(Bool, ArraysAreCheckedElementByElement) {
  const bool untouched[6] = {true, false, true, false, true, false};
  for (std::size_t i = 0; i < 6; ++i) {
    for (const unsigned bad : {2u, 0xFFu}) {
      SCOPED_TRACE(::testing::Message() << "element " << i << " = " << bad);
      auto wire = cat({bytes_of(std::uint16_t{1}), test_util::byte_vec({1, 0, 0, 1, 1, 0})});
      wire[2 + i] = static_cast<std::byte>(bad);
      expect_invalid_bool_everywhere(wire, 2 + i, untouched);
    }
  }
  // A two-dimensional array: the offset counts through the rows.
  const bool grid[2][3] = {{true, true, true}, {false, false, false}};
  auto wire = cat({bytes_of(std::uint16_t{1}), test_util::byte_vec({0, 1, 0, 1, 0, 1})});
  wire[2 + 4] = std::byte{2};
  expect_invalid_bool_everywhere(wire, 6, grid);
}

TEST(Bool, ValidBoolArrayRoundTrips) {
  const bool flags[4] = {true, false, false, true};
  CountingSink sink;
  ASSERT_TRUE(bs::serialize(sink, flags));
  EXPECT_EQ(sink.calls, std::vector<std::size_t>{4});
  EXPECT_EQ(hex(sink.bytes), "01000001");
  bool back[4] = {};
  bs::BufferView view(sink.bytes);
  ASSERT_TRUE(bs::deserialize(view, back));
  EXPECT_EQ(std::memcmp(back, flags, sizeof flags), 0);
}
