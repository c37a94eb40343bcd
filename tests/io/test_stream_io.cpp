// ostream_writer / istream_reader: the same bytes as Buffer, buffering (the
// stream sees one call per block), round trips of many values, large values
// that bypass the block, truncated input, failing streams.
#include "test_util.hpp"

#include <bin_serializer/io/stream.hpp>

#include <algorithm>
#include <cstdint>
#include <sstream>
#include <streambuf>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "workloads/car.hpp"
#include "workloads/person.hpp"
#include "workloads/tick.hpp"

namespace bs = bin_serializer;
using bs::errc;
using test_util::hex;

namespace {

static_assert(bs::WritableBuffer<bs::ostream_writer>);
static_assert(!bs::ReadableBuffer<bs::ostream_writer>);
static_assert(bs::ReadableBuffer<bs::istream_reader>);
static_assert(!bs::ContiguousWritableBuffer<bs::ostream_writer>);
static_assert(bs::ErrorRecordingBuffer<bs::ostream_writer>);
static_assert(bs::ErrorRecordingBuffer<bs::istream_reader>);

std::string hex_of(const std::string& s) {
  return hex(std::span<const std::byte>(reinterpret_cast<const std::byte*>(s.data()), s.size()));
}

// A streambuf that counts the calls that reach it and can be told to fail.
class counting_buf : public std::streambuf {
public:
  std::string out;
  int xsputn_calls = 0;
  bool fail_writes = false;

protected:
  std::streamsize xsputn(const char* s, std::streamsize n) override {
    ++xsputn_calls;
    if (fail_writes) return 0;
    out.append(s, static_cast<std::size_t>(n));
    return n;
  }
  int_type overflow(int_type c) override {
    if (fail_writes) return traits_type::eof();
    if (!traits_type::eq_int_type(c, traits_type::eof()))
      out.push_back(traits_type::to_char_type(c));
    return traits_type::not_eof(c);
  }
};

TEST(StreamIo, GoldenBytesMatchBuffer) {
  std::ostringstream os;
  {
    bs::ostream_writer w(os);
    // The portable format: the same bytes on every host.
    ASSERT_TRUE(bs::serialize<bs::portable>(w, std::uint32_t{0x01020304}));
    ASSERT_TRUE(bs::serialize<bs::portable>(w, std::string("ab")));
    EXPECT_EQ(w.position(), 14u);
    EXPECT_EQ(os.str(), ""); // still in the block
    ASSERT_TRUE(w.flush());
  }
  EXPECT_EQ(hex_of(os.str()), "04030201" "0200000000000000" "6162");

  bs::Buffer buf;
  ASSERT_TRUE(bs::serialize(buf, workloads::make_person()));
  std::ostringstream os2;
  bs::ostream_writer w2(os2);
  ASSERT_TRUE(bs::serialize(w2, workloads::make_person()));
  ASSERT_TRUE(w2.flush());
  EXPECT_EQ(hex_of(os2.str()), hex(buf));
}

TEST(StreamIo, SmallFieldsAreBatchedIntoBlocks) {
  counting_buf sb;
  std::ostream os(&sb);
  {
    bs::basic_ostream_writer<4096> w(os);
    for (std::uint32_t i = 0; i < 10'000; ++i) ASSERT_TRUE(bs::serialize(w, i));
    ASSERT_TRUE(w.flush());
  }
  ASSERT_EQ(sb.out.size(), 40'000u);
  // 40000 bytes in 4096-byte blocks: 10 calls, not 10000.
  EXPECT_EQ(sb.xsputn_calls, 10);
  std::istringstream is(sb.out);
  bs::basic_istream_reader<4096> r(is);
  for (std::uint32_t i = 0; i < 10'000; ++i) {
    std::uint32_t v = 0;
    ASSERT_TRUE(bs::deserialize(r, v));
    ASSERT_EQ(v, i);
  }
  EXPECT_TRUE(r.at_end());
}

TEST(StreamIo, RoundTripsManyMixedValues) {
  std::stringstream ss;
  {
    bs::basic_ostream_writer<256> w(ss); // small block: values straddle blocks
    for (std::uint64_t i = 0; i < 500; ++i) {
      ASSERT_TRUE(bs::serialize(w, workloads::make_car_sequential(i)));
      ASSERT_TRUE(bs::serialize(w, workloads::make_tick(i)));
    }
    ASSERT_TRUE(w.flush());
  }
  bs::basic_istream_reader<256> r(ss);
  for (std::uint64_t i = 0; i < 500; ++i) {
    workloads::Car car;
    workloads::Tick tick{};
    ASSERT_TRUE(bs::deserialize(r, car)) << i;
    ASSERT_TRUE(bs::deserialize(r, tick)) << i;
    ASSERT_EQ(car, workloads::make_car_sequential(i));
    ASSERT_EQ(tick, workloads::make_tick(i));
  }
  EXPECT_TRUE(r.at_end());
}

TEST(StreamIo, ValuesLargerThanTheBlockBypassIt) {
  std::vector<std::uint8_t> big(100'000);
  for (std::size_t i = 0; i < big.size(); ++i) big[i] = static_cast<std::uint8_t>(i * 7);
  counting_buf sb;
  std::ostream os(&sb);
  {
    bs::basic_ostream_writer<1024> w(os);
    ASSERT_TRUE(bs::serialize(w, std::uint8_t{9}));
    ASSERT_TRUE(bs::serialize(w, big));
    ASSERT_TRUE(w.flush());
  }
  // The 9 and the length prefix go out as one block, the payload in one call.
  EXPECT_EQ(sb.xsputn_calls, 2);
  std::istringstream is(sb.out);
  bs::basic_istream_reader<1024> r(is);
  std::uint8_t nine = 0;
  std::vector<std::uint8_t> back;
  ASSERT_TRUE(bs::deserialize(r, nine));
  ASSERT_TRUE(bs::deserialize(r, back));
  EXPECT_EQ(nine, 9);
  EXPECT_EQ(back, big);
}

TEST(StreamIo, TruncatedInputIsTruncatedAtTheValuesByte) {
  bs::Buffer buf;
  ASSERT_TRUE(bs::serialize(buf, std::uint64_t{1}));
  ASSERT_TRUE(bs::serialize(buf, workloads::make_person()));
  std::string bytes(reinterpret_cast<const char*>(buf.data()), buf.size() - 3);
  std::istringstream is(bytes);
  bs::istream_reader r(is);
  std::uint64_t one = 0;
  ASSERT_TRUE(bs::deserialize(r, one));
  workloads::Person p;
  EXPECT_FALSE(bs::deserialize(r, p));
  EXPECT_EQ(r.last_error().code, errc::truncated);
  // The short read is the scores' payload (12 bytes of floats, read at once).
  EXPECT_EQ(r.last_error().offset, buf.size() - 12);
  // The whole value was still in the block: the reader is back at its start.
  EXPECT_EQ(r.read_position(), 8u);
}

std::string bytes_of(const bs::Buffer& buf) {
  return {reinterpret_cast<const char*>(buf.data()), buf.size()};
}

// A length prefix that claims more than the block holds sends the read past
// the block; when the source then runs dry the reader used to have dropped
// the value's first bytes, so the failed deserialize() could not rewind.
TEST(StreamIo, OversizedLengthPrefixStillRewindsToTheValue) {
  bs::Buffer buf;
  ASSERT_TRUE(bs::serialize(buf, std::uint64_t{1}));
  ASSERT_TRUE(bs::serialize(buf, std::uint64_t{100'000}));            // a string's length prefix...
  ASSERT_TRUE(bs::serialize(buf, std::uint64_t{0x4142434445464748})); // ...and 8 of its bytes
  std::istringstream is(bytes_of(buf));
  bs::istream_reader r(is);
  std::uint64_t one = 0;
  ASSERT_TRUE(bs::deserialize(r, one));
  std::string s;
  EXPECT_FALSE(bs::deserialize(r, s));
  EXPECT_EQ(r.last_error(), (bs::error{errc::truncated, 16}));
  EXPECT_EQ(r.read_position(), 8u); // back at the string's prefix
  EXPECT_TRUE(r.in_sync());
  // The bytes are still there to be read as something else.
  std::uint64_t prefix = 0, payload = 0;
  ASSERT_TRUE(bs::deserialize(r, prefix));
  ASSERT_TRUE(bs::deserialize(r, payload));
  EXPECT_EQ(prefix, 100'000u);
  EXPECT_EQ(payload, 0x4142434445464748u);
  EXPECT_TRUE(r.at_end());
}

// The value starts early in the block and its next field needs a refill: the
// compaction used to drop the value's first bytes with the bytes before it.
TEST(StreamIo, RefillKeepsTheOpenValuesBytes) {
  bs::Buffer buf;
  for (std::uint64_t i = 0; i < 5; ++i) ASSERT_TRUE(bs::serialize(buf, i)); // 40 bytes
  // The value at 40: u64, then a string of 20 chars of which 5 arrive.
  ASSERT_TRUE(bs::serialize(buf, std::uint64_t{77}));
  ASSERT_TRUE(bs::serialize(buf, std::uint64_t{20}));
  std::string bytes = bytes_of(buf) + "hello";
  std::istringstream is(bytes);
  bs::basic_istream_reader<64> r(is);
  for (std::uint64_t i = 0; i < 5; ++i) {
    std::uint64_t v = 99;
    ASSERT_TRUE(bs::deserialize(r, v));
    EXPECT_EQ(v, i);
  }
  std::tuple<std::uint64_t, std::string> t;
  EXPECT_FALSE(bs::deserialize(r, t));
  EXPECT_EQ(r.last_error(), (bs::error{errc::truncated, 56}));
  EXPECT_EQ(r.read_position(), 40u);
  EXPECT_TRUE(r.in_sync());
  std::uint64_t again = 0;
  ASSERT_TRUE(bs::deserialize(r, again));
  EXPECT_EQ(again, 77u);
}

// A length prefix that claims about a block's worth: the declared string
// plus its prefix exceeds the block, but the source holds only 18 bytes, all
// of them still in the block. The reader used to give up the value's start
// when the claim was between N - 8 and N - 1 characters (8,191 with the
// default block: position 8, in_sync() false) while every other claim
// rewound. Every declared length around the block size, for three block
// sizes, must rewind to the string's first byte.
template <std::size_t N>
void expect_rewind_around_block_size() {
  for (std::uint64_t declared = N - 40; declared <= N + 40; ++declared) {
    bs::Buffer buf;
    ASSERT_TRUE(bs::serialize(buf, declared));
    std::string bytes = bytes_of(buf) + "0123456789"; // 18 bytes in all
    std::istringstream is(bytes);
    bs::basic_istream_reader<N> r(is);
    std::string s;
    EXPECT_FALSE(bs::deserialize(r, s)) << N << " " << declared;
    EXPECT_EQ(r.last_error(), (bs::error{errc::truncated, 8})) << N << " " << declared;
    EXPECT_EQ(r.read_position(), 0u) << N << " " << declared;
    EXPECT_TRUE(r.in_sync()) << N << " " << declared;
    std::uint64_t prefix = 0;
    ASSERT_TRUE(bs::deserialize(r, prefix)) << N << " " << declared;
    EXPECT_EQ(prefix, declared);
  }
}

TEST(StreamIo, ClaimAroundTheBlockSizeRewindsToTheValue) {
  expect_rewind_around_block_size<64>();
  expect_rewind_around_block_size<4096>();
  expect_rewind_around_block_size<8192>();
}

// The documented limit: a value whose bytes exceed the block cannot be
// rewound, and the reader says so.
TEST(StreamIo, ValueLargerThanTheBlockCannotRewindAndSaysSo) {
  bs::Buffer buf;
  ASSERT_TRUE(bs::serialize(buf, std::string(200, 'x')));
  std::string bytes = bytes_of(buf).substr(0, 150);
  std::istringstream is(bytes);
  bs::basic_istream_reader<64> r(is);
  std::string s;
  EXPECT_FALSE(bs::deserialize(r, s));
  EXPECT_EQ(r.last_error().code, errc::truncated);
  EXPECT_NE(r.read_position(), 0u);
  EXPECT_FALSE(r.in_sync());
  EXPECT_FALSE(r.seek(0)); // the start is gone
  EXPECT_TRUE(r.seek(r.read_position()));
  EXPECT_TRUE(r.in_sync()); // a successful seek() is the caller's resynchronisation
}

// Every prefix of a run of values that each fit the block: a failure always
// leaves the position at the failed value's first byte.
TEST(StreamIo, EveryTruncationRewindsToTheFailedValue) {
  bs::Buffer buf;
  std::vector<std::size_t> starts;
  for (int i = 0; i < 6; ++i) {
    starts.push_back(buf.size());
    ASSERT_TRUE(bs::serialize(buf, workloads::make_person()));
  }
  const std::string all = bytes_of(buf);
  for (std::size_t cut = 0; cut < all.size(); ++cut) {
    std::istringstream is(all.substr(0, cut));
    bs::basic_istream_reader<128> r(is);
    std::size_t decoded = 0;
    workloads::Person p;
    while (bs::deserialize(r, p)) ++decoded;
    ASSERT_LT(decoded, starts.size());
    EXPECT_EQ(r.read_position(), starts[decoded]) << cut;
    EXPECT_TRUE(r.in_sync()) << cut;
  }
}

TEST(StreamIo, EmptyStreamIsAtEndAndTruncated) {
  std::istringstream is("");
  bs::istream_reader r(is);
  EXPECT_TRUE(r.at_end());
  std::uint32_t v = 0;
  EXPECT_FALSE(bs::deserialize(r, v));
  EXPECT_EQ(r.last_error(), (bs::error{errc::truncated, 0}));
}

TEST(StreamIo, HostileLengthPrefixDoesNotAllocateTheClaim) {
  // A vector claiming 2^40 elements, followed by 8 bytes: the stream cannot
  // say how much is left, so decoding grows in bounded chunks and fails.
  bs::Buffer buf;
  ASSERT_TRUE(bs::serialize(buf, std::uint64_t{1} << 40));
  ASSERT_TRUE(bs::serialize(buf, std::uint64_t{7}));
  std::istringstream is(std::string(reinterpret_cast<const char*>(buf.data()), buf.size()));
  bs::istream_reader r(is);
  std::vector<std::uint64_t> v;
  EXPECT_FALSE(bs::deserialize(r, v));
  EXPECT_EQ(r.last_error().code, errc::truncated);
}

TEST(StreamIo, FailingStreamIsIoErrorAndSticky) {
  counting_buf sb;
  sb.fail_writes = true;
  std::ostream os(&sb);
  bs::basic_ostream_writer<64> w(os);
  ASSERT_TRUE(bs::serialize(w, std::uint64_t{1})); // buffered
  EXPECT_FALSE(w.flush());
  EXPECT_EQ(w.last_error(), (bs::error{errc::io_error, 8}));
  EXPECT_TRUE(w.failed());
  sb.fail_writes = false;
  os.clear();
  // Once failed, it stays failed: which bytes reached the stream is unknown.
  std::string big(100, 'x');
  EXPECT_FALSE(bs::serialize(w, big));
  EXPECT_EQ(w.last_error().code, errc::io_error);
  EXPECT_FALSE(w.flush());
}

TEST(StreamIo, BlockOverflowOnBadStreamFailsTheSerialize) {
  std::ostringstream os;
  os.setstate(std::ios::badbit);
  bs::basic_ostream_writer<64> w(os);
  std::vector<std::uint32_t> v(100, 5u); // 408 bytes: needs the stream
  EXPECT_FALSE(bs::serialize(w, v));
  EXPECT_EQ(w.last_error().code, errc::io_error);
}

TEST(StreamIo, BadInputStreamIsIoError) {
  std::istringstream is("abcdefgh");
  is.setstate(std::ios::badbit);
  bs::istream_reader r(is);
  std::uint32_t v = 0;
  EXPECT_FALSE(bs::deserialize(r, v));
  EXPECT_EQ(r.last_error(), (bs::error{errc::io_error, 0}));
  EXPECT_FALSE(r.at_end()); // an error is not the end of input
}

TEST(StreamIo, DestructorFlushes) {
  std::ostringstream os;
  {
    bs::ostream_writer w(os);
    ASSERT_TRUE(bs::serialize<bs::portable>(w, std::uint16_t{0xabcd}));
  }
  EXPECT_EQ(hex_of(os.str()), "cdab");
}

// skip(n): a stream that can seek (a string stream) moves its position
// exactly there, never past its end; one that cannot (a streambuf with no
// seekoff, as a pipe's) is read and dropped. The same bytes follow.
// Hands out a string's bytes through underflow() only: no seeking.
class forward_only_buf : public std::streambuf {
public:
  explicit forward_only_buf(std::string s) : data_(std::move(s)) {}

protected:
  int_type underflow() override {
    if (at_ == data_.size()) return traits_type::eof();
    const std::size_t n = std::min<std::size_t>(100, data_.size() - at_);
    setg(data_.data() + at_, data_.data() + at_, data_.data() + at_ + n);
    at_ += n;
    return traits_type::to_int_type(*gptr());
  }

private:
  std::string data_;
  std::size_t at_ = 0;
};

TEST(StreamIo, SkipSeeksWhereTheStreamCan) {
  const std::string data = test_util::byte_pattern(100000);
  std::istringstream is(data);
  bs::istream_reader r(is);
  char got[4];
  ASSERT_TRUE(r.read(got, 4));
  EXPECT_EQ(r.skip(10), 10U);
  EXPECT_EQ(r.skip(60000), 60000U);
  EXPECT_EQ(r.read_position(), 60014U);
  EXPECT_EQ(static_cast<std::size_t>(is.tellg()), 60014U); // nothing past it was read
  ASSERT_TRUE(r.read(got, 4));
  EXPECT_EQ(std::string(got, 4), data.substr(60014, 4));
  EXPECT_EQ(r.skip(1U << 30), 100000U - 60018U);
  EXPECT_TRUE(r.at_end());
  EXPECT_FALSE(r.failed());
}

TEST(StreamIo, SkipReadsAndDropsWhereTheStreamCannotSeek) {
  const std::string data = test_util::byte_pattern(30000);
  forward_only_buf buf(data);
  std::istream is(&buf);
  bs::basic_istream_reader<256> r(is);
  char got[4];
  ASSERT_TRUE(r.read(got, 4));
  EXPECT_EQ(r.skip(20000), 20000U);
  ASSERT_TRUE(r.read(got, 4));
  EXPECT_EQ(std::string(got, 4), data.substr(20004, 4));
  EXPECT_EQ(r.skip(1U << 20), 30000U - 20008U);
  EXPECT_TRUE(r.at_end());
  EXPECT_FALSE(r.failed());
}

} // namespace
