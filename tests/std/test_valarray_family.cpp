// The test-only std::valarray family (tests/std/valarray_codec.hpp): a family
// written against the sequence codec, with no code of its own about counts or
// allocation, passes the hostile-count tests the library's containers pass.
// A count of 2^40, 2^62 or 2^64-1 from a contiguous buffer, from a read-only
// stream and from a std::istringstream fails with truncated (or
// limit_exceeded under a max_element_count) and allocates no more than the
// input and one stream chunk justify; round trips and golden bytes in every
// format.
#define BIN_SERIALIZER_STD_TEST_TRACK_ALLOCATIONS
#include "std_codec_test_support.hpp"

#include <bin_serializer/io/stream.hpp>

#include "valarray_codec.hpp"

#include <cstddef>
#include <cstdint>
#include <limits>
#include <sstream>
#include <string>
#include <valarray>
#include <vector>

namespace {

namespace bs = bin_serializer;
using bs::errc;
using std_codec_test::allocation_stats;
using std_codec_test::from_hex;
using std_codec_test::StreamSource;
using std_codec_test::to_hex;

template <class T>
bool same(const std::valarray<T>& a, const std::valarray<T>& b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i)
    if (!(a[i] == b[i])) return false;
  return true;
}

template <bs::options Opts, class T>
std::vector<std::byte> encode(const std::valarray<T>& v) {
  bs::Buffer buf;
  EXPECT_TRUE(bs::serialize<Opts>(buf, v));
  EXPECT_EQ(bs::serialized_size<Opts>(v), buf.size());
  return std_codec_test::to_vector(buf.bytes());
}

std::string as_string(const std::vector<std::byte>& bytes) {
  return {reinterpret_cast<const char*>(bytes.data()), bytes.size()};
}

// Encodes, then decodes through a BufferView, a read-only stream and a
// std::istringstream, each over a target that already holds something.
template <bs::options Opts, class T>
std::vector<std::byte> expect_round_trip(const std::valarray<T>& v) {
  const std::vector<std::byte> bytes = encode<Opts>(v);
  {
    bs::BufferView view(bytes);
    std::valarray<T> out(T{}, 5);
    EXPECT_TRUE(bs::deserialize<Opts>(view, out)) << view.last_error().message();
    EXPECT_EQ(view.read_position(), bytes.size());
    EXPECT_TRUE(same(out, v));
  }
  {
    StreamSource source(bytes);
    std::valarray<T> out;
    EXPECT_TRUE(bs::deserialize<Opts>(source, out)) << source.last_error().message();
    EXPECT_EQ(source.consumed(), bytes.size());
    EXPECT_TRUE(same(out, v));
  }
  {
    std::istringstream in(as_string(bytes));
    bs::istream_reader reader(in);
    std::valarray<T> out(T{}, 2);
    EXPECT_TRUE(bs::deserialize<Opts>(reader, out)) << reader.last_error().message();
    EXPECT_TRUE(same(out, v));
  }
  return bytes;
}

template <bs::options Opts>
void round_trips() {
  expect_round_trip<Opts>(std::valarray<std::int32_t>{});
  expect_round_trip<Opts>(std::valarray<std::int32_t>{1, -2, 3});
  expect_round_trip<Opts>(std::valarray<double>{0.5, -1.25, 1e300});
  expect_round_trip<Opts>(std::valarray<std::string>{"", "a", std::string(300, 'x')});
  std::valarray<std::uint64_t> big(100000);
  for (std::size_t i = 0; i < big.size(); ++i) big[i] = i * 0x9e3779b97f4a7c15u;
  expect_round_trip<Opts>(big); // more than one stream chunk
}

TEST(ValarrayFamily, RoundTripsNative) { round_trips<bs::native>(); }
TEST(ValarrayFamily, RoundTripsPortable) { round_trips<bs::portable>(); }
TEST(ValarrayFamily, RoundTripsCompact) { round_trips<bs::compact>(); }

// The bytes of the std::vector with the same elements, in every format.
TEST(ValarrayFamily, GoldenBytes) {
  SKIP_UNLESS_LITTLE_ENDIAN();
  const std::valarray<std::int32_t> v{1, -2, 3};
  EXPECT_EQ(to_hex(encode<bs::native>(v)), "0300000000000000" "01000000feffffff03000000");
  EXPECT_EQ(to_hex(encode<bs::portable>(v)), "0300000000000000" "01000000feffffff03000000");
  EXPECT_EQ(to_hex(encode<bs::compact>(v)), "03020306");
  const std::vector<std::int32_t> as_vector{1, -2, 3};
  EXPECT_EQ(to_hex(encode<bs::compact>(v)), std_codec_test::hex_of<bs::compact>(as_vector));
  const std::valarray<std::string> s{"ab", ""};
  EXPECT_EQ(to_hex(encode<bs::native>(s)), "0200000000000000"
                                           "02000000000000006162"
                                           "0000000000000000");
  EXPECT_EQ(to_hex(encode<bs::compact>(s)), "0202616200");
}

TEST(ValarrayFamily, FingerprintIsTheVectors) {
  EXPECT_EQ((bs::schema_hash_v<std::valarray<double>>), (bs::schema_hash_v<std::vector<double>>));
}

TEST(ValarrayFamily, EveryTruncationFails) {
  const std::valarray<std::int32_t> v{7, 8, 9};
  std_codec_test::expect_every_truncation_fails<std::valarray<std::int32_t>, bs::native>(
      encode<bs::native>(v));
  std_codec_test::expect_every_truncation_fails<std::valarray<std::int32_t>, bs::compact>(
      encode<bs::compact>(v));
  const std::valarray<std::string> s{"abc", "de"};
  std_codec_test::expect_every_truncation_fails<std::valarray<std::string>, bs::portable>(
      encode<bs::portable>(s));
}

// ---- hostile counts -----------------------------------------------------------

// A count prefix as format Opts writes it, then a few bytes of elements.
template <bs::options Opts>
std::vector<std::byte> hostile_input(std::uint64_t count) {
  std::vector<std::byte> out;
  if constexpr (Opts.format == bs::wire_format::compact) {
    do { // LEB128
      auto b = static_cast<unsigned char>(count & 0x7f);
      count >>= 7;
      if (count != 0) b |= 0x80;
      out.push_back(static_cast<std::byte>(b));
    } while (count != 0);
  } else {
    for (int i = 0; i < 8; ++i) out.push_back(static_cast<std::byte>((count >> (8 * i)) & 0xff));
  }
  for (int i = 0; i < 24; ++i) out.push_back(std::byte{0x01});
  return out;
}

// Nothing near the count is allocated: at most the reservation one stream
// chunk (64 KiB) justifies, the istream_reader's block, and what decoded.
constexpr std::size_t allocation_limit = std::size_t{256} * 1024;

bool acceptable(errc code) { return code == errc::truncated || code == errc::limit_exceeded; }

template <bs::options Opts, class T>
void expect_refused(std::uint64_t count) {
  SCOPED_TRACE("count " + std::to_string(count));
  const std::vector<std::byte> bytes = hostile_input<Opts>(count);
  {
    bs::BufferView view(bytes);
    std::valarray<T> out;
    allocation_stats::reset();
    EXPECT_FALSE(bs::deserialize<Opts>(view, out));
    EXPECT_LE(allocation_stats::largest, allocation_limit);
    EXPECT_TRUE(acceptable(view.last_error().code)) << view.last_error().message();
    EXPECT_EQ(view.read_position(), 0u);
  }
  {
    StreamSource source(bytes);
    std::valarray<T> out;
    allocation_stats::reset();
    EXPECT_FALSE(bs::deserialize<Opts>(source, out));
    EXPECT_LE(allocation_stats::largest, allocation_limit);
    EXPECT_LE(allocation_stats::total, 4 * allocation_limit);
    EXPECT_TRUE(acceptable(source.last_error().code)) << source.last_error().message();
  }
  {
    std::istringstream in(as_string(bytes));
    bs::istream_reader reader(in);
    std::valarray<T> out;
    allocation_stats::reset();
    EXPECT_FALSE(bs::deserialize<Opts>(reader, out));
    EXPECT_LE(allocation_stats::largest, allocation_limit);
    EXPECT_LE(allocation_stats::total, 4 * allocation_limit);
    EXPECT_TRUE(acceptable(reader.last_error().code)) << reader.last_error().message();
  }
}

template <bs::options Opts>
void hostile_counts() {
  for (const std::uint64_t count : {std::uint64_t{1} << 40, std::uint64_t{1} << 62,
                                    std::numeric_limits<std::uint64_t>::max()}) {
    expect_refused<Opts, double>(count);       // object bytes in native, portable: block copies
    expect_refused<Opts, std::int32_t>(count); // varints in compact: element by element
    expect_refused<Opts, std::string>(count);  // elements that own memory
    expect_refused<Opts, std::valarray<std::uint8_t>>(count); // nested
  }
}

TEST(ValarrayFamily, HostileCountNative) { hostile_counts<bs::native>(); }
TEST(ValarrayFamily, HostileCountPortable) { hostile_counts<bs::portable>(); }
TEST(ValarrayFamily, HostileCountCompact) { hostile_counts<bs::compact>(); }

// From a contiguous buffer the count is refused before anything is read.
TEST(ValarrayFamily, HostileCountIsTruncatedAtThePrefix) {
  const std::vector<std::byte> bytes = hostile_input<bs::native>(std::uint64_t{1} << 40);
  bs::BufferView view(bytes);
  std::valarray<double> out;
  allocation_stats::reset();
  EXPECT_FALSE(bs::deserialize(view, out));
  EXPECT_EQ(view.last_error(), (bs::error{errc::truncated, 0}));
  EXPECT_EQ(allocation_stats::total, 0u);
}

// With a max_element_count, a count above it is limit_exceeded, from any source.
TEST(ValarrayFamily, MaxElementCount) {
  constexpr bs::options opts{.max_element_count = 1000};
  const std::vector<std::byte> bytes = hostile_input<opts>(std::uint64_t{1} << 40);
  StreamSource source(bytes);
  std::valarray<double> out;
  allocation_stats::reset();
  EXPECT_FALSE(bs::deserialize<opts>(source, out));
  EXPECT_EQ(source.last_error().code, errc::limit_exceeded);
  EXPECT_EQ(allocation_stats::total, 0u);
}

} // namespace
