// Randomised round trips (fixed seeds, so every run checks the same values):
// many values of each kind appended to one Buffer, then read back in order
// from a Buffer, a FixedBuffer and a BufferView.
#include "test_util.hpp"

#include <array>
#include <bit>
#include <cstdint>
#include <limits>
#include <memory>
#include <random>
#include <string>
#include <vector>

namespace bs = bin_serializer;
using bs::errc;
using test_util::hex;

namespace {

using Rng = std::mt19937_64;

constexpr std::size_t fixed_capacity = std::size_t{4} << 20;
using BigFixedBuffer = bs::FixedBuffer<fixed_capacity>;

// Random bytes, '\0' included; length 0..max_len.
std::string random_string(Rng& rng, std::size_t max_len = 4096) {
  std::string s(static_cast<std::size_t>(rng() % (max_len + 1)), '\0');
  for (char& c : s) c = static_cast<char>(rng());
  return s;
}

struct Person {
  std::string name;
  std::uint32_t age = 0;
  std::string bio;
  double score = 0;
  bool active = false;
  template <class V> auto reflect(V&& v) { return v(name, age, bio, score, active); }
  template <class V> auto reflect(V&& v) const { return v(name, age, bio, score, active); }
  friend bool operator==(const Person&, const Person&) = default;
};

struct Team {
  std::string title;
  Person lead;
  Person members[2];
  std::int16_t rank = 0;
  float weights[3] = {};
  template <class V> auto reflect(V&& v) { return v(title, lead, members, rank, weights); }
  template <class V> auto reflect(V&& v) const { return v(title, lead, members, rank, weights); }
  friend bool operator==(const Team& a, const Team& b) {
    return a.title == b.title && a.lead == b.lead && a.members[0] == b.members[0] &&
           a.members[1] == b.members[1] && a.rank == b.rank &&
           std::memcmp(a.weights, b.weights, sizeof a.weights) == 0;
  }
};

Person random_person(Rng& rng) {
  return {random_string(rng, 64), static_cast<std::uint32_t>(rng()), random_string(rng),
          std::bit_cast<double>(rng() & ~(std::uint64_t{0x7FF} << 52)), // finite: == works
          (rng() & 1) != 0};
}

Team random_team(Rng& rng) {
  Team t;
  t.title = random_string(rng, 100);
  t.lead = random_person(rng);
  t.members[0] = random_person(rng);
  t.members[1] = random_person(rng);
  t.rank = static_cast<std::int16_t>(rng());
  for (float& w : t.weights) w = std::bit_cast<float>(static_cast<std::uint32_t>(rng()));
  return t;
}

enum class E8 : std::uint8_t {};
enum class E64 : std::int64_t {};
enum Unscoped : std::int32_t { unscoped_zero };

// Bitwise equality: NaNs with payloads, -0.0 and padding all compare exactly.
template <class T>
bool same_bits(const T& a, const T& b) {
  return std::memcmp(&a, &b, sizeof(T)) == 0;
}

template <class T>
bool equal(const T& a, const T& b) {
  if constexpr (std::is_floating_point_v<T>)
    return same_bits(a, b);
  else
    return a == b;
}

template <class T>
T random_scalar(Rng& rng) {
  if constexpr (std::is_same_v<T, bool>) {
    return (rng() & 1) != 0;
  } else if constexpr (std::is_same_v<T, float>) {
    return std::bit_cast<float>(static_cast<std::uint32_t>(rng()));
  } else if constexpr (std::is_same_v<T, double>) {
    return std::bit_cast<double>(rng());
  } else if constexpr (std::is_enum_v<T>) {
    return static_cast<T>(static_cast<std::underlying_type_t<T>>(rng()));
  } else {
    return static_cast<T>(rng());
  }
}

// Values with the edges first, then random ones.
template <class T>
std::vector<T> scalar_values(Rng& rng, std::size_t count) {
  std::vector<T> values;
  if constexpr (std::is_arithmetic_v<T>) {
    values = {std::numeric_limits<T>::min(), std::numeric_limits<T>::max(),
              std::numeric_limits<T>::lowest(), T{}};
    if constexpr (std::is_floating_point_v<T>) {
      using L = std::numeric_limits<T>;
      for (const T v : {L::infinity(), -L::infinity(), L::quiet_NaN(), -L::quiet_NaN(),
                        L::signaling_NaN(), L::denorm_min(), -L::denorm_min(), -T{}, L::epsilon()})
        values.push_back(v);
    }
  }
  while (values.size() < count) values.push_back(random_scalar<T>(rng));
  return values;
}

// Appends every value to one Buffer, then reads them all back, in order,
// from each kind of source: a BufferView over the bytes, a FixedBuffer holding
// a copy, and the Buffer itself.
template <class T>
void check_roundtrips(const std::vector<T>& values) {
  bs::Buffer buf;
  std::size_t expected_size = 0;
  for (const T& v : values) {
    ASSERT_TRUE(bs::serialize(buf, v));
    expected_size += bs::serialized_size(v);
  }
  ASSERT_EQ(buf.size(), expected_size);

  bs::BufferView view(buf.bytes());
  ASSERT_LE(buf.size(), fixed_capacity);
  auto fixed = std::make_unique<BigFixedBuffer>();
  ASSERT_TRUE(fixed->write(buf.data(), buf.size()));

  std::size_t mismatches = 0;
  for (std::size_t i = 0; i < values.size(); ++i) {
    T from_view{}, from_fixed{}, from_buffer{};
    ASSERT_TRUE(bs::deserialize(view, from_view)) << "BufferView, value " << i;
    ASSERT_TRUE(bs::deserialize(*fixed, from_fixed)) << "FixedBuffer, value " << i;
    ASSERT_TRUE(bs::deserialize(buf, from_buffer)) << "Buffer, value " << i;
    if (!(equal(from_view, values[i]) && equal(from_fixed, values[i]) &&
          equal(from_buffer, values[i])) &&
        ++mismatches <= 5)
      ADD_FAILURE() << "value " << i << " differs";
  }
  EXPECT_EQ(mismatches, 0u);
  EXPECT_EQ(view.remaining(), 0u);
  EXPECT_EQ(fixed->remaining(), 0u);
  EXPECT_EQ(buf.remaining(), 0u);
}

template <class... Ts>
void check_scalar_types(std::uint64_t seed, std::size_t count) {
  Rng rng(seed);
  int index = 0;
  (
      [&] {
        SCOPED_TRACE(::testing::Message()
                     << "type #" << index++ << " of the list, sizeof " << sizeof(Ts));
        check_roundtrips(scalar_values<Ts>(rng, count));
      }(),
      ...);
}

} // namespace

TEST(RoundTripProperty, EveryIntegerType) {
  check_scalar_types<std::int8_t, std::uint8_t, std::int16_t, std::uint16_t, std::int32_t,
                     std::uint32_t, std::int64_t, std::uint64_t, signed char, unsigned char, short,
                     unsigned short, int, unsigned, long, unsigned long, long long,
                     unsigned long long>(0xA11CE, 2000);
}

TEST(RoundTripProperty, FloatingPointBitPatterns) {
  // Random bit patterns cover NaNs with payloads, infinities, denormals and -0.
  check_scalar_types<float, double>(0xF10A7, 5000);
}

TEST(RoundTripProperty, BoolCharsAndEnums) {
  check_scalar_types<bool, char, char8_t, char16_t, char32_t, wchar_t, std::byte, E8, E64,
                     Unscoped>(0xC4A25, 2000);
}

TEST(RoundTripProperty, CArrays) {
  Rng rng(0xA22A7);
  bs::Buffer buf;
  std::vector<std::array<std::int32_t, 7>> ints;
  std::vector<std::array<double, 3>> doubles;
  std::vector<std::array<bool, 5>> bools;
  std::vector<std::array<std::string, 3>> strings;
  for (int i = 0; i < 300; ++i) {
    std::int32_t a[7];
    double d[3];
    bool b[5];
    std::string s[3];
    for (auto& x : a) x = random_scalar<std::int32_t>(rng);
    for (auto& x : d) x = random_scalar<double>(rng);
    for (auto& x : b) x = random_scalar<bool>(rng);
    for (auto& x : s) x = random_string(rng, 300);
    ASSERT_TRUE(bs::serialize(buf, a) && bs::serialize(buf, d) && bs::serialize(buf, b) &&
                bs::serialize(buf, s));
    ints.push_back(std::to_array(a));
    doubles.push_back(std::to_array(d));
    bools.push_back(std::to_array(b));
    strings.push_back({s[0], s[1], s[2]});
  }
  bs::BufferView view(buf.bytes());
  for (std::size_t i = 0; i < ints.size(); ++i) {
    std::int32_t a[7];
    double d[3];
    bool b[5];
    std::string s[3];
    ASSERT_TRUE(bs::deserialize(view, a) && bs::deserialize(view, d) && bs::deserialize(view, b) &&
                bs::deserialize(view, s))
        << i;
    EXPECT_EQ(std::memcmp(a, ints[i].data(), sizeof a), 0) << i;
    EXPECT_EQ(std::memcmp(d, doubles[i].data(), sizeof d), 0) << i;
    EXPECT_EQ(std::memcmp(b, bools[i].data(), sizeof b), 0) << i;
    EXPECT_TRUE(s[0] == strings[i][0] && s[1] == strings[i][1] && s[2] == strings[i][2]) << i;
  }
  EXPECT_EQ(view.remaining(), 0u);
}

TEST(RoundTripProperty, TriviallyCopyableStructWithRandomPadding) {
  struct Pad {
    std::uint8_t a;
    std::uint64_t b;
    std::uint16_t c;
    std::int32_t d;
  };
  static_assert(std::is_trivially_copyable_v<Pad> && sizeof(Pad) == 24);
  Rng rng(0x9ADD1);
  // Every byte of each object random, padding included (all members are
  // integers, so any pattern is a valid value).
  std::vector<std::array<unsigned char, sizeof(Pad)>> images(1000);
  bs::Buffer buf;
  for (auto& image : images) {
    for (auto& byte : image) byte = static_cast<unsigned char>(rng());
    Pad p;
    std::memcpy(&p, image.data(), sizeof p);
    ASSERT_TRUE(bs::serialize(buf, p));
  }
  ASSERT_EQ(buf.size(), images.size() * sizeof(Pad));
  for (std::size_t i = 0; i < images.size(); ++i) {
    Pad p;
    ASSERT_TRUE(bs::deserialize(buf, p));
    EXPECT_EQ(std::memcmp(&p, images[i].data(), sizeof p), 0)
        << "object " << i << ", padding included";
  }
}

TEST(RoundTripProperty, StringsOfRandomLengthAndBytes) {
  Rng rng(0x57121);
  std::vector<std::string> values = {std::string(), std::string(1, '\0'), std::string(4096, '\0')};
  while (values.size() < 1000) values.push_back(random_string(rng));
  check_roundtrips(values);
}

TEST(RoundTripProperty, ReflectablesWithStrings) {
  Rng rng(0x9E3779B97F4A7C15);
  std::vector<Person> people;
  for (int i = 0; i < 400; ++i) people.push_back(random_person(rng));
  check_roundtrips(people);
}

TEST(RoundTripProperty, NestedReflectables) {
  Rng rng(0x7EA77EA7);
  std::vector<Team> teams;
  for (int i = 0; i < 150; ++i) teams.push_back(random_team(rng));
  check_roundtrips(teams);
}

TEST(RoundTripProperty, MixedSequenceInOneBuffer) {
  Rng rng(0x31415926);
  enum Kind : int { u8, i64, f64, str, person, team, flag, kinds };
  std::vector<int> script;
  std::vector<std::uint8_t> u8s;
  std::vector<std::int64_t> i64s;
  std::vector<double> f64s;
  std::vector<std::string> strs;
  std::vector<Person> people;
  std::vector<Team> teams;
  std::vector<bool> flags;
  bs::Buffer buf;
  for (int i = 0; i < 1500; ++i) {
    const int k = static_cast<int>(rng() % kinds);
    script.push_back(k);
    bool ok = false;
    switch (k) {
    case u8: ok = bs::serialize(buf, u8s.emplace_back(random_scalar<std::uint8_t>(rng))); break;
    case i64: ok = bs::serialize(buf, i64s.emplace_back(random_scalar<std::int64_t>(rng))); break;
    case f64: ok = bs::serialize(buf, f64s.emplace_back(random_scalar<double>(rng))); break;
    case str: ok = bs::serialize(buf, strs.emplace_back(random_string(rng))); break;
    case person: ok = bs::serialize(buf, people.emplace_back(random_person(rng))); break;
    case team: ok = bs::serialize(buf, teams.emplace_back(random_team(rng))); break;
    default:
      flags.push_back(random_scalar<bool>(rng));
      ok = bs::serialize(buf, bool{flags.back()});
      break;
    }
    ASSERT_TRUE(ok) << i;
  }

  const auto read_back = [&](auto& src, const char* what) {
    SCOPED_TRACE(what);
    std::size_t n[kinds] = {};
    for (std::size_t i = 0; i < script.size(); ++i) {
      const int k = script[i];
      const std::size_t j = n[k]++;
      bool ok = false;
      bool same = false;
      switch (k) {
      case u8: {
        std::uint8_t v = 0;
        ok = bs::deserialize(src, v);
        same = v == u8s[j];
        break;
      }
      case i64: {
        std::int64_t v = 0;
        ok = bs::deserialize(src, v);
        same = v == i64s[j];
        break;
      }
      case f64: {
        double v = 0;
        ok = bs::deserialize(src, v);
        same = same_bits(v, f64s[j]);
        break;
      }
      case str: {
        std::string v;
        ok = bs::deserialize(src, v);
        same = v == strs[j];
        break;
      }
      case person: {
        Person v;
        ok = bs::deserialize(src, v);
        same = v == people[j];
        break;
      }
      case team: {
        Team v;
        ok = bs::deserialize(src, v);
        same = v == teams[j];
        break;
      }
      default: {
        bool v = false;
        ok = bs::deserialize(src, v);
        same = v == flags[j];
        break;
      }
      }
      ASSERT_TRUE(ok) << "item " << i;
      ASSERT_TRUE(same) << "item " << i << " of kind " << k;
    }
    EXPECT_EQ(src.remaining(), 0u);
  };

  bs::BufferView view(buf.bytes());
  read_back(view, "BufferView");
  auto fixed = std::make_unique<BigFixedBuffer>();
  ASSERT_TRUE(fixed->write(buf.data(), buf.size()));
  read_back(*fixed, "FixedBuffer");
  read_back(buf, "Buffer");
}

// The design document's Catch2 suite had "Failed serialization leaves partial
// bytes". This library's contract is stronger: a failed call leaves the
// buffer exactly as it was, and everything written before still decodes.
TEST(RoundTripProperty, FailedSerializationLeavesNoPartialBytes) {
  Rng rng(0xFA11ED);
  bs::FixedBuffer<16384> buf;
  std::vector<Team> written;
  std::size_t failures = 0;
  for (int i = 0; i < 400; ++i) {
    const Team t = random_team(rng);
    const std::size_t size_before = buf.size();
    const std::string bytes_before = hex(buf);
    if (bs::serialize(buf, t)) {
      EXPECT_EQ(buf.size(), size_before + bs::serialized_size(t));
      written.push_back(t);
    } else {
      ++failures;
      EXPECT_GT(size_before + bs::serialized_size(t), buf.capacity());
      EXPECT_EQ(buf.last_error().code, errc::buffer_full);
      EXPECT_EQ(buf.size(), size_before);
      EXPECT_EQ(hex(buf), bytes_before);
      if (buf.size() > buf.capacity() / 2) { // make room again
        buf.clear();
        written.clear();
      }
    }
  }
  EXPECT_GT(failures, 10u) << "the property was exercised";
  for (const Team& t : written) {
    Team back;
    ASSERT_TRUE(bs::deserialize(buf, back));
    EXPECT_TRUE(back == t);
  }
  EXPECT_EQ(buf.remaining(), 0u);
}
