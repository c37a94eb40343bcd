// std::basic_string codec: [uint64 length in characters][length * sizeof(CharT) bytes].
#define BIN_SERIALIZER_TEST_COUNT_ALLOCATIONS
#include "test_util.hpp"

#include <algorithm>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

namespace bs = bin_serializer;
using bs::errc;
using bs::error;
using test_util::AllocationProbe;
using test_util::bytes_of;
using test_util::cat;
using test_util::hex;
using test_util::to_vector;

namespace {

// A source with read() only (the stream path). It keeps its own failure
// reason like the library's buffers do. WithRemaining adds remaining(), which
// lets the decoder check a length before allocating; WithSeek adds
// read_position()/seek(), which lets a failed call rewind.
template <bool WithRemaining, bool WithSeek>
class StreamSource {
public:
  explicit StreamSource(std::span<const std::byte> bytes) : bytes_(bytes) {}

  bool read(void* dst, std::size_t n) {
    ++reads;
    largest_read = std::max(largest_read, n);
    if (n > bytes_.size() - pos_) {
      err_ = {errc::truncated, pos_};
      return false;
    }
    if (n != 0) std::memcpy(dst, bytes_.data() + pos_, n);
    pos_ += n;
    return true;
  }
  [[nodiscard]] std::size_t remaining() const
    requires WithRemaining
  {
    return bytes_.size() - pos_;
  }
  [[nodiscard]] std::size_t read_position() const
    requires WithSeek
  {
    return pos_;
  }
  bool seek(std::size_t p)
    requires WithSeek
  {
    if (p > bytes_.size()) return false;
    pos_ = p;
    return true;
  }
  [[nodiscard]] error last_error() const { return err_; }
  void set_error(error e) { err_ = e; }
  [[nodiscard]] std::size_t consumed() const { return pos_; }

  std::size_t reads = 0;
  std::size_t largest_read = 0;

private:
  std::span<const std::byte> bytes_;
  std::size_t pos_ = 0;
  error err_{};
};

// A sink with write() only.
struct StreamSink {
  std::vector<std::byte> bytes;
  bool write(const void* src, std::size_t n) {
    const auto* p = static_cast<const std::byte*>(src);
    bytes.insert(bytes.end(), p, p + n);
    return true;
  }
};

template <class S>
S make(std::initializer_list<std::uint32_t> units) {
  S s;
  for (const auto u : units) s.push_back(static_cast<typename S::value_type>(u));
  return s;
}

// The wire form, built by hand: the length is in characters, the payload is
// the characters' bytes as they are in memory.
template <class S>
std::vector<std::byte> expected_wire(const S& s) {
  return cat({bytes_of(static_cast<std::uint64_t>(s.size())),
              std::as_bytes(std::span(s.data(), s.size()))});
}

template <class S>
void expect_roundtrip(const S& s) {
  bs::Buffer buf;
  ASSERT_TRUE(bs::serialize(buf, s));
  EXPECT_EQ(buf.size(), 8 + s.size() * sizeof(typename S::value_type));
  EXPECT_EQ(bs::serialized_size(s), buf.size());
  EXPECT_TRUE(to_vector(buf.bytes()) == expected_wire(s)) << "wire bytes differ";

  S back = make<S>({'o', 'l', 'd', ' ', 'c', 'o', 'n', 't', 'e', 'n', 't', ' ',
                    'i', 's', ' ', 'r', 'e', 'p', 'l', 'a', 'c', 'e', 'd'});
  ASSERT_TRUE(bs::deserialize(buf, back));
  EXPECT_TRUE(back == s);
  EXPECT_EQ(buf.remaining(), 0u);

  bs::BufferView view(buf.bytes());
  S from_view;
  ASSERT_TRUE(bs::deserialize(view, from_view));
  EXPECT_TRUE(from_view == s);
}

template <class S>
class StringCodec : public ::testing::Test {};

using StringTypes =
    ::testing::Types<std::string, std::u8string, std::u16string, std::u32string, std::wstring>;
TYPED_TEST_SUITE(StringCodec, StringTypes);

} // namespace

TEST(String, GoldenAbc) {
  bs::Buffer buf;
  ASSERT_TRUE(bs::serialize(buf, std::string("abc")));
  if constexpr (std::endian::native == std::endian::little) {
    EXPECT_EQ(hex(buf), "0300000000000000" "616263");
  }
  EXPECT_EQ(to_vector(buf.bytes()), cat({bytes_of(std::uint64_t{3}), test_util::as_bytes("abc")}));
}

TYPED_TEST(StringCodec, Empty) { expect_roundtrip(TypeParam{}); }

TYPED_TEST(StringCodec, OneCharacter) { expect_roundtrip(make<TypeParam>({'x'})); }

TYPED_TEST(StringCodec, EmbeddedNuls) {
  const auto s = make<TypeParam>({0, 'a', 0, 0, 'b', 0});
  ASSERT_EQ(s.size(), 6u);
  expect_roundtrip(s);
}

TYPED_TEST(StringCodec, EveryCodeUnitValueOfAByteAndHighValues) {
  using C = typename TypeParam::value_type;
  TypeParam s;
  for (std::uint32_t v = 0; v < 256; ++v) s.push_back(static_cast<C>(v)); // 0x80..0xFF: non-ASCII
  s.push_back(static_cast<C>(std::numeric_limits<std::make_unsigned_t<C>>::max()));
  s.push_back(static_cast<C>(0xD800)); // a lone surrogate is just a code unit here
  expect_roundtrip(s);
}

TYPED_TEST(StringCodec, OneMebibyte) {
  using C = typename TypeParam::value_type;
  TypeParam s((std::size_t{1} << 20) / sizeof(C), C{});
  for (std::size_t i = 0; i < s.size(); ++i) s[i] = static_cast<C>((i * 2654435761U) >> 7);
  expect_roundtrip(s);
}

TYPED_TEST(StringCodec, BackToBackStrings) {
  const TypeParam a = make<TypeParam>({'a'});
  const TypeParam b{};
  const TypeParam c = make<TypeParam>({'c', 0, 'c'});
  bs::Buffer buf;
  ASSERT_TRUE(bs::serialize(buf, a) && bs::serialize(buf, b) && bs::serialize(buf, c));
  EXPECT_EQ(to_vector(buf.bytes()), cat({expected_wire(a), expected_wire(b), expected_wire(c)}));
  TypeParam x, y, z;
  ASSERT_TRUE(bs::deserialize(buf, x) && bs::deserialize(buf, y) && bs::deserialize(buf, z));
  EXPECT_TRUE(x == a && y == b && z == c);
}

TYPED_TEST(StringCodec, StreamSinkGetsTheSameBytes) {
  const auto s = make<TypeParam>({'s', 't', 0, 'r'});
  StreamSink sink;
  ASSERT_TRUE(bs::serialize(sink, s));
  EXPECT_EQ(sink.bytes, expected_wire(s));
}

TYPED_TEST(StringCodec, LargeStringFromStreamOnlySourceInChunks) {
  using C = typename TypeParam::value_type;
  TypeParam s(200 * 1024 / sizeof(C), C{});
  for (std::size_t i = 0; i < s.size(); ++i) s[i] = static_cast<C>(i * 7 + 1);
  const auto wire = expected_wire(s);
  StreamSource<false, false> src(wire);
  TypeParam back;
  ASSERT_TRUE(bs::deserialize(src, back));
  EXPECT_TRUE(back == s);
  EXPECT_EQ(src.consumed(), wire.size());
  EXPECT_GE(src.reads, 3u) << "payload read in several chunks";
  EXPECT_LT(src.largest_read, 200u * 1024u);
}

// ------------------------------------------------------ hostile length prefixes

namespace {

// [uint32 header][uint64 length = claimed][payload bytes]; the string decode
// starts at offset 4.
std::vector<std::byte> hostile_message(std::uint64_t claimed, std::size_t payload) {
  return cat({bytes_of(std::uint32_t{0xC0FFEE}), bytes_of(claimed),
              std::vector<std::byte>(payload, std::byte{'p'})});
}

template <class S, class Source>
void expect_rejected_without_allocating(Source& src, const char* what) {
  SCOPED_TRACE(what);
  std::uint32_t header = 0;
  ASSERT_TRUE(bs::deserialize(src, header));
  ASSERT_EQ(header, 0xC0FFEEu);
  S target;
  const AllocationProbe probe;
  const bool ok = bs::deserialize(src, target);
  const std::size_t allocations = probe.count();
  EXPECT_FALSE(ok);
  EXPECT_EQ(allocations, 0u) << "a length the input cannot hold must be rejected before allocating";
  EXPECT_EQ(src.last_error(), (error{errc::truncated, 4}));
  EXPECT_EQ(src.read_position(), 4u);
}

template <class S>
void check_hostile(std::uint64_t claimed, std::size_t payload) {
  SCOPED_TRACE(::testing::Message() << "claimed length " << claimed << ", payload " << payload);
  const auto wire = hostile_message(claimed, payload);
  {
    bs::Buffer buf;
    ASSERT_TRUE(buf.assign(wire));
    expect_rejected_without_allocating<S>(buf, "Buffer");
  }
  {
    bs::FixedBuffer<256> buf;
    ASSERT_TRUE(buf.write(wire.data(), wire.size()));
    expect_rejected_without_allocating<S>(buf, "FixedBuffer");
  }
  {
    bs::BufferView view(wire);
    expect_rejected_without_allocating<S>(view, "BufferView");
  }
  {
    StreamSource<true, true> src(wire);
    expect_rejected_without_allocating<S>(src, "stream source with remaining()");
  }
}

} // namespace

TYPED_TEST(StringCodec, HostileLengthPrefixIsRejectedBeforeAllocating) {
  using C = typename TypeParam::value_type;
  constexpr std::size_t payload = 10 * sizeof(C); // room for exactly 10 characters
  check_hostile<TypeParam>(std::numeric_limits<std::uint64_t>::max(), payload);
  check_hostile<TypeParam>(std::uint64_t{1} << 63, payload);
  check_hostile<TypeParam>(std::uint64_t{1} << 32, payload);
  check_hostile<TypeParam>(11, payload); // remaining + 1 character
  if constexpr (sizeof(C) > 1) {
    // length * sizeof(C) wraps around to a small number of bytes
    check_hostile<TypeParam>((std::numeric_limits<std::uint64_t>::max() / sizeof(C)) + 2, payload);
    check_hostile<TypeParam>(10, payload - 1); // one byte short of the last character
  }
}

TYPED_TEST(StringCodec, LengthEqualToRemainingIsAccepted) {
  using C = typename TypeParam::value_type;
  const auto wire = hostile_message(10, 10 * sizeof(C));
  bs::BufferView view(wire);
  std::uint32_t header = 0;
  TypeParam s;
  ASSERT_TRUE(bs::deserialize(view, header) && bs::deserialize(view, s));
  EXPECT_EQ(s.size(), 10u);
  EXPECT_EQ(view.remaining(), 0u);
}

TEST(String, TruncatedLengthPrefix) {
  const auto wire = cat({bytes_of(std::uint16_t{9}), bytes_of(std::uint64_t{3})});
  bs::BufferView view{std::span(wire).first(2 + 5)}; // 5 of the prefix's 8 bytes
  std::uint16_t head = 0;
  ASSERT_TRUE(bs::deserialize(view, head));
  std::string s = "keep";
  EXPECT_FALSE(bs::deserialize(view, s));
  EXPECT_EQ(view.last_error(), (error{errc::truncated, 2}));
  EXPECT_EQ(view.read_position(), 2u);
}

// Without remaining() the decoder cannot check a length up front; it must
// then let memory grow only with the bytes that actually arrive.
TEST(String, HostileLengthFromStreamWithoutRemainingAllocatesBoundedMemory) {
  const auto wire = cat({bytes_of(std::numeric_limits<std::uint64_t>::max()),
                         std::vector<std::byte>(10, std::byte{'z'})});
  StreamSource<false, false> src(wire);
  std::string s;
  const AllocationProbe probe;
  const bool ok = bs::deserialize(src, s);
  const std::size_t largest = probe.largest();
  EXPECT_FALSE(ok);
  EXPECT_EQ(src.last_error().code, errc::truncated);
  EXPECT_LT(largest, std::size_t{1} << 20);
}

TEST(String, FailedDecodeFromSeekableStreamRewinds) {
  const auto wire = cat(
      {bytes_of(std::uint64_t{300 * 1024}), std::vector<std::byte>(100 * 1024, std::byte{'q'})});
  StreamSource<false, true> src(wire);
  std::string s;
  EXPECT_FALSE(bs::deserialize(src, s));
  EXPECT_EQ(src.read_position(), 0u);
  EXPECT_EQ(src.last_error().code, errc::truncated);
  const auto good = expected_wire(std::string("fine"));
  StreamSource<false, true> again(good);
  ASSERT_TRUE(bs::deserialize(again, s)) << "the target is still a valid string";
  EXPECT_EQ(s, "fine");
}
