// Framed messages: header bytes, schema checks, framing a stream, failures.
#include "test_util.hpp"

#include <bin_serializer/io/fd.hpp>
#include <bin_serializer/io/stream.hpp>
#include <bin_serializer/frame/message.hpp>

#include <cstdint>
#include <cstring>
#include <sstream>
#include <string>
#include <vector>

#include "workloads/workloads.hpp"

namespace bs = bin_serializer;
using bs::errc;
using bs::native;
using bs::portable;
using test_util::hex;
using workloads::Person;
using workloads::Tick;

namespace message_test {
struct OldConfig {
  std::uint32_t id = 0;
  std::string name;
  using bin_serializer_evolution = bs::versions<2>;
  bool operator==(const OldConfig&) const = default;
};
struct NewConfig {
  std::uint32_t id = 0;
  std::string name;
  std::int64_t extra = -1;
  using bin_serializer_evolution = bs::versions<2, 3>;
  bool operator==(const NewConfig&) const = default;
};

// Only write(): no direct access.
using WriteOnly = test_util::WriteOnlySink;
// Only read(): a forward-only source.
struct ReadOnly {
  std::span<const std::byte> bytes;
  std::size_t pos = 0;
  bool read(void* p, std::size_t n) {
    if (n > bytes.size() - pos) return false;
    std::memcpy(p, bytes.data() + pos, n);
    pos += n;
    return true;
  }
};
} // namespace message_test

namespace {
using namespace message_test;

std::string le64(std::uint64_t v) {
  std::string out;
  for (int i = 0; i < 8; ++i) {
    static constexpr char digits[] = "0123456789abcdef";
    const auto b = static_cast<unsigned>((v >> (8 * i)) & 0xFF);
    out += digits[b >> 4];
    out += digits[b & 15];
  }
  return out;
}

using test_util::fnv;

TEST(Message, GoldenHeaderPersonPortable) {
  // FORMAT(1) STRUCT(4) STRING(1) SINT(4) STRING(1) SEQUENCE FLOAT(4) END
  constexpr std::uint64_t person_hash =
      fnv({0x01, 1, 0, 0, 0, 0, 0, 0,    0,    0x20, 4, 0, 0, 0, 0, 0, 0, 0,    0x11,
           1,    0, 0, 0, 0, 0, 0, 0,    0x05, 4,    0, 0, 0, 0, 0, 0, 0, 0x11, 1,
           0,    0, 0, 0, 0, 0, 0, 0x12, 0x06, 4,    0, 0, 0, 0, 0, 0, 0, 0x21});
  static_assert(bs::schema_hash_v<Person, portable> == person_hash);
  bs::Buffer buf;
  ASSERT_TRUE(bs::serialize_message<portable>(buf, workloads::make_person()));
  bs::Buffer plain;
  ASSERT_TRUE(bs::serialize<portable>(plain, workloads::make_person()));
  ASSERT_EQ(plain.size(), 68U);
  EXPECT_EQ(hex(buf), "42534d46" "01" "01" "0000" + le64(person_hash) + "4400000000000000" + hex(plain));
}

TEST(Message, GoldenHeaderNative) {
  bs::Buffer buf;
  const Tick t = workloads::make_tick(3);
  ASSERT_TRUE(bs::serialize_message(buf, t));
  const std::string flags = bs::detail::little_endian_host ? "0000" : "0100";
  EXPECT_EQ(hex(buf).substr(0, 48),
            "42534d46" "01" "00" + flags + le64(bs::schema_hash_v<Tick>) + le64(sizeof(Tick)));
  Tick back{};
  ASSERT_TRUE(bs::deserialize_message(buf, back));
  EXPECT_EQ(back, t);
  EXPECT_EQ(buf.read_position(), buf.size());
}

template <bs::options Opts>
void round_trip() {
  bs::Buffer buf;
  const Person p = workloads::make_person();
  const Tick t = workloads::make_tick(9);
  ASSERT_TRUE(bs::serialize_message<Opts>(buf, p));
  ASSERT_TRUE(bs::serialize_message<Opts>(buf, t));
  Person p2;
  Tick t2{};
  ASSERT_TRUE(bs::deserialize_message<Opts>(buf, p2));
  ASSERT_TRUE(bs::deserialize_message<Opts>(buf, t2));
  EXPECT_EQ(p2, p);
  EXPECT_EQ(t2, t);
}
TEST(Message, RoundTripNative) { round_trip<native>(); }
TEST(Message, RoundTripPortable) { round_trip<portable>(); }
TEST(Message, RoundTripUntrusted) { round_trip<bs::untrusted>(); }

template <class T, bs::options Opts = native>
bs::error expect_rejected(const std::vector<std::byte>& bytes, T& target, bool untouched = true) {
  const T before = target;
  bs::BufferView in(bytes);
  EXPECT_FALSE(bs::deserialize_message<Opts>(in, target));
  EXPECT_EQ(in.read_position(), 0U);
  // Header checks come before any field is decoded; a payload that decodes
  // but has the wrong length may leave decoded fields (like deserialize).
  if (untouched) {
    EXPECT_EQ(target, before);
  }
  return in.last_error();
}

std::vector<std::byte> framed_person(bool port = false) {
  bs::Buffer buf;
  if (port)
    EXPECT_TRUE(bs::serialize_message<portable>(buf, workloads::make_person()));
  else
    EXPECT_TRUE(bs::serialize_message(buf, workloads::make_person()));
  return {buf.bytes().begin(), buf.bytes().end()};
}

TEST(Message, SchemaMismatchLeavesValueAndPosition) {
  Tick t = workloads::make_tick(1);
  // The error says what differed and both values: the reader's, the input's.
  EXPECT_EQ(expect_rejected(framed_person(), t),
            bs::error::schema(8, bs::mismatch::fingerprint, bs::schema_hash_v<Tick, native>,
                              bs::schema_hash_v<Person, native>));
  EXPECT_NE((bs::schema_hash_v<Tick, native>), (bs::schema_hash_v<Person, native>));
  EXPECT_EQ(bs::to_string(errc::schema_mismatch), "schema mismatch");
  EXPECT_EQ(bs::mismatch_name(bs::mismatch::fingerprint), "fingerprint");
  // Written portable, read native: the format byte.
  Person p{.name = "keep", .id = 1, .email = {}, .scores = {}};
  const bs::error format = expect_rejected(framed_person(true), p);
  EXPECT_EQ(format, bs::error::schema(5, bs::mismatch::format,
                                      static_cast<std::uint8_t>(bs::wire_format::native),
                                      static_cast<std::uint8_t>(bs::wire_format::portable)));
  EXPECT_EQ(format.what(), bs::mismatch::format);
  EXPECT_NE(format.expected(), format.found());
  // A native message from a host of the other byte order.
  auto bytes = framed_person();
  bytes[6] ^= std::byte{1};
  const std::uint16_t mine = bs::message_header_for<Person, native>().flags;
  EXPECT_EQ(expect_rejected(bytes, p), bs::error::schema(6, bs::mismatch::flags, mine, mine ^ 1U));
}

// Every other error leaves the mismatch fields empty, and a mismatch's
// fields compare: two errors at one offset differ by what they found.
TEST(Message, MismatchFieldsOnlyOnSchemaMismatch) {
  const bs::error plain{errc::truncated, 3};
  EXPECT_EQ(plain.what(), bs::mismatch::none);
  EXPECT_EQ(plain.expected(), 0U);
  EXPECT_EQ(plain.found(), 0U);
  EXPECT_NE(bs::error::schema(8, bs::mismatch::fingerprint, 1, 2),
            bs::error::schema(8, bs::mismatch::fingerprint, 1, 3));
  EXPECT_NE(bs::error::schema(8, bs::mismatch::fingerprint, 1, 2),
            (bs::error{errc::schema_mismatch, 8}));
  EXPECT_EQ((bs::error{errc::schema_mismatch, 8}).what(), bs::mismatch::none);
  // A cleared buffer forgets a mismatch and its values.
  bs::Buffer buf;
  buf.set_error(bs::error::schema(8, bs::mismatch::type_id, 1, 2));
  EXPECT_EQ(buf.last_error().found(), 2U);
  buf.clear();
  EXPECT_EQ(buf.last_error(), bs::error{});
  EXPECT_EQ(buf.last_error().what(), bs::mismatch::none);
  EXPECT_EQ(buf.last_error().found(), 0U);
  auto bytes = framed_person();
  bytes[0] = std::byte{'X'};
  Person p;
  EXPECT_EQ(expect_rejected(bytes, p), (bs::error{errc::bad_header, 0}));
}

TEST(Message, BadHeaders) {
  Person p{.name = "keep", .id = 1, .email = {}, .scores = {}};
  const auto good = framed_person();
  auto bad = good;
  bad[0] = std::byte{'X'};
  EXPECT_EQ(expect_rejected(bad, p), (bs::error{errc::bad_header, 0}));
  bad = good;
  bad[4] = std::byte{2};
  EXPECT_EQ(expect_rejected(bad, p), (bs::error{errc::bad_header, 4}));
  bad = good;
  bad[5] = std::byte{3}; // 0 native, 1 portable, 2 compact: no format 3
  EXPECT_EQ(expect_rejected(bad, p), (bs::error{errc::bad_header, 5}));
  bad[5] = std::byte{0xFF};
  EXPECT_EQ(expect_rejected(bad, p), (bs::error{errc::bad_header, 5}));
  bad = good;
  bad[7] = std::byte{0x80};
  EXPECT_EQ(expect_rejected(bad, p), (bs::error{errc::bad_header, 6}));
  auto port = framed_person(true);
  port[6] = std::byte{1}; // the byte-order flag means nothing in portable
  EXPECT_EQ((expect_rejected<Person, portable>(port, p)), (bs::error{errc::bad_header, 6}));
}

TEST(Message, PayloadLengthMustMatch) {
  Person p{.name = "keep", .id = 1, .email = {}, .scores = {}};
  const auto good = framed_person(true);
  auto bytes = good;
  bytes[16] = std::byte{static_cast<unsigned char>(std::to_integer<unsigned>(bytes[16]) + 1)};
  EXPECT_EQ((expect_rejected<Person, portable>(bytes, p)).code,
            errc::truncated); // longer than the input
  bytes.push_back(std::byte{0});
  EXPECT_EQ((expect_rejected<Person, portable>(bytes, p, false)),
            (bs::error{errc::invalid_value, 24 + 69}));
  bytes = good;
  bytes[16] = std::byte{static_cast<unsigned char>(std::to_integer<unsigned>(bytes[16]) - 1)};
  EXPECT_EQ((expect_rejected<Person, portable>(bytes, p, false)),
            (bs::error{errc::invalid_value, 24 + 67}));
  bytes = good;
  bytes[23] = std::byte{0xff}; // 2^63-ish
  EXPECT_EQ((expect_rejected<Person, portable>(bytes, p)), (bs::error{errc::truncated, 16}));
  constexpr auto small = bs::options{.format = bs::wire_format::portable, .max_total_bytes = 60};
  EXPECT_EQ((expect_rejected<Person, small>(good, p)), (bs::error{errc::limit_exceeded, 16}));
}

TEST(Message, TruncatedAtEveryOffset) {
  const auto full = framed_person(true);
  for (std::size_t n = 0; n < full.size(); ++n) {
    Person p{.name = "keep", .id = 1, .email = {}, .scores = {}};
    const std::vector<std::byte> cut(full.begin(), full.begin() + static_cast<std::ptrdiff_t>(n));
    const auto e = expect_rejected<Person, portable>(cut, p);
    EXPECT_EQ(e.code, n == 0 ? errc::end_of_stream : errc::truncated) << n;
  }
}

TEST(Message, StreamOfMixedMessages) {
  bs::Buffer stream;
  ASSERT_TRUE(bs::serialize_message<portable>(stream, workloads::make_person()));
  ASSERT_TRUE(bs::serialize_message<portable>(stream, std::vector<std::uint16_t>{1, 2, 3}));
  ASSERT_TRUE(bs::serialize_message<portable>(stream, workloads::make_tick(4)));
  ASSERT_TRUE(bs::serialize_message<portable>(stream, workloads::make_person()));

  int persons = 0, ticks = 0, skipped = 0;
  bs::message_header h;
  while (bs::read_message_header(stream, h)) {
    if (bs::message_is<Person, portable>(h)) {
      Person p;
      ASSERT_TRUE(bs::deserialize_message_payload<portable>(stream, h, p));
      EXPECT_EQ(p, workloads::make_person());
      ++persons;
    } else if (bs::message_is<Tick, portable>(h)) {
      Tick t{};
      ASSERT_TRUE(bs::deserialize_message_payload<portable>(stream, h, t));
      EXPECT_EQ(t, workloads::make_tick(4));
      ++ticks;
    } else {
      EXPECT_EQ(h.payload_length, 8U + 6U);
      ASSERT_TRUE(bs::skip_message_payload(stream, h));
      ++skipped;
    }
  }
  EXPECT_EQ(stream.read_position(), stream.size());
  EXPECT_EQ(persons, 2);
  EXPECT_EQ(ticks, 1);
  EXPECT_EQ(skipped, 1);
  // The loop ended at the clean end of the input, not inside a message.
  EXPECT_EQ(stream.last_error(), (bs::error{errc::end_of_stream, stream.size()}));

  // skip_message steps over whole messages; the mismatch on the last keeps its position.
  ASSERT_TRUE(stream.seek(0));
  ASSERT_TRUE(bs::skip_message(stream));
  ASSERT_TRUE(bs::skip_message(stream));
  const std::size_t third = stream.read_position();
  Person wrong;
  EXPECT_FALSE(bs::deserialize_message<portable>(stream, wrong));
  EXPECT_EQ(stream.last_error().code, errc::schema_mismatch);
  EXPECT_EQ(stream.last_error().offset, third + 8);
  EXPECT_EQ(stream.last_error().what(), bs::mismatch::fingerprint);
  EXPECT_EQ(stream.last_error().expected(), (bs::schema_hash_v<Person, portable>));
  EXPECT_NE(stream.last_error().found(), stream.last_error().expected());
  EXPECT_EQ(stream.read_position(), third);
  Tick t{};
  EXPECT_FALSE(
      bs::deserialize_message_payload<portable>(stream, h, t)); // h is the header of a Person
}

TEST(Message, EvolvableVersionsInteroperate) {
  static_assert(bs::schema_hash_v<OldConfig> == bs::schema_hash_v<NewConfig>);
  bs::Buffer buf;
  ASSERT_TRUE(bs::serialize_message<portable>(buf, NewConfig{5, "n", 77}));
  ASSERT_TRUE(bs::serialize_message<portable>(buf, OldConfig{6, "o"}));
  OldConfig o;
  NewConfig n;
  ASSERT_TRUE(bs::deserialize_message<portable>(buf, o));
  EXPECT_EQ(o, (OldConfig{5, "n"}));
  ASSERT_TRUE(bs::deserialize_message<portable>(buf, n));
  EXPECT_EQ(n, (NewConfig{6, "o", -1}));
}

TEST(Message, FailedWriteLeavesBufferAsItWas) {
  bs::FixedBuffer<40> small;
  ASSERT_TRUE(bs::serialize(small, std::uint32_t{7}));
  EXPECT_FALSE(bs::serialize_message<portable>(small, workloads::make_person()));
  EXPECT_EQ(small.size(), 4U);
  EXPECT_EQ(small.last_error().code, errc::buffer_full);
  bs::FixedBuffer<20> tiny; // not even the header fits
  EXPECT_FALSE(bs::serialize_message(tiny, std::uint8_t{1}));
  EXPECT_EQ(tiny.size(), 0U);
}

// One-block payloads (Tick) have a constant header and take an inlined path
// that compares it whole; every way of failing it must still give the checked
// path's exact reason and offset.
std::vector<std::byte> framed_tick(std::uint64_t i) {
  bs::Buffer buf;
  EXPECT_TRUE(bs::serialize_message(buf, workloads::make_tick(i)));
  return {buf.bytes().begin(), buf.bytes().end()};
}

TEST(MessageFixedPayload, HeaderIsTheConstantOfItsType) {
  static_assert(bs::detail::fixed_message<Tick, native>);
  static_assert(!bs::detail::fixed_message<Person, native>);
  const auto bytes = framed_tick(5);
  ASSERT_EQ(bytes.size(), 24 + sizeof(Tick));
  const auto& expected = bs::detail::fixed_header<Tick, native>;
  EXPECT_EQ(std::memcmp(bytes.data(), expected.data(), 24), 0);
  // The same bytes as the general path computes for this header.
  const auto h = bs::message_header_for<Tick>(sizeof(Tick));
  unsigned char raw[32];
  bs::detail::encode_header(raw, h);
  EXPECT_EQ(std::memcmp(raw, expected.data(), 24), 0);
}

TEST(MessageFixedPayload, FailuresReportWhatTheCheckedPathReports) {
  const auto good = framed_tick(7);
  Tick t = workloads::make_tick(1);
  auto bad = good;
  bad[0] = std::byte{'X'};
  EXPECT_EQ(expect_rejected(bad, t), (bs::error{errc::bad_header, 0}));
  bad = good;
  bad[9] ^= std::byte{1}; // another fingerprint
  EXPECT_EQ(expect_rejected(bad, t),
            bs::error::schema(8, bs::mismatch::fingerprint, bs::schema_hash_v<Tick, native>,
                              bs::schema_hash_v<Tick, native> ^ 0x100U));
  bad = good;
  bad[16] = std::byte{static_cast<unsigned char>(sizeof(Tick) + 8)}; // longer than the input
  EXPECT_EQ(expect_rejected(bad, t).code, errc::truncated);
  bad.resize(bad.size() + 8); // ... now present, but not what a Tick consumes
  EXPECT_EQ(expect_rejected(bad, t, false),
            (bs::error{errc::invalid_value, 24 + sizeof(Tick) + 8})); // the declared end
  for (std::size_t n = 0; n < good.size(); ++n) {
    const std::vector<std::byte> cut(good.begin(), good.begin() + static_cast<std::ptrdiff_t>(n));
    EXPECT_EQ(expect_rejected(cut, t).code, n == 0 ? errc::end_of_stream : errc::truncated) << n;
  }
  // A clamp below one message is reported as the limit, by the checked path.
  constexpr auto small = bs::options{.max_total_bytes = 30};
  EXPECT_EQ((expect_rejected<Tick, small>(good, t)).code, errc::limit_exceeded);
}

struct TwoFlags {
  bool a;
  bool b;
  bool operator==(const TwoFlags&) const = default;
};

TEST(MessageFixedPayload, PayloadChecksStillRun) {
  static_assert(bs::detail::fixed_message<TwoFlags, bs::untrusted>);
  bs::Buffer buf;
  ASSERT_TRUE(bs::serialize_message<bs::untrusted>(buf, TwoFlags{true, false}));
  std::vector<std::byte> bytes(buf.bytes().begin(), buf.bytes().end());
  bytes[24 + 1] = std::byte{2};
  TwoFlags f{false, true};
  EXPECT_EQ((expect_rejected<TwoFlags, bs::untrusted>(bytes, f, false)),
            (bs::error{errc::invalid_value, 25}));
}

TEST(MessageFixedPayload, BackToBackAndFixedBuffers) {
  bs::FixedBuffer<2 * (24 + sizeof(Tick)) + 10> out;
  ASSERT_TRUE(bs::serialize_message(out, workloads::make_tick(1)));
  ASSERT_TRUE(bs::serialize_message(out, workloads::make_tick(2)));
  EXPECT_FALSE(bs::serialize_message(out, workloads::make_tick(3)));
  EXPECT_EQ(out.size(), 2 * (24 + sizeof(Tick)));
  EXPECT_EQ(out.last_error(), (bs::error{errc::buffer_full, out.size()}));
  Tick t{};
  ASSERT_TRUE(bs::deserialize_message(out, t));
  EXPECT_EQ(t, workloads::make_tick(1));
  ASSERT_TRUE(bs::deserialize_message(out, t));
  EXPECT_EQ(t, workloads::make_tick(2));
  EXPECT_FALSE(bs::deserialize_message(out, t));
  EXPECT_EQ(out.last_error(), (bs::error{errc::end_of_stream, out.size()}));
  EXPECT_EQ(t, workloads::make_tick(2));
}

TEST(Message, PlainBuffersWriteAndReadTheSameBytes) {
  WriteOnly out;
  ASSERT_TRUE(bs::serialize_message<portable>(out, workloads::make_person()));
  EXPECT_EQ(out.bytes, framed_person(true));
  ReadOnly in{out.bytes};
  Person p;
  ASSERT_TRUE(bs::deserialize_message<portable>(in, p));
  EXPECT_EQ(p, workloads::make_person());
  EXPECT_EQ(in.pos, out.bytes.size());
  ReadOnly in2{out.bytes};
  Tick t{};
  EXPECT_FALSE(bs::deserialize_message<portable>(in2, t));
}

// ---- message type identity (flags bit 1 + u32 type_id after the 24 bytes)

struct Bid {
  std::uint64_t ts;
  double px;
  static constexpr std::uint32_t bin_serializer_message_id = 1;
  bool operator==(const Bid&) const = default;
};
struct Ask { // its id comes from the trait below
  std::uint64_t ts;
  double px;
  bool operator==(const Ask&) const = default;
};
struct Quote { // same shape, no id
  std::uint64_t ts;
  double px;
  bool operator==(const Quote&) const = default;
};
struct Note { // not a one-block payload
  std::string text;
  static constexpr std::uint32_t bin_serializer_message_id = 0x01020304;
  bool operator==(const Note&) const = default;
};

} // namespace

template <>
struct bin_serializer::message_id<Ask> : std::integral_constant<std::uint32_t, 42> {};

namespace {

TEST(MessageTypeId, DeclaredByMemberOrTrait) {
  static_assert(bs::message_id_v<Bid> == 1);
  static_assert(bs::message_id_v<const Bid> == 1);
  static_assert(bs::message_id_v<Ask> == 42);
  static_assert(bs::message_id_v<Quote> == 0);
  static_assert(bs::message_id_v<Person> == 0);
  static_assert(bs::message_id_v<std::uint32_t> == 0);
  static_assert(bs::message_id_v<Note> == 0x01020304);
  // Same shape, one fingerprint: only the id tells them apart.
  static_assert(bs::schema_hash_v<Bid, portable> == bs::schema_hash_v<Ask, portable>);
  static_assert(bs::schema_hash_v<Bid, portable> == bs::schema_hash_v<Quote, portable>);
  static_assert(bs::message_header_size_v<Bid> == 32);
  static_assert(bs::message_header_size_v<Quote> == 24);
  static_assert(bs::message_header_for<Ask, portable>().type_id == 42);
  static_assert(bs::message_header_for<Ask, portable>().flags == bs::message_flag_type_id);
  static_assert(bs::message_header_for<Ask, portable>().size() == 32);
  static_assert(bs::message_header_for<Quote, portable>().flags == 0);
  static_assert(bs::message_header_for<Quote, portable>().size() == 24);
}

template <class T, bs::options Opts = portable>
std::vector<std::byte> framed(const T& v) {
  bs::Buffer buf;
  EXPECT_TRUE(bs::serialize_message<Opts>(buf, v));
  return {buf.bytes().begin(), buf.bytes().end()};
}

TEST(MessageTypeId, GoldenBytes) {
  const std::string hash = le64(bs::schema_hash_v<Ask, portable>);
  // Ask{ts = 7, px = 1.5}: flags 0x0002, type_id 42, 4 zero bytes, payload.
  EXPECT_EQ(hex(framed(Ask{7, 1.5})), "42534d46" "01" "01" "0200" + hash + "1000000000000000" +
                                          "2a000000" "00000000" +
                                          "0700000000000000" "000000000000f83f");
  // A type without an id keeps the 24-byte header, byte for byte.
  EXPECT_EQ(hex(framed(Quote{7, 1.5})), "42534d46" "01" "01" "0000" + hash + "1000000000000000" +
                                            "0700000000000000" "000000000000f83f");
  // The general (not one-block) path writes the same layout.
  EXPECT_EQ(hex(framed(Note{"hi"})).substr(0, 64),
            "42534d46" "01" "01" "0200" + le64(bs::schema_hash_v<Note, portable>) +
                "0a00000000000000" "04030201" "00000000");
  // Native: the id is little-endian too, whatever the host.
  const std::string flags = bs::detail::little_endian_host ? "0200" : "0300";
  EXPECT_EQ(hex(framed<Bid, native>(Bid{1, 2})).substr(0, 64),
            "42534d46" "01" "00" + flags + le64(bs::schema_hash_v<Bid>) + le64(sizeof(Bid)) +
                "01000000" "00000000");
}

template <class T, bs::options Opts = portable>
void round_trip_id(const T& v) {
  const auto bytes = framed<T, Opts>(v);
  EXPECT_EQ(bytes.size(), bs::message_header_size_v<T> + bs::serialized_size<Opts>(v));
  bs::BufferView in(bytes);
  T back{};
  ASSERT_TRUE(bs::deserialize_message<Opts>(in, back));
  EXPECT_EQ(back, v);
  EXPECT_EQ(in.read_position(), bytes.size());
  // A write()-only sink and a read()-only source agree with the direct path.
  WriteOnly out;
  ASSERT_TRUE(bs::serialize_message<Opts>(out, v));
  EXPECT_EQ(out.bytes, bytes);
  ReadOnly src{bytes};
  T back2{};
  ASSERT_TRUE(bs::deserialize_message<Opts>(src, back2));
  EXPECT_EQ(back2, v);
  EXPECT_EQ(src.pos, bytes.size());
}

TEST(MessageTypeId, RoundTrips) {
  round_trip_id(Bid{1, 2.5});
  round_trip_id(Ask{3, 4.5});
  round_trip_id(Note{"a note"});
  round_trip_id<Bid, native>(Bid{5, 6.5});
  round_trip_id<Note, native>(Note{"native"});
  round_trip_id<Ask, bs::untrusted>(Ask{7, 8.5});
}

TEST(MessageTypeId, SameShapeOtherTypeIsRejected) {
  Ask a{9, 9.5};
  const Ask before = a;
  // Another id: the type_id field.
  EXPECT_EQ(
      (expect_rejected<Ask, portable>(framed(Bid{1, 2}), a)),
      bs::error::schema(24, bs::mismatch::type_id, bs::message_id_v<Ask>, bs::message_id_v<Bid>));
  // No id where one is expected, and the reverse: the flags field.
  EXPECT_EQ((expect_rejected<Ask, portable>(framed(Quote{1, 2}), a)),
            bs::error::schema(6, bs::mismatch::flags, bs::message_flag_type_id, 0));
  Quote q{3, 4};
  EXPECT_EQ((expect_rejected<Quote, portable>(framed(Ask{1, 2}), q)),
            bs::error::schema(6, bs::mismatch::flags, 0, bs::message_flag_type_id));
  Note n{"keep"};
  EXPECT_EQ(
      (expect_rejected<Note, portable>(framed(Bid{1, 2}), n)),
      bs::error::schema(24, bs::mismatch::type_id, bs::message_id_v<Note>, bs::message_id_v<Bid>));
  EXPECT_EQ(a, before);

  bs::message_header h;
  const auto bid = framed(Bid{1, 2});
  bs::BufferView in(bid);
  ASSERT_TRUE(bs::read_message_header(in, h));
  EXPECT_EQ(h.type_id, 1U);
  EXPECT_EQ(h.size(), 32U);
  EXPECT_EQ(in.read_position(), 32U);
  EXPECT_TRUE((bs::message_is<Bid, portable>(h)));
  EXPECT_FALSE((bs::message_is<Ask, portable>(h)));
  EXPECT_FALSE((bs::message_is<Quote, portable>(h)));
  EXPECT_FALSE((bs::message_is<Bid, native>(h)));
  // The payload call reports header offsets from the 32-byte header's start.
  EXPECT_FALSE((bs::deserialize_message_payload<portable>(in, h, a)));
  EXPECT_EQ(in.last_error(), bs::error::schema(24, bs::mismatch::type_id, bs::message_id_v<Ask>,
                                               bs::message_id_v<Bid>));
  EXPECT_EQ(in.read_position(), 32U);
  Bid b{};
  ASSERT_TRUE((bs::deserialize_message_payload<portable>(in, h, b)));
  EXPECT_EQ(b, (Bid{1, 2}));
}

TEST(MessageTypeId, BadExtensions) {
  const auto good = framed(Ask{1, 2});
  Ask a{5, 6};
  auto bad = good;
  bad[24] = bad[25] = bad[26] = bad[27] = std::byte{0}; // flag set, id 0
  EXPECT_EQ((expect_rejected<Ask, portable>(bad, a)), (bs::error{errc::bad_header, 24}));
  bad = good;
  bad[30] = std::byte{1}; // reserved bytes must be zero
  EXPECT_EQ((expect_rejected<Ask, portable>(bad, a)), (bs::error{errc::bad_header, 28}));
  bad = good;
  bad[6] = std::byte{4}; // bit 2 is still reserved
  EXPECT_EQ((expect_rejected<Ask, portable>(bad, a)), (bs::error{errc::bad_header, 6}));
  bad = good;
  bad[6] = std::byte{3}; // the byte-order bit means nothing in portable
  EXPECT_EQ((expect_rejected<Ask, portable>(bad, a)), (bs::error{errc::bad_header, 6}));
  // Cut anywhere (inside the extension too): truncated, nothing consumed.
  for (std::size_t n = 1; n < good.size(); ++n) {
    const std::vector<std::byte> cut(good.begin(), good.begin() + static_cast<std::ptrdiff_t>(n));
    EXPECT_EQ((expect_rejected<Ask, portable>(cut, a)).code, errc::truncated) << n;
    bs::BufferView in(cut);
    bs::message_header h;
    EXPECT_EQ(bs::read_message_header(in, h), n >= 32) << n;
    EXPECT_EQ(in.read_position(), n >= 32 ? 32U : 0U);
    ASSERT_TRUE(in.seek(0));
    EXPECT_FALSE(bs::skip_message(in)) << n;
    EXPECT_EQ(in.read_position(), 0U);
  }
}

TEST(MessageTypeId, FastPathHeaderIsTheConstant) {
  const auto& expected = bs::detail::fixed_header<Bid, native>;
  static_assert(std::tuple_size_v<std::remove_cvref_t<decltype(expected)>> == 32);
  const auto bytes = framed<Bid, native>(Bid{1, 2});
  ASSERT_EQ(bytes.size(), 32 + sizeof(Bid));
  EXPECT_EQ(std::memcmp(bytes.data(), expected.data(), 32), 0);
}

TEST(MessageTypeId, MixedStream) {
  bs::Buffer stream;
  ASSERT_TRUE(bs::serialize_message<portable>(stream, Bid{1, 10}));
  ASSERT_TRUE(bs::serialize_message<portable>(stream, Ask{2, 11}));
  ASSERT_TRUE(bs::serialize_message<portable>(stream, Note{"n"}));
  ASSERT_TRUE(bs::serialize_message<portable>(stream, Quote{3, 12}));
  ASSERT_TRUE(bs::serialize_message<portable>(stream, Ask{4, 13}));
  std::string order;
  bs::message_header h;
  while (bs::read_message_header(stream, h)) {
    if (bs::message_is<Bid, portable>(h)) {
      Bid b{};
      ASSERT_TRUE(bs::deserialize_message_payload<portable>(stream, h, b));
      order += "B" + std::to_string(b.ts);
    } else if (bs::message_is<Ask, portable>(h)) {
      Ask a{};
      ASSERT_TRUE(bs::deserialize_message_payload<portable>(stream, h, a));
      order += "A" + std::to_string(a.ts);
    } else if (bs::message_is<Quote, portable>(h)) {
      Quote q{};
      ASSERT_TRUE(bs::deserialize_message_payload<portable>(stream, h, q));
      order += "Q" + std::to_string(q.ts);
    } else {
      ASSERT_TRUE(bs::skip_message_payload(stream, h));
      order += "?";
    }
  }
  EXPECT_EQ(order, "B1A2?Q3A4");
  EXPECT_EQ(stream.read_position(), stream.size());
  ASSERT_TRUE(stream.seek(0));
  for (int i = 0; i < 5; ++i) ASSERT_TRUE(bs::skip_message(stream)) << i;
  EXPECT_EQ(stream.read_position(), stream.size());
}

// ---- a clean end of input (end_of_stream) vs a message cut short (truncated)

struct Stream3 {
  std::vector<std::byte> bytes;
  std::vector<std::size_t> boundaries; // offsets where a message starts or the input ends
};

Stream3 three_messages() {
  bs::Buffer buf;
  Stream3 s;
  s.boundaries.push_back(0);
  EXPECT_TRUE(bs::serialize_message(buf, workloads::make_tick(1)));
  s.boundaries.push_back(buf.size());
  EXPECT_TRUE(bs::serialize_message(buf, workloads::make_person()));
  s.boundaries.push_back(buf.size());
  EXPECT_TRUE(bs::serialize_message(buf, Ask{5, 6}));
  s.boundaries.push_back(buf.size());
  s.bytes.assign(buf.bytes().begin(), buf.bytes().end());
  return s;
}

// Reads Tick, Person, Ask, Tick, ... until a call fails; returns its error.
template <class In>
bs::error read_until_failure(In& in, int& count) {
  count = 0;
  for (;;) {
    Tick t{};
    Person p;
    Ask a{};
    const bool ok = count % 3 == 0   ? bs::deserialize_message(in, t)
                    : count % 3 == 1 ? bs::deserialize_message(in, p)
                                     : bs::deserialize_message(in, a);
    if (!ok) return in.last_error();
    ++count;
  }
}

bool is_boundary(const Stream3& s, std::size_t n, int& messages) {
  for (std::size_t i = 0; i < s.boundaries.size(); ++i)
    if (s.boundaries[i] == n) {
      messages = static_cast<int>(i);
      return true;
    }
  return false;
}

TEST(MessageEndOfStream, DirectAccessBuffers) {
  const Stream3 s = three_messages();
  for (std::size_t n = 0; n <= s.bytes.size(); ++n) {
    const std::span<const std::byte> cut(s.bytes.data(), n);
    int expected = 0;
    const bool clean = is_boundary(s, n, expected);
    bs::BufferView in(cut);
    int count = 0;
    const bs::error e = read_until_failure(in, count);
    if (clean) {
      EXPECT_EQ(e, (bs::error{errc::end_of_stream, n})) << n;
      EXPECT_EQ(count, expected) << n;
    } else {
      EXPECT_EQ(e.code, errc::truncated) << n;
    }
    // read_message_header and skip_message say the same.
    bs::BufferView frames(cut);
    while (bs::skip_message(frames)) {
    }
    EXPECT_EQ(frames.last_error().code, clean ? errc::end_of_stream : errc::truncated) << n;
    bs::BufferView headers(cut);
    bs::message_header h;
    while (bs::read_message_header(headers, h) && bs::skip_message_payload(headers, h)) {
    }
    EXPECT_EQ(headers.last_error().code, clean ? errc::end_of_stream : errc::truncated) << n;
  }
  // A payload call at the end of input is inside a message: truncated.
  bs::BufferView empty(std::span<const std::byte>{});
  bs::message_header h = bs::message_header_for<Person>(5);
  Person p;
  EXPECT_FALSE(bs::deserialize_message_payload(empty, h, p));
  EXPECT_EQ(empty.last_error().code, errc::truncated);
  // A clamp that leaves no byte is the limit, not the end of the input.
  bs::BufferView clamped(s.bytes);
  Tick t{};
  constexpr auto none = bs::options{.max_total_bytes = 0};
  EXPECT_FALSE(bs::deserialize_message<none>(clamped, t));
  EXPECT_EQ(clamped.last_error().code, errc::limit_exceeded);
  // Buffer and FixedBuffer too (fast path for Tick and the checked one).
  bs::Buffer buf;
  EXPECT_FALSE(bs::deserialize_message(buf, t));
  EXPECT_EQ(buf.last_error(), (bs::error{errc::end_of_stream, 0}));
  bs::FixedBuffer<64> fixed;
  EXPECT_FALSE(bs::deserialize_message(fixed, p));
  EXPECT_EQ(fixed.last_error(), (bs::error{errc::end_of_stream, 0}));
  EXPECT_EQ(bs::to_string(errc::end_of_stream), "end of input at a message boundary");
}

TEST(MessageEndOfStream, IstreamReader) {
  const Stream3 s = three_messages();
  for (std::size_t n = 0; n <= s.bytes.size(); ++n) {
    std::istringstream is(std::string(reinterpret_cast<const char*>(s.bytes.data()), n));
    bs::basic_istream_reader<64> in(is); // small block: refills and compaction mid-message
    int expected = 0;
    const bool clean = is_boundary(s, n, expected);
    int count = 0;
    const bs::error e = read_until_failure(in, count);
    if (clean) {
      EXPECT_EQ(e, (bs::error{errc::end_of_stream, n})) << n;
      EXPECT_EQ(count, expected) << n;
    } else {
      EXPECT_EQ(e.code, errc::truncated) << n;
    }
  }
}

#if defined(BIN_SERIALIZER_HAS_FD_IO)
TEST(MessageEndOfStream, FdReader) {
  const Stream3 s = three_messages();
  std::vector<std::size_t> cuts;
  for (const std::size_t b : s.boundaries) {
    if (b > 0) cuts.push_back(b - 1);
    cuts.push_back(b);
    if (b < s.bytes.size()) cuts.push_back(b + 1);
  }
  for (const std::size_t n : cuts) {
    int fds[2];
    ASSERT_EQ(::pipe(fds), 0);
    ASSERT_EQ(::write(fds[1], s.bytes.data(), n), static_cast<::ssize_t>(n));
    ::close(fds[1]);
    bs::fd_reader in(fds[0]);
    int expected = 0;
    const bool clean = is_boundary(s, n, expected);
    int count = 0;
    const bs::error e = read_until_failure(in, count);
    ::close(fds[0]);
    if (clean) {
      EXPECT_EQ(e, (bs::error{errc::end_of_stream, n})) << n;
      EXPECT_EQ(count, expected) << n;
    } else {
      EXPECT_EQ(e.code, errc::truncated) << n;
    }
  }
}
#endif

} // namespace

// ---- golden vectors: spec/vectors/framed/<format>/message_person.bin

#include <filesystem>
#include <fstream>
#include <iterator>

namespace {

std::vector<std::byte> read_vector(const std::string& format, const std::string& name) {
  return test_util::read_framed_vector(format, name);
}

TEST(MessageVectors, PersonPortable) {
  const auto file = read_vector("portable", "message_person");
  EXPECT_EQ(file, framed_person(true));
  Person p;
  bs::BufferView in(file);
  ASSERT_TRUE(bs::deserialize_message<portable>(in, p));
  EXPECT_EQ(p, workloads::make_person());
}

TEST(MessageVectors, PersonNativeOnLittleEndianLp64) {
  if constexpr (!bs::detail::little_endian_host || sizeof(void*) != 8)
    GTEST_SKIP() << "the native vectors are little-endian LP64 bytes";
  const auto file = read_vector("native", "message_person");
  EXPECT_EQ(file, framed_person(false));
  Person p;
  bs::BufferView in(file);
  ASSERT_TRUE(bs::deserialize_message(in, p));
  EXPECT_EQ(p, workloads::make_person());
}

} // namespace

// ---- spec/vectors/framed/<format>/message_quote_id.bin: a type with an id

namespace {

struct VQuote { // spec/vector_cases.hpp's Quote: same shape, same id
  std::uint64_t ts;
  double px;
  static constexpr std::uint32_t bin_serializer_message_id = 42;
  bool operator==(const VQuote&) const = default;
};

template <bs::options Opts>
void check_quote_vector(const std::string& format) {
  const auto file = read_vector(format, "message_quote_id");
  const VQuote q{1700000000123456789ULL, 101.25};
  bs::Buffer buf;
  ASSERT_TRUE(bs::serialize_message<Opts>(buf, q));
  EXPECT_EQ(hex(file), hex(buf));
  ASSERT_EQ(file.size(), 32U + 16U);
  bs::BufferView in(file);
  VQuote back{};
  ASSERT_TRUE(bs::deserialize_message<Opts>(in, back));
  EXPECT_EQ(back, q);
  // The same shape without the id is refused.
  bs::BufferView again(file);
  Quote other{};
  EXPECT_FALSE(bs::deserialize_message<Opts>(again, other));
  EXPECT_EQ(again.last_error(),
            bs::error::schema(6, bs::mismatch::flags, 0, bs::message_flag_type_id));
}

TEST(MessageVectors, QuoteWithTypeIdPortable) { check_quote_vector<portable>("portable"); }

TEST(MessageVectors, QuoteWithTypeIdNativeOnLittleEndianLp64) {
  if constexpr (!bs::detail::little_endian_host || sizeof(void*) != 8)
    GTEST_SKIP() << "the native vectors are little-endian LP64 bytes";
  check_quote_vector<native>("native");
}

} // namespace

// ---- max_message_size_v: header + max_serialized_size_v, for FixedBuffer

#include <array>
#include <optional>

namespace {

TEST(MessageMaxSize, ExactValues) {
  static_assert(sizeof(Tick) == 32);
  static_assert(bs::max_message_size_v<Tick> == 56);           // 24 + the 32-byte block
  static_assert(bs::max_message_size_v<Tick, portable> == 49); // 24 + 25 packed bytes
  static_assert(bs::max_message_size_v<const Tick&> == 56);
  static_assert(bs::max_message_size_v<Bid, portable> == 48); // 32 (with type id) + 16
  static_assert(bs::max_message_size_v<std::optional<std::uint32_t>, portable> == 29);
  static_assert(bs::max_message_size_v<std::array<std::uint16_t, 3>, portable> == 30);
}

template <class T, bs::options Opts = native>
void fits_exactly(const T& largest) {
  bs::FixedBuffer<bs::max_message_size_v<T, Opts>> out;
  ASSERT_TRUE(bs::serialize_message<Opts>(out, largest));
  EXPECT_EQ(out.size(), out.capacity());
  T back{};
  ASSERT_TRUE(bs::deserialize_message<Opts>(out, back));
  EXPECT_EQ(back, largest);
  if constexpr (bs::detail::fixed_message<T, Opts>) {
    // (Only for one-block payloads: for the others GCC 12 warns, falsely, about
    // the unreachable payload write into a buffer that has no room for it.)
    bs::FixedBuffer<bs::max_message_size_v<T, Opts> - 1> small;
    EXPECT_FALSE(bs::serialize_message<Opts>(small, largest));
    EXPECT_EQ(small.last_error().code, errc::buffer_full);
    EXPECT_EQ(small.size(), 0U);
  }
}

TEST(MessageMaxSize, FixedBufferOfThatSizeHoldsTheLargestMessage) {
  fits_exactly(workloads::make_tick(3));
  fits_exactly<Tick, portable>(workloads::make_tick(3));
  fits_exactly<Bid, portable>(Bid{1, 2});
  fits_exactly<Ask>(Ask{1, 2});
  fits_exactly<std::optional<std::uint32_t>, portable>(std::optional<std::uint32_t>{7});
}

} // namespace

// Issue 31: a loop that picks messages by type without naming the format
// reads compact (and portable, native) messages, instead of skipping every
// one; naming another format is a schema_mismatch that says "format".
TEST(Message, FormatComesFromTheHeader) {
  for (const bs::wire_format f :
       {bs::wire_format::native, bs::wire_format::portable, bs::wire_format::compact}) {
    bs::Buffer stream;
    const Person person = workloads::make_person();
    const Tick tick = workloads::make_tick(7);
    bool ok = false;
    bs::detail::all_formats::with(static_cast<std::uint8_t>(f), [&](auto p) {
      constexpr bs::options o{.format = decltype(p)::id};
      ok = bs::serialize_message<o>(stream, person) && bs::serialize_message<o>(stream, tick) &&
           bs::serialize_message<o>(stream, std::uint32_t{5});
    });
    ASSERT_TRUE(ok);
    int persons = 0, ticks = 0, skipped = 0;
    bs::message_header h;
    while (bs::read_message_header(stream, h)) {
      EXPECT_EQ(h.format, f);
      if (bs::message_is<Person>(h)) {
        Person p;
        ASSERT_TRUE(bs::deserialize_message_payload(stream, h, p));
        EXPECT_EQ(p, person);
        ++persons;
      } else if (bs::message_is<Tick>(h)) {
        Tick t{};
        ASSERT_TRUE(bs::deserialize_message_payload(stream, h, t));
        EXPECT_EQ(t, tick);
        ++ticks;
      } else {
        ASSERT_TRUE(bs::skip_message_payload(stream, h))
            << static_cast<int>(f) << " " << bs::error_name(stream.last_error().code) << " at "
            << stream.last_error().offset << " payload " << h.payload_length;
        ++skipped;
      }
    }
    EXPECT_EQ(persons, 1);
    EXPECT_EQ(ticks, 1);
    EXPECT_EQ(skipped, 1);
    EXPECT_EQ(stream.last_error().code, errc::end_of_stream);
  }
  // Options named: a message of another format is a mismatch of the format byte.
  bs::Buffer compact_msg;
  ASSERT_TRUE(bs::serialize_message<bs::compact>(compact_msg, workloads::make_tick(1)));
  bs::message_header h;
  ASSERT_TRUE(bs::read_message_header(compact_msg, h));
  EXPECT_TRUE(bs::message_is<Tick>(h));
  EXPECT_TRUE((bs::message_is<Tick, bs::compact>(h)));
  EXPECT_FALSE((bs::message_is<Tick, native>(h)));
  Tick t{};
  EXPECT_FALSE(bs::deserialize_message_payload<native>(compact_msg, h, t));
  EXPECT_EQ(compact_msg.last_error().code, errc::schema_mismatch);
  EXPECT_EQ(compact_msg.last_error().what(), bs::mismatch::format);
  EXPECT_EQ(compact_msg.last_error().offset, 5U);
  EXPECT_TRUE(bs::deserialize_message_payload(compact_msg, h, t));
  EXPECT_EQ(t, workloads::make_tick(1));
}
