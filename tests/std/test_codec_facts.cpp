// The codec contract (core/codec_facts.hpp): what the std families state in
// their facts is what their descriptions say, std::array states its own run
// size and borrowing (core/shape.hpp names no family), and a user codec that
// states facts, or a 0.1 codec that states none, gets what it says.
#include "std_codec_test_support.hpp"

#include <array>
#include <bitset>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <list>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace {

namespace bs = bin_serializer;
template <bs::options Opts, class T>
using shape = bs::detail::shape<Opts, T>;

// ---- the std families' facts, through the description -----------------------

static_assert(shape<bs::native, std::vector<int>>::min_size() == 8);
static_assert(shape<bs::compact, std::vector<int>>::min_size() == 1);
static_assert(!shape<bs::native, std::vector<int>>::bounded());
static_assert(shape<bs::native, std::vector<int>>::presizable());
static_assert(shape<bs::native, std::deque<int>>::min_size() == 8);
static_assert(shape<bs::compact, std::list<std::string>>::min_size() == 1);
static_assert(shape<bs::native, std::string>::presizable());

// std::array: its run size, object bytes and borrowing are its own statements.
static_assert(shape<bs::native, std::array<std::uint32_t, 4>>::run_size() == 16);
static_assert(shape<bs::native, std::array<std::uint32_t, 4>>::object_bytes());
static_assert(shape<bs::compact, std::array<std::uint32_t, 4>>::run_size() == 0); // varints
static_assert(shape<bs::compact, std::array<double, 2>>::run_size() == 16);
static_assert(shape<bs::native, std::array<bool, 3>>::run_size() == 3);
static_assert(!shape<bs::native, std::array<bool, 3>>::object_bytes()); // checked bytes
static_assert(shape<bs::native, std::array<bool, 3>>::validates());
static_assert(shape<bs::native, std::array<std::uint8_t, 0>>::run_size() == 0);
static_assert(bs::borrows_input_v<std::array<std::string_view, 2>>);
static_assert(!bs::borrows_input_v<std::array<std::string, 2>>);
static_assert(bs::borrows_input_v<std::vector<std::array<std::string_view, 1>>>);

// Optional, bitset, chrono.
static_assert(shape<bs::native, std::optional<std::uint32_t>>::max_size() == 5);
static_assert(shape<bs::native, std::optional<std::uint32_t>>::min_size() == 1);
static_assert(!shape<bs::native, std::optional<std::string>>::bounded());
static_assert(shape<bs::portable, std::bitset<12>>::run_size() == 2);
static_assert(shape<bs::native, std::chrono::milliseconds>::object_bytes());
static_assert(shape<bs::native, std::chrono::milliseconds>::run_size() == 8);
static_assert(shape<bs::compact, std::chrono::milliseconds>::min_size() == 1);
static_assert(shape<bs::compact, std::chrono::milliseconds>::max_size() == 10);

// A vector of a type whose size is not trusted is not presized: the facts
// say only the codec's own part, the description asks the elements.
struct Opaque {
  std::int32_t v = 0;
  bool operator==(const Opaque&) const = default;
};

// ---- a user codec stating facts ---------------------------------------------

// A 3-byte big-endian integer: every value 3 bytes, so it joins runs.
struct U24 {
  std::uint32_t v = 0;
  bool operator==(const U24&) const = default;
};

// A handle into the input (a view): borrows.
struct Handle {
  const std::byte* p = nullptr;
};

} // namespace

template <>
struct bin_serializer::codec<Opaque> {
  using schema_equivalent = std::int32_t;
  template <class W>
  static bool write(W& w, const Opaque& o) {
    return serialize_field(w, o.v);
  }
  template <class R>
  static bool read(R& r, Opaque& o) {
    return deserialize_field(r, o.v);
  }
};

template <>
struct bin_serializer::codec<U24> {
  static constexpr std::uint64_t schema_id = 0x753234;
  static constexpr codec_facts facts{
      .min_size = 3, .max_size = 3, .run_size = 3, .has_size = true, .trusted_size = true};
  template <options Opts>
  static constexpr std::size_t size(const U24&) {
    return 3;
  }
  template <class W>
  static bool write(W& w, const U24& u) {
    const unsigned char b[3] = {static_cast<unsigned char>(u.v >> 16),
                                static_cast<unsigned char>(u.v >> 8),
                                static_cast<unsigned char>(u.v)};
    return w.write_bytes(b, 3);
  }
  template <class R>
  static bool read(R& r, U24& u) {
    unsigned char b[3];
    if (!r.read_bytes(b, 3)) return false;
    u.v = (std::uint32_t{b[0]} << 16) | (std::uint32_t{b[1]} << 8) | b[2];
    return true;
  }
};

template <>
struct bin_serializer::codec<Handle> {
  using schema_equivalent = std::vector<std::byte>;
  template <options Opts>
  static constexpr codec_facts facts{.min_size = detail::format_of<Opts>::length_min,
                                     .borrows = true};
  template <class W>
  static bool write(W& w, const Handle&) {
    return w.write_length(0);
  }
  template <class R>
  static bool read(R& r, Handle& h) {
    std::size_t n = 0;
    if (!r.read_length(n, 1)) return false;
    h.p = nullptr;
    return n == 0;
  }
};

namespace {

static_assert(!shape<bs::native, Opaque>::presizable());
static_assert(!shape<bs::native, std::vector<Opaque>>::presizable());
static_assert(!shape<bs::native, std::optional<Opaque>>::presizable());

static_assert(bs::max_serialized_size_v<U24> == 3);
static_assert(bs::min_serialized_size_v<U24, bs::compact> == 3);
static_assert(shape<bs::compact, U24>::run_size() == 3);
static_assert(shape<bs::native, U24>::presizable());
static_assert(bs::schema_hash_v<std::vector<U24>> != bs::schema_hash_v<std::vector<std::uint32_t>>);
static_assert(bs::borrows_input_v<Handle>);
static_assert(bs::borrows_input_v<std::vector<Handle>>);
static_assert(shape<bs::compact, Handle>::min_size() == 1);

struct Row {
  std::uint16_t a = 0;
  U24 b;
  std::uint8_t c = 0;
  bool operator==(const Row&) const = default;
};

TEST(CodecFacts, UserCodecWithFacts) {
  using std_codec_test::expect_round_trip;
  using std_codec_test::hex_of;
  EXPECT_EQ(hex_of(U24{0x010203}), "010203");
  EXPECT_EQ(hex_of<bs::compact>(Row{1, {0x0a0b0c}, 2}), "010a0b0c02");
  expect_round_trip(Row{7, {0xfffffe}, 9});
  expect_round_trip<bs::compact>(std::vector<Row>{{1, {2}, 3}, {4, {5}, 6}});
  expect_round_trip<bs::portable>(std::vector<U24>{{1}, {0xffffff}});
}

TEST(CodecFacts, UntrustedElementIsStillExact) {
  std_codec_test::expect_round_trip(std::vector<Opaque>{{1}, {-2}});
  std_codec_test::expect_round_trip<bs::compact>(std::optional<Opaque>{Opaque{300}});
}

} // namespace
